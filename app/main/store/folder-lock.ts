// One writer per data folder. acquireFolderLock() takes an exclusive OS lock for the life of the
// process (or until release()); a second app, host or test on the same folder gets a
// FolderLockedError naming the holder (what it is, its pid and host, since when).
//
// Mechanism: an SQLite transaction left open. `lathe.lock` is an (empty) SQLite database; the
// holder runs `BEGIN EXCLUSIVE` on it and never commits, so SQLite holds its exclusive byte-range
// lock (fcntl on Unix, LockFileEx on Windows) until the connection closes. Why this and not a
// lock file created with O_EXCL plus a pid/start-time liveness check:
// - The kernel arbitrates: two processes racing for the lock cannot both win, and there is no
//   "stale lock" to detect or delete. A process that dies in any way (kill -9, power cut in the
//   middle of taking over) has its locks dropped by the OS, so the next start takes it over at
//   once, with no window in which two takeovers can both succeed (the classic O_EXCL takeover
//   race: A and B both see a dead pid, A recreates the file, B deletes A's fresh file).
// - It needs no new native code: better-sqlite3 is already the store's driver, and SQLite keeps
//   POSIX locks correct between connections of one process (a second store opened in the same
//   process is refused too).
// Caveat of POSIX locks: closing ANY descriptor of a file drops the process's locks on it, so
// nothing may open `lathe.lock` except through SQLite (chmod is fine; so is creating it with O_EXCL,
// which opens nothing when it exists). Network file systems that
// do not implement byte-range locks cannot give this guarantee; Lathe's data folder is local.
// A `lathe.lock` that is not an SQLite file (overwritten by something else) cannot be held by
// anyone; it is renamed to `lathe.lock.damaged-<time>` and a fresh one is taken.
//
// Who holds the lock is written by the holder, after it has the lock, to `lathe.lock.json`
// (atomically: temporary file, then rename). A refused process reads it to explain itself; a
// description left by a dead holder is never trusted, because it is only read while the lock is
// held by someone, and that someone rewrote it on taking the lock.
// The description is removed when the holder releases the lock, so finding one on taking the lock
// means the previous holder did not release it: it crashed or was killed (`previousExitClean`
// false). The store then checks the database's integrity at open; after a clean exit it does not.
import Database from "better-sqlite3";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { isCorruptionError, StoreError, toStoreError } from "./errors.ts";
import { createPrivateFile } from "./private-folder.ts";

export const LOCK_FILE = "lathe.lock";
export const HOLDER_FILE = "lathe.lock.json";

export interface LockHolder {
  pid: number;
  /** What holds it: "the Lathe app", "the headless host"… */
  app: string;
  hostname: string;
  /** Milliseconds since the epoch when it took the lock. */
  since: number;
}

export class FolderLockedError extends StoreError {
  readonly dataDir: string;
  readonly holder: LockHolder | undefined;
  constructor(dataDir: string, holder: LockHolder | undefined) {
    super("in-use", `${describeHolder(dataDir, holder)} Quit it first, or open this folder read-only (nothing is written then).`);
    this.name = "FolderLockedError";
    this.dataDir = dataDir;
    this.holder = holder;
  }
}

/** "The data folder X is in use by the headless host (pid 12, on box) since 2025-…" */
export function describeHolder(dataDir: string, holder: LockHolder | undefined): string {
  if (!holder) return `The data folder ${dataDir} is in use by another Lathe process (it is starting or did not say which).`;
  const since = new Date(holder.since).toLocaleString();
  return `The data folder ${dataDir} is in use by ${holder.app} (pid ${holder.pid} on ${holder.hostname}) since ${since}.`;
}

export interface FolderLock {
  readonly dataDir: string;
  readonly holder: LockHolder;
  /** False when the previous holder did not release the lock (crash, kill -9, power loss). */
  readonly previousExitClean: boolean;
  /** Releases the lock (also released by the OS when the process ends). Idempotent. */
  release(): void;
}

/** Takes the data folder's lock or throws FolderLockedError (another holder) or StoreError (I/O). */
export function acquireFolderLock(dataDir: string, app: string, retried = false): FolderLock {
  const file = path.join(dataDir, LOCK_FILE);
  let db: Database.Database;
  try {
    // Private before SQLite opens it: SQLite gives the journal it makes at BEGIN the lock file's
    // mode. createPrivateFile never opens an existing file (see the caveat above); chmod opens nothing.
    createPrivateFile(file);
    tighten(file);
    db = new Database(file, { timeout: 0 });
  } catch (err) {
    throw toStoreError(err, `opening the lock file ${file}`);
  }
  try {
    db.exec("BEGIN EXCLUSIVE");
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code === "SQLITE_BUSY" || (err as { code?: string }).code === "SQLITE_LOCKED") {
      throw new FolderLockedError(dataDir, readHolder(dataDir));
    }
    // Not an SQLite file (overwritten by something else): nobody can hold it. Set it aside, once.
    if (isCorruptionError(err) && !retried) {
      try {
        fs.renameSync(file, `${file}.damaged-${Date.now()}`);
      } catch (renameError) {
        throw toStoreError(renameError, `setting aside the damaged lock file ${file}`);
      }
      return acquireFolderLock(dataDir, app, true);
    }
    throw toStoreError(err, `locking the data folder ${dataDir}`);
  }
  const previousExitClean = !fs.existsSync(path.join(dataDir, HOLDER_FILE));
  const holder: LockHolder = { pid: process.pid, app, hostname: os.hostname(), since: Date.now() };
  try {
    writeHolder(dataDir, holder);
  } catch {
    // The lock is what matters; a missing description only makes a refusal less specific.
  }
  let released = false;
  return {
    dataDir,
    holder,
    previousExitClean,
    release() {
      if (released) return;
      released = true;
      try {
        fs.rmSync(path.join(dataDir, HOLDER_FILE), { force: true });
      } catch {
        // a leftover description is harmless: only read while someone holds the lock
      }
      db.close();
    },
  };
}

/** The holder's description, if one can be read (waits briefly for a holder that is starting). */
export function readHolder(dataDir: string, attempts = 10): LockHolder | undefined {
  for (let i = 0; i < attempts; i++) {
    try {
      const parsed = JSON.parse(fs.readFileSync(path.join(dataDir, HOLDER_FILE), "utf8")) as Partial<LockHolder>;
      if (typeof parsed.pid === "number" && typeof parsed.app === "string" && typeof parsed.since === "number" && isAlive(parsed.pid)) {
        return { pid: parsed.pid, app: parsed.app, hostname: String(parsed.hostname ?? "this machine"), since: parsed.since };
      }
    } catch {
      // absent or half-written: try again
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
  }
  return undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === "EPERM";
  }
}

function writeHolder(dataDir: string, holder: LockHolder): void {
  const target = path.join(dataDir, HOLDER_FILE);
  const temporary = `${target}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify(holder)}\n`, { mode: 0o600 });
  fs.renameSync(temporary, target);
}

/** SQLite creates the file with the default mode; only the user needs it. chmod opens no descriptor. */
function tighten(file: string): void {
  try {
    fs.chmodSync(file, 0o600);
  } catch {
    // not fatal (e.g. a file system without modes)
  }
}
