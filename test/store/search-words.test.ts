// The search's word list (search-words.ts): words being typed are searched as the exact words they
// complete to, the most frequent first. The corpus-wide equality with the old prefix form is in
// search-exact-first.test.ts; here: folding, counting, the list the indexer keeps, the cap on
// completions, and a version-7 database upgraded with its indexed words listed.
import Database from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStore, type SessionStore } from "../../app/main/store/index.ts";
import { MIGRATIONS } from "../../app/main/store/migrations.ts";
import { prepareConnection } from "../../app/main/store/open-database.ts";
import { SearchWordsFill } from "../../app/main/store/search-words-fill.ts";
import { completionsOf, countWords, foldWord, MAX_CHARS_COUNTED, MAX_COMPLETIONS, MAX_WORDS_PER_MESSAGE } from "../../app/main/store/search-words.ts";
import { parseQuery, toFtsQuery } from "../../app/main/store/search.ts";
import { tempDir, user } from "./helpers.ts";

const dirs: string[] = [];
const stores: SessionStore[] = [];
afterEach(() => {
  stores.splice(0).forEach((s) => s.close());
  dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true }));
});
function newStore(): SessionStore {
  const dir = tempDir();
  dirs.push(dir);
  const { store } = openStore({ dataDir: dir });
  stores.push(store);
  return store;
}
const words = (store: SessionStore) => Object.fromEntries(store.db.prepare("SELECT word, docs FROM search_words").raw().all() as [string, number][]);

describe("words", () => {
  it("folds as the index does: lower case, diacritics removed", () => {
    expect(foldWord("Café")).toBe("cafe");
    expect(foldWord("NAÏVE")).toBe("naive");
    expect(foldWord("Straße")).toBe("straße");
  });

  it("counts each word once per text, only words of 4 to 40 characters", () => {
    const counts = new Map<string, number>();
    countWords("The Function function, functions; a bcd x".padEnd(60) + "y".repeat(41), counts);
    countWords("function café", counts);
    expect(Object.fromEntries(counts)).toEqual({ function: 2, functions: 1, cafe: 1 });
  });

  it("reads a message's words in its first MAX_CHARS_COUNTED characters only, never half a word at the cut", () => {
    const counts = new Map<string, number>();
    const before = "alpha ".padEnd(MAX_CHARS_COUNTED - 10);
    // "whole" ends before the cut, "straddle" goes past it, "after" is all past it.
    const text = `${before.slice(0, MAX_CHARS_COUNTED - 12)}whole stradd`;
    expect(text.length).toBe(MAX_CHARS_COUNTED);
    counts.clear();
    countWords(`${text}le after`, counts);
    expect(Object.fromEntries(counts)).toEqual({ alpha: 1, whole: 1 });
    counts.clear();
    countWords(text, counts); // exactly at the bound: nothing is cut, the last word counts
    expect(Object.fromEntries(counts)).toEqual({ alpha: 1, whole: 1, stradd: 1 });
  });

  it("folds a word without any ASCII letter too", () => {
    expect(foldWord("ÉÀÜÖ")).toBe("eauo");
  });

  it("keeps Hangul syllables whole, as the index does, and counts their length in syllables", () => {
    expect(foldWord("대한민국")).toBe("대한민국");
    const counts = new Map<string, number>();
    // Three syllables are too short to be listed, as three letters are.
    countWords("대한민국 만세다 한국어", counts);
    expect(Object.fromEntries(counts)).toEqual({ 대한민국: 1 });
  });

  it("lists words of up to 40 characters, longer than 20 too", () => {
    const counts = new Map<string, number>();
    const forty = "b".repeat(40);
    const long = "c".repeat(25);
    countWords(`${forty} ${long} ${"d".repeat(41)}`, counts);
    expect(Object.fromEntries(counts)).toEqual({ [forty]: 1, [long]: 1 });
  });

  it("counts a word's length in code points, as SQLite and the fill after an upgrade do: an astral letter is one", () => {
    const astral = "\u{20000}";
    const counts = new Map<string, number>();
    // 25 and 40 letters in 50 and 80 UTF-16 units are listed; 3 letters in 4 units, and 41 letters, are not.
    countWords(`${astral.repeat(25)} ${astral.repeat(40)} ab${astral} ${astral.repeat(41)} ${"e".repeat(7)}${astral}`, counts);
    expect(Object.fromEntries(counts)).toEqual({ [astral.repeat(25)]: 1, [astral.repeat(40)]: 1, [`${"e".repeat(7)}${astral}`]: 1 });
  });

  it("lists at most MAX_WORDS_PER_MESSAGE distinct words of one text (a pasted dump stays cheap)", () => {
    const counts = new Map<string, number>();
    const dump = Array.from({ length: MAX_WORDS_PER_MESSAGE + 500 }, (_, i) => `w${i.toString(16).padStart(5, "0")}`).join(" ");
    countWords(dump, counts);
    expect(counts.size).toBe(MAX_WORDS_PER_MESSAGE);
    expect(counts.has("w00000")).toBe(true);
    expect(counts.has(`w${MAX_WORDS_PER_MESSAGE.toString(16).padStart(5, "0")}`)).toBe(false);
  });

  it("quotes every word and ORs the completions of the last", () => {
    expect(parseQuery("error functi")).toEqual({ words: ["error", "functi"], lastMayBeTyped: true });
    expect(parseQuery("error fu")?.lastMayBeTyped).toBe(false);
    expect(parseQuery("functi ")?.lastMayBeTyped).toBe(false);
    expect(parseQuery("  ,;")).toBeNull();
    expect(toFtsQuery(["error", "functi"], ["function", "functions"])).toBe('"error" AND ("functi" OR "function" OR "functions")');
    expect(toFtsQuery(["functi"])).toBe('"functi"');
  });
});

