// Stores many project files as git objects from a compute-pool worker thread (a first snapshot:
// first-snapshot.ts splits the files between the workers): reads each file, hashes it with Node's
// SHA-1 (OpenSSL: 2 to 3 times faster than git's collision-detecting one), deflates it at the
// store's level and appends it to a pack (git's pack format 2, whole objects, no deltas), written
// with its index (format 2) into objects/pack. Returns, for each path, its blob id, its git mode and
// the stat data the git index records (index-writer.ts writes the index from them).
// Reading: lstat; a symbolic link is stored as its target; a regular file is opened with O_NOFOLLOW
// and O_NONBLOCK (a path swapped for a link or a FIFO is neither followed nor waited on), fstat-ed
// before and after the read: a file that changed meanwhile is read again (3 tries); anything else
// (gone, a folder, a device, unreadable) is skipped (`stored` 0): the caller leaves it out.
// Stat data that a later change could repeat is smudged (size 0: git then compares the content
// once, as it does for its own racily clean entries): a file whose mtime second is not at least 2 s
// older than when it was read (a change within that second may keep mtime and size).
// Memory: objects are gathered into packs of about PACK_BYTES, each written whole (its object count
// goes first, its checksum last), so a pack's offsets stay far below 2 GiB.
// Contract: synchronous (it runs in a worker); throws only when the store cannot be written (its
// message names the file); a pack and its index are in place (renamed, index last) before it returns.
import { Buffer } from "node:buffer";
import { createHash, randomBytes } from "node:crypto";
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, readlinkSync, renameSync, rmSync, writeSync, type BigIntStats } from "node:fs";
import { join } from "node:path";
import { crc32, deflateSync } from "node:zlib";
import { splitNul } from "./nul-list.ts";

/** Stat fields per file in `stat` (index-writer.ts's order): ctime s, ns, mtime s, ns, dev, ino, mode, uid, gid, size. */
export const STAT_FIELDS = 10;
const PACK_BYTES = 128 * 1024 * 1024;
const READ_TRIES = 3;
const OBJ_BLOB = 3;
const SAFE_AGE_S = 2n;

export interface StoreBlobsJob {
  kind: "storeBlobs";
  gitDir: string;
  projectDir: string;
  /** Project-relative paths, NUL-joined. */
  paths: Uint8Array;
  /** zlib level (the store's core.compression). */
  level: number;
}

export interface StoreBlobsResult {
  /** 20 bytes per path. */
  ids: Uint8Array;
  /** STAT_FIELDS unsigned 32-bit values per path (git's truncation), mode as git records it. */
  stat: Uint32Array;
  /** 1 where the path was stored. */
  stored: Uint8Array;
  packs: number;
}

interface PackObject {
  id: Buffer;
  data: Buffer;
}

class PackBuilder {
  readonly #dir: string;
  #objects: PackObject[] = [];
  #bytes = 0;
  #seen = new Set<string>();
  packs = 0;

  constructor(gitDir: string) {
    this.#dir = join(gitDir, "objects", "pack");
  }

