// The word list's fill (search-words-fill.ts) at its edges: which words it lists (bounds counted in
// code points, as SQLite's length()), the slices' time budget and timer where no worker is used,
// and the worker's answers that must not be written as they are: one read while the indexer
// committed (read again, a bounded number of times), one for a range another fill already wrote or
// completed, one that reports a failed read, one arriving after the database closed. Failures are
// logged and stop the fill until the next start; a closed or complete fill asks nothing more.
import { once } from "node:events";
import fs from "node:fs";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { afterEach, describe, expect, it, vi } from "vitest";
import { openStore, type SessionStore } from "../../app/main/store/index.ts";
import { READ, SearchWordsFill } from "../../app/main/store/search-words-fill.ts";
import { MAX_WORD, MIN_WORD } from "../../app/main/store/search-words.ts";
import { tempDir } from "./helpers.ts";
import { writeV7Database } from "./v7-database.ts";

const dirs: string[] = [];
const stores: SessionStore[] = [];
const fills: SearchWordsFill[] = [];
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  fills.splice(0).forEach((f) => f.close());
  stores.splice(0).forEach((s) => s.close());
  dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true }));
});

/** A store upgraded from schema 7 with `texts` indexed and its word list still to fill. */
function pending(texts: string[]): SessionStore {
  const dir = tempDir();
  dirs.push(dir);
  writeV7Database(dir, texts);
  const { store } = openStore({ dataDir: dir });
  stores.push(store);
  return store;
}

function fresh(): SessionStore {
  const dir = tempDir();
  dirs.push(dir);
  const { store } = openStore({ dataDir: dir });
  stores.push(store);
  return store;
}

function fillOf(store: SessionStore, options: ConstructorParameters<typeof SearchWordsFill>[1] = {}): SearchWordsFill {
  const fill = new SearchWordsFill(store.db, options);
  fills.push(fill);
  return fill;
}

/** 22 index words: one query (32 words) or one read (READ words) takes them all. */
const small = Array.from({ length: 20 }, (_, i) => `quokkas pangolin note${i}`);
/** 102 index words: four queries, one read. */
const medium = Array.from({ length: 100 }, (_, i) => `quokkas pangolin note${i}`);
/** 302 index words: two reads. */
const large = Array.from({ length: 300 }, (_, i) => `quokkas pangolin note${i}`);

const listed = (store: SessionStore) => Object.fromEntries(store.db.prepare("SELECT word, docs FROM search_words ORDER BY word").raw().all() as [string, number][]);
const vocabulary = (store: SessionStore, where = "") => {
  store.db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.reference_vocabulary USING fts5vocab(main, message_fts, row)");
  return store.db.prepare(`SELECT term, doc FROM temp.reference_vocabulary ${where} ORDER BY term`).raw().all() as [string, number][];
};
/** Every index word in the index's order. */
const terms = (store: SessionStore) => vocabulary(store).map(([term]) => term);
/** What the list must hold: every indexed word of MIN_WORD to MAX_WORD characters (SQLite counts code points) with its count. */
const reference = (store: SessionStore) => Object.fromEntries(vocabulary(store, `WHERE length(term) BETWEEN ${MIN_WORD} AND ${MAX_WORD}`));
const after = (store: SessionStore) => store.db.prepare("SELECT after FROM search_words_fill").pluck().get() as string | undefined;
const fillAll = (store: SessionStore) => {
  const fill = fillOf(store);
  while (!fill.fillSlice()) {
    // to the end
  }
};
/** Damages the full-text index's data so that reading its vocabulary fails (SQLITE_CORRUPT_VTAB). */
const damageIndex = (store: SessionStore) => {
  store.db.unsafeMode(true);
  store.db.exec("UPDATE message_fts_data SET block = x'0000000000' WHERE id > 10");
  store.db.unsafeMode(false);
};
const WAIT = { timeout: 15_000, interval: 10 };

describe("the words the fill lists", () => {
  it("counts a word's length in code points: astral letters count one each", () => {
    const astral = "\u{20000}";
    const store = pending([`${astral.repeat(40)} ab${astral} ${"a".repeat(40)} ${"b".repeat(41)} abcdefghijklmnopqrstuvwxy zyxw`]);
    fillAll(store);
    expect(listed(store)).toEqual(reference(store));
    // 40 code points in 80 UTF-16 units, 40 and 25 letters listed; 3 code points in 4 units, and 41 letters, not.
    expect(Object.keys(listed(store)).sort()).toEqual(["a".repeat(40), "abcdefghijklmnopqrstuvwxy", "zyxw", astral.repeat(40)].sort());
  });

  it("writes the index's counts on this thread, replacing larger ones listed before", () => {
    const store = pending(small);
    store.db.prepare("INSERT INTO search_words VALUES ('quokkas', 1000)").run();
    fillAll(store);
    expect(listed(store)).toEqual(reference(store));
    expect(listed(store)).toMatchObject({ quokkas: 20 });
  });
});

