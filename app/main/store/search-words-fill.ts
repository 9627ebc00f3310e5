// Fills the search's word list (search_words, search-words.ts) from the full-text index's own
// vocabulary after an upgrade to schema 8, in the background: a database upgraded from version 7
// has every message indexed but no list, and reading the whole vocabulary at once costs about 5 s
// of CPU for 2 M messages (46 s of wall time on a cold disk), which would delay the start.
// State: the row of table search_words_fill (migrations.ts, V8_SEARCH_WORDS) exists while the fill
// is pending, holding the last word filled (`after`; words are filled in the index's byte order).
// No row, or no table (a database filled by the earlier form of the migration), means complete.
// Each slice is one transaction: the words it read and the new `after` commit together, so a
// crash or a quit leaves a consistent list and the next start resumes after the last committed
// word. A slice writes each word's count as the index has it now (fts5vocab's `doc`), replacing
// what the indexer added for that word meanwhile (already counted in the index); the indexer adds
// to the words filled before. Search asks `complete` and, until it is, searches a word being typed
// with a prefix query instead (search.ts). Slices run on the caller's thread (the store's
// connection), about SLICE_MS each, one per PAUSE_MS timer; a slice reads at most BATCH words per
// query, so a vocabulary of millions of distinct words (hashes) never makes one step long. The
// timer never throws: a failing slice is reported and the fill retried at the next start.
import type { Database } from "better-sqlite3";
import { toStoreError } from "./errors.ts";
import { MAX_WORD, MIN_WORD } from "./search-words.ts";
import { statement } from "./sql.ts";

/** Target time of one slice. */
export const SLICE_MS = 8;
/** Pause between slices: the fill takes about half of the thread while it runs. */
export const PAUSE_MS = 8;
/** Words read per vocabulary query (the time is checked between queries). */
const BATCH = 32;

/** Whether a word of the index is listed: MIN_WORD to MAX_WORD characters (code points, as SQLite's length()). */
function listable(term: string): boolean {
  if (term.length < MIN_WORD || term.length > MAX_WORD * 2) return false;
  let chars = 0;
  for (const _ of term) chars++;
  return chars >= MIN_WORD && chars <= MAX_WORD;
}

export class SearchWordsFill {
  readonly #db: Database;
  readonly #sliceMs: number;
  readonly #pauseMs: number;
  #complete = false;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #closed = false;

  constructor(db: Database, options: { sliceMs?: number; pauseMs?: number } = {}) {
    this.#db = db;
    this.#sliceMs = options.sliceMs ?? SLICE_MS;
    this.#pauseMs = options.pauseMs ?? PAUSE_MS;
  }

  /** Whether the word list holds every indexed word (read from the database until it does). */
  get complete(): boolean {
    if (this.#complete || !this.#db.open) return this.#complete;
    this.#complete = this.#after() === undefined;
    return this.#complete;
  }

  /** Fills the rest in slices, one per timer; a no-op once complete or closed. */
  start(): void {
    if (this.#timer !== null || this.#closed || this.complete) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      try {
        if (!this.fillSlice()) this.start();
      } catch (err) {
        console.error(`[store] ${toStoreError(err, "filling the search word list").message}; it resumes at the next start`);
      }
    }, this.#pauseMs);
    this.#timer.unref?.();
  }

  close(): void {
    this.#closed = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  /** Fills about `budgetMs` worth of words in one transaction; returns whether the list is complete. Throws what better-sqlite3 throws. */
  fillSlice(budgetMs = this.#sliceMs): boolean {
    if (this.complete) return true;
    const started = performance.now();
    this.#complete = this.#db.transaction(() => {
      let after = this.#after();
      if (after === undefined) return true;
      this.#db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.message_fts_vocabulary USING fts5vocab(main, message_fts, row)");
      const read = statement(this.#db, `SELECT term, doc FROM temp.message_fts_vocabulary WHERE term > ? ORDER BY term LIMIT ${BATCH}`).raw();
      const put = statement(this.#db, "INSERT INTO search_words(word, docs) VALUES (?, ?) ON CONFLICT(word) DO UPDATE SET docs = excluded.docs");
      for (;;) {
        const rows = read.all(after) as [string, number][];
        for (const [term, docs] of rows) if (listable(term)) put.run(term, docs);
        if (rows.length < BATCH) {
          statement(this.#db, "DELETE FROM search_words_fill").run();
          return true;
        }
        after = rows[rows.length - 1]![0];
        if (performance.now() - started >= budgetMs) break;
      }
      statement(this.#db, "UPDATE search_words_fill SET after = ? WHERE id = 1").run(after);
      return false;
    })();
    return this.#complete;
  }

  /** The last word filled ("" before the first), or undefined when nothing is pending. */
  #after(): string | undefined {
    const table = statement(this.#db, "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'search_words_fill'").get();
    if (!table) return undefined;
    return statement(this.#db, "SELECT after FROM search_words_fill WHERE id = 1").pluck().get() as string | undefined;
  }
}
