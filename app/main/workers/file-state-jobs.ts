// The checkpoint store's work that may be large (app/main/checkpoints asks for it), run in a worker
// thread of the compute pool (never on the main process; synchronous I/O is fine here for that
// reason). It lives with the workers, below the services: a worker thread loads only this layer.
// - runFileStatesJob: what each listed file of a folder is now, as git would store it: the blob id
//   of a regular file (sha1 of "blob <size>\0" + content) or of a symbolic link (its target), or
//   "absent", "other" (a folder, FIFO, socket, device: never opened), "large" (over maxBytes: not
//   read). A path whose parent folders are not all real folders inside the root (a symbolic link
//   on the way) is "other": nothing outside the folder is ever read through a link.
// - runContentDiffJob: the bounded diff (tools/bounded-diff.ts) of two stored versions of a file,
//   or a note when either is binary.
// Neither throws for any input: a file that cannot be read is "unreadable".
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { closeSync, fstatSync, lstatSync, openSync, readlinkSync, readSync, constants } from "node:fs";
import { boundedTextDiff } from "../tools/bounded-diff.ts";
import { looksBinary } from "../tools/file-kind.ts";

export interface FileStatesJob {
  kind: "fileStates";
  root: string;
  /** Paths relative to root, base64url of their bytes. */
  paths: string[];
  maxBytes: number;
}

export type FileState = { blob: string; mode: string } | "absent" | "other" | "large" | "unreadable";

export interface FileStatesJobResult {
  states: FileState[];
}

export interface ContentDiffJob {
  kind: "contentDiff";
  name: string;
  /** Either side null: the file did not exist. */
  before: Uint8Array | null;
  after: Uint8Array | null;
}

export interface ContentDiffJobResult {
  diff: string;
  complete: boolean;
  binary: boolean;
}

export function gitBlobId(content: Uint8Array): string {
  return createHash("sha1").update(`blob ${content.length}\0`).update(content).digest("hex");
}

function readRegular(path: Buffer, size: number): Buffer | null {
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  try {
    if (!fstatSync(fd).isFile()) return null;
    const buffer = Buffer.allocUnsafe(size);
    let filled = 0;
    while (filled < size) {
      const n = readSync(fd, buffer, filled, size - filled, filled);
      if (n === 0) break;
      filled += n;
    }
    return buffer.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}

export function runFileStatesJob(job: FileStatesJob): FileStatesJobResult {
  const root = Buffer.from(job.root);
  const realDirs = new Map<string, boolean>();
  const parentsAreFolders = (rel: Buffer): boolean => {
    for (let slash = rel.indexOf(0x2f); slash !== -1; slash = rel.indexOf(0x2f, slash + 1)) {
      const key = rel.subarray(0, slash).toString("latin1");
      let ok = realDirs.get(key);
      if (ok === undefined) {
        try {
          ok = lstatSync(Buffer.concat([root, Buffer.from("/"), rel.subarray(0, slash)])).isDirectory();
        } catch {
          ok = false;
        }
        realDirs.set(key, ok);
      }
      if (!ok) return false;
    }
    return true;
  };
  const states = job.paths.map((id): FileState => {
    const rel = Buffer.from(id, "base64url");
    if (!parentsAreFolders(rel)) return "absent";
    const full = Buffer.concat([root, Buffer.from("/"), rel]);
    try {
      const info = lstatSync(full);
      if (info.isSymbolicLink()) return { blob: gitBlobId(readlinkSync(full, { encoding: "buffer" })), mode: "120000" };
      if (!info.isFile()) return "other";
      if (info.size > job.maxBytes) return "large";
      const content = readRegular(full, info.size);
      if (!content) return "other";
      return { blob: gitBlobId(content), mode: info.mode & 0o111 ? "100755" : "100644" };
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR" ? "absent" : "unreadable";
    }
  });
  return { states };
}

export function runContentDiffJob(job: ContentDiffJob): ContentDiffJobResult {
  const before = job.before ? Buffer.from(job.before) : null;
  const after = job.after ? Buffer.from(job.after) : null;
  if ((before && looksBinary(before.subarray(0, 8192))) || (after && looksBinary(after.subarray(0, 8192)))) {
    return { diff: "", complete: true, binary: true };
  }
  const text = (b: Buffer | null) =>
    b
      ? b
          .toString("utf8")
          .replace(/^\uFEFF/, "")
          .replaceAll("\r\n", "\n")
      : "";
  const diff = boundedTextDiff(before ? `a/${job.name}` : "/dev/null", after ? `b/${job.name}` : "/dev/null", text(before), text(after));
  return { diff: diff.text, complete: diff.complete, binary: false };
}
