// Writes a file atomically: the data goes to a temporary file in the same folder, which is then
// renamed over the target, so a reader never sees half a file. Creates missing parent folders,
// keeps an existing file's mode, and writes through a symlink to its target. Refuses to replace
// anything but a regular file (a FIFO, a device, a /proc file…). With `expectedTarget`, refuses a
// file whose real location changed since the call began (checked again just before the rename).
// Rejects on failure, leaving the target untouched and no temporary file behind.
// Two steps for callers that write the temporary file elsewhere (the edit tool's worker thread):
// `prepareAtomicWrite` names the temporary file, then `commit` or `discard`.
import { randomBytes } from "node:crypto";
import type { Stats } from "node:fs";
import { chmod, mkdir, realpath, rename, stat, unlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { refuseSpecialPath } from "./file-guard.ts";
import { realPathOffThread } from "./fs-answers.ts";

export interface AtomicWriteResult {
  /** The file actually written (the symlink's target when `file` is a symlink). */
  writtenPath: string;
  created: boolean;
  /** The previous size in bytes, when the file existed. */
  previousSize?: number;
}

export interface PreparedWrite {
  /** Where the new content must be written (it does not exist yet). */
  tempPath: string;
  /** Renames the temporary file over the target, keeping the target's mode. */
  commit(): Promise<AtomicWriteResult>;
  /** Removes the temporary file, if it was made. Never rejects. */
  discard(): Promise<void>;
}

/** Thrown by prepareAtomicWrite with `mustExist` when the file does not exist. */
export class MissingFileError extends Error {
  constructor(shown: string) {
    super(`File not found: ${shown}.`);
    this.name = "MissingFileError";
  }
}

/** Thrown when the file's real location changed since the call began (a symlink swapped in meanwhile). */
export class MovedTargetError extends Error {
  constructor(shown: string, now: string) {
    super(`${shown} now leads to ${now}, not where it led when this call began (a folder or link on the way was replaced while it ran); nothing was written.`);
    this.name = "MovedTargetError";
  }
}

export interface PrepareOptions {
  mustExist?: boolean;
  /**
   * The file's real path when the call began (its permission was judged on that path): a file
   * now reached through a symlink swapped in meanwhile (by a command running at the same time)
   * is refused, here and again just before the rename.
   */
  expectedTarget?: string;
}

export async function prepareAtomicWrite(file: string, shown = file, options: PrepareOptions = {}): Promise<PreparedWrite> {
  const checkTarget = async () => {
    if (options.expectedTarget === undefined) return;
    const now = await realPathOffThread(file);
    if (now !== options.expectedTarget) throw new MovedTargetError(shown, now);
  };
  await checkTarget();
  // The judged location itself when it is known (a link flipped since the check cannot redirect it).
  const target = options.expectedTarget ?? (await realpath(file).catch(() => file));
  const existing: Stats | undefined = await stat(target).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return undefined;
    throw err;
  });
  if (existing?.isDirectory()) throw new Error(`${file} is a directory.`);
  if (!existing && options.mustExist) throw new MissingFileError(shown);
  await refuseSpecialPath(target, existing, shown, options.mustExist ? "edit" : "write", false);
  const dir = path.dirname(target);
  if (!existing) await mkdir(dir, { recursive: true });
  const tempPath = path.join(dir, `.${path.basename(target)}.${randomBytes(6).toString("hex")}.tmp`);
  const discard = () => unlink(tempPath).catch(() => undefined);
  return {
    tempPath,
    discard,
    async commit() {
      try {
        await checkTarget();
        if (existing) await chmod(tempPath, existing.mode & 0o7777);
        await rename(tempPath, target);
      } catch (err) {
        await discard();
        throw err;
      }
      return { writtenPath: target, created: existing === undefined, previousSize: existing?.size };
    },
  };
}

export async function writeFileAtomic(file: string, data: string | Buffer, shown = file, options: PrepareOptions = {}): Promise<AtomicWriteResult> {
  const prepared = await prepareAtomicWrite(file, shown, options);
  try {
    await writeFile(prepared.tempPath, data, { flag: "wx" });
  } catch (err) {
    await prepared.discard();
    throw err;
  }
  return prepared.commit();
}
