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
// A first snapshot into a store without an index (storeFirstSnapshot) is stored by a process of
// its own instead (workers/snapshot-process.ts, with two worker threads: Node's SHA-1, zlib at the
// store's level, packs written from Node, the trees packed too, the index with every file's stat
// data written from Node), which exits when done, so the memory it needed leaves with it (kept by
// the app's process, it made every later spawn of git or bash about 7 times slower). A process
// that cannot start, crashes or is killed falls back to git (storeMany); it never runs git.
// Contract: resolves when every path is in the index; rejects with the GitError of the first call
// that failed; the temporary index is removed either way. The caller holds the repository.
import type { Buffer } from "node:buffer";
import { readdir, rm, stat } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { START_TIMEOUT_MS } from "../workers/compute-pool.ts";
import { type HelperLauncher, runSnapshotProcess } from "../workers/snapshot-client.ts";
import { GitError, type GitOptions, type GitResult } from "./git-runner.ts";
import { joinNul } from "./path-bytes.ts";
import { STORE_COMPRESSION } from "./shadow-layout.ts";
import { CheckpointError } from "./shadow-types.ts";

/** From this many files to store at once, objects go into packs. */
export const BULK_MIN_FILES = 500;
const BASE_TIMEOUT_MS = 120_000;
/** The bound on a first snapshot's status. */
export const FIRST_STATUS_TIMEOUT_MS = 600_000;
/** The slowest progress accepted: 1 MB per second. */
const MS_PER_MB = 1_000;
let tempIndexCount = 0;

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

/** How a first snapshot's process is started (workers/snapshot-client.ts). */
export interface SnapshotHelper {
  launch: HelperLauncher;
  /** The process's script (tests); by default snapshotProcessFile(). */
  file?: string;
}

/** Whether storeFirstSnapshot applies: many files and no index yet (a first snapshot). */
export async function canStoreFirstSnapshot(gitDir: string, files: number): Promise<boolean> {
  return files >= BULK_MIN_FILES && !(await stat(join(gitDir, "index")).catch(() => null));
}

/**
 * Stores `paths` (sizes from their lstat, `bytes` in all) in the snapshot process, which writes the
 * store's packs and index; call only when canStoreFirstSnapshot said so. A process that cannot
 * start, crashes or is killed leaves the store as it was (its unfinished files are removed) and
 * git stores the snapshot instead; a full disk, the time bound and `signal` (Lathe closing) end
 * the capture with an error.
 */
export async function storeFirstSnapshot(
  helper: SnapshotHelper,
  git: Git,
  repo: { gitDir: string; projectDir: string },
  paths: Buffer[],
  sizes: number[],
  bytes: number,
  background: boolean,
  signal?: AbortSignal,
): Promise<void> {
  const timeoutMs = bulkStoreTimeoutMs(bytes);
  const outcome = await runSnapshotProcess(
    { gitDir: repo.gitDir, projectDir: repo.projectDir, paths: joinNul(paths), sizes: Float64Array.from(sizes), level: STORE_COMPRESSION, lowPriority: background, timeoutMs },
    // The process's own bound covers its start and both of its steps.
    { launch: helper.launch, file: helper.file, timeoutMs: timeoutMs * 2 + START_TIMEOUT_MS, signal, background },
  );
  if (outcome.ok) return;
  await removeLeftovers(repo.gitDir, outcome.pid);
  switch (outcome.failure) {
    case "unavailable":
      return storeMany(git, repo.gitDir, paths, bytes, background);
    case "aborted":
      throw new CheckpointError("failed", "The first checkpoint was stopped: Lathe is closing.");
    case "timeout":
      throw new GitError("timeout", `Storing the first checkpoint took longer than ${Math.round(timeoutMs / 1000)} s and was stopped.`);
    case "disk-full":
      throw new GitError("disk-full", "The disk is full: the checkpoint store could not be written. Free some space and try again.");
    case "failed":
      throw new GitError("failed", `The first checkpoint could not be stored: ${outcome.message}`);
  }
}

/** Removes what a snapshot process that did not finish may have left: its temporary packs and the index lock. */
async function removeLeftovers(gitDir: string, pid: number | undefined): Promise<void> {
  const packDir = join(gitDir, "objects", "pack");
  const names = pid === undefined ? [] : await readdir(packDir).catch(() => []);
  await Promise.all([
    ...names.filter((name) => name.startsWith(`tmp_pack_lathe_${pid}_`)).map((name) => rm(join(packDir, name), { force: true })),
    rm(join(gitDir, "index.lock"), { force: true }),
  ]);
}
