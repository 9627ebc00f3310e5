// Stores many files at once (a project's first snapshot, or any capture of BULK_MIN_FILES files or
// more): hashes them, writes their objects and records them (with their stat data) in the index.
// Objects are streamed into packs (core.bigFileThreshold=1: update-index's bulk check-in) instead
// of one loose object file each, which saves most of git's system time; on two CPUs or more by two
// processes: the second stores its half with an index of its own (thrown away), then the index
// adds that half again, which only hashes it (the objects exist). A file changed in between is
// stored again as it is then.
// Where the time goes (bench:checkpoint-git, 20,000 files / 200 MB): git's CPU is per object more
// than per byte: zlib's set-up of each object's stream, SHA-1 (git's collision-detecting one) and
// the kernel's open/read; compression level 0 costs the same CPU as level 1 and stores 3.7 times
// more, so level 1 it is.
// Time bounds: a first snapshot of a large project may legitimately take minutes on a slow disk or
// a loaded machine, so its status (listing every file) may take 10 minutes and each of its
// storing calls (and its write-tree) 120 s plus 1 s per MB to store (at least 1 MB/s of
// progress); past that a call is stopped (GitError "timeout"), never left to hang. A turn's
// calls keep GitRunner's 120 s.
// A first snapshot into a store without an index (storeFirstSnapshot) is stored by the compute
// pool's workers instead (workers/pack-writer.ts: Node's SHA-1, zlib at the store's level, packs
// written from Node; workers/index-writer.ts: the index with every file's stat data): the files are
// cut into STORE_CHUNKS runs of about equal bytes that the pool's workers take in turn, so both
// CPUs work and a worker held by other work does not hold up the rest. A worker that cannot start
// or dies falls back to git (storeMany).
// Contract: resolves when every path is in the index; rejects with the GitError of the first call
// that failed; the temporary index is removed either way. The caller holds the repository.
import type { Buffer } from "node:buffer";
import { rm, stat } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { type ComputePool, ComputeTimeoutError, ComputeUnavailableError } from "../workers/compute-pool.ts";
import { STAT_FIELDS } from "../workers/pack-writer.ts";
import { GitError, type GitOptions, type GitResult } from "./git-runner.ts";
import { joinNul } from "./path-bytes.ts";
import { STORE_COMPRESSION } from "./shadow-layout.ts";

/** From this many files to store at once, objects go into packs. */
export const BULK_MIN_FILES = 500;
const BASE_TIMEOUT_MS = 120_000;
/** The bound on a first snapshot's status. */
export const FIRST_STATUS_TIMEOUT_MS = 600_000;
/** The slowest progress accepted: 1 MB per second. */
const MS_PER_MB = 1_000;
let tempIndexCount = 0;
/** Runs of files a first snapshot is cut into for the workers. */
const STORE_CHUNKS = 4;

/** The bound on each git call of a bulk store of `bytes` (see the header). */
export function bulkStoreTimeoutMs(bytes: number): number {
  return BASE_TIMEOUT_MS + Math.ceil(Math.max(0, bytes) / (1024 * 1024)) * MS_PER_MB;
}

type Git = (args: string[], options?: GitOptions) => Promise<GitResult>;

/** Stores `paths` (`bytes` in all) into the index of the repository at `gitDir` through `git`. */
export async function storeMany(git: Git, gitDir: string, paths: Buffer[], bytes: number, background: boolean): Promise<void> {
  const add = ["update-index", "--add", "--remove", "--replace", "-z", "--stdin"];
  const timeoutMs = bulkStoreTimeoutMs(bytes);
  const bulk = ["-c", "core.bigFileThreshold=1", ...add];
  if (availableParallelism() < 2) {
    await git(bulk, { input: joinNul(paths), background, timeoutMs });
    return;
  }
  const half = Math.ceil(paths.length / 2);
  const mine = paths.slice(0, half);
  const theirs = paths.slice(half);
  const tempIndex = join(gitDir, `index.lathe-half-${process.pid}-${++tempIndexCount}`);
  try {
    await Promise.all([
      git(bulk, { input: joinNul(mine), background, timeoutMs }),
      // Not split: a split temporary index would leave a shared index file behind in the store.
      git(["-c", "core.splitIndex=false", ...bulk], { input: joinNul(theirs), background, timeoutMs, env: { GIT_INDEX_FILE: tempIndex } }),
    ]);
  } finally {
    await Promise.all([rm(tempIndex, { force: true }), rm(`${tempIndex}.lock`, { force: true })]);
  }
  await git(add, { input: joinNul(theirs), background, timeoutMs });
}

