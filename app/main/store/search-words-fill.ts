// Fills the search's word list (search_words, search-words.ts) from the full-text index's own
// vocabulary after an upgrade to schema 8, in the background: a database upgraded from version 7
// has every message indexed but no list, and reading the whole vocabulary costs about 5 s of CPU
// for 2 M messages (46 s of wall time on a cold disk), which would delay the start.
// State: the row of table search_words_fill (migrations.ts, V8_SEARCH_WORDS) exists while the fill
// is pending, holding the last word filled (`after`; words go in the index's byte order). No row,
// or no table (a database filled by the earlier form of the migration), means complete.
// The vocabulary is read in a worker thread with its own read-only connection (fts5vocab counts a
// word's messages by reading its whole entry: 380 ms of CPU for the commonest word of 2 M
// messages), READ words at a time; the main thread writes each answer in one transaction with the
// new `after`, so a crash or a quit leaves a consistent list and the next start resumes after the
// last committed word. A word's count is the index's at the worker's read; the indexer adds to the
// words filled before (it lists each batch's words in the batch's transaction). When an indexing
// batch committed while a read was in flight (`indexed` changed), that answer is read again, up to
// RETRIES times, then written keeping the larger of the two counts (counts only rank completions).
// Where no worker can start (an in-memory database, no driver path), the same slices run on the
// main thread (fillSlice: about SLICE_MS each, BATCH words per query). Search asks
// `complete` and, until it is, searches a word being typed with a prefix query (search.ts).
// Never throws from its timers or the worker: a failure is reported and the fill resumes at the
// next start.
import type { Database } from "better-sqlite3";
import { Worker } from "node:worker_threads";
import { closeDriverWorker, driverPath } from "./driver-worker.ts";
import { toStoreError } from "./errors.ts";
import { isListable } from "./search-words.ts";
import { statement } from "./sql.ts";

/** Target time of one slice. */
export const SLICE_MS = 8;
/** Pause between slices: the fill takes about half of the thread while it runs. */
export const PAUSE_MS = 8;
/** Words read per vocabulary query (the time is checked between queries). */
const BATCH = 32;
/** Words per read in the worker. */
export const READ = 256;
/** Reads of one range again when the indexer committed meanwhile. */
const RETRIES = 3;

