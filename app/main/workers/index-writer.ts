// Writes a new git index (format 4, no extensions) for a first snapshot whose objects pack-writer.ts
// stored: one entry per stored path with its blob id, git mode and stat data, sorted as git sorts
// (bytewise), so that git's next status compares stat data instead of hashing every file again.
// git adds its extensions (cache tree at write-tree, untracked cache at status, the split index at
// its next write) itself. With `treesLevel`, the snapshot's trees are written first, into a pack
// (tree-writer.ts), and the root tree's id returned. Runs in a compute-pool worker (sorting and
// hashing 20,000 entries is not the main thread's work).
// Contract: synchronous; the index is written to index.lock and renamed into place (never half
// written; an existing index.lock, another writer, makes it throw); throws only on a file error.
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { closeSync, openSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { splitNul } from "./nul-list.ts";
import { STAT_FIELDS } from "./pack-writer.ts";
import { writeTrees } from "./tree-writer.ts";

export interface WriteIndexJob {
  kind: "writeIndex";
  gitDir: string;
  /** Project-relative paths, NUL-joined, one per entry (unique). */
  paths: Uint8Array;
  /** 20 bytes per path. */
  ids: Uint8Array;
  /** STAT_FIELDS values per path (pack-writer.ts). */
  stat: Uint32Array;
  /** Also write the trees, at this zlib level (tree-writer.ts). */
  treesLevel?: number;
}

export interface WriteIndexResult {
  entries: number;
  /** The root tree's id (hex) when the trees were written. */
  tree?: string;
}

/** git's index varint (as for offset deltas): 7 bits a byte, high bits first, each continuation one less. */
export function indexVarint(value: number): Buffer {
  const bytes = [value & 127];
  let rest = value >>> 7;
  while (rest > 0) {
    rest -= 1;
    bytes.unshift(128 | (rest & 127));
    rest >>>= 7;
  }
  return Buffer.from(bytes);
}

/** Runs a WriteIndexJob (see the header). */
export function runWriteIndexJob(job: WriteIndexJob): WriteIndexResult {
  const paths = splitNul(Buffer.from(job.paths.buffer, job.paths.byteOffset, job.paths.byteLength));
  const ids = Buffer.from(job.ids.buffer, job.ids.byteOffset, job.ids.byteLength);
  const order = paths.map((_, i) => i).sort((a, b) => Buffer.compare(paths[a]!, paths[b]!));
  const tree =
    job.treesLevel === undefined
      ? undefined
      : writeTrees(
          job.gitDir,
          paths,
          paths.map((_, i) => job.stat[i * STAT_FIELDS + 6]!),
          paths.map((_, i) => ids.subarray(i * 20, i * 20 + 20)),
          job.treesLevel,
        );
  const parts: Buffer[] = [];
  const header = Buffer.alloc(12);
  header.write("DIRC", 0, "latin1");
  header.writeUInt32BE(4, 4);
  header.writeUInt32BE(paths.length, 8);
  parts.push(header);
  let previous: Buffer = Buffer.alloc(0);
  for (const i of order) {
    const path = paths[i]!;
    const fixed = Buffer.alloc(STAT_FIELDS * 4 + 20 + 2);
    for (let f = 0; f < STAT_FIELDS; f++) fixed.writeUInt32BE(job.stat[i * STAT_FIELDS + f]!, f * 4);
    ids.copy(fixed, STAT_FIELDS * 4, i * 20, i * 20 + 20);
    fixed.writeUInt16BE(Math.min(path.length, 0xfff), STAT_FIELDS * 4 + 20);
    let common = 0;
    const limit = Math.min(previous.length, path.length);
    while (common < limit && previous[common] === path[common]) common++;
    parts.push(fixed, indexVarint(previous.length - common), path.subarray(common), Buffer.from([0]));
    previous = path;
  }
  const body = Buffer.concat(parts);
  const data = Buffer.concat([body, createHash("sha1").update(body).digest()]);
  const lock = join(job.gitDir, "index.lock");
  const fd = openSync(lock, "wx", 0o600);
  try {
    let done = 0;
    while (done < data.length) done += writeSync(fd, data, done, data.length - done);
    closeSync(fd);
    renameSync(lock, join(job.gitDir, "index"));
  } catch (error) {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
    rmSync(lock, { force: true });
    throw error;
  }
  return { entries: paths.length, ...(tree ? { tree } : {}) };
}
