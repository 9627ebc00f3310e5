// The search index watermark (app/main/store/search-indexer.ts), driven directly: the first
// batch finds every session behind, later ones only those writers reported, and flushAll indexes
// everything waiting in batches across sessions.
import fs from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore, type SessionStore } from "../../app/main/store/index.ts";
import { SearchIndexer } from "../../app/main/store/search-indexer.ts";
import { tempDir, user } from "./helpers.ts";

let dir: string;
let store: SessionStore;
beforeEach(() => {
  dir = tempDir();
  store = openStore({ dataDir: dir }).store;
});
afterEach(() => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

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
