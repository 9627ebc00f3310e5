// After each sandboxed command: the git repositories it created, replaced or rewrote in a
// sub-folder of the project (repository-scan.ts), found in a compute pool worker so that the main
// process never walks a large project. One scan per project at a time (their states follow each
// other; scans of commands that end together wait in turn). If the pool cannot run the job (no
// worker, or it took too long), the scan runs here after all: a repository a sandboxed command
// made must not go unnoticed. Never throws.
import { type ComputePool, computePool } from "../workers/compute-pool.ts";
import { type RepositoryScanResult, type RepositoryScanState, runRepositoryScanJob } from "./repository-scan.ts";

const JOB_TIMEOUT_MS = 30_000;

export class NestedRepositories {
  private readonly states = new Map<string, RepositoryScanState>();
  private readonly queues = new Map<string, Promise<unknown>>();
  private readonly pool: () => ComputePool;

  constructor(pool: () => ComputePool = computePool) {
    this.pool = pool;
  }

  /** Repositories below `projectDir` created, replaced or rewritten since `commandStartedAt`. */
  changedSince(projectDir: string, commandStartedAt: number): Promise<string[]> {
    const previous = this.queues.get(projectDir) ?? Promise.resolve();
    const next = previous.then(async () => {
      const job = { kind: "repositoryScan" as const, projectDir, commandStartedAt, previous: this.states.get(projectDir) };
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