const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driverPath);
const db = new Database(workerData.file, { readonly: true, fileMustExist: true });
db.pragma("busy_timeout = 5000");
db.exec("CREATE VIRTUAL TABLE temp.message_fts_vocabulary USING fts5vocab(main, message_fts, row)");
const read = db.prepare("SELECT term, doc FROM temp.message_fts_vocabulary WHERE term > ? ORDER BY term LIMIT ?").raw();
parentPort.on("message", (message) => {
  if (message === "close") { db.close(); parentPort.close(); return; }
  try { parentPort.postMessage({ rows: read.all(message.after, message.limit) }); }
  catch (err) { parentPort.postMessage({ error: String((err && err.message) || err) }); }
});
`;

export interface SearchWordsFillOptions {
  sliceMs?: number;
  pauseMs?: number;
  /** The database file, for the worker's connection; without it (or ":memory:") the fill runs on this thread. */
  file?: string;
  /** A number that changes whenever the indexer commits a batch (SearchIndexer.batches). */
  indexed?: () => number;
}

export class SearchWordsFill {
  readonly #db: Database;
  readonly #sliceMs: number;
  readonly #pauseMs: number;
  #complete = false;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #closed = false;
  readonly #file: string | undefined;
  readonly #indexed: () => number;
  #worker: Worker | null = null;
  #exited: Promise<void> = Promise.resolve();

  constructor(db: Database, options: SearchWordsFillOptions = {}) {
    this.#db = db;
    this.#sliceMs = options.sliceMs ?? SLICE_MS;
    this.#pauseMs = options.pauseMs ?? PAUSE_MS;
    this.#file = options.file;
    this.#indexed = options.indexed ?? (() => 0);
  }

  /** Whether the word list holds every indexed word (read from the database until it does). */
  get complete(): boolean {
    if (this.#complete || !this.#db.open) return this.#complete;
    this.#complete = this.#after() === undefined;
    return this.#complete;
  }

  /** Fills the rest in the background (a worker's reads, or slices here); a no-op once complete, started or closed. */
  start(): void {
    if (this.#timer !== null || this.#worker !== null || this.#closed || this.complete) return;
    const driver = driverPath();
    if (this.#file && this.#file !== ":memory:" && driver) {
      try {
        this.#startWorker(this.#file, driver);
        return;
      } catch (err) {
        console.error(`[store] the search word list is filled on the main thread: ${String(err)}`);
      }
    }
    this.#scheduleSlice();
  }

  close(): void {
    this.#closed = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    const worker = this.#worker;
    this.#worker = null;
    if (worker) {
      worker.removeAllListeners();
      this.#exited = closeDriverWorker(worker);
    }
  }

  /** Resolves once the worker (if one ran) has exited: then nothing of the fill touches the database's files. */
  exited(): Promise<void> {
    return this.#exited;
  }

  #scheduleSlice(): void {
    this.#timer = setTimeout(() => {
      this.#timer = null;
      try {
        if (!this.fillSlice()) this.#scheduleSlice();
      } catch (err) {
        this.#failed(err);
      }
    }, this.#pauseMs);
    this.#timer.unref?.();
  }

  #failed(err: unknown): void {
    console.error(`[store] ${toStoreError(err, "filling the search word list").message}; it resumes at the next start`);
    this.close();
  }

  #startWorker(file: string, driver: string): void {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driverPath: driver, file } });
    worker.unref();
    this.#worker = worker;
    let request: { after: string; indexed: number; tries: number } | null = null;
    const ask = (tries = 0) => {
      const after = this.#after();
      if (after === undefined) {
        this.#complete = true;
        this.close();
        return;
      }
      request = { after, indexed: this.#indexed(), tries };
      worker.postMessage({ after, limit: READ });
    };
    worker.on("message", (answer: { rows?: [string, number][]; error?: string }) => {
      if (this.#worker !== worker || !request || !this.#db.open) return;
      const asked = request;
      request = null;
      try {
        if (answer.error !== undefined) throw new Error(answer.error);
        const raced = this.#indexed() !== asked.indexed;
        if (raced && asked.tries < RETRIES) {
          ask(asked.tries + 1);
          return;
        }
        this.#complete = this.#write(asked.after, answer.rows ?? [], READ, raced);
        if (this.#complete) this.close();
        else {
          // A pause between reads: the writes are the main thread's share.
          this.#timer = setTimeout(() => {
            this.#timer = null;
            ask();
          }, this.#pauseMs);
          this.#timer.unref?.();
        }
      } catch (err) {
        this.#failed(err);
      }
    });
    worker.on("error", (err) => this.#failed(err));
    ask();
  }

  /**
   * Writes one read of the vocabulary (words after `after`, at most `limit`) in one transaction
   * with the new `after`; `keepLarger` keeps a count already listed when it is larger. Returns
   * whether the list is complete. An answer for a range already written (not after the stored
   * `after`) is dropped.
   */
  #write(after: string, rows: readonly [string, number][], limit: number, keepLarger: boolean): boolean {
    return this.#db.transaction(() => {
      const stored = this.#after();
      if (stored === undefined) return true;
      if (stored !== after) return false;
      const put = statement(
        this.#db,
        keepLarger
          ? "INSERT INTO search_words(word, docs) VALUES (?, ?) ON CONFLICT(word) DO UPDATE SET docs = max(docs, excluded.docs)"
          : "INSERT INTO search_words(word, docs) VALUES (?, ?) ON CONFLICT(word) DO UPDATE SET docs = excluded.docs",
      );
      for (const [term, docs] of rows) if (isListable(term)) put.run(term, docs);
      if (rows.length < limit) {
        statement(this.#db, "DELETE FROM search_words_fill").run();
        return true;
      }
      statement(this.#db, "UPDATE search_words_fill SET after = ? WHERE id = 1").run(rows[rows.length - 1]![0]);
      return false;
    })();
  }

  /** Fills about `budgetMs` worth of words on this thread, READ-bounded queries of BATCH words; returns whether the list is complete. Throws what better-sqlite3 throws. */
  fillSlice(budgetMs = this.#sliceMs): boolean {
    if (this.complete) return true;
    const started = performance.now();
    this.#db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.message_fts_vocabulary USING fts5vocab(main, message_fts, row)");
    const read = statement(this.#db, `SELECT term, doc FROM temp.message_fts_vocabulary WHERE term > ? ORDER BY term LIMIT ${BATCH}`).raw();
    for (;;) {
      const after = this.#after();
      if (after === undefined || this.#write(after, read.all(after) as [string, number][], BATCH, false)) {
        this.#complete = true;
        return true;
      }
      if (performance.now() - started >= budgetMs) return false;
    }
  }

  /** The last word filled ("" before the first), or undefined when nothing is pending. */
  #after(): string | undefined {
    const table = statement(this.#db, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'search_words_fill'").get();
    if (!table) return undefined;
    return statement(this.#db, "SELECT after FROM search_words_fill WHERE id = 1").pluck().get() as string | undefined;
  }
}
