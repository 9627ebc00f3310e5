// One session's sandbox: its folders (a temporary folder the commands may write, the folder bash
// saves full outputs in, an empty stand-in file for hidden files), and how each bash call starts:
// wrapped in bwrap or sandbox-exec, or directly when its placement is "outside" (full auto, the
// user's choice, a real-machine command) or when this machine has no sandbox. The placement of a
// call is what the permission layer recorded for it (SandboxService.place); a call nobody placed
// runs in the sandbox. Never throws: a sandbox that cannot be set up runs nothing outside it, the
// command fails with the reason.
import { chmodSync, constants, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { open, readdir, rm } from "node:fs/promises";
import path from "node:path";
import type { BashSandboxDetails, SandboxBlock, SandboxPlacement } from "../../shared/sandbox.ts";
import { bwrapArgs } from "./bwrap.ts";
import type { DetectedSandbox } from "./detect.ts";
import { interruptSandboxed, killSandboxed } from "./kill.ts";
import { explainRefusal } from "./refusal.ts";
import { projectReadOnlyPaths, SANDBOX_DROPPED_ENV, type SandboxRules } from "./rules.ts";
import { seatbeltArgs } from "./seatbelt.ts";
import { createdRepository, createdRepositoryMessage, snapshotRepositoryOffThread } from "./untrusted-repos.ts";
import { ptyCommandLine } from "../tools/pty-command.ts";

/** chmod 700 of a folder, never through a link (a command still running could swap one in). */
async function writableFolder(dir: string): Promise<void> {
  const handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  await handle.chmod(0o700).finally(() => handle.close());
}

/** rm -rf, also through folders a command made read-only (Go's module cache, our empty-dir). */
async function removeTree(dir: string): Promise<void> {
  try {
    await rm(dir, { recursive: true, force: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EACCES" && (error as NodeJS.ErrnoException).code !== "EPERM") throw error;
    const entries = await readdir(dir, { recursive: true, withFileTypes: true });
    await writableFolder(dir);
    for (const entry of entries) if (entry.isDirectory()) await writableFolder(path.join(entry.parentPath, entry.name)).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}

// Each read-only mount adds about 1.4 ms to a sandboxed command's start (measured with bwrap: 16
// mounts about 20 ms, 64 about 75 ms). Repositories past this many rely on the scan after the
// command (nested-repositories.ts), which sees one created, replaced or rewritten by rename.
export const MAX_READ_ONLY_NESTED = 16;

export interface LaunchRequest {
  toolCallId: string;
  command: string;
  shell: string;
  cwd: string;
  env: Record<string, string>;
}

/** How to start one command, and how to stop and explain it when it ran in the sandbox. */
export interface SandboxLaunch {
  file: string;
  args: string[];
  env: Record<string, string>;
  details: BashSandboxDetails;
  /** Sandboxed only: replaces the bash tool's own interrupt and kill. */
  interrupt?: (pid: number, fallback: () => void) => void;
  kill?: (pid: number) => Promise<void>;
  /** Sandboxed only: whether a failed command's output shows a refusal of the sandbox. */
  explain?: (output: string) => SandboxBlock | undefined;
  /** Sandboxed only, once the command has ended: the git repositories it created (at the project's top or below), if any, marked untrusted. */
  after?: () => Promise<{ path: string; message: string } | undefined>;
}

/** The bash tool's view of the sandbox. */
export interface CommandSandbox {
  readonly outputDir: string;
  /** Rejects only with FileSystemTimeoutError: the project's top did not answer (a hung mount). */
  launch(request: LaunchRequest): Promise<SandboxLaunch>;
  /** The session ended: its private folder (the commands' $TMPDIR, tool caches) goes. Never rejects. */
  dispose(): Promise<void>;
}

export interface SessionSandboxDeps {
  status(): DetectedSandbox;
  hiddenPaths(): string[];
  networkAllowed(projectId: number): boolean;
  /** The placement recorded for this call (and forgets it), if any; `reason`: why it runs outside. */
  takePlacement(sessionId: number, toolCallId: string): { placement: SandboxPlacement; reason?: string } | undefined;
  /** Records a git repository a sandboxed command created (untrusted-repos.ts). */
  markUntrustedRepository(gitDir: string): void;
  /** Repositories below the project's top that the last scan found, at most `limit` (nested-repositories.ts). */
  knownNestedRepositories(projectDir: string, limit: number): string[];
  /** Repositories below the project's top created or rewritten since a moment (nested-repositories.ts). */
  nestedRepositoriesChangedSince(projectDir: string, moment: number): Promise<string[]>;
  home: string;
  tmpRoot: string;
}

export class SessionSandbox implements CommandSandbox {
  readonly sessionDir: string;
  readonly tmpDir: string;
  readonly outputDir: string;
  /** dispose() was called: no command starts any more. */
  private disposed = false;
  private readonly emptyFile: string;
  private readonly emptyDir: string;
  private readonly deps: SessionSandboxDeps;
  private readonly scope: { sessionId: number; projectId: number; projectDir: string };

  constructor(deps: SessionSandboxDeps, scope: { sessionId: number; projectId: number; projectDir: string }) {
    this.deps = deps;
    this.scope = scope;
    // Real paths: bind mounts and Seatbelt rules apply to resolved paths (/tmp is /private/tmp on macOS).
    this.sessionDir = realpathSync(mkdtempSync(path.join(deps.tmpRoot, `lathe-session-${scope.sessionId}-`)));
    this.tmpDir = path.join(this.sessionDir, "tmp");
    this.outputDir = path.join(this.sessionDir, "output");
    this.emptyFile = path.join(this.sessionDir, "empty");
    this.emptyDir = path.join(this.sessionDir, "empty-dir");
    mkdirSync(this.tmpDir, { recursive: true });
    mkdirSync(this.outputDir, { recursive: true });
    mkdirSync(this.emptyDir, { recursive: true, mode: 0o555 });
    writeFileSync(this.emptyFile, "");
    chmodSync(this.emptyFile, 0o444);
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    try {
      await removeTree(this.sessionDir);
    } catch (error) {
      console.error(`[sandbox] the session's temporary folder ${this.sessionDir} could not be removed:`, error);
    }
  }

  async launch(req: LaunchRequest): Promise<SandboxLaunch> {
    const status = this.deps.status();
    const placed = this.deps.takePlacement(this.scope.sessionId, req.toolCallId) ?? { placement: "sandbox" as const };
    // The command as the pty runs it (output processing off): see tools/pty-command.ts.
    const commandLine = ptyCommandLine(req.shell, req.command);
    const direct = (outsideReason: string): SandboxLaunch => ({
      file: commandLine[0]!,
      args: commandLine.slice(1),
      env: req.env,
      details: { placement: "outside", kind: status.kind, outsideReason },
    });
    if (placed.placement === "outside") return direct(placed.reason ?? "This command was allowed to run outside the sandbox.");
    if (!status.available || !status.executable) return direct(status.message);

    // The project's top, asked off the event loop (a mount that stopped answering costs an error, not the app).
    const projectDir = this.scope.projectDir;
    const before = await snapshotRepositoryOffThread(projectDir);
    // The session may have ended meanwhile: its folder is gone and must not be made again.
    if (this.disposed) throw new Error("The session ended before the command started.");
    mkdirSync(this.tmpDir, { recursive: true });
    mkdirSync(this.outputDir, { recursive: true });
    const rules: SandboxRules = {
      cwd: req.cwd,
      writable: [this.scope.projectDir, this.tmpDir, this.outputDir],
      hidden: this.deps.hiddenPaths(),
      // projectReadOnlyPaths asks only whether the project's .git is there: the snapshot knows.
      readOnly: [...projectReadOnlyPaths(projectDir, () => before.dotGit), ...this.deps.knownNestedRepositories(projectDir, MAX_READ_ONLY_NESTED)],
      network: placed.placement === "sandbox-network" || this.deps.networkAllowed(this.scope.projectId),
    };
    const env = this.sandboxEnv(req.env);
    const details: BashSandboxDetails = { placement: rules.network ? "sandbox-network" : "sandbox", kind: status.kind };
    const explain = (output: string) => explainRefusal(output, rules, this.deps.home);
    const startedAt = Date.now();
    const after = async () => {
      // A top that does not answer now cannot be told: the scan of sub-folders still runs.
      const now = await snapshotRepositoryOffThread(projectDir).catch(() => before);
      const top = createdRepository(projectDir, before, now);
      const nested = await this.deps.nestedRepositoriesChangedSince(projectDir, startedAt);
      const created = [...(top ? [top] : []), ...nested];
      if (created.length === 0) return undefined;
      for (const gitDir of created) this.deps.markUntrustedRepository(gitDir);
      return { path: created[0]!, message: createdRepositoryMessage(created) };
    };
    if (status.kind === "seatbelt") {
      return { file: status.executable, args: [...seatbeltArgs(rules), ...commandLine], env, details, explain, after };
    }
    return {
      file: status.executable,
      args: [...bwrapArgs(rules, { emptyFile: this.emptyFile, emptyDir: this.emptyDir, userNamespace: status.userNamespace }), ...commandLine],
      env,
      details,
      explain,
      after,
      interrupt: interruptSandboxed,
      kill: killSandboxed,
    };
  }

  private sandboxEnv(base: Record<string, string>): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(base)) if (!SANDBOX_DROPPED_ENV.includes(name)) env[name] = value;
    // Temporary files and tool caches (pip, go, npm write theirs under the home folder, which is
    // read-only here) go to the session's temporary folder.
    return {
      ...env,
      TMPDIR: this.tmpDir,
      TMP: this.tmpDir,
      TEMP: this.tmpDir,
      XDG_CACHE_HOME: path.join(this.tmpDir, ".cache"),
      npm_config_cache: path.join(this.tmpDir, ".npm"),
    };
  }
}
