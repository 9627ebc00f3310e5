// What every write of the store does around its transaction, and what runs beside the store: the
// write path (refused on a read-only store; counters brought up; one transaction; then the
// after-commit bookkeeping, which notes the session for the search indexer, schedules it and tells
// the checkpointer), the search indexer and the word list's fill, the WAL checkpointer, the
// recorders made through the store (their sessions' counters may lag their messages by a few
// milliseconds: recorder-counters.ts), and closing all of it with the database. One per
// SessionStore (session-store.ts), its only user. `write` throws a StoreError (read-only, or what
// the transaction threw, mapped by toStoreError) and then has committed nothing; flushSearchIndex
// throws a StoreError (search-indexer.ts); syncCounters and the after-commit bookkeeping never
// throw; pendingSearchIndex, checkpoint and close throw only what SQLite throws.
import type { Database } from "better-sqlite3";
import { Checkpointer } from "./checkpointer.ts";
import { StoreError, toStoreError } from "./errors.ts";
import type { FolderLock } from "./folder-lock.ts";
import { SessionRecorder, type RecorderOptions } from "./recorder.ts";
import { SearchIndexer } from "./search-indexer.ts";
import { SearchWordsFill } from "./search-words-fill.ts";

export class StoreUpkeep {
  readonly #db: Database;
  readonly #readOnly: boolean;
  readonly #indexer: SearchIndexer;
  readonly #wordsFill: SearchWordsFill;
  readonly #checkpointer: Checkpointer | null;
  #workersExited: Promise<void> = Promise.resolve();
  readonly #lock: FolderLock | undefined;
  /** Recorders made here: their sessions' counters may lag their messages by a few milliseconds (recorder-counters.ts). */
  readonly #recorders = new Set<SessionRecorder>();

  constructor(db: Database, path: string, options: { readOnly: boolean; lock: FolderLock | undefined }) {
    this.#db = db;
    this.#readOnly = options.readOnly;
    this.#lock = options.lock;
    this.#indexer = new SearchIndexer(db);
    const indexer = this.#indexer;
    this.#wordsFill = new SearchWordsFill(db, { file: path, indexed: () => indexer.batches });
    // Read-only: the holder indexes and checkpoints; this connection only reads.
    this.#checkpointer = this.#readOnly ? null : new Checkpointer(db, path);
    if (!this.#readOnly) this.#indexer.schedule();
  }

  /** Brings every session row's counters up to its committed messages; first thing of every other read or write. */
  syncCounters(): void {
    for (const recorder of this.#recorders) recorder.syncCounters();
  }

  /** Runs `fn` in a transaction; `sessionOf` names the session it added messages to, if any. */
  write<T>(action: string, fn: () => T, sessionOf?: (result: T) => number): T {
    if (this.#readOnly) throw new StoreError("read-only", `This Lathe opened the data folder read-only: ${action} is not possible.`);
    this.syncCounters();
    let result: T;
    try {
      result = this.#db.transaction(fn)();
    } catch (err) {
      throw toStoreError(err, action);
    }
    this.#afterCommit(sessionOf?.(result));
    return result;
  }

  readonly #afterCommit = (sessionWithNewMessages?: number): void => {
    if (sessionWithNewMessages !== undefined) this.#indexer.noteSession(sessionWithNewMessages);
    this.#indexer.schedule();
    this.#checkpointer?.noteWrite();
  };

  /** A recorder for the session, committing through the same bookkeeping as `write`. */
  recorder(sessionId: number, options?: RecorderOptions): SessionRecorder {
    const recorder = new SessionRecorder(this.#db, sessionId, { ...options, onCommit: this.#afterCommit });
    this.#recorders.add(recorder);
    return recorder;
  }

  flushSearchIndex(): number {
    this.syncCounters();
    return this.#indexer.flushAll();
  }

  startSearchWordsFill(): void {
    if (!this.#readOnly) this.#wordsFill.start();
  }

  get searchWordsComplete(): boolean {
    return this.#wordsFill.complete;
  }

  pendingSearchIndex(): number {
    this.syncCounters();
    return this.#indexer.pendingCount();
  }

  checkpoint(waitMs: number): boolean {
    return this.#checkpointer?.checkpointNow(waitMs) ?? false;
  }

  close(): void {
    if (!this.#db.open) return;
    this.syncCounters();
    this.#indexer.close();
    this.#wordsFill.close();
    this.#workersExited = Promise.all([this.#wordsFill.exited(), this.#checkpointer?.close()]).then(() => undefined);
    try {
      if (!this.#readOnly) this.#db.pragma("wal_checkpoint(TRUNCATE)");
    } finally {
      this.#db.close();
      this.#lock?.release();
    }
  }

  closed(): Promise<void> {
    return this.#workersExited;
  }
}