  add(id: Buffer, content: Buffer, level: number): void {
    const key = id.toString("hex");
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    const data = Buffer.concat([objectHeader(content.length), deflateSync(content, { level })]);
    this.#objects.push({ id, data });
    this.#bytes += data.length;
    if (this.#bytes >= PACK_BYTES) this.flush();
  }

  /** Writes the gathered objects as one pack and its index; the pack first, so git never sees an index without its pack. */
  flush(): void {
    const objects = this.#objects;
    if (objects.length === 0) return;
    this.#objects = [];
    this.#bytes = 0;
    mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
    const tag = `${process.pid}_${randomBytes(6).toString("hex")}`;
    const packTemp = join(this.#dir, `tmp_pack_lathe_${tag}`);
    const idxTemp = join(this.#dir, `tmp_idx_lathe_${tag}`);
    try {
      const header = Buffer.alloc(12);
      header.write("PACK", 0, "latin1");
      header.writeUInt32BE(2, 4);
      header.writeUInt32BE(objects.length, 8);
      const packHash = createHash("sha1").update(header);
      const offsets: number[] = [];
      const crcs: number[] = [];
      let offset = header.length;
      const fd = openSync(packTemp, "wx", 0o400);
      try {
        writeAll(fd, header);
        for (const object of objects) {
          offsets.push(offset);
          crcs.push(crc32(object.data));
          packHash.update(object.data);
          writeAll(fd, object.data);
          offset += object.data.length;
        }
        const checksum = packHash.digest();
        writeAll(fd, checksum);
        closeSync(fd);
        const name = checksum.toString("hex");
        writeFileAll(idxTemp, packIndex(objects, offsets, crcs, checksum));
        renameSync(packTemp, join(this.#dir, `pack-${name}.pack`));
        renameSync(idxTemp, join(this.#dir, `pack-${name}.idx`));
        this.packs++;
      } catch (error) {
        try {
          closeSync(fd);
        } catch {
          // already closed
        }
        throw error;
      }
    } catch (error) {
      rmSync(packTemp, { force: true });
      rmSync(idxTemp, { force: true });
      throw new Error(`The checkpoint store could not be written in ${this.#dir}: ${(error as Error).message}`, { cause: error });
    }
  }
}

/** A pack entry's header: type and size, 4 bits then 7 bits a byte, low bits first. */
function objectHeader(size: number): Buffer {
  const bytes: number[] = [];
  let byte = (OBJ_BLOB << 4) | (size & 0x0f);
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
function packIndex(objects: PackObject[], offsets: number[], crcs: number[], packChecksum: Buffer): Buffer {
  const order = objects.map((_, i) => i).sort((a, b) => Buffer.compare(objects[a]!.id, objects[b]!.id));
  const n = objects.length;
  const out = Buffer.alloc(8 + 256 * 4 + n * 28 + 20);
  out.writeUInt32BE(0xff744f63, 0);
  out.writeUInt32BE(2, 4);
  const fanout = new Array<number>(256).fill(0);
  for (const object of objects) fanout[object.id[0]!]!++;
  let total = 0;
  for (let b = 0; b < 256; b++) {
    total += fanout[b]!;
    out.writeUInt32BE(total, 8 + b * 4);
  }
  const ids = 8 + 1024;
  const crcAt = ids + n * 20;
  const offsetAt = crcAt + n * 4;
  order.forEach((index, rank) => {
    objects[index]!.id.copy(out, ids + rank * 20);
    out.writeUInt32BE(crcs[index]! >>> 0, crcAt + rank * 4);
    out.writeUInt32BE(offsets[index]!, offsetAt + rank * 4);
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
    const info = lstatSync(full, { bigint: true, throwIfNoEntry: false });
    if (!info) return null;
    if (info.isSymbolicLink()) {
      const content = readlinkSync(full, { encoding: "buffer" });
      const after = lstatSync(full, { bigint: true, throwIfNoEntry: false });
      if (after && sameStat(info, after)) return { content, info, mode: 0o120000 };
      continue;
    }
    if (!info.isFile()) return null;
    let fd: number;
    try {
      fd = openSync(full, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch {
      continue;
    }
    try {
      const before = fstatSync(fd, { bigint: true });
      if (!before.isFile()) return null;
      const content = readFileSync(fd);
      const after = fstatSync(fd, { bigint: true });
      if (sameStat(before, after) && BigInt(content.length) === after.size) return { content, info: after, mode: after.mode & 0o100n ? 0o100755 : 0o100644 };
    } finally {
      closeSync(fd);
    }
  }
  return null;
}

const u32 = (value: bigint) => Number(BigInt.asUintN(32, value));

/** Runs a StoreBlobsJob (see the header). */
export function runStoreBlobsJob(job: StoreBlobsJob): StoreBlobsResult {
  const paths = splitNul(Buffer.from(job.paths.buffer, job.paths.byteOffset, job.paths.byteLength));
  const ids = new Uint8Array(paths.length * 20);
  const stat = new Uint32Array(paths.length * STAT_FIELDS);
  const stored = new Uint8Array(paths.length);
  const pack = new PackBuilder(job.gitDir);
  const prefix = Buffer.from(`${job.projectDir}/`);
  paths.forEach((path, i) => {
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
  });
  pack.flush();
  return { ids, stat, stored, packs: pack.packs };
}
