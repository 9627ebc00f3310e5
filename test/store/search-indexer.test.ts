// The search index watermark (app/main/store/search-indexer.ts), driven directly: the first
// batch finds every session behind, later ones only those writers reported, and flushAll indexes
// everything waiting in batches across sessions.
import Database from "better-sqlite3";
import { describe, expect, it, vi } from "vitest";
import type { SessionStore } from "../../app/main/store/index.ts";
import { SearchIndexer, WORDS_PER_BATCH } from "../../app/main/store/search-indexer.ts";
import { assistant, call, user } from "./helpers.ts";
import { freshStoreForEachTest } from "./support/fresh-store.ts";

let store: SessionStore;
freshStoreForEachTest((opened) => (store = opened));

const indexedCount = (sessionId: number) => store.db.prepare("SELECT indexed_count FROM sessions WHERE id = ?").pluck().get(sessionId);
const ftsRows = () => store.db.prepare("SELECT count(*) FROM message_fts").pluck().get();

describe("SearchIndexer", () => {
  it("indexes every session behind on its first flush, and then only sessions reported to it", () => {
    // All synchronous: the store's own indexer only runs from a timer, after this test's code.
    const projectId = store.openProject("/p").id;
    const a = store.createSession({ projectId }).id;
    const b = store.createSession({ projectId }).id;
    store.createSession({ projectId });
    store.appendMessages(
      a,
      [1, 2, 3, 4, 5].map((n) => user(`a${n} word`)),
    );
    store.appendMessages(
      b,
      [1, 2, 3].map((n) => user(`b${n} word`)),
    );
    const indexer = new SearchIndexer(store.db, { batchSize: 2 });
    expect(indexer.pendingCount()).toBe(8);
    expect(indexer.flushAll()).toBe(8);
    expect([indexedCount(a), indexedCount(b), ftsRows(), indexer.pendingCount()]).toEqual([5, 3, 8, 0]);
    expect(indexer.flushAll()).toBe(0);

    store.appendMessages(a, [user("a6 word"), user("a7 word")]);
    store.appendMessage(b, user("b4 word"));
    indexer.noteSession(a);
    expect(indexer.flushAll()).toBe(2);
    expect([indexedCount(a), indexedCount(b), indexer.pendingCount()]).toEqual([7, 3, 1]);
    indexer.noteSession(b);
    indexer.noteSession(b);
    expect(indexer.flushAll()).toBe(1);
    expect(indexer.pendingCount()).toBe(0);
    // A session that no longer exists is dropped from the set, not an error.
    indexer.noteSession(999);
    expect(indexer.flushAll()).toBe(0);
    expect(store.search("a7").hits.map((h) => h.position)).toEqual([6]);
  });

  it("ends a batch at WORDS_PER_BATCH distinct words, and the next batch goes on with the rest", () => {
    const projectId = store.openProject("/p").id;
    const a = store.createSession({ projectId }).id;
    // Four messages of 700 distinct words each (a streamed list of tokens), then a short one.
    const distinct = (m: number) => Array.from({ length: 700 }, (_, i) => `tok${m}x${i}`).join(" ");
    store.appendMessages(a, [...[0, 1, 2, 3].map((m) => user(distinct(m))), user("short words")]);
    // Each batch's watermark, as it commits (synchronous: the store's own indexer only runs from a timer).
    store.db.exec(`CREATE TEMP TABLE watermarks (n INTEGER);
      CREATE TEMP TRIGGER note_watermark AFTER UPDATE OF indexed_count ON main.sessions BEGIN INSERT INTO watermarks VALUES (NEW.indexed_count); END;`);
    const indexer = new SearchIndexer(store.db, { batchSize: 64 });
    expect(indexer.flushAll()).toBe(5);
    expect(WORDS_PER_BATCH).toBeLessThan(1400);
    expect(store.db.prepare("SELECT n FROM watermarks").pluck().all()).toEqual([2, 4, 5]);
    expect([indexedCount(a), ftsRows(), indexer.pendingCount()]).toEqual([5, 5, 0]);
    expect(store.db.prepare("SELECT count(*) FROM search_words").pluck().get()).toBe(2802);
    expect(store.search("tok3x69").hits.map((h) => h.position)).toEqual([3]);
  });

  it("ends a batch exactly at WORDS_PER_BATCH words, and counts only batches that indexed something", () => {
    const projectId = store.openProject("/p").id;
    const a = store.createSession({ projectId }).id;
    // Three messages of exactly half of WORDS_PER_BATCH distinct words each: the second brings the
    // batch to WORDS_PER_BATCH, where it ends.
    const half = (m: number) => Array.from({ length: WORDS_PER_BATCH / 2 }, (_, i) => `half${m}x${i}`).join(" ");
    store.appendMessages(
      a,
      [0, 1, 2].map((m) => user(half(m))),
    );
    store.db.exec(`CREATE TEMP TABLE watermarks (n INTEGER);
      CREATE TEMP TRIGGER note_watermark AFTER UPDATE OF indexed_count ON main.sessions BEGIN INSERT INTO watermarks VALUES (NEW.indexed_count); END;`);
    const indexer = new SearchIndexer(store.db, { batchSize: 64 });
    expect(indexer.batches).toBe(0);
    expect(indexer.flushAll()).toBe(3);
    expect(store.db.prepare("SELECT n FROM watermarks").pluck().all()).toEqual([2, 3]);
    // Two batches indexed messages; the flush's last one found none and is not counted.
    expect(indexer.batches).toBe(2);
    expect(indexer.flushAll()).toBe(0);
    // A reported session with nothing left runs a batch that indexes nothing: not counted either.
    indexer.noteSession(a);
    expect(indexer.flushAll()).toBe(0);
    expect(indexer.batches).toBe(2);
  });

  it("moves the watermark past positions that have no message row (a counter ahead of its rows)", () => {
    const projectId = store.openProject("/p").id;
    const a = store.createSession({ projectId }).id;
    store.appendMessages(a, [user("first word"), user("second word")]);
    store.db.prepare("UPDATE sessions SET message_count = message_count + 2 WHERE id = ?").run(a);
    const indexer = new SearchIndexer(store.db, { batchSize: 64 });
    expect(indexer.flushAll()).toBe(4);
    expect([indexedCount(a), indexer.pendingCount(), ftsRows()]).toEqual([4, 0, 2]);
  });

  it("a closed indexer schedules nothing, but flushAll still indexes what waits", () => {
    const projectId = store.openProject("/p").id;
    const a = store.createSession({ projectId }).id;
    store.appendMessage(a, user("late word"));
    const indexer = new SearchIndexer(store.db);
    indexer.close();
    indexer.schedule();
    expect(indexer.flushAll()).toBe(1);
  });
});

