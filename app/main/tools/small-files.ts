// Small reads of a file the app asks about (a package.json's scripts, an instruction file's
// first 64 KB), each as a blocking form (worker threads, tests, start-up) and an async one (the
// main process, through libuv's threads: fs-answers.ts). Files are opened without blocking and
// only regular ones are read (file-guard.ts: a FIFO is refused, never waited on). Never throw.
import { closeSync, readSync } from "node:fs";
import { openRegularFile, openRegularFileSync } from "./file-guard.ts";

/**
 * A small file's text: null when it does not exist; undefined when it cannot be told: not a
 * regular file (a FIFO, a device, a folder: file-guard.ts opens without blocking and checks the
 * opened descriptor), longer than `maxBytes`, growing as it is read, or unreadable.
 */
export function smallFileTextSync(p: string, maxBytes: number): string | null | undefined {
  let opened: { fd: number; stats: { size: number } };
  try {
    opened = openRegularFileSync(p, p, "the permission check");
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? null : undefined;
  }
  try {
    const size = opened.stats.size;
    if (size > maxBytes) return undefined;
    // One byte more than its size: a file that grows meanwhile is not judged from a part of it.
    const buffer = Buffer.allocUnsafe(size + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const n = readSync(opened.fd, buffer, filled, buffer.length - filled, filled);
      if (n === 0) break;
      filled += n;
    }
    return filled > size ? undefined : buffer.toString("utf8", 0, filled);
  } catch {
    return undefined;
  } finally {
    closeSync(opened.fd);
  }
}

export async function smallFileTextAsync(p: string, maxBytes: number): Promise<string | null | undefined> {
  let opened: Awaited<ReturnType<typeof openRegularFile>>;
  try {
    opened = await openRegularFile(p, p, "the permission check");
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? null : undefined;
  }
  try {
    const size = opened.stats.size;
    if (size > maxBytes) return undefined;
    const buffer = Buffer.allocUnsafe(size + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await opened.handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return filled > size ? undefined : buffer.toString("utf8", 0, filled);
  } catch {
    return undefined;
  } finally {
    await opened.handle.close().catch(() => undefined);
  }
}

/** The first `maxBytes` of a regular file (opened without blocking: file-guard.ts), or undefined. */
export function headSync(p: string, maxBytes: number): string | undefined {
  let opened: { fd: number; stats: { size: number } };
  try {
    opened = openRegularFileSync(p, p, "the file check");
  } catch {
    return undefined;
  }
  try {
    const buffer = Buffer.alloc(Math.min(opened.stats.size, maxBytes));
    const n = readSync(opened.fd, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, n).toString("utf8");
  } catch {
    return undefined;
  } finally {
    closeSync(opened.fd);
  }
}

export async function headAsync(p: string, maxBytes: number): Promise<string | undefined> {
  let opened: Awaited<ReturnType<typeof openRegularFile>>;
  try {
    opened = await openRegularFile(p, p, "the file check");
  } catch {
    return undefined;
  }
  try {
    const buffer = Buffer.alloc(Math.min(opened.stats.size, maxBytes));
    const { bytesRead } = await opened.handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } catch {
    return undefined;
  } finally {
    await opened.handle.close().catch(() => undefined);
  }
}
