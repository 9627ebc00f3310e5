// A first snapshot's storing, as the snapshot process runs it (snapshot-process.ts): the files are
// cut into STORE_CHUNKS runs of about equal bytes that the process's worker threads take in turn
// (pack-writer.ts: read, hash, deflate into packs), so both CPUs work and a worker held up by a
// slow file does not hold up the rest; then one job writes the snapshot's trees into a pack and
// the store's index (index-writer.ts, tree-writer.ts). The request and the reply are plain data
// (they cross a process boundary).
// Contract: runSnapshotJob never rejects: a failure is a reply saying which (`unavailable`: a
// worker could not start or died; `disk-full`; `timeout`; `failed`: anything else, its message).
import { Buffer } from "node:buffer";
import { type ComputePool, ComputeTimeoutError, ComputeUnavailableError } from "./compute-pool.ts";
import { splitNul } from "./nul-list.ts";
import { STAT_FIELDS } from "./pack-writer.ts";

/** Runs of files a first snapshot is cut into for the workers. */
const STORE_CHUNKS = 4;

export interface SnapshotRequest {
  gitDir: string;
  projectDir: string;
  /** Project-relative paths, NUL-joined. */
  paths: Uint8Array;
  /** Each path's size (from its lstat), to cut the runs. */
  sizes: Float64Array;
  /** zlib level of the store. */
  level: number;
  /** Runs at the lowest CPU priority (a background first snapshot). */
  lowPriority: boolean;
  /** The bound on each job of the workers. */
  timeoutMs: number;
}

export type SnapshotFailure = "unavailable" | "disk-full" | "timeout" | "failed";

export type SnapshotReply = { ok: true; tree: string; stored: number } | { ok: false; failure: SnapshotFailure; message: string };

/** Cuts `paths` into at most `count` runs of about equal bytes (`sizes`: each path's size). */
export function cutByBytes(paths: readonly Buffer[], sizes: ArrayLike<number>, count: number): Buffer[][] {
  let total = paths.length;
  for (let i = 0; i < paths.length; i++) total += sizes[i] ?? 0;
  const runs: Buffer[][] = [[]];
  let bytes = 0;
  paths.forEach((path, i) => {
    const target = (total * runs.length) / count;
    if (bytes >= target && runs.length < count) runs.push([]);
    runs[runs.length - 1]!.push(path);
    bytes += (sizes[i] ?? 0) + 1;
  });
  return runs.filter((run) => run.length > 0);
}

function joinPaths(paths: readonly Buffer[]): Uint8Array {
  const out = new Uint8Array(paths.reduce((n, p) => n + p.length + 1, 0));
  let at = 0;
  for (const path of paths) {
    out.set(path, at);
    at += path.length + 1;
  }
  return out;
}

/** Stores the request's files with `pool`'s workers and writes the store's trees and index. */
export async function runSnapshotJob(pool: ComputePool, request: SnapshotRequest): Promise<SnapshotReply> {
  try {
    const { timeoutMs } = request;
    const paths = splitNul(Buffer.from(request.paths.buffer, request.paths.byteOffset, request.paths.byteLength));
    const runs = cutByBytes(paths, request.sizes, STORE_CHUNKS);
    const settled = await Promise.allSettled(
      runs.map((run) =>
        pool.run(
          { kind: "storeBlobs", gitDir: request.gitDir, projectDir: request.projectDir, paths: joinPaths(run), level: request.level, lowPriority: request.lowPriority },
          { timeoutMs },
        ),
      ),
    );
    const failed = settled.find((s) => s.status === "rejected");
    if (failed) return failure(failed.reason);
    const kept: Buffer[] = [];
    const ids: Uint8Array[] = [];
    const stats: Uint32Array[] = [];
    settled.forEach((s, r) => {
      if (s.status !== "fulfilled") return;
      const result = s.value;
      runs[r]!.forEach((path, i) => {
        if (!result.stored[i]) return;
        kept.push(path);
        ids.push(result.ids.subarray(i * 20, i * 20 + 20));
        stats.push(result.stat.subarray(i * STAT_FIELDS, (i + 1) * STAT_FIELDS));
      });
    });
    if (kept.length === 0) return { ok: false, failure: "failed", message: "none of the project's files could be read." };
    const allIds = new Uint8Array(kept.length * 20);
    const allStats = new Uint32Array(kept.length * STAT_FIELDS);
    ids.forEach((id, i) => allIds.set(id, i * 20));
    stats.forEach((st, i) => allStats.set(st, i * STAT_FIELDS));
    const written = await pool.run({ kind: "writeIndex", gitDir: request.gitDir, paths: joinPaths(kept), ids: allIds, stat: allStats, treesLevel: request.level }, { timeoutMs });
    return { ok: true, tree: written.tree ?? "", stored: written.entries };
  } catch (error) {
    return failure(error);
  }
}

function failure(error: unknown): SnapshotReply {
  if (error instanceof ComputeUnavailableError) return { ok: false, failure: "unavailable", message: error.message };
  if (error instanceof ComputeTimeoutError) return { ok: false, failure: "timeout", message: error.message };
  const message = error instanceof Error ? error.message : String(error);
  if (/ENOSPC|EDQUOT/.test(message)) return { ok: false, failure: "disk-full", message };
  return { ok: false, failure: "failed", message };
}
