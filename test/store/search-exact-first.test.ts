// Exact words first: on a fixed corpus, every query gives exactly what the search gave before this
// change (fixtures/search-expected.json, recorded with the prefix-always implementation): the
// exact form's hits when they fill the page, and otherwise the hits of the prefix form, the same
// as before. Two pages each, so the cursor follows the same form as the first page.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type SearchHit, type SessionStore } from "../../app/main/store/index.ts";
import { buildSearchCorpus, CORPUS_QUERIES } from "./search-corpus.ts";
import { tempDir } from "./helpers.ts";

type Expected = Record<string, { asTyped: string[][]; exact: string[][] }>;
const expected = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "fixtures", "search-expected.json"), "utf8")) as Expected;

const encode = (h: SearchHit) => `${h.sessionId}/${h.position}/${h.role} ${h.snippet.map((p) => (p.match ? `«${p.text}»` : p.text)).join("")}`;

let dir: string;
let store: SessionStore;
beforeAll(() => {
  dir = tempDir();
  store = openStore({ dataDir: dir }).store;
  buildSearchCorpus(store);
});
afterAll(() => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function twoPages(query: string): string[][] {
  const first = store.search(query, { limit: 10 });
  const pages = [first.hits.map(encode)];
  if (first.nextCursor !== null) pages.push(store.search(query, { limit: 10, cursor: first.nextCursor }).hits.map(encode));
  return pages;
}

describe("search, exact words first", () => {
  it.each(CORPUS_QUERIES)("%s: the same hits as before the change", (query) => {
    const before = expected[query]!;
    const exactFillsPage = before.exact[0]!.length === 10;
    const prefixPossible = !query.endsWith(" ") && query.split(/\s+/).at(-1)!.length >= 3;
    expect(twoPages(query)).toEqual(exactFillsPage || !prefixPossible ? before.exact : before.asTyped);
    // With a space after it, a query is exact, as before.
    expect(twoPages(`${query} `)).toEqual(before.exact);
  });

  it("covers both cases: queries answered by exact words alone and by the prefix form", () => {
    const exactOnly = CORPUS_QUERIES.filter((q) => expected[q]!.exact[0]!.length === 10);
    const prefix = CORPUS_QUERIES.filter((q) => expected[q]!.exact[0]!.length < 10 && expected[q]!.asTyped[0]!.length > 0);
    expect(exactOnly.length).toBeGreaterThan(5);
    expect(prefix).toEqual(expect.arrayContaining(["functio", "configur", "quok", "typescr"]));
    // Where the exact words fill the page, the prefix form would have shown other messages.
    expect(exactOnly.some((q) => JSON.stringify(expected[q]!.asTyped) !== JSON.stringify(expected[q]!.exact))).toBe(true);
  });
});
