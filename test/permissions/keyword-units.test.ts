// The keyword automaton's JavaScript loop (used where WebAssembly is not, or when a keyword holds a
// control character) at its edges: the first character past ASCII, control characters located or
// not, and a small hit buffer that makes it stop early and resume; and the gram tables of a
// one-character keyword (never produced by the rule set, still kept to the contract).
import { describe, expect, it } from "vitest";
import { KeywordAutomaton, MIN_SCAN_HITS } from "../../app/main/permissions/keyword-automaton.ts";
import { GRAM_DIRECT, gramTables } from "../../app/main/permissions/keyword-grams.ts";

function javascriptLoop(keywords: string[], filters: number[] = []): KeywordAutomaton {
  const automaton = new KeywordAutomaton(keywords, filters);
  (automaton as unknown as { wasm: null }).wasm = null;
  return automaton;
}

function scanAll(automaton: KeywordAutomaton, text: string, size: number) {
  const hits = new Int32Array(size);
  const found: string[] = [];
  let first = -1;
  let last = -1;
  let steps = 0;
  for (let from = 0, state = 0; from < text.length; steps++) {
    if (steps > text.length) throw new Error("the scan makes no progress");
    const r = automaton.scan(text, from, text.length, hits, state);
    for (let h = 0; h < r.count; h += 2) found.push(`${automaton.keywords[hits[h]!]}@${hits[h + 1]}`);
    if (r.firstControl >= 0) {
      if (first < 0) first = r.firstControl;
      last = r.lastControl;
    }
    from = r.next;
    state = r.state;
  }
  return { found, first, last, steps };
}

describe("the JavaScript keyword loop", () => {
  it("goes on past characters beyond ASCII, the first of them included", () => {
    for (const automaton of [javascriptLoop(["key", "ey"]), new KeywordAutomaton(["key", "ey"])]) {
      expect(scanAll(automaton, "\u0080key \u00ffkey k\u0080ey", 1000).found).toEqual(["key@1", "ey@2", "key@6", "ey@7", "ey@12"]);
    }
  });

  it("locates control characters, and reports none where there are none", () => {
    const automaton = javascriptLoop(["key"]);
    expect(scanAll(automaton, "plain key text", 256)).toMatchObject({ first: -1, last: -1, found: ["key@6"] });
    expect(scanAll(automaton, "a\rkey\x1b[0m b\x7f", 256)).toMatchObject({ first: 1, last: 11, found: ["key@2"] });
    // A control character resets the automaton: no keyword spans it.
    expect(scanAll(automaton, "k\x01ey", 256).found).toEqual([]);
  });

  it("stops early when its hit buffer is nearly full, and resumes to the same hits", () => {
    const automaton = javascriptLoop(["ab", "b"]);
    const text = "ab ".repeat(200);
    const whole = scanAll(automaton, text, 4096);
    expect(whole.found).toHaveLength(400);
    expect(whole.steps).toBe(1);
    // The least buffer, 256 values: a step stops once more than 190 are written (48 positions of
    // two hits each), never writing past the buffer.
    const small = scanAll(automaton, text, MIN_SCAN_HITS);
    expect(small.found).toEqual(whole.found);
    expect(small.steps).toBe(5);
  });
});

describe("a scan's control characters and contains", () => {
  it("reports -1 for both ends when a step scans no control character, in both loops", () => {
    for (const automaton of [javascriptLoop(["key"]), new KeywordAutomaton(["key"])]) {
      const hits = new Int32Array(MIN_SCAN_HITS);
      expect(automaton.scan("plain key text", 0, 14, hits)).toMatchObject({ count: 2, next: 14, firstControl: -1, lastControl: -1 });
      expect(automaton.scan("a\rkey\x01", 0, 6, hits)).toMatchObject({ count: 2, next: 6, firstControl: 1, lastControl: 5 });
    }
  });

  it("contains finds a keyword after characters past ASCII and after control characters", () => {
    const automaton = new KeywordAutomaton(["key", "ey"]);
    for (const text of ["\u0080key", "\u00e9 key", "\u4e00key", "\x01key", "a\x1bkey", "k\x7fey"]) expect(automaton.contains(text), JSON.stringify(text)).toBe(true);
    for (const text of ["", "k\x01y", "\u0080", "k\u00e9y", "\u00e9e\u0080y"]) expect(automaton.contains(text), JSON.stringify(text)).toBe(false);
  });
});

describe("the hit buffer", () => {
  it("must hold MIN_SCAN_HITS values: a smaller one is refused in both loops, the least one makes progress in both", () => {
    expect(MIN_SCAN_HITS).toBe(256);
    const text = "ab ".repeat(2000);
    // Where the least buffer's steps stop (4 values per "ab"): the JavaScript loop once more than
    // 190 values are written (48 positions, 42 steps); the WebAssembly loop keeps 128 values of
    // room and asks for pairs in calls of 15, 12 and 9 (an eighth of the room left), 144 values
    // (56 steps).
    for (const [automaton, first, steps] of [
      [javascriptLoop(["ab", "b"]), 192, 42],
      [new KeywordAutomaton(["ab", "b"]), 144, 56],
    ] as const) {
      expect(automaton.scan(text, 0, text.length, new Int32Array(MIN_SCAN_HITS)).count).toBe(first);
      expect(scanAll(automaton, text, MIN_SCAN_HITS).steps).toBe(steps);
    }
    for (const automaton of [javascriptLoop(["ab", "b"]), new KeywordAutomaton(["ab", "b"])]) {
      expect(() => automaton.scan(text, 0, text.length, new Int32Array(MIN_SCAN_HITS - 1))).toThrow(
        new RangeError("KeywordAutomaton.scan needs a hit buffer of at least 256 values; got 255"),
      );
      const least = scanAll(automaton, text, MIN_SCAN_HITS);
      expect(least.found).toHaveLength(4000);
      expect(least.found.slice(0, 4)).toEqual(["ab@0", "b@1", "ab@3", "b@4"]);
      expect(least.steps).toBeGreaterThan(1);
    }
  });
});

describe("gram tables", () => {
  it("mark a one-character keyword before every next byte, in both cases", () => {
    const { pairs } = gramTables(["q", "key"]);
    for (let b = 0; b < 256; b++) {
      expect(pairs[0x71 | (b << 8)]! & GRAM_DIRECT, `q then ${b}`).toBe(GRAM_DIRECT);
      expect(pairs[0x51 | (b << 8)]! & GRAM_DIRECT, `Q then ${b}`).toBe(GRAM_DIRECT);
    }
    const automaton = new KeywordAutomaton(["q", "key"]);
    expect(scanAll(automaton, "a q Q key", 1000).found).toEqual(["q@2", "q@4", "key@6"]);
  });
});
