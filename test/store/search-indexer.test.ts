// The search index watermark (app/main/store/search-indexer.ts), driven directly: the first
// batch finds every session behind, later ones only those writers reported, and flushAll indexes
// everything waiting in batches across sessions.
import { describe, expect, it } from "vitest";
import type { SessionStore } from "../../app/main/store/index.ts";
import { SearchIndexer, WORDS_PER_BATCH } from "../../app/main/store/search-indexer.ts";
import { user } from "./helpers.ts";
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
