// The jobs the compute pool's workers run for the bash tool's scans of /proc (see
// process-tree-off-thread.ts): plain data in, plain data out, run with the synchronous functions of
// process-tree.ts. Kept apart from the pool so that the worker's bundle does not include it.
import { isWaitingForTerminalInput, processFamily } from "./process-tree.ts";

export type ProcessTreeJob = { kind: "processFamily"; root: number } | { kind: "waitingForInput"; sessionLeader: number; ptsPath: string };
export type ProcessTreeResult = number[] | boolean;

export function runProcessTreeJob(job: ProcessTreeJob): ProcessTreeResult {
  return job.kind === "processFamily" ? processFamily(job.root) : isWaitingForTerminalInput(job.sessionLeader, job.ptsPath);
}
