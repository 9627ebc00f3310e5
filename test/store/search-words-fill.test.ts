// The search word list's fill after an upgrade from schema 7 (search-words-fill.ts): the store
// opens at once with the list to fill, search stays right while it fills (a word being typed is
// then a prefix query), the fill goes in bounded slices, resumes after a quit, and ends with the
// counts the index has, including messages indexed meanwhile.
import fs from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { openStore, type SessionStore } from "../../app/main/store/index.ts";
import { SearchWordsFill } from "../../app/main/store/search-words-fill.ts";
import { MAX_WORD, MIN_WORD } from "../../app/main/store/search-words.ts";
import { tempDir, user } from "./helpers.ts";
import { writeV7Database } from "./v7-database.ts";

const dirs: string[] = [];
const stores: SessionStore[] = [];
afterEach(() => {
  stores.splice(0).forEach((s) => s.close());
  dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true }));
});

function v7Folder(texts: string[]): string {
  const dir = tempDir();
  dirs.push(dir);
  writeV7Database(dir, texts);
  return dir;
}

function open(dir: string): SessionStore {
  const { store } = openStore({ dataDir: dir });
  stores.push(store);
  return store;
}

const listed = (store: SessionStore) => Object.fromEntries(store.db.prepare("SELECT word, docs FROM search_words ORDER BY word").raw().all() as [string, number][]);
/** What the list must hold: every indexed word of MIN_WORD to MAX_WORD characters with its message count. */
const reference = (store: SessionStore) => {
  store.db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.reference_vocabulary USING fts5vocab(main, message_fts, row)");
  return Object.fromEntries(
    store.db.prepare(`SELECT term, doc FROM temp.reference_vocabulary WHERE length(term) BETWEEN ${MIN_WORD} AND ${MAX_WORD} ORDER BY term`).raw().all() as [string, number][],
  );
};
const after = (store: SessionStore) => store.db.prepare("SELECT after FROM search_words_fill").pluck().get() as string | undefined;

// 300 messages: common words, 150 distinct ones, accents, and words too long to list.
const corpus = Array.from({ length: 300 }, (_, i) => `Message ${i} about quokkas, café déjà ${i % 2 ? "pangolin" : "platypus"} word${i % 150}x ${"h".repeat(41)}${i}`);

