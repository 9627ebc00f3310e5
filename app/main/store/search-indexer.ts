// Moves queued messages (message_fts_pending) into the full-text index, off the append path:
// appends stay cheap and a message is searchable a few tens of milliseconds after it is saved.
// Work is done in batches of `batchSize` messages per transaction, one batch per macrotask, so no
// slice blocks the event loop for long. flushAll() indexes everything now (search calls it first,
// so results are always complete). Never throws from the timer; flushAll throws a StoreError.
import type { Database } from "better-sqlite3";
import { toStoreError } from "./errors.ts";
import { MESSAGE_TEXT_FUNCTION } from "./message-text.ts";
import { statement } from "./sql.ts";

export class SearchIndexer {
  readonly #db: Database;
  readonly #batchSize: number;
  readonly #delayMs: number;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #closed = false;

  constructor(db: Database, options: { batchSize?: number; delayMs?: number } = {}) {
    this.#db = db;
    this.#batchSize = options.batchSize ?? 64;
    this.#delayMs = options.delayMs ?? 25;
  }

  /** Indexes soon (call after committing messages). */
  schedule(delayMs = this.#delayMs): void {
    if (this.#timer !== null || this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      try {
        if (this.#indexBatch(this.#batchSize) === this.#batchSize) this.schedule(0);
      } catch (err) {
        console.error(`[store] ${toStoreError(err, "updating the search index").message}`);
      }
    }, delayMs);
    this.#timer.unref?.();
  }

  /** Indexes every queued message now; returns how many. */
  flushAll(): number {
    let total = 0;
    try {
      for (let n = this.#indexBatch(4096); n > 0; n = this.#indexBatch(4096)) total += n;
    } catch (err) {
      throw toStoreError(err, "updating the search index");
    }
    return total;
  }

  pendingCount(): number {
    return statement(this.#db, "SELECT count(*) FROM message_fts_pending").pluck().get() as number;
  }

  close(): void {
    this.#closed = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #indexBatch(size: number): number {
    if (!this.#db.open) return 0;
    return this.#db.transaction(() => {
      const ids = statement(this.#db, "SELECT id FROM message_fts_pending ORDER BY id LIMIT ?").pluck().all(size) as number[];
      if (ids.length === 0) return 0;
      const last = ids[ids.length - 1]!;
      statement(
        this.#db,
        `INSERT INTO message_fts(rowid, text) SELECT m.id, ${MESSAGE_TEXT_FUNCTION}(m.data)
           FROM message_fts_pending p JOIN messages m ON m.id = p.id WHERE p.id <= ? ORDER BY p.id`,
      ).run(last);
      statement(this.#db, "DELETE FROM message_fts_pending WHERE id <= ?").run(last);
      return ids.length;
    })();
  }
}
