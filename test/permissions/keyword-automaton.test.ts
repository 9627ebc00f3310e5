// The keyword automaton's construction and where its loops stop, in both loops (JavaScript and
// WebAssembly): no filters given, an empty keyword, a state ending a filtered keyword and one without
// a filter, and the exact count at which a step stops with a hit buffer near the least.
import { describe, expect, it } from "vitest";
import { KeywordAutomaton, MIN_SCAN_HITS } from "../../app/main/permissions/keyword-automaton.ts";
import { FILTER_ASSIGNMENT } from "../../app/main/permissions/keyword-filters.ts";

function javascriptLoop(keywords: string[], filters?: number[]): KeywordAutomaton {
  const automaton = new KeywordAutomaton(keywords, filters);
  (automaton as unknown as { wasm: null }).wasm = null;
  return automaton;
}

function bothLoops(keywords: string[], filters?: number[]): KeywordAutomaton[] {
  return [javascriptLoop(keywords, filters), new KeywordAutomaton(keywords, filters)];
}

/** Every hit as keyword@start, resuming until the text's end. */
function hitsOf(automaton: KeywordAutomaton, text: string, size = 4096): string[] {
  const hits = new Int32Array(size);
  const found: string[] = [];
  for (let from = 0, state = 0; from < text.length;) {
    const r = automaton.scan(text, from, text.length, hits, state);
    for (let h = 0; h < r.count; h += 2) found.push(`${automaton.keywords[hits[h]!]}@${hits[h + 1]}`);
    if (r.next <= from) throw new Error("the scan makes no progress");
    from = r.next;
    state = r.state;
  }
  return found;
}

describe("building the keyword automaton", () => {
  it("without filters, has none and reports every hit", () => {
    for (const automaton of bothLoops(["key"])) {
      expect(automaton.filters).toEqual([]);
      expect(hitsOf(automaton, "key handling, a key")).toEqual(["key@0", "key@16"]);
    }
  });

  it("never reports an empty keyword, nor lets it change the other keywords' hits", () => {
    for (const automaton of bothLoops(["", "key", "ey"])) {
      expect(hitsOf(automaton, "a key, they k")).toEqual(["key@2", "ey@3", "ey@9"]);
      expect(automaton.contains("k")).toBe(false);
      expect(automaton.contains("x")).toBe(false);
      expect(automaton.contains("a key")).toBe(true);
    }
  });

  it("reports every hit at a state where a keyword without a filter ends, whatever the filters of the others there", () => {
    // "key" only where an assignment may follow; "ey" always, also where it ends "key". (The
    // filters' check passes where it would read past the text's end: text follows each keyword.)
    const plain = `the key handling in they said ${"more text after it ".repeat(5)}`;
    for (const automaton of bothLoops(["key", "ey"], [FILTER_ASSIGNMENT, 0])) {
      expect(hitsOf(automaton, plain)).toEqual(["key@4", "ey@5", "ey@22"]);
      expect(hitsOf(automaton, `the key = abcdef1 ${"more text after it ".repeat(5)}`)).toEqual(["key@4", "ey@5"]);
    }
    // Both filtered: a state is reported where either filter may pass.
    for (const automaton of bothLoops(["key", "ey"], [FILTER_ASSIGNMENT, FILTER_ASSIGNMENT])) {
      expect(hitsOf(automaton, plain)).toEqual([]);
      expect(hitsOf(automaton, `the key = abcdef1 ${"more text after it ".repeat(5)}`)).toEqual(["key@4", "ey@5"]);
    }
  });
});

describe("where a step stops with a small hit buffer", () => {
  const text = "ab ".repeat(400);

  it("the JavaScript loop: once more than the buffer's size less 66 values are written", () => {
    // One hit (2 values) per "ab": the least buffer (256 values) stops past 190, at 192, after the
    // 96th "ab" (at 285).
    const automaton = javascriptLoop(["ab"]);
    expect(automaton.scan(text, 0, text.length, new Int32Array(MIN_SCAN_HITS))).toMatchObject({ count: 192, next: 287 });
    expect(hitsOf(automaton, text, MIN_SCAN_HITS)).toEqual(hitsOf(automaton, text));
  });

  it("the WebAssembly loop: once the count left by a call is no longer under the buffer's size less 130", () => {
    // A buffer of 280 values (max 278): calls for 17, 15, 13, 11, 10 and 9 pairs (an eighth of the
    // room left, even) leave 34, 64, 90, 112, 132 and 150 values; 150 is 278 - 128: the step stops.
    const automaton = new KeywordAutomaton(["ab"]);
    const r = automaton.scan(text, 0, text.length, new Int32Array(280));
    expect((automaton as unknown as { wasm: unknown }).wasm, "WebAssembly is available here").toBeTruthy();
    expect(r.count).toBe(150);
    expect(hitsOf(automaton, text, 280)).toEqual(hitsOf(javascriptLoop(["ab"]), text));
  });
});