describe("the word list's fill after an upgrade", () => {
  it("leaves the fill to the background: the store opens with it pending and search stays right", () => {
    const store = open(v7Folder(corpus));
    expect(store.searchWordsComplete()).toBe(false);
    expect(listed(store)).toEqual({});
    // A typed word is searched as a prefix meanwhile: the same hits as with the list.
    const during = store.search("pango", { limit: 200 }).hits.map((h) => h.position);
    expect(during).toHaveLength(150);
    expect(store.search("quok").hits).toHaveLength(20);
    expect(store.search("word29", { limit: 200 }).hits.map((h) => h.position)).toEqual([179, 29]);
    const fill = new SearchWordsFill(store.db);
    fill.fillSlice(0);
    expect(store.searchWordsComplete()).toBe(false);
    expect(store.search("pango", { limit: 200 }).hits.map((h) => h.position)).toEqual(during);
    while (!fill.fillSlice()) {
      // slices until complete
    }
    expect(store.searchWordsComplete()).toBe(true);
    expect(listed(store)).toEqual(reference(store));
    expect(listed(store)).toMatchObject({ quokkas: 300, pangolin: 150, platypus: 150, cafe: 300, deja: 300, word29x: 2 });
    expect(store.search("pango", { limit: 200 }).hits.map((h) => h.position)).toEqual(during);
    expect(store.search("word29", { limit: 200 }).hits.map((h) => h.position)).toEqual([179, 29]);
  });

  it("reads a bounded number of words per slice, and resumes after a quit where it stopped", () => {
    const dir = v7Folder(corpus);
    let store = open(dir);
    // One query of 32 index words (some not listable) per slice at a budget of 0 ms.
    const fill = new SearchWordsFill(store.db);
    for (let slices = 1; Object.keys(listed(store)).length === 0; slices++) {
      fill.fillSlice(0);
      expect(Object.keys(listed(store)).length).toBeLessThanOrEqual(32);
      expect(slices).toBeLessThan(20);
    }
    const first = after(store)!;
    const filled = Object.keys(listed(store));
    expect(filled.every((w) => w <= first)).toBe(true);
    store.close();
    stores.splice(0);

    store = open(dir);
    expect(store.searchWordsComplete()).toBe(false);
    expect(after(store)).toBe(first);
    new SearchWordsFill(store.db).fillSlice(0);
    expect(after(store)! > first).toBe(true);
    expect(Object.keys(listed(store))).toEqual(expect.arrayContaining(filled));
    while (!new SearchWordsFill(store.db).fillSlice()) {
      // the rest
    }
    expect(after(store)).toBeUndefined();
    expect(listed(store)).toEqual(reference(store));
  });

  it("counts the messages indexed while it fills, before and after the words it reached", () => {
    const store = open(v7Folder(corpus));
    const fill = new SearchWordsFill(store.db);
    while (after(store)! < "about") fill.fillSlice(0); // "about" filled, not yet "quokkas" or "zebra"
    const reached = after(store)!;
    expect("about" <= reached && "quokkas" > reached).toBe(true);
    const session = store.createSession({ projectId: store.openProject("/q").id });
    store.appendMessages(session.id, [user("about quokkas and a zebra"), user("zebra again")]);
    store.flushSearchIndex();
    while (!fill.fillSlice()) {
      // the rest
    }
    expect(listed(store)).toEqual(reference(store));
    expect(listed(store)).toMatchObject({ about: 301, quokkas: 301, zebra: 2 });
  });

  it("runs by itself once started, in slices, and a new database has nothing to fill", async () => {
    const store = open(v7Folder(corpus));
    store.startSearchWordsFill();
    expect(store.searchWordsComplete()).toBe(false);
    for (let i = 0; i < 500 && !store.searchWordsComplete(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(store.searchWordsComplete()).toBe(true);
    expect(listed(store)).toEqual(reference(store));

    const dir = tempDir();
    dirs.push(dir);
    expect(open(dir).searchWordsComplete()).toBe(true);
  });

  it("counts a database listed by the first form of the migration (no fill table) as complete", () => {
    const store = open(v7Folder(corpus));
    while (!new SearchWordsFill(store.db).fillSlice()) {
      // the whole list
    }
    store.db.exec("DROP TABLE search_words_fill");
    expect(new SearchWordsFill(store.db).complete).toBe(true);
    expect(store.searchWordsComplete()).toBe(true);
    expect(store.search("pango", { limit: 200 }).hits).toHaveLength(150);
  });

  it("takes a vocabulary of many distinct long words (hashes) a bounded step at a time", () => {
    const hashes = Array.from({ length: 40 }, (_, i) => Array.from({ length: 100 }, (_, j) => `${(i * 100 + j).toString(16).padStart(6, "0")}${"f".repeat(40)}`).join(" "));
    const store = open(v7Folder(hashes));
    const fill = new SearchWordsFill(store.db);
    fill.fillSlice(0);
    // 4,000 unlisted words: one slice at a budget of 0 reads one query's worth, lists nothing.
    expect(after(store)).toBe(`00001f${"f".repeat(40)}`);
    expect(listed(store)).toEqual({});
  });

  it("reads in a worker; an answer read while the indexer committed is read again, then keeps the larger count", async () => {
    for (const racing of [false, true]) {
      const store = open(v7Folder(corpus));
      // A count the indexer would have added to (larger than the index's 300): replaced when exact, kept when racing.
      store.db.prepare("INSERT INTO search_words VALUES ('quokkas', 1000)").run();
      let batches = 0;
      const fill = new SearchWordsFill(store.db, { file: store.path, pauseMs: 0, indexed: () => (racing ? ++batches : 0) });
      fill.start();
      for (let i = 0; i < 1000 && !fill.complete; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(fill.complete).toBe(true);
      expect(listed(store)).toEqual({ ...reference(store), quokkas: racing ? 1000 : 300 });
      // Racing, each read was asked again RETRIES times (4 reads) before it was written.
      if (racing) expect(batches).toBeGreaterThanOrEqual(4);
      fill.close();
    }
  });
});