describe("the word list", () => {
  it("is kept by the indexer: a typed word finds the messages of its completions, newest first", () => {
    const store = newStore();
    const project = store.openProject("/p");
    const a = store.createSession({ projectId: project.id });
    store.appendMessages(a.id, [user("Déjà vu: the functional core"), user("function one"), user("functions two and function")]);
    const b = store.createSession({ projectId: project.id });
    store.appendMessages(b.id, [user("unrelated words here")]);
    store.flushSearchIndex();
    expect(words(store)).toMatchObject({ deja: 1, functional: 1, function: 2, functions: 1, unrelated: 1 });
    expect(completionsOf(store.db, "funct")).toEqual(["function", "functional", "functions"]);
    expect(completionsOf(store.db, "FUNCT")).toEqual(["function", "functional", "functions"]);
    expect(completionsOf(store.db, "function")).toEqual(["functional", "functions"]);
    expect(completionsOf(store.db, "dej")).toEqual(["deja"]);
    expect(store.search("funct").hits.map((h) => `${h.sessionId}/${h.position}`)).toEqual([`${a.id}/2`, `${a.id}/1`, `${a.id}/0`]);
    expect(store.search("dej").hits.map((h) => h.snippet.filter((p) => p.match).map((p) => p.text))).toEqual([["Déjà"]]);
    // A word with a space after it is exact.
    expect(store.search("funct ").hits).toEqual([]);
    // More words appended later join the list.
    store.appendMessages(b.id, [user("functor")]);
    expect(store.search("functo").hits.map((h) => h.position)).toEqual([1]);
  });

  it("is not consulted when the exact word alone fills the page, even with no hit to spare", () => {
    const store = newStore();
    const project = store.openProject("/p");
    const a = store.createSession({ projectId: project.id });
    store.appendMessages(a.id, [user("quokka one"), user("quokka two"), user("quokkas three")]);
    // Exactly a page of exact hits (2): "quokkas" is not shown, and there is no next page.
    const page = store.search("quokka", { limit: 2 });
    expect(page.hits.map((h) => h.position)).toEqual([1, 0]);
    expect(page.nextCursor).toBeNull();
    // One more on the page: its words being typed are completed.
    expect(store.search("quokka", { limit: 3 }).hits.map((h) => h.position)).toEqual([2, 1, 0]);
  });

  it("completes a long word of astral letters from its first letters", () => {
    const store = newStore();
    const project = store.openProject("/p");
    const a = store.createSession({ projectId: project.id });
    const word = "\u{20000}\u{20001}".repeat(12);
    store.appendMessages(a.id, [user(`${word} kept`), user("something else")]);
    expect(store.search(word.slice(0, 6)).hits.map((h) => h.position)).toEqual([0]);
  });

  it("completes a Korean word from its first syllables", () => {
    const store = newStore();
    const project = store.openProject("/p");
    const a = store.createSession({ projectId: project.id });
    store.appendMessages(a.id, [user("대한민국 만세"), user("something else")]);
    expect(store.search("대한민").hits.map((h) => h.snippet.filter((p) => p.match).map((p) => p.text))).toEqual([["대한민국"]]);
  });

  it("stands for the most frequent completions only", () => {
    const store = newStore();
    const project = store.openProject("/p");
    const session = store.createSession({ projectId: project.id });
    // MAX_COMPLETIONS + 1 words starting with "zork": zorkrare is in one message, every other in two or more.
    const frequent = Array.from({ length: MAX_COMPLETIONS }, (_, i) => `zork${String.fromCharCode(97 + i)}`);
    store.appendMessages(session.id, [user("zorkrare"), ...frequent.map((w) => user(w)), ...frequent.map((w) => user(`${w} again`))]);
    store.flushSearchIndex();
    expect(completionsOf(store.db, "zork")).toEqual(frequent);
    const found = store.search("zork", { limit: 200 }).hits.map((h) => h.snippet.find((p) => p.match)?.text);
    expect(found).toHaveLength(MAX_COMPLETIONS * 2);
    expect(found).not.toContain("zorkrare");
    // The word itself, whole, is found as ever.
    expect(store.search("zorkrare").hits).toHaveLength(1);
  });

  it("is filled from the index after a version-7 database is upgraded (in the background: search-words-fill.test.ts)", () => {
    const dir = tempDir();
    dirs.push(dir);
    const v7 = new Database(path.join(dir, "lathe.db"));
    prepareConnection(v7);
    for (const migration of MIGRATIONS.filter((m) => m.version <= 7)) migration.up(v7);
    v7.pragma("user_version = 7");
    const messages = [user("Quokkas and quokka"), user("a quokka sleeps"), user("pangolins")];
    v7.prepare("INSERT INTO projects VALUES (1, '/p', 'p', 1, 1)").run();
    v7.prepare("INSERT INTO sessions (id, project_id, created_at, updated_at, base_tool_names, message_count) VALUES (1, 1, 1, 1, '[]', 3)").run();
    messages.forEach((m, p) => v7.prepare("INSERT INTO messages (id, role, data, created_at) VALUES (?, ?, ?, 1)").run(2 ** 24 + p, m.role, JSON.stringify(m)));
    // The first two are indexed (below the watermark); the third waits for the indexer.
    v7.prepare("INSERT INTO message_fts(rowid, text) SELECT id, lathe_message_text(data) FROM messages WHERE id < ?").run(2 ** 24 + 2);
    v7.prepare("UPDATE sessions SET indexed_count = 2").run();
    v7.close();

    const { store } = openStore({ dataDir: dir });
    stores.push(store);
    expect(store.searchWordsComplete()).toBe(false);
    expect(store.search("quok").hits.map((h) => h.position)).toEqual([1, 0]);
    expect(store.search("pango").hits.map((h) => h.position)).toEqual([2]);
    while (!store.searchWordsComplete()) new SearchWordsFill(store.db).fillSlice();
    expect(words(store)).toEqual({ quokkas: 1, quokka: 2, sleeps: 1, pangolins: 1 });
    expect(store.search("quok").hits.map((h) => h.position)).toEqual([1, 0]);
  });
});

