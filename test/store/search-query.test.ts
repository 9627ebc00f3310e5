// What search makes of typed input (app/main/store/search.ts): FTS5 queries that never pass the
// user's syntax through, and snippets split into matched and unmatched parts.
import { describe, expect, it } from "vitest";
import { parseSnippet, toFtsQueries } from "../../app/main/store/search.ts";

describe("toFtsQueries", () => {
  it("quotes each word and requires them all; the last word of 3 characters or more may be a prefix", () => {
    expect(toFtsQueries('fix "the" (parser')).toEqual({ exact: '"fix" "the" "parser"', prefix: '"fix" "the" "parser"*' });
    expect(toFtsQueries("fix pa")).toEqual({ exact: '"fix" "pa"', prefix: null });
    expect(toFtsQueries("fix par")).toEqual({ exact: '"fix" "par"', prefix: '"fix" "par"*' });
    expect(toFtsQueries("parser ")).toEqual({ exact: '"parser"', prefix: null });
    expect(toFtsQueries("parser\t")).toEqual({ exact: '"parser"', prefix: null });
    expect(toFtsQueries("naïve 東京 x1")).toEqual({ exact: '"naïve" "東京" "x1"', prefix: null });
  });

  it("input without a word is no query", () => {
    expect(toFtsQueries("")).toBeNull();
    expect(toFtsQueries('  ** () "" ')).toBeNull();
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