/**
 * The pools a first snapshot is stored by: `normal` (the app's compute pool) for one a turn waits
 * for; `background` for the one taken when a session is created: its workers lower their own
 * priority (pack-writer.ts), so they are a pool of their own, never running other jobs.
 */
export interface StorePools {
  normal: ComputePool;
  background: () => ComputePool;
}

/** Whether storeFirstSnapshot applies: many files and no index yet (a first snapshot). */
export async function canStoreFirstSnapshot(gitDir: string, files: number): Promise<boolean> {
  return files >= BULK_MIN_FILES && !(await stat(join(gitDir, "index")).catch(() => null));
}

/** Cuts `paths` into at most `count` runs of about equal bytes (`sizes`: each path's size). */
export function cutByBytes(paths: readonly Buffer[], sizes: readonly number[], count: number): Buffer[][] {
  const total = sizes.reduce((a, b) => a + b, 0) + paths.length;
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

/**
 * Stores `paths` (sizes from their lstat, `bytes` in all) through the compute pool and writes the
 * store's index from what the workers read; call only when canStoreFirstSnapshot said so.
 */
export async function storeFirstSnapshot(
  pools: StorePools,
  git: Git,
  repo: { gitDir: string; projectDir: string },
  paths: Buffer[],
  sizes: number[],
  bytes: number,
  background: boolean,
): Promise<void> {
  const timeoutMs = bulkStoreTimeoutMs(bytes);
  const pool = background ? pools.background() : pools.normal;
  const runs = cutByBytes(paths, sizes, STORE_CHUNKS);
  const settled = await Promise.allSettled(
    runs.map((run) =>
      pool.run({ kind: "storeBlobs", gitDir: repo.gitDir, projectDir: repo.projectDir, paths: joinNul(run), level: STORE_COMPRESSION, lowPriority: background }, { timeoutMs }),
    ),
  );
  const failed = settled.find((s) => s.status === "rejected");
  if (failed) {
    if (failed.reason instanceof ComputeUnavailableError) return storeMany(git, repo.gitDir, paths, bytes, background);
    throw poolFailure(failed.reason);
  }
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
  const allIds = new Uint8Array(kept.length * 20);
  const allStats = new Uint32Array(kept.length * STAT_FIELDS);
  ids.forEach((id, i) => allIds.set(id, i * 20));
  stats.forEach((st, i) => allStats.set(st, i * STAT_FIELDS));
  try {
    await pool.run({ kind: "writeIndex", gitDir: repo.gitDir, paths: joinNul(kept), ids: allIds, stat: allStats }, { timeoutMs });
  } catch (error) {
    if (error instanceof ComputeUnavailableError) return storeMany(git, repo.gitDir, paths, bytes, background);
    throw poolFailure(error);
  }
}

function poolFailure(error: unknown): GitError {
  if (error instanceof ComputeTimeoutError)
    return new GitError("timeout", `Storing the first checkpoint took longer than ${Math.round(error.timeoutMs / 1000)} s and was stopped.`);
  const message = error instanceof Error ? error.message : String(error);
  if (/ENOSPC|EDQUOT/.test(message)) return new GitError("disk-full", "The disk is full: the checkpoint store could not be written. Free some space and try again.");
  return new GitError("failed", `The first checkpoint could not be stored: ${message}`);
}
