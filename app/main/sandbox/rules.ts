// The rules one sandboxed command runs under, independent of the mechanism (bubblewrap on Linux,
// Seatbelt on macOS): which folders it may write, which paths are hidden from it, whether it has
// network. Also the default list of secret paths every sandbox hides. Pure; never throws.
import path from "node:path";

export interface SandboxRules {
  /** The folder the command starts in (the project). */
  cwd: string;
  /** Folders the command may write: the project, the session's temp folder, the output folder. */
  writable: string[];
  /** Paths replaced by empty, read-only stand-ins (secrets, keyrings, the app's data). */
  hidden: string[];
  /**
   * Paths inside the writable folders that stay read-only: the project's `.git`, whose config,
   * hooks, `commondir`, worktree and submodule configs git reads and runs outside the sandbox
   * too (and no diff shows them). Mounted over, `.git` cannot be renamed and replaced either.
   * A missing folder here is mounted as an empty read-only folder.
   */
  readOnly?: string[];
  network: boolean;
}

/**
 * The read-only paths of a project: its whole `.git` (a folder, or the file of a linked worktree
 * or submodule that names its git folder), as Codex does. Keeping only `config` and `hooks`
 * read-only was not enough: a command could write `.git/commondir` (git then reads another
 * folder's config) or rename `.git` and build a new one, and the user's next `git status`
 * outside the sandbox would run a program the command chose. Commands that write the repository
 * (commit, add, checkout...) therefore ask and run outside the sandbox (command-needs.ts).
 */
export function projectReadOnlyPaths(projectDir: string, exists: (p: string) => boolean): string[] {
  const git = path.join(projectDir, ".git");
  return exists(git) ? [git] : [];
}

/**
 * Secret paths hidden from every sandboxed command, besides the ones the user configures. Sockets
 * are here too: a read-only mount still lets a process connect to a socket, and through the
 * session bus (keyring), ssh-agent, X11 or docker a command would reach the whole account.
 */
export function defaultHiddenPaths(input: { home: string; dataDir?: string; env?: Record<string, string | undefined>; platform?: NodeJS.Platform }): string[] {
  const { home, env = {}, platform = process.platform } = input;
  const inHome = [
    ".ssh",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".kube",
    ".docker",
    ".gnupg",
    ".netrc",
    ".git-credentials",
    ".config/gh",
    ".npmrc",
    ".pypirc",
    ".password-store",
    ".local/share/keyrings",
    ".local/share/kwalletd",
    ".config/Lathe",
  ];
  if (platform === "darwin") inHome.push("Library/Keychains", "Library/Application Support/Lathe");
  const paths = inHome.map((p) => path.join(home, p));
  if (input.dataDir) paths.push(input.dataDir);
  if (platform === "linux") {
    // The session bus (and through it the keyring), Wayland, ssh-agent, podman live here.
    if (env.XDG_RUNTIME_DIR && path.isAbsolute(env.XDG_RUNTIME_DIR)) paths.push(env.XDG_RUNTIME_DIR);
    paths.push("/tmp/.X11-unix", "/run/docker.sock", "/var/run/docker.sock");
  }
  if (env.SSH_AUTH_SOCK && path.isAbsolute(env.SSH_AUTH_SOCK)) paths.push(env.SSH_AUTH_SOCK);
  return [...new Set(paths.map((p) => path.resolve(p)))];
}

/** Variables a sandboxed command does not get: they point at the sockets hidden above. */
export const SANDBOX_DROPPED_ENV = [
  "SSH_AUTH_SOCK",
  "SSH_AGENT_PID",
  "DBUS_SESSION_BUS_ADDRESS",
  "DISPLAY",
  "WAYLAND_DISPLAY",
  "XAUTHORITY",
  "GNOME_KEYRING_CONTROL",
  "DOCKER_HOST",
];

/** `~` and `~/…` against `home`; other relative paths are refused (undefined). */
export function expandConfiguredPath(input: string, home: string): string | undefined {
  const p = input.trim();
  if (p === "" || p.includes("\0")) return undefined;
  if (p === "~") return home;
  if (p.startsWith("~/")) return path.join(home, p.slice(2));
  return path.isAbsolute(p) ? path.resolve(p) : undefined;
}

export function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}
