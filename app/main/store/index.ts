// Entry point of the session store: openStore({ dataDir }) opens (creating, repairing, migrating
// as needed) the one SQLite database in that folder. Returns the store and the notices the app
// must show (a damaged file moved aside, an upgrade with its backup, runs cut short by a crash).
// Throws NewerDatabaseError for a file from a newer Lathe, StoreError for anything else.
import { toStoreError } from "./errors.ts";
import { openDatabase, type StoreNotice as DatabaseNotice } from "./open-database.ts";
import { repairInterruptedRuns } from "./repair.ts";
import { SessionStore } from "./session-store.ts";

export type StoreNotice =
  | DatabaseNotice
  | { kind: "runs-interrupted"; message: string; sessionIds: number[]; abortedToolResults: number };

export interface OpenStoreOptions {
  /** The data folder: Electron's userData, the headless host's --data-dir, a temp folder in tests. */
  dataDir: string;
  /** Default "lathe.db". */
  fileName?: string;
  /** Files up to this size get a full quick_check at open (default 256 MiB). */
  quickCheckMaxBytes?: number;
}

export function openStore(options: OpenStoreOptions): { store: SessionStore; notices: StoreNotice[] } {
  const opened = openDatabase(options);
  const notices: StoreNotice[] = [...opened.notices];
  const store = new SessionStore(opened.db, opened.path);
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
  return { store, notices };
}

export { SessionStore } from "./session-store.ts";
export { SessionRecorder, type RecorderOptions } from "./recorder.ts";
export { NewerDatabaseError, StoreError, type StoreFailure } from "./errors.ts";
export { ABORTED_RESULT_TEXT } from "./repair.ts";
export type { SessionExport } from "./export.ts";
export type { ToolAuditEntry, StoredToolAuditEntry, ListAuditOptions } from "./audit-log.ts";
export type { NewPermissionRule, PermissionRule, RuleScope, RuleQuery } from "./permission-rules.ts";
export type * from "./store-types.ts";
