// Entry point of the session store: openStore({ dataDir }) takes the data folder's lock (one
// writer per folder, folder-lock.ts), then opens (creating, repairing, migrating as needed) the one
// SQLite database in that folder. Returns the store and the notices the app must show (a damaged
// file moved aside, an upgrade with its backup, runs cut short by a crash). Crash repair runs here,
// so only by the lock's holder. The lock is released by store.close() (or by the OS at exit).
// `readOnly: true` takes no lock and changes nothing: no repair, no upgrade, no writes at all.
// The database's integrity check (quick_check) runs only when the previous holder of the folder did
// not exit cleanly (folder-lock.ts: previousExitClean), so a normal start does not read the file.
// Throws FolderLockedError when another process holds the folder, NewerDatabaseError for a file
// from a newer Lathe, StoreError for anything else.
import fs from "node:fs";
import { toStoreError } from "./errors.ts";
import { acquireFolderLock } from "./folder-lock.ts";
import { openDatabase, type StoreNotice as DatabaseNotice } from "./open-database.ts";
import { repairInterruptedRuns } from "./repair.ts";
import { SessionStore } from "./session-store.ts";

export type StoreNotice = DatabaseNotice | { kind: "runs-interrupted"; message: string; sessionIds: number[]; abortedToolResults: number };

export interface OpenStoreOptions {
  /** The data folder: Electron's userData, the headless host's --data-dir, a temp folder in tests. */
  dataDir: string;
  /** Default "lathe.db". */
  fileName?: string;
  /** Files up to this size get a full quick_check at open after an unclean shutdown (default 256 MiB). */
  quickCheckMaxBytes?: number;
  /** Run quick_check even after a clean shutdown. */
  alwaysCheck?: boolean;
  /** Open without the lock and without writing anything (another process holds the folder). */
  readOnly?: boolean;
  /** Who is opening, for the message a refused process shows ("the headless host"). */
  app?: string;
}

export function openStore(options: OpenStoreOptions): { store: SessionStore; notices: StoreNotice[]; checked: boolean } {
  if (options.readOnly) {
    const opened = openDatabase(options);
    return { store: new SessionStore(opened.db, opened.path, { readOnly: true }), notices: [], checked: opened.checked };
  }
  try {
    fs.mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw toStoreError(err, `creating the data folder ${options.dataDir}`);
  }
  const lock = acquireFolderLock(options.dataDir, options.app ?? `a Lathe process (${process.title})`);
  let opened: ReturnType<typeof openDatabase>;
  try {
    opened = openDatabase({ ...options, quickCheck: options.alwaysCheck === true || !lock.previousExitClean });
  } catch (err) {
    lock.release();
    throw err;
  }
  const notices: StoreNotice[] = [...opened.notices];
  const store = new SessionStore(opened.db, opened.path, { lock });
  try {
    const repaired = repairInterruptedRuns(opened.db);
    if (repaired.length > 0) {
      const abortedToolResults = repaired.reduce((n, r) => n + r.abortedToolResults, 0);
      const sessionIds = [...new Set(repaired.map((r) => r.sessionId))];
      notices.push({
        kind: "runs-interrupted",
        message:
          `${sessionIds.length} session${sessionIds.length === 1 ? " was" : "s were"} interrupted when Lathe last stopped` +
          (abortedToolResults > 0 ? `; ${abortedToolResults} unfinished tool call${abortedToolResults === 1 ? " was" : "s were"} marked aborted.` : "."),
        sessionIds,
        abortedToolResults,
      });
    }
  } catch (err) {
    store.close();
    throw toStoreError(err, "finishing the runs interrupted when Lathe last stopped");
  }
  return { store, notices, checked: opened.checked };
}

export { SessionStore } from "./session-store.ts";
export { SessionRecorder } from "./recorder.ts";
export { NewerDatabaseError, StoreError } from "./errors.ts";
export { FolderLockedError, describeHolder } from "./folder-lock.ts";
export { ABORTED_RESULT_TEXT } from "./repair.ts";
export type { PermissionRule } from "./permission-rules.ts";
export type * from "./store-types.ts";
