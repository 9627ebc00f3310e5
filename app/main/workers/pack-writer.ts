// Stores many project files as git objects from a compute-pool worker thread (a first snapshot:
// first-snapshot.ts splits the files between the workers): reads each file, hashes it with Node's
// SHA-1 (OpenSSL: 2 to 3 times faster than git's collision-detecting one), deflates it at the
// store's level and appends it to a pack (git's pack format 2, whole objects, no deltas), written
// with its index (format 2) into objects/pack. Returns, for each path, its blob id, its git mode and
// the stat data the git index records (index-writer.ts writes the index from them).
// Reading: each path is opened with O_NOFOLLOW and O_NONBLOCK (a link is never followed, a FIFO
// never waited on); a symbolic link (ELOOP) is stored as its target; a regular file is fstat-ed
// before and after the read: a file that changed meanwhile is read again (3 tries); anything else
// (gone, a folder, a device, unreadable) is skipped (`stored` 0): the caller leaves it out.
// Stat data that a later change could repeat is smudged (size 0: git then compares the content
// once, as it does for its own racily clean entries): a file whose mtime second is not at least 2 s
// older than when it was read (a change within that second may keep mtime and size).
// Objects are written to the pack file as they come (nothing held in memory); its header (the object
// count) is written last, its checksum read back from the file. A pack ends past PACK_BYTES, so its
// offsets stay far below 2 GiB. zlib's window is fitted to each object (windowBitsFor): a 10 KB
// file's deflate cost 25% less CPU than with the full 32 KB window, for the same size.
// Contract: synchronous (it runs in a worker); throws only when the store cannot be written (its
// message names the file); a pack and its index are in place (renamed, index last) before it returns.
import { Buffer } from "node:buffer";
import { createHash, randomBytes } from "node:crypto";
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readlinkSync, readSync, renameSync, rmSync, writeSync, type BigIntStats } from "node:fs";
import { getPriority, setPriority } from "node:os";
import { join } from "node:path";
import { crc32, deflateSync } from "node:zlib";
import { splitNul } from "./nul-list.ts";

/** Stat fields per file in `stat` (index-writer.ts's order): ctime s, ns, mtime s, ns, dev, ino, mode, uid, gid, size. */
export const STAT_FIELDS = 10;
const PACK_BYTES = 128 * 1024 * 1024;
const READ_TRIES = 3;
const OBJ_BLOB = 3;
/** The pack object type of a tree (tree-writer.ts). */
export const OBJ_TREE = 2;
const SAFE_AGE_S = 2n;

export interface StoreBlobsJob {
  kind: "storeBlobs";
  gitDir: string;
  projectDir: string;
  /** Project-relative paths, NUL-joined. */
  paths: Uint8Array;
  /** zlib level (the store's core.compression). */
  level: number;
  /** Lowers this worker thread's CPU priority to the lowest (Linux only: elsewhere it would lower the whole process's). */
  lowPriority: boolean;
}

export interface StoreBlobsResult {
  /** 20 bytes per path. */
  ids: Uint8Array;
  /** STAT_FIELDS unsigned 32-bit values per path (git's truncation), mode as git records it. */
  stat: Uint32Array;
  /** 1 where the path was stored. */
  stored: Uint8Array;
  packs: number;
  /** The CPU priority (nice value) the job ran at. */
  priority: number;
}

interface PackEntry {
  id: Buffer;
  offset: number;
  crc: number;
}

/** zlib's window for an object of `size` bytes: no larger than the object (a smaller window costs less to set up and clear; git inflates any). */
export function windowBitsFor(size: number): number {
  return Math.min(15, Math.max(9, Math.ceil(Math.log2(size + 262))));
}

/** Writes objects into packs of objects/pack as they come (used by tree-writer.ts too). */
export class PackBuilder {
  readonly #dir: string;
  #entries: PackEntry[] = [];
  #fd: number | null = null;
  #temp = "";
  #offset = 0;
  #seen = new Set<string>();
  packs = 0;

  constructor(gitDir: string) {
    this.#dir = join(gitDir, "objects", "pack");
  }

