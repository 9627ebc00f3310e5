// Moves saved messages into the full-text index, off the append path: appends stay cheap and a
// message is searchable a few tens of milliseconds after it is saved. What is indexed is a
// watermark per session (sessions.indexed_count, see V4_APPEND_PAGES in migrations.ts): positions below it
// are in the index, positions from it up to message_count are waiting. The sessions that may be
// behind are kept in memory (writers report them through noteSession); the first batch after
// opening scans the sessions table once, which also covers messages written before this object
// existed (crash repair, another connection). Work is done in batches of `batchSize` messages per
// transaction, one batch per macrotask, so no slice blocks the event loop for long. flushAll()
// indexes everything now (search calls it first, so results are always complete). Each batch also
// adds its messages' words to the search's word list (search-words.ts), in the same transaction;
// a batch ends early, after the message that brings its distinct words to WORDS_PER_BATCH, so
// messages full of distinct words (streamed token lists, dumps) are listed a few per macrotask
// instead of tens of thousands of upserts in one (each message lists at most MAX_WORDS_PER_MESSAGE).
// Never throws from the timer; flushAll throws a StoreError.
import type { Database } from "better-sqlite3";
import { toStoreError } from "./errors.ts";
import { indexedTextSql, POSITION_SPAN } from "./migrations.ts";
import { countWords, recordWords } from "./search-words.ts";
import { statement } from "./sql.ts";

/** Distinct words a batch lists before it ends (about 4 ms of upserts); its last message may bring up to MAX_WORDS_PER_MESSAGE. */
export const WORDS_PER_BATCH = 1024;

export class SearchIndexer {
  readonly #db: Database;
  readonly #batchSize: number;
  readonly #delayMs: number;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #closed = false;
  /** Batches committed with messages in them (the word list's fill compares it: search-words-fill.ts). */
  batches = 0;
  /** The last batch ended at WORDS_PER_BATCH words, before `size` messages: more may be waiting. */
  #cutShort = false;
  /** Sessions that may have unindexed messages; null until the first scan. */
  #behind: Set<number> | null = null;

  constructor(db: Database, options: { batchSize?: number; delayMs?: number } = {}) {
    this.#db = db;
    this.#batchSize = options.batchSize ?? 64;
    this.#delayMs = options.delayMs ?? 25;
  }

  /** Records that the session has new messages (call after committing them). */
  noteSession(sessionId: number): void {
    this.#behind?.add(sessionId);
  }

  /** Indexes soon (call after committing messages). */
  schedule(delayMs = this.#delayMs): void {
    if (this.#timer !== null || this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      try {
        if (this.#indexBatch(this.#batchSize) === this.#batchSize || this.#cutShort) this.schedule(0);
      } catch (err) {
        console.error(`[store] ${toStoreError(err, "updating the search index").message}`);
      }
    }, delayMs);
    this.#timer.unref?.();
  }

  /** Indexes every waiting message now; returns how many. */
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
    return statement(this.#db, "SELECT coalesce(sum(max(message_count - indexed_count, 0)), 0) FROM sessions").pluck().get() as number;
  }

  close(): void {
    this.#closed = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  /** Indexes up to `size` waiting messages in one transaction; returns how many. */
  #indexBatch(size: number): number {
    // Set again by a batch cut short; a batch that finds nothing must not leave an earlier one's
    // flag behind, or the timer reschedules itself every task while nothing waits.
    this.#cutShort = false;
    if (!this.#db.open) return 0;
    const behind = (this.#behind ??= new Set(statement(this.#db, "SELECT id FROM sessions WHERE indexed_count < message_count").pluck().all() as number[]));
    if (behind.size === 0) return 0;
    try {
      return this.#indexBatchOf(behind, size);
    } catch (err) {
      this.#behind = null; // the rolled-back batch's sessions are found again by the next scan
      throw err;
    }
  }

  #indexBatchOf(behind: Set<number>, size: number): number {
    const indexed = this.#db.transaction(() => {
      let indexed = 0;
      const words = new Map<string, number>();
      for (const sessionId of behind) {
        if (indexed >= size) break;
        const row = statement(this.#db, "SELECT indexed_count AS done, message_count AS total FROM sessions WHERE id = ?").get(sessionId) as
          { done: number; total: number } | undefined;
        const count = row ? Math.min(row.total - row.done, size - indexed) : 0;
        if (!row || count <= 0 || row.done + count >= row.total) behind.delete(sessionId);
        if (!row || count <= 0) continue;
        const from = sessionId * POSITION_SPAN + row.done;
        const texts = statement(this.#db, `SELECT m.id, ${indexedTextSql("m.data", "m.id")} AS text FROM messages m WHERE m.id >= ? AND m.id < ? ORDER BY m.id`).all(
          from,
          from + count,
        ) as {
          id: number;
          text: string | null;
        }[];
        const insert = statement(this.#db, "INSERT INTO message_fts(rowid, text) VALUES (?, ?)");
        let taken = 0;
        for (const { id, text } of texts) {
          insert.run(id, text);
          if (text !== null) countWords(text, words);
          taken++;
          if (words.size >= WORDS_PER_BATCH) break;
        }
        const advanced = taken < texts.length ? taken : count;
        if (advanced < count) behind.add(sessionId);
        statement(this.#db, "UPDATE sessions SET indexed_count = ? WHERE id = ?").run(row.done + advanced, sessionId);
        indexed += advanced;
        if (words.size >= WORDS_PER_BATCH) {
          this.#cutShort = true;
          break;
        }
      }
      recordWords(this.#db, words);
      return indexed;
    })();
    if (indexed > 0) this.batches++;
    return indexed;
  }
}