describe("a word list from before schema 9 (Hangul words listed as letters)", () => {
  it("loses its letter entries and is filled again from the index, so a Korean word being typed finds old messages", () => {
    const dir = tempDir();
    {
      const { store } = openStore({ dataDir: dir });
      const project = store.openProject("/p");
      const session = store.createSession({ projectId: project.id });
      store.appendMessages(session.id, [user("대한민국 만세"), user("quokka time")]);
      store.flushSearchIndex();
      // What the earlier foldWord listed: the word as its letters.
      store.db.prepare("DELETE FROM search_words WHERE word = ?").run("대한민국");
      store.db.prepare("INSERT INTO search_words (word, docs) VALUES (?, 1)").run("대한민국".normalize("NFD"));
      store.db.pragma("user_version = 8");
      store.close();
    }
    const { store } = openStore({ dataDir: dir });
    try {
      const words = () => store.db.prepare("SELECT word FROM search_words ORDER BY word").pluck().all() as string[];
      expect(words().some((w) => /[\u1100-\u11ff]/.test(w))).toBe(false);
      expect(store.searchWordsComplete()).toBe(false);
      const fill = new SearchWordsFill(store.db);
      while (!fill.fillSlice()) {
        // slices until complete
      }
      expect(store.searchWordsComplete()).toBe(true);
      expect(words()).toContain("대한민국");
      expect(words()).toContain("quokka");
      expect(store.search("대한민").hits.map((h) => h.snippet.filter((p) => p.match).map((p) => p.text))).toEqual([["대한민국"]]);
    } finally {
      store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("is left as it is, complete, when it has no letter entries", () => {
    const dir = tempDir();
    {
      const { store } = openStore({ dataDir: dir });
      const session = store.createSession({ projectId: store.openProject("/p").id });
      store.appendMessages(session.id, [user("quokka time")]);
      store.flushSearchIndex();
      store.db.pragma("user_version = 8");
      store.close();
    }
    const { store } = openStore({ dataDir: dir });
    try {
      expect(store.searchWordsComplete()).toBe(true);
      expect(store.db.prepare("SELECT word FROM search_words ORDER BY word").pluck().all()).toContain("quokka");
    } finally {
      store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