  /** Appends one object, a blob unless `type` says otherwise (written at once: no pack is held in memory). */
  add(id: Buffer, content: Buffer, level: number, type = OBJ_BLOB): void {
    const key = id.toString("hex");
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    const header = objectHeader(content.length, type);
    const data = deflateSync(content, { level, windowBits: windowBitsFor(content.length) });
    const fd = this.#open();
    this.#entries.push({ id, offset: this.#offset, crc: crc32(data, crc32(header)) });
    writeAll(fd, header);
    writeAll(fd, data);
    this.#offset += header.length + data.length;
    if (this.#offset >= PACK_BYTES) this.flush();
  }

  #open(): number {
    if (this.#fd !== null) return this.#fd;
    mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
    this.#temp = join(this.#dir, `tmp_pack_lathe_${process.pid}_${randomBytes(6).toString("hex")}`);
    this.#fd = openSync(this.#temp, "wx+", 0o400);
    writeAll(this.#fd, Buffer.alloc(12)); // the header, written last (its object count)
    this.#offset = 12;
    return this.#fd;
  }

  /** Completes the pack (header, checksum) and writes its index; the pack is renamed first, so git never sees an index without its pack. */
  flush(): void {
    const fd = this.#fd;
    if (fd === null) return;
    const entries = this.#entries;
    const packTemp = this.#temp;
    const idxTemp = `${packTemp}.idx`;
    this.#fd = null;
    this.#entries = [];
    try {
      const header = Buffer.alloc(12);
      header.write("PACK", 0, "latin1");
      header.writeUInt32BE(2, 4);
      header.writeUInt32BE(entries.length, 8);
      writeSync(fd, header, 0, 12, 0);
      // The checksum of everything written: read back (from the page cache).
      const hash = createHash("sha1");
      const chunk = Buffer.allocUnsafe(1024 * 1024);
      for (let at = 0; at < this.#offset;) {
        const n = readSync(fd, chunk, 0, Math.min(chunk.length, this.#offset - at), at);
        if (n === 0) throw new Error(`${packTemp} is shorter than written`);
        hash.update(chunk.subarray(0, n));
        at += n;
      }
      const checksum = hash.digest();
      writeSync(fd, checksum, 0, 20, this.#offset);
      closeSync(fd);
      const name = checksum.toString("hex");
      writeFileAll(idxTemp, packIndex(entries, checksum));
      renameSync(packTemp, join(this.#dir, `pack-${name}.pack`));
      renameSync(idxTemp, join(this.#dir, `pack-${name}.idx`));
      this.packs++;
    } catch (error) {
      try {
        closeSync(fd);
      } catch {
        // already closed
      }
      rmSync(packTemp, { force: true });
      rmSync(idxTemp, { force: true });
      throw new Error(`The checkpoint store could not be written in ${this.#dir}: ${(error as Error).message}`, { cause: error });
    }
  }

  /** Removes an unfinished pack (the job failed). */
  discard(): void {
    if (this.#fd === null) return;
    try {
      closeSync(this.#fd);
    } catch {
      // already closed
    }
    this.#fd = null;
    rmSync(this.#temp, { force: true });
  }
}

/** A pack entry's header: type and size, 4 bits then 7 bits a byte, low bits first. */
function objectHeader(size: number, type: number): Buffer {
  const bytes: number[] = [];
  let byte = (type << 4) | (size & 0x0f);
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes.push(byte | 0x80);
    byte = rest & 0x7f;
    rest = Math.floor(rest / 128);
  }
  bytes.push(byte);
  return Buffer.from(bytes);
}

/** A pack index, format 2: fan-out, sorted ids, CRC-32s, offsets (all below 2 GiB), pack checksum, its own checksum. */
function packIndex(entries: PackEntry[], packChecksum: Buffer): Buffer {
  const sorted = [...entries].sort((a, b) => Buffer.compare(a.id, b.id));
  const n = sorted.length;
  const out = Buffer.alloc(8 + 256 * 4 + n * 28 + 20);
  out.writeUInt32BE(0xff744f63, 0);
  out.writeUInt32BE(2, 4);
  const fanout = new Array<number>(256).fill(0);
  for (const entry of sorted) fanout[entry.id[0]!]!++;
  let total = 0;
  for (let b = 0; b < 256; b++) {
    total += fanout[b]!;
    out.writeUInt32BE(total, 8 + b * 4);
  }
  const ids = 8 + 1024;
  const crcAt = ids + n * 20;
  const offsetAt = crcAt + n * 4;
  sorted.forEach((entry, rank) => {
    entry.id.copy(out, ids + rank * 20);
    out.writeUInt32BE(entry.crc >>> 0, crcAt + rank * 4);
    out.writeUInt32BE(entry.offset, offsetAt + rank * 4);
  });
  packChecksum.copy(out, offsetAt + n * 4);
  return Buffer.concat([out, createHash("sha1").update(out).digest()]);
}

function writeAll(fd: number, data: Buffer): void {
  let done = 0;
  while (done < data.length) done += writeSync(fd, data, done, data.length - done);
}

function writeFileAll(file: string, data: Buffer): void {
  const fd = openSync(file, "wx", 0o400);
  try {
    writeAll(fd, data);
  } finally {
    closeSync(fd);
  }
}

const sameStat = (a: BigIntStats, b: BigIntStats) => a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs && a.size === b.size && a.ino === b.ino;

/** Reads one path: its content, its stat data and git mode, or null when it is not a file or link (any more). */
function readEntry(full: Buffer): { content: Buffer; info: BigIntStats; mode: number } | null {
  for (let attempt = 0; attempt < READ_TRIES; attempt++) {
    let fd: number;
    try {
      fd = openSync(full, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ELOOP") return null;
      const link = lstatSync(full, { bigint: true, throwIfNoEntry: false });
      if (!link?.isSymbolicLink()) continue;
      const content = readlinkSync(full, { encoding: "buffer" });
      const after = lstatSync(full, { bigint: true, throwIfNoEntry: false });
      if (after && sameStat(link, after)) return { content, info: link, mode: 0o120000 };
      continue;
    }
    try {
      const before = fstatSync(fd, { bigint: true });
      if (!before.isFile()) return null;
      // One byte more than its size: a file that grew meanwhile is read again.
      const buffer = Buffer.allocUnsafe(Number(before.size) + 1);
      let length = 0;
      for (let n = -1; n !== 0 && length < buffer.length; length += n) n = readSync(fd, buffer, length, buffer.length - length, null);
      const after = fstatSync(fd, { bigint: true });
      if (sameStat(before, after) && BigInt(length) === after.size) return { content: buffer.subarray(0, length), info: after, mode: after.mode & 0o100n ? 0o100755 : 0o100644 };
    } finally {
      closeSync(fd);
    }
  }
  return null;
}

const u32 = (value: bigint) => Number(BigInt.asUintN(32, value));

/** Runs a StoreBlobsJob (see the header). */
export function runStoreBlobsJob(job: StoreBlobsJob): StoreBlobsResult {
  if (job.lowPriority && process.platform === "linux") {
    try {
      setPriority(19); // this thread only, on Linux (setpriority of thread id 0)
    } catch {
      // not allowed: runs at the priority it has
    }
  }
  const paths = splitNul(Buffer.from(job.paths.buffer, job.paths.byteOffset, job.paths.byteLength));
  const ids = new Uint8Array(paths.length * 20);
  const stat = new Uint32Array(paths.length * STAT_FIELDS);
  const stored = new Uint8Array(paths.length);
  const pack = new PackBuilder(job.gitDir);
  const prefix = Buffer.from(`${job.projectDir}/`);
  try {
    paths.forEach((path, i) => storeOne(path, i));
    pack.flush();
  } finally {
    pack.discard();
  }
  return { ids, stat, stored, packs: pack.packs, priority: getPriority() };

  function storeOne(path: Buffer, i: number): void {
    let entry: ReturnType<typeof readEntry>;
    try {
      entry = readEntry(Buffer.concat([prefix, path]));
    } catch {
      entry = null; // unreadable (permissions, a folder swapped in): left out, as git's update-index --remove would
    }
    if (!entry) return;
    const { content, info, mode } = entry;
    const id = createHash("sha1").update(`blob ${content.length}\0`).update(content).digest();
    pack.add(id, content, job.level);
    ids.set(id, i * 20);
    const readAtS = BigInt(Math.floor(Date.now() / 1000));
    const trusted = info.mtimeNs / 1_000_000_000n + SAFE_AGE_S <= readAtS;
    stat.set(
      [
        u32(info.ctimeNs / 1_000_000_000n),
        u32(info.ctimeNs % 1_000_000_000n),
        u32(info.mtimeNs / 1_000_000_000n),
        u32(info.mtimeNs % 1_000_000_000n),
        u32(info.dev),
        u32(info.ino),
        mode,
        u32(info.uid),
        u32(info.gid),
        trusted ? u32(BigInt(content.length)) : 0,
      ],
      i * STAT_FIELDS,
    );
    stored[i] = 1;
  }
}
