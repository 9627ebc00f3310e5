// After each sandboxed command: the git repositories it created, replaced or rewrote in a
// sub-folder of the project (repository-scan.ts), found in a compute pool worker so that the main
// process never walks a large project. One scan per project at a time (their states follow each
// other; scans of commands that end together wait in turn). If the pool cannot run the job (no
// worker, or it took too long), the scan runs here after all: a repository a sandboxed command
// made must not go unnoticed. A project's first scan is made when a session opens there
// (`prime`), so that the first command's scan knows what was there before it. Never throws.
import path from "node:path";
import { type ComputePool, computePool } from "../workers/compute-pool.ts";
import { type RepositoryScanResult, type RepositoryScanState, runRepositoryScanJob } from "./repository-scan.ts";

const JOB_TIMEOUT_MS = 30_000;

export class NestedRepositories {
  private readonly states = new Map<string, RepositoryScanState>();
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly pool: () => ComputePool;
  private readonly maxDirs: number | undefined;

  constructor(pool: () => ComputePool = computePool, maxDirs?: number) {
    this.pool = pool;
    this.maxDirs = maxDirs;
  }

  /** Scans `projectDir` once, unless it has been: what is there now is not reported later. */
  prime(projectDir: string): Promise<unknown> {
    if (this.states.has(projectDir) || this.queues.has(projectDir)) return this.queues.get(projectDir) ?? Promise.resolve();
    return this.changedSince(projectDir, Number.POSITIVE_INFINITY);
  }

  /**
   * The repositories below `projectDir` that its last scan found (`.git` entries and bare
   * repositories' folders), at most `limit`, shallowest first: each sandboxed command sees them
   * read-only, so that it cannot edit a hook or config in place (which changes no folder time the
   * scan could see). Empty until the first scan has ended. A `.git` that is a symbolic link into
   * the project is left out: mounted at its target, `sub/.git -> ..` would make the whole project
   * read-only (the scan marks such links, in its worker); a repository it points to is found by the scan itself (by its layout, or as a
   * `.git`), or is the project's own `.git`, read-only already.
   */
  known(projectDir: string, limit: number): string[] {
    const state = this.states.get(projectDir);
    const links = new Set(state?.linksIntoProject ?? []);
    const repositories = Object.keys(state?.repositories ?? {}).filter((repo) => !links.has(repo));
    if (repositories.length <= limit) return repositories;
    const depth = (p: string) => p.split(path.sep).length;
    return repositories.sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : 1)).slice(0, limit);
  }

  /** Whether the last scan of `projectDir` stopped at its folder bound. */
  incomplete(projectDir: string): boolean {
    return this.states.get(projectDir)?.complete === false;
  }

  /** Repositories below `projectDir` created, replaced or rewritten since `commandStartedAt`. */
  changedSince(projectDir: string, commandStartedAt: number): Promise<string[]> {
    const previous = this.queues.get(projectDir) ?? Promise.resolve();
    const next = previous.then(async () => {
      const job = { kind: "repositoryScan" as const, projectDir, commandStartedAt, previous: this.states.get(projectDir), ...(this.maxDirs ? { maxDirs: this.maxDirs } : {}) };
      let result: RepositoryScanResult;
      try {
        result = (await this.pool().run(job, { timeoutMs: JOB_TIMEOUT_MS })) as RepositoryScanResult;
      } catch {
        result = runRepositoryScanJob(job);
      }
      this.states.set(projectDir, result.state);
      return result.changed;
    });
    const settled = next.catch(() => []);
    this.queues.set(projectDir, settled);
    void settled.then(() => {
      if (this.queues.get(projectDir) === settled) this.queues.delete(projectDir);
    });
    return settled;
  }
}
