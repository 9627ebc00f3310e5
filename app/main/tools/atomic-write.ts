// Writes a file atomically: the data goes to a temporary file in the same folder, which is then
// renamed over the target, so a reader never sees half a file. Creates missing parent folders,
// keeps an existing file's mode, and writes through a symlink to its target. Rejects on failure,
// leaving the target untouched and no temporary file behind.
import { randomBytes } from "node:crypto";
import { chmod, mkdir, realpath, rename, stat, unlink, writeFile } from "node:fs/promises";
import path from "node:path";

export interface AtomicWriteResult {
  /** The file actually written (the symlink's target when `file` is a symlink). */
  writtenPath: string;
  created: boolean;
  /** The previous size in bytes, when the file existed. */
  previousSize?: number;
}

export async function writeFileAtomic(file: string, data: string | Buffer): Promise<AtomicWriteResult> {
  const target = await realpath(file).catch(() => file);
  const existing = await stat(target).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return undefined;
    throw err;
  });
  if (existing?.isDirectory()) throw new Error(`${file} is a directory.`);
  const dir = path.dirname(target);
  await mkdir(dir, { recursive: true });
  const temp = path.join(dir, `.${path.basename(target)}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    await writeFile(temp, data, { flag: "wx" });
    if (existing) await chmod(temp, existing.mode & 0o7777);
    await rename(temp, target);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
  return { writtenPath: target, created: existing === undefined, previousSize: existing?.size };
}
