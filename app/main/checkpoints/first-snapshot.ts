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
// Contract: resolves when every path is in the index; rejects with the GitError of the first call
// that failed; the temporary index is removed either way. The caller holds the repository.
import type { Buffer } from "node:buffer";
import { rm } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import type { GitOptions, GitResult } from "./git-runner.ts";
import { joinNul } from "./path-bytes.ts";

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
