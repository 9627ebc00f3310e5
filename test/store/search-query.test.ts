// What search makes of typed input (app/main/store/search.ts): words and FTS5 queries that never
// pass the user's syntax through, and snippets split into matched and unmatched parts.
import { describe, expect, it } from "vitest";
import { parseQuery, parseSnippet, toFtsQuery, toPrefixFtsQuery } from "../../app/main/store/search.ts";

describe("parseQuery and toFtsQuery", () => {
  it("splits input into words, none of the user's syntax kept; the last of 3 characters or more, with no blank after it, may be unfinished", () => {
    expect(parseQuery('fix "the" (parser')).toEqual({ words: ["fix", "the", "parser"], lastMayBeTyped: true });
    expect(parseQuery("fix pa")).toEqual({ words: ["fix", "pa"], lastMayBeTyped: false });
    expect(parseQuery("fix par")).toEqual({ words: ["fix", "par"], lastMayBeTyped: true });
    expect(parseQuery("parser ")).toEqual({ words: ["parser"], lastMayBeTyped: false });
    expect(parseQuery("parser\t")).toEqual({ words: ["parser"], lastMayBeTyped: false });
    expect(parseQuery("naïve 東京 x1")).toEqual({ words: ["naïve", "東京", "x1"], lastMayBeTyped: false });
  });

  it("input without a word is no query", () => {
    expect(parseQuery("")).toBeNull();
    expect(parseQuery('  ** () "" ')).toBeNull();
  });

  it("requires every word, the last as a prefix, in the prefix form", () => {
    expect(toPrefixFtsQuery(["error", "functi"])).toBe('"error" AND "functi"*');
  });

  it("quotes each word and requires them all; the last as itself or any of its completions", () => {
    expect(toFtsQuery(["fix", "the", "parser"])).toBe('"fix" AND "the" AND "parser"');
    expect(toFtsQuery(['say"', "func"], ["function", "functions"])).toBe('"say""" AND ("func" OR "function" OR "functions")');
    expect(toFtsQuery(["one"], [])).toBe('"one"');
  });
});

describe("parseSnippet", () => {
  it("splits matches (between \\u0002 and \\u0003) from the text around them, dropping empty parts", () => {
    expect(parseSnippet("a \u0002b\u0003 c \u0002d\u0003")).toEqual([
      { text: "a ", match: false },
      { text: "b", match: true },
      { text: " c ", match: false },
      { text: "d", match: true },
    ]);
    expect(parseSnippet("\u0002\u0003plain")).toEqual([{ text: "plain", match: false }]);
    expect(parseSnippet("no match")).toEqual([{ text: "no match", match: false }]);
    expect(parseSnippet("")).toEqual([]);
  });

  it("an unclosed match runs to the end", () => {
    expect(parseSnippet("x\u0002open")).toEqual([
      { text: "x", match: false },
      { text: "open", match: true },
    ]);
    expect(parseSnippet("\u0002a\u0003\u0002b")).toEqual([
      { text: "a", match: true },
      { text: "b", match: true },
    ]);
  });
});
