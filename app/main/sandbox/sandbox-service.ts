// SandboxService: the app's sandbox. It knows which sandbox this machine has (detected once, in
// the background from the app's start; its users wait for that answer), the paths every
// sandbox hides (the defaults plus the user's), which projects allow network, and which commands
// the user marked as needing the real machine. The permission layer records where each allowed
// bash call runs (`place`); each session's SessionSandbox reads that when the call starts. "Run
// again outside the sandbox" leaves a one-shot request here, which the permission layer turns
// into a question. Never throws.
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import type { SandboxPlacement } from "../../shared/sandbox.ts";
import { DEFAULT_REAL_MACHINE_COMMANDS } from "./command-needs.ts";
import { detectSandbox, detectSandboxInBackground, type DetectedSandbox } from "./detect.ts";
import { defaultHiddenPaths, expandConfiguredPath } from "./rules.ts";
import { SessionSandbox } from "./session-sandbox.ts";
import { NestedRepositories } from "./nested-repositories.ts";
import { MAX_SCAN_DIRS } from "./repository-scan.ts";
import { UntrustedRepositories } from "./untrusted-repos.ts";

export interface Placed {
  placement: SandboxPlacement;
  /** Why a call runs outside, for its result. */
  reason?: string;
}

/** The user's sandbox settings (kept by the settings service). */
export interface SandboxSettings {
  networkProjects: number[];
  /** null: the defaults (DEFAULT_REAL_MACHINE_COMMANDS). */
  realMachineCommands: string[] | null;
  /** Secret paths hidden besides the defaults (`~/…` or absolute). */
  hiddenPaths: string[];
}

export interface SandboxServiceOptions {
  settings: () => SandboxSettings;
  dataDir: string;
  env?: Record<string, string | undefined>;
  home?: string;
  tmpRoot?: string;
  /** Replaces detection (tests). */
  detect?: () => DetectedSandbox;
  /** Folders the scan for repositories made in sub-folders reads at most (repository-scan.ts; tests). */
  maxScanDirs?: number;
}

const MAX_PENDING = 1000;

export class SandboxService {
  private readonly o: SandboxServiceOptions;
  private detected: DetectedSandbox | undefined;
  private detecting: Promise<DetectedSandbox> | undefined;
  private readonly placements = new Map<string, Placed>();
  private readonly outsideRequests = new Map<number, Set<string>>();
  readonly home: string;
  /** Git repositories sandboxed commands created (kept in the data folder, hidden from commands). */
  readonly untrustedRepositories: UntrustedRepositories;
  private readonly nestedRepositories: NestedRepositories;

  constructor(options: SandboxServiceOptions) {
    this.o = options;
    this.home = options.home ?? homedir();
    this.untrustedRepositories = new UntrustedRepositories(path.join(options.dataDir, "untrusted-repositories.json"));
    this.nestedRepositories = new NestedRepositories(undefined, options.maxScanDirs);
  }

  /** For a question about running a command outside the sandbox: a repository created inside it. */
  repositoryWarning(projectDir: string): string | undefined {
    const warning = this.untrustedRepositories.warning(projectDir);
    if (!this.nestedRepositories.incomplete(projectDir)) return warning;
    const partial = `Lathe's check for git repositories made by sandboxed commands in sub-folders stops at ${(this.o.maxScanDirs ?? MAX_SCAN_DIRS).toLocaleString("en-US")} folders, and this project has more: one made beyond them would not be named here.`;
    return warning ? `${warning} ${partial}` : `Warning: ${partial}`;
  }

  /**
   * The sandbox, detected without holding the event loop (started at the app's start; one
   * detection however often asked). The permission layer and the settings wait for this, so that
   * status() has the answer and never probes synchronously. Never rejects.
   */
  detectInBackground(): Promise<DetectedSandbox> {
    if (this.detected) return Promise.resolve(this.detected);
    this.detecting ??= (this.o.detect ? Promise.resolve(this.o.detect()) : detectSandboxInBackground({ pathVariable: this.pathVariable() })).then(
      (found) => (this.detected ??= found),
    );
    return this.detecting;
  }

  /** The sandbox now: detected synchronously only if asked before the background detection is done. */
  status(): DetectedSandbox {
    this.detected ??= this.o.detect ? this.o.detect() : detectSandbox({ pathVariable: this.pathVariable() });
    return this.detected;
  }

  private pathVariable(): string | undefined {
    return this.o.env?.PATH ?? process.env.PATH;
  }

  defaultHiddenPaths(): string[] {
    return defaultHiddenPaths({ home: this.home, dataDir: this.o.dataDir, env: this.o.env ?? process.env });
  }

  hiddenPaths(): string[] {
    const extra = this.o
      .settings()
      .hiddenPaths.map((p) => expandConfiguredPath(p, this.home))
      .filter((p): p is string => p !== undefined);
    return [...new Set([...this.defaultHiddenPaths(), ...extra])];
  }

  realMachineCommands(): string[] {
    return this.o.settings().realMachineCommands ?? DEFAULT_REAL_MACHINE_COMMANDS;
  }

  networkAllowed(projectId: number): boolean {
    return this.o.settings().networkProjects.includes(projectId);
  }

  /** Records where an allowed bash call runs; the call's SessionSandbox takes it when it starts. */
  place(sessionId: number, toolCallId: string, placed: Placed): void {
    if (this.placements.size >= MAX_PENDING) this.placements.delete(this.placements.keys().next().value!);
    this.placements.set(`${sessionId}\0${toolCallId}`, placed);
  }

  takePlacement(sessionId: number, toolCallId: string): Placed | undefined {
    const key = `${sessionId}\0${toolCallId}`;
    const placed = this.placements.get(key);
    this.placements.delete(key);
    return placed;
  }

  /** The user asked to run `command` again outside the sandbox: the next such call asks for it. */
  requestOutside(sessionId: number, command: string): void {
    let set = this.outsideRequests.get(sessionId);
    if (!set) this.outsideRequests.set(sessionId, (set = new Set()));
    set.add(command);
  }

  /** Whether the user asked to run `command` outside the sandbox (forgets the request). */
  takeOutsideRequest(sessionId: number, command: string): boolean {
    return this.outsideRequests.get(sessionId)?.delete(command) ?? false;
  }

  forSession(scope: { sessionId: number; projectId: number; projectDir: string }): SessionSandbox {
    // Off the main thread; the first command's scan waits for it.
    void this.detectInBackground().then((found) => {
      if (found.available) void this.nestedRepositories.prime(scope.projectDir);
    });
    return new SessionSandbox(
      {
        status: () => this.status(),
        hiddenPaths: () => this.hiddenPaths(),
        networkAllowed: (projectId) => this.networkAllowed(projectId),
        takePlacement: (sessionId, toolCallId) => this.takePlacement(sessionId, toolCallId),
        markUntrustedRepository: (gitDir) => this.untrustedRepositories.mark(gitDir),
        knownNestedRepositories: (projectDir, limit) => this.nestedRepositories.known(projectDir, limit),
        nestedRepositoriesChangedSince: (projectDir, moment) => this.nestedRepositories.changedSince(projectDir, moment),
        home: this.home,
        tmpRoot: this.o.tmpRoot ?? tmpdir(),
      },
      scope,
    );
  }
}