describe("SearchIndexer on its timer", () => {
  // Fake timers, installed after the messages are appended: the store's own indexer keeps its
  // real timer, which cannot fire while these synchronous steps run.
  const withFakeTimers = (steps: () => void) => {
    vi.useFakeTimers();
    try {
      steps();
    } finally {
      vi.useRealTimers();
    }
  };

  it("indexes after the delay (25 ms by default), one batch per task, until a batch is not full", () => {
    const projectId = store.openProject("/p").id;
    const a = store.createSession({ projectId }).id;
    const b = store.createSession({ projectId }).id;
    store.appendMessages(
      a,
      [1, 2, 3].map((n) => user(`a${n} word`)),
    );
    store.appendMessages(
      b,
      [1, 2, 3].map((n) => user(`b${n} word`)),
    );
    withFakeTimers(() => {
      const indexer = new SearchIndexer(store.db, { batchSize: 2 });
      indexer.schedule();
      vi.advanceTimersByTime(24);
      expect([indexedCount(a), indexedCount(b)]).toEqual([0, 0]);
      vi.advanceTimersByTime(1);
      // A batch stops at batchSize, in the middle of a session.
      expect([indexedCount(a), indexedCount(b)]).toEqual([2, 0]);
      // A full batch schedules the next one at once (the next task); the rest of a first, then b.
      vi.advanceTimersToNextTimer();
      expect([indexedCount(a), indexedCount(b)]).toEqual([3, 1]);
      vi.advanceTimersToNextTimer();
      expect([indexedCount(a), indexedCount(b)]).toEqual([3, 3]);
      // That batch was full too; the next one finds nothing and schedules nothing more.
      vi.advanceTimersToNextTimer();
      expect(vi.getTimerCount()).toBe(0);
      expect(indexer.pendingCount()).toBe(0);
    });
  });

  it("goes on at once after a batch cut short by its words, and stops once nothing waits", () => {
    const projectId = store.openProject("/p").id;
    const a = store.createSession({ projectId }).id;
    // Each message has half of WORDS_PER_BATCH distinct words: batches of two messages, far under batchSize.
    const half = (m: number) => Array.from({ length: WORDS_PER_BATCH / 2 }, (_, i) => `half${m}x${i}`).join(" ");
    store.appendMessages(
      a,
      [0, 1, 2, 3].map((m) => user(half(m))),
    );
    withFakeTimers(() => {
      const indexer = new SearchIndexer(store.db, { batchSize: 64, delayMs: 1 });
      indexer.schedule();
      vi.advanceTimersByTime(1);
      expect(indexedCount(a)).toBe(2);
      // Cut short, not full: the next batch is scheduled all the same.
      expect(vi.getTimerCount()).toBe(1);
      vi.advanceTimersToNextTimer();
      expect(indexedCount(a)).toBe(4);
      // That batch was cut short too, at the session's last message: one more finds nothing
      // waiting and schedules nothing (before, it kept rescheduling itself every task while idle).
      vi.advanceTimersToNextTimer();
      expect(vi.getTimerCount()).toBe(0);
      expect(indexer.batches).toBe(2);
    });
  });

  it("schedules nothing more when its first batch finds nothing waiting", () => {
    withFakeTimers(() => {
      const indexer = new SearchIndexer(store.db, { delayMs: 1 });
      indexer.schedule();
      vi.advanceTimersByTime(1);
      expect(vi.getTimerCount()).toBe(0);
      expect(indexer.batches).toBe(0);
    });
  });

  it("schedules one timer at a time, and close cancels it; a closed indexer schedules nothing", () => {
    const projectId = store.openProject("/p").id;
    const a = store.createSession({ projectId }).id;
    store.appendMessage(a, user("late word"));
    withFakeTimers(() => {
      const indexer = new SearchIndexer(store.db, { delayMs: 5 });
      indexer.schedule();
      indexer.schedule();
      expect(vi.getTimerCount()).toBe(1);
      indexer.close();
      vi.advanceTimersByTime(100);
      expect(indexedCount(a)).toBe(0);
      indexer.schedule();
      expect(vi.getTimerCount()).toBe(0);
      vi.advanceTimersByTime(100);
      expect(indexedCount(a)).toBe(0);
    });
  });

  it("a batch the database refuses is logged, not thrown, and its messages wait for the next", () => {
    const projectId = store.openProject("/p").id;
    const a = store.createSession({ projectId }).id;
    store.appendMessage(a, user("refused word"));
    store.db.exec("CREATE TRIGGER refuse_indexing BEFORE UPDATE OF indexed_count ON sessions BEGIN SELECT RAISE(ABORT, 'indexing refused'); END");
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      withFakeTimers(() => {
        const indexer = new SearchIndexer(store.db, { delayMs: 1 });
        indexer.schedule();
        vi.advanceTimersByTime(1);
        expect(logged).toHaveBeenCalledWith(expect.stringMatching(/^\[store\] updating the search index failed: indexing refused/));
        expect(indexedCount(a)).toBe(0);
        // flushAll throws instead; the failed batch's session is found again afterwards.
        expect(() => indexer.flushAll()).toThrow(expect.objectContaining({ name: "StoreError", message: expect.stringMatching(/^updating the search index failed: /) }));
        store.db.exec("DROP TRIGGER refuse_indexing");
        expect(indexer.flushAll()).toBe(1);
        expect(indexedCount(a)).toBe(1);
      });
    } finally {
      logged.mockRestore();
    }
  });

  it("indexes nothing, and does not throw, once its database is closed", () => {
    const projectId = store.openProject("/p").id;
    store.appendMessage(store.createSession({ projectId }).id, user("word"));
    const db = new Database(store.path);
    db.close();
    expect(new SearchIndexer(db).flushAll()).toBe(0);
  });

  it("counts the words of messages with text only (a message without text is indexed as null)", () => {
    const projectId = store.openProject("/p").id;
    const a = store.createSession({ projectId }).id;
    store.appendMessages(a, [assistant("", [call("c1", "read")]), user("zebra")]);
    expect(new SearchIndexer(store.db).flushAll()).toBe(2);
    expect(store.search("zebra").hits.map((h) => h.position)).toEqual([1]);
  });
});