describe("slices on this thread", () => {
  it("ends a slice once its budget (8 ms by default) is spent, checked after each query of 32 words", () => {
    const store = pending(large);
    const words = terms(store);
    let now = 1000;
    vi.spyOn(performance, "now").mockImplementation(() => (now += 4));
    // 4 ms a query: two queries reach 8 ms, three reach 12.
    expect(fillOf(store).fillSlice()).toBe(false);
    expect(after(store)).toBe(words[63]);
    expect(fillOf(store, { sliceMs: 12 }).fillSlice()).toBe(false);
    expect(after(store)).toBe(words[159]);
    expect(fillOf(store).fillSlice(4)).toBe(false);
    expect(after(store)).toBe(words[191]);
    // A slice that reaches the end says so at once.
    const short = pending(small);
    expect(fillOf(short).fillSlice()).toBe(true);
    expect(after(short)).toBeUndefined();
    expect(fillOf(fresh()).fillSlice()).toBe(true);
  });

  it("answers `complete` from what it knew once the database is closed", () => {
    const unfinished = pending(small);
    const waiting = fillOf(unfinished);
    unfinished.close();
    expect(waiting.complete).toBe(false);
    const finished = pending(small);
    const done = fillOf(finished);
    expect(done.fillSlice()).toBe(true);
    finished.close();
    expect(done.complete).toBe(true);
  });

  it("runs its slices on a timer where no worker is used (no file, or an in-memory database), one at a time", () => {
    const stores = [pending(medium), pending(medium)];
    const words = terms(stores[0]!);
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    for (const [i, file] of [undefined, ":memory:"].entries()) {
      const store = stores[i]!;
      const indexed = vi.fn(() => 0);
      const fill = fillOf(store, { file, sliceMs: 0, pauseMs: 50, indexed });
      fill.start();
      fill.start();
      expect(vi.getTimerCount()).toBe(1);
      expect(indexed).not.toHaveBeenCalled(); // no worker was asked
      vi.advanceTimersByTime(49);
      expect(after(store)).toBe("");
      vi.advanceTimersByTime(1);
      expect(after(store)).toBe(words[31]); // a budget of 0: one query a slice
      vi.advanceTimersByTime(50);
      expect(after(store)).toBe(words[63]);
      vi.advanceTimersByTime(100);
      expect(fill.complete).toBe(true);
      expect(listed(store)).toEqual(reference(store));
      expect(vi.getTimerCount()).toBe(0);
    }
  });

  it("pauses 8 ms between slices by default", () => {
    const store = pending(medium);
    const words = terms(store);
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    fillOf(store, { sliceMs: 0 }).start();
    vi.advanceTimersByTime(7);
    expect(after(store)).toBe("");
    vi.advanceTimersByTime(1);
    expect(after(store)).toBe(words[31]);
  });

  it("does nothing once closed, nor when the list is complete", () => {
    const store = pending(medium);
    const complete = fresh();
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const fill = fillOf(store, { sliceMs: 0, pauseMs: 50 });
    fill.start();
    fill.close();
    vi.advanceTimersByTime(1000);
    expect(after(store)).toBe("");
    fill.start();
    expect(vi.getTimerCount()).toBe(0);
    fillOf(complete, { sliceMs: 0, pauseMs: 50 }).start();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("logs a slice that fails and stops until the next start", () => {
    const store = pending(medium);
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const fill = fillOf(store, { sliceMs: 0, pauseMs: 50 });
    fill.start();
    damageIndex(store);
    vi.advanceTimersByTime(50);
    expect(logged).toHaveBeenCalledTimes(1);
    expect(logged.mock.calls[0]![0]).toMatch(/^\[store\] .*filling the search word list failed.*malformed.*; it resumes at the next start$/);
    expect(after(store)).toBe("");
    expect(vi.getTimerCount()).toBe(0);
    fill.start();
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe("reads in a worker", () => {
  /** The fill's worker and what the fill sent it, from its first message on. */
  function watch() {
    const post = vi.spyOn(Worker.prototype, "postMessage");
    return {
      worker: () => post.mock.contexts[0] as Worker,
      // Only the fill's worker: the store's checkpointer may have one too.
      sent: () => post.mock.calls.filter((_, i) => post.mock.contexts[i] === post.mock.contexts[0]).map((c) => c[0] as unknown),
    };
  }

  it("reads a range again while the indexer committed meanwhile, then writes the index's count", async () => {
    const store = pending(small);
    store.db.prepare("INSERT INTO search_words VALUES ('quokkas', 1000)").run();
    let calls = 0;
    // The indexer commits during the first read only.
    const fill = fillOf(store, { file: store.path, pauseMs: 0, indexed: () => (++calls === 1 ? 1 : 2) });
    fill.start();
    await vi.waitFor(() => expect(fill.complete).toBe(true), WAIT);
    expect(calls).toBe(4); // two reads, asked and answered
    expect(listed(store)).toEqual(reference(store));
    expect(listed(store)).toMatchObject({ quokkas: 20 });
  });

  it("reads a range four times at most while the indexer keeps committing, then keeps the larger count", async () => {
    const store = pending(small);
    store.db.prepare("INSERT INTO search_words VALUES ('quokkas', 1000)").run();
    let calls = 0;
    const fill = fillOf(store, { file: store.path, pauseMs: 0, indexed: () => ++calls });
    fill.start();
    await vi.waitFor(() => expect(fill.complete).toBe(true), WAIT);
    expect(calls).toBe(8);
    expect(listed(store)).toEqual({ ...reference(store), quokkas: 1000 });
  });

  it("closes its worker as soon as the list is complete, and no longer listens to it", async () => {
    const store = pending(small);
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const { worker, sent } = watch();
    const fill = fillOf(store, { file: store.path, pauseMs: 60_000 });
    fill.start();
    await once(worker(), "message");
    expect(fill.complete).toBe(true);
    expect(sent()).toEqual([{ after: "", limit: READ }, "close"]);
    expect(worker().listenerCount("message")).toBe(0);
    // A failure of the closing worker is neither the fill's nor thrown (an uncaught error would end the app).
    expect(() => worker().emit("error", new Error("late"))).not.toThrow();
    expect(logged).not.toHaveBeenCalled();
  });

  it("closed while its worker starts, lets a failed start pass unnoticed", async () => {
    const store = pending(small);
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const { worker } = watch();
    const fill = fillOf(store, { file: path.join(path.dirname(store.path), "missing.db") });
    fill.start();
    fill.close();
    // The worker fails to open the database after the close was asked (not events.once: it would listen for "error").
    await new Promise((resolve) => worker().on("exit", resolve));
    expect(logged).not.toHaveBeenCalled();
  });

  it("starts one worker however often it is started", () => {
    const store = pending(small);
    const indexed = vi.fn(() => 0);
    const fill = fillOf(store, { file: store.path, indexed });
    fill.start();
    fill.start();
    expect(indexed).toHaveBeenCalledTimes(1);
  });

  it("writes nothing of a read that failed, logs it and stops", async () => {
    const store = pending(small);
    damageIndex(store);
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const { worker, sent } = watch();
    const fill = fillOf(store, { file: store.path, pauseMs: 0 });
    fill.start();
    await once(worker(), "message");
    expect(logged).toHaveBeenCalledTimes(1);
    expect(logged.mock.calls[0]![0]).toMatch(/^\[store\] .*filling the search word list.*malformed.*; it resumes at the next start$/);
    expect(after(store)).toBe("");
    expect(fill.complete).toBe(false);
    expect(sent().at(-1)).toBe("close");
  });

  it("logs a worker that cannot open the database, and stops", async () => {
    const store = pending(small);
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const { sent } = watch();
    const fill = fillOf(store, { file: path.join(path.dirname(store.path), "missing.db"), pauseMs: 0 });
    fill.start();
    await vi.waitFor(() => expect(logged).toHaveBeenCalledTimes(1), WAIT);
    expect(logged.mock.calls[0]![0]).toMatch(/^\[store\] .*filling the search word list.*; it resumes at the next start$/);
    expect(after(store)).toBe("");
    expect(sent().at(-1)).toBe("close");
    const before = sent().length;
    fill.start();
    expect(sent()).toHaveLength(before);
  });

  it("drops an answer for a list another fill completed meanwhile, and closes", async () => {
    const store = pending(small);
    const { worker, sent } = watch();
    const fill = fillOf(store, { file: store.path, pauseMs: 60_000 });
    fill.start();
    fillAll(store);
    await once(worker(), "message");
    expect(fill.complete).toBe(true);
    expect(sent()).toEqual([{ after: "", limit: READ }, "close"]);
  });

  it("drops an answer for a range another fill wrote meanwhile", async () => {
    const store = pending(medium);
    const words = terms(store);
    const { worker, sent } = watch();
    const fill = fillOf(store, { file: store.path, pauseMs: 60_000 });
    fill.start();
    fillOf(store).fillSlice(0);
    await once(worker(), "message");
    expect(after(store)).toBe(words[31]);
    expect(fill.complete).toBe(false);
    expect(sent()).toEqual([{ after: "", limit: READ }]);
  });

  it("asks no more reads once another fill completed the list between two reads", async () => {
    const store = pending(large);
    const { worker, sent } = watch();
    const fill = fillOf(store, { file: store.path, pauseMs: 100 });
    fill.start();
    await once(worker(), "message");
    expect(after(store)).toBe(terms(store)[READ - 1]);
    fillAll(store);
    await vi.waitFor(() => expect(sent().at(-1)).toBe("close"), WAIT);
    expect(sent()).toEqual([{ after: "", limit: READ }, "close"]);
    // Known without asking the database (closed before anything read it).
    store.close();
    expect(fill.complete).toBe(true);
  });

  it("ignores an answer that arrives after the database closed", async () => {
    const store = pending(small);
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const { worker } = watch();
    const fill = fillOf(store, { file: store.path, pauseMs: 0 });
    fill.start();
    store.close();
    await once(worker(), "message");
    expect(logged).not.toHaveBeenCalled();
    expect(fill.complete).toBe(false);
  });
});
