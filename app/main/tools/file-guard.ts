// Opens the files the tools read without ever blocking on them, and refuses what is not a regular
// file. The path's stat comes first (it never blocks), so a device or a socket is never opened.
// The open is non-blocking (O_NONBLOCK: opening a FIFO with no writer returns at once instead of
// waiting forever, and holds no libuv thread), and the type is checked again on the opened
// descriptor (fstat), so a file swapped for a FIFO between the stat and the open is still caught. Refused, with a FileKindError saying what the file is and why: FIFOs, sockets, character
// and block devices, folders where a file is expected, and files of kernel pseudo-filesystems
// (/proc, /sys, debugfs…), whose "files" are generated as they are read and may never end.
// The async forms are for the main process; the Sync forms are for worker threads and small
// start-up reads (instruction files). Both close what they opened when they refuse it.
import type { Stats } from "node:fs";
import { closeSync, constants, fstatSync, openSync, statfsSync, statSync } from "node:fs";
import { type FileHandle, open, stat, statfs } from "node:fs/promises";

export class FileKindError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FileKindError";
  }
}

const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** Linux statfs magic numbers of pseudo-filesystems whose files the tools refuse. */
const PSEUDO_FILESYSTEMS = new Map<number, string>([
  [0x9fa0, "/proc"],
  [0x62656572, "/sys"],
  [0x64626720, "debugfs"],
  [0x74726163, "tracefs"],
  [0x73636673, "securityfs"],
  [0x27e0eb, "cgroupfs"],
  [0x63677270, "cgroupfs"],
  [0x6165676c, "pstore"],
  [0xde5e81e4, "efivarfs"],
  [0xcafe4a11, "bpffs"],
  [0x62656570, "configfs"],
  [0x1cd1, "devpts"],
  [0x1373, "devtmpfs"],
]);

/** What a non-regular file is, in words ("a FIFO (named pipe)"), or undefined for a regular file. */
export function describeSpecialFile(stats: Stats): string | undefined {
  if (stats.isFile()) return undefined;
  if (stats.isDirectory()) return "a directory";
  if (stats.isFIFO()) return "a FIFO (named pipe)";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  return "not a regular file";
}

function specialFileError(shown: string, what: string, tool: string): FileKindError {
  if (what === "a directory") return new FileKindError(`${shown} is a directory${tool === "read" ? "; use the ls tool to list it" : ", not a file"}.`);
  return new FileKindError(
    `${shown} is ${what}, not a regular file, so ${tool} refuses it: the file tools work on regular files only (reading a pipe, a socket or a device could block forever or never end).`,
  );
}

function pseudoFsError(shown: string, fsName: string, tool: string): FileKindError {
  return new FileKindError(
    `${shown} is in ${fsName}, a kernel pseudo-filesystem whose files are generated as they are read and may never end, so ${tool} refuses it. If you need it, use bash with a bounded command such as head -c 65536.`,
  );
}

function pseudoFsOf(type: number | bigint): string | undefined {
  return process.platform === "linux" ? PSEUDO_FILESYSTEMS.get(Number(type)) : undefined;
}

export interface OpenedFile {
  handle: FileHandle;
  stats: Stats;
}

/**
 * Opens `absPath` for reading if it is a regular file on a real filesystem; rejects with
 * FileKindError otherwise, and with the open's own error (ENOENT…) when it cannot be opened.
 */
export async function openRegularFile(absPath: string, shown: string, tool: string): Promise<OpenedFile> {
  // stat first: a device is never opened at all (opening some has side effects), a socket cannot be.
  const what = describeSpecialFile(await stat(absPath));
  if (what) throw specialFileError(shown, what, tool);
  const handle = await open(absPath, OPEN_FLAGS);
  try {
    const stats = await handle.stat();
    const what = describeSpecialFile(stats);
    if (what) throw specialFileError(shown, what, tool);
    if (process.platform === "linux") {
      const fsName = pseudoFsOf((await statfs(absPath)).type);
      if (fsName) throw pseudoFsError(shown, fsName, tool);
    }
    return { handle, stats };
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
}

/** The same as openRegularFile, blocking: for worker threads and tiny start-up reads only. */
export function openRegularFileSync(absPath: string, shown: string, tool: string): { fd: number; stats: Stats } {
  const what = describeSpecialFile(statSync(absPath));
  if (what) throw specialFileError(shown, what, tool);
  const fd = openSync(absPath, OPEN_FLAGS);
  try {
    const stats = fstatSync(fd);
    const what = describeSpecialFile(stats);
    if (what) throw specialFileError(shown, what, tool);
    const fsName = process.platform === "linux" ? pseudoFsOf(statfsSync(absPath).type) : undefined;
    if (fsName) throw pseudoFsError(shown, fsName, tool);
    return { fd, stats };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/**
 * For a path the tools would replace or search (write's target, grep's root): refuses an existing
 * special file or pseudo-filesystem file with FileKindError, from its stat (which never blocks).
 * `stats` is the path's stat (following symlinks), or undefined when it does not exist.
 */
export async function refuseSpecialPath(absPath: string, stats: Stats | undefined, shown: string, tool: string, allowDirectory: boolean): Promise<void> {
  if (!stats) return;
  if (!(allowDirectory && stats.isDirectory())) {
    const what = describeSpecialFile(stats);
    if (what) throw specialFileError(shown, what, tool);
  }
  if (process.platform === "linux") {
    const fsName = pseudoFsOf((await statfs(absPath).catch(() => ({ type: 0 }))).type);
    if (fsName) throw pseudoFsError(shown, fsName, tool);
  }
}
