// The bash tool's scans of /proc, run in the compute pool's worker threads so that the main
// process, which owns the loop and every window's events, never reads the stat file of every
// process on the machine: `waitingForInput` (polled while a command is silent) and `familyOf`
// (while a command is killed). The jobs are in process-tree-jobs.ts.
// Contract: never throws. When the pool cannot answer in time (it is busy, or no worker can run),
// `familyOf` scans here after all (a kill must find every process), and `waitingForInput` answers
// undefined (the poll tries again).
import { type ComputePool, computePool } from "../workers/compute-pool.ts";
import { killFamily, processFamily } from "./process-tree.ts";

/** How long a kill waits for the pool before scanning here (the job goes on: its worker is kept). */
const FAMILY_WAIT_MS = 500;
/**
 * Deadline of a job in the pool. A job past its deadline has its worker stopped, and a worker's
 * cold start can take a second on a loaded machine: a short deadline would stop every worker
 * before it answered.
 */
const JOB_TIMEOUT_MS = 10_000;

export async function familyOf(root: number, pool: ComputePool = computePool()): Promise<number[]> {
  const job = pool.run({ kind: "processFamily", root }, { timeoutMs: JOB_TIMEOUT_MS }).then(
    (family) => family as number[],
    () => undefined,
  );
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(resolve, FAMILY_WAIT_MS, undefined)));
  const family = await Promise.race([job, late]).finally(() => clearTimeout(timer));
  return family ?? processFamily(root);
}

export async function waitingForInput(sessionLeader: number, ptsPath: string, pool: ComputePool = computePool()): Promise<boolean | undefined> {
  try {
    return (await pool.run({ kind: "waitingForInput", sessionLeader, ptsPath }, { timeoutMs: JOB_TIMEOUT_MS })) as boolean;
  } catch {
    return undefined;
  }
}

/** killFamily with the family found in a worker. */
export function killFamilyOffThread(root: number, pool?: ComputePool): Promise<void> {
  return killFamily(root, (r) => familyOf(r, pool));
}
