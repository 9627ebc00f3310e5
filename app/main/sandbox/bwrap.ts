// The bubblewrap command line for one sandboxed command (Linux). The command sees the whole file
// system read-only, its writable folders bound read-write (except the read-only paths inside them),
// every hidden path replaced by an empty read-only folder or file, its own /dev and /proc, new user, PID, IPC, UTS, cgroup and (unless
// network is allowed) network namespaces, no capabilities, and no way to make nested user
// namespaces. Because of the PID namespace the app's processes are invisible, and when the command
// ends (or its init is killed) the kernel kills every process left inside, daemons included.
// No `--new-session`: the pseudo-terminal is the command's own (Lathe holds its other end), so
// keeping it as the controlling terminal lets prompts and job control work and exposes no other
// terminal to TIOCSTI. (bwrap shares the command's process group and dies on SIGINT: kill.ts
// interrupts the command without it.) Pure apart from the file-type probe; never throws.
import { realpathSync, statSync } from "node:fs";
import path from "node:path";
import type { SandboxRules } from "./rules.ts";

export type PathKind = "dir" | "file" | "missing";

export interface BwrapOptions {
  /** An empty read-only file outside every writable folder: the stand-in for hidden files. */
  emptyFile: string;
  /** An empty folder outside every writable folder: the stand-in for a missing read-only folder. */
  emptyDir?: string;
  /** Whether bwrap may make a user namespace here (then nested ones are disabled). Default true. */
  userNamespace?: boolean;
  /** File type of a path after following symlinks, and its real path (tests stub it). */
  probe?: (p: string) => { kind: PathKind; real: string };
}

export function probePath(p: string): { kind: PathKind; real: string } {
  // No exceptions for missing paths (most hidden paths do not exist), and the kernel's realpath:
  // this runs for some twenty paths before every command.
  const stat = statSync(p, { throwIfNoEntry: false });
  if (!stat) return { kind: "missing", real: p };
  try {
    return { kind: stat.isDirectory() ? "dir" : "file", real: realpathSync.native(p) };
  } catch {
    return { kind: "missing", real: p };
  }
}

interface Mount {
  at: string;
  args: string[];
  hiddenDir?: boolean;
}

function depth(p: string): number {
  return p.split(path.sep).filter(Boolean).length;
}

/** Arguments for `bwrap`, up to and including `--`; the command and its arguments follow. */
export function bwrapArgs(rules: SandboxRules, options: BwrapOptions): string[] {
  const probe = options.probe ?? probePath;
  const mounts: Mount[] = [];
  const writable = new Set<string>();
  for (const dir of rules.writable) {
    const { kind, real } = probe(dir);
    if (kind !== "dir" || writable.has(real)) continue;
    writable.add(real);
    mounts.push({ at: real, args: ["--bind", real, real] });
  }
  const hidden = new Set<string>();
  for (const p of rules.hidden) {
    const { kind, real } = probe(p);
    // Nothing to hide where nothing is; a writable folder the command needs stays visible.
    if (kind === "missing" || hidden.has(real) || writable.has(real)) continue;
    hidden.add(real);
    mounts.push(kind === "dir" ? { at: real, args: ["--tmpfs", real], hiddenDir: true } : { at: real, args: ["--ro-bind", options.emptyFile, real] });
  }
  for (const p of rules.readOnly ?? []) {
    const { kind, real } = probe(p);
    if (kind !== "missing") mounts.push({ at: real, args: ["--ro-bind", real, real] });
    else if (options.emptyDir) mounts.push({ at: real, args: ["--ro-bind", options.emptyDir, real] });
  }
  // Parents before children, so that a writable folder inside a hidden one (or a hidden or
  // read-only one inside the project) ends up on top. Hidden folders become read-only last, after
  // their sub-mounts.
  mounts.sort((a, b) => depth(a.at) - depth(b.at));

  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  for (const m of mounts) args.push(...m.args);
  for (const m of mounts) if (m.hiddenDir) args.push("--remount-ro", m.at);
  args.push("--unshare-all");
  if (options.userNamespace !== false) args.push("--unshare-user", "--disable-userns");
  if (rules.network) args.push("--share-net");
  args.push("--cap-drop", "ALL", "--die-with-parent", "--chdir", rules.cwd, "--");
  return args;
}
