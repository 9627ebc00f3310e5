// The WebAssembly keyword loop's memory layout (keyword-scan-wasm.ts, createWasmScanner), where
// only some inputs can tell a wrong layout: the automaton's table right after the restart offsets
// of the last trigram hashes (its first cell, the root's step on a character of no keyword, is
// read only where the automaton restarts before such a character), the hits after the filters'
// look-ahead (read only for a keyword near a full chunk's end), a hit buffer filled in one call
// (the end of the memory), and how far back a call resumes after passing (seen only with a
// one-character keyword just before the chunk's end).
import { describe, expect, it } from "vitest";
import { KeywordAutomaton } from "../../app/main/permissions/keyword-automaton.ts";
import { FILTER_ASSIGNMENT, FILTER_LOOKAHEAD } from "../../app/main/permissions/keyword-filters.ts";
import { GRAM_OFFSET_LIMIT, gramTables, trigramHash, TRIGRAM_HASH_BITS } from "../../app/main/permissions/keyword-grams.ts";
import { WASM_INPUT_CHARS, type WasmScanner } from "../../app/main/permissions/keyword-scan-wasm.ts";

/** Every hit of a scan of the whole text from state 0, as (keyword, start) pairs, and the calls' counts. */
function scanAll(automaton: KeywordAutomaton, text: string, hitBuffer: number) {
  const hits = new Int32Array(hitBuffer);
  const found: number[] = [];
  const counts: number[] = [];
  for (let from = 0, state = 0; from < text.length;) {
    const r = automaton.scan(text, from, text.length, hits, state);
    found.push(...hits.subarray(0, r.count));
    counts.push(r.count);
    from = r.next;
    state = r.state;
  }
  return { found, counts };
}
function bothLoops(keywords: string[], text: string, hitBuffer: number, filters: number[] = []) {
  const wasm = new KeywordAutomaton(keywords, filters);
  const js = new KeywordAutomaton(keywords, filters);
  (js as unknown as { wasm: null }).wasm = null;
  const a = scanAll(wasm, text, hitBuffer);
  expect((wasm as unknown as { wasm: unknown }).wasm, "WebAssembly is available here").toBeTruthy();
  return { wasm: a, js: scanAll(js, text, hitBuffer) };
}

describe("the WebAssembly loop's memory", () => {
  it("keeps the restart offsets of the last trigram hashes apart from the automaton's table", () => {
    // Keywords whose gram (a trigram after the keyword's start) has one of the last four hashes:
    // found by trying random keywords. The automaton must restart that far before the gram.
    for (const keyword of ["mnivdpq", "armlhqf"]) {
      const offsets = gramTables([keyword]).offsets;
      expect(
        offsets.subarray(offsets.length - 4).some((o) => o > 0),
        keyword,
      ).toBe(true);
      // The keyword without its first letter holds the gram too: the automaton restarts before it,
      // on a blank (a character of no keyword) at its root, and finds nothing there.
      const text = `x ${keyword} y ${keyword.slice(1)} 00 ${keyword}`;
      const { wasm, js } = bothLoops([keyword], text, 256);
      expect(wasm.found).toEqual([0, 2, 0, text.length - keyword.length]);
      expect(wasm.found).toEqual(js.found);
    }
  });

  it("keeps the restart offset of the very last trigram hash apart from the automaton's table", () => {
    // "m.s" has the last hash: its offset (1, "am.s" begins one before its gram) is the memory's
    // last byte before the table. Written over the table's first cell (the root's step on a
    // character of no keyword), it made that step go 2^24 bytes on, past the memory.
    const keyword = "am.s";
    expect(trigramHash(0x6d | (0x2e << 8) | (0x73 << 16))).toBe(2 ** TRIGRAM_HASH_BITS - 1);
    const offsets = gramTables([keyword]).offsets;
    expect(offsets[offsets.length - 1]).toBe(1);
    const text = `x ${keyword} y ${keyword.slice(1)} 00 ${keyword}`;
    const { wasm, js } = bothLoops([keyword], text, 256);
    expect(wasm.found).toEqual([0, 2, 0, text.length - keyword.length]);
    expect(wasm.found).toEqual(js.found);
  });

  it("writes hits after the filters' look-ahead past a full chunk", () => {
    // A hit early in the chunk, then a keyword that only counts before an assignment, ending at the
    // chunk's end: its value lies in the look-ahead copied after the chunk, past where hits
    // written into it would have stood (the value starts 33 characters after the keyword).
    const keywords = ["token", "secret"];
    const gap = `${" ".repeat(23)}====${" ".repeat(6)}`;
    const text = `token ${".".repeat(WASM_INPUT_CHARS - 12)}secret${gap}abcdefghij${".".repeat(100)}`;
    expect(text.indexOf("secret") + "secret".length).toBe(WASM_INPUT_CHARS);
    expect(text.indexOf("abcdefghij") + 5).toBeLessThanOrEqual(WASM_INPUT_CHARS + FILTER_LOOKAHEAD);
    const { wasm, js } = bothLoops(keywords, text, 256, [0, FILTER_ASSIGNMENT]);
    expect(wasm.found).toEqual([0, 0, 1, WASM_INPUT_CHARS - 6]);
    expect(wasm.found).toEqual(js.found);
  });

  it("resumes a call no further back than what the last call passed over unread", () => {
    // The last call found the one-character keyword, ran the automaton one character past it,
    // then passed over the rest of its chunk; the next restarts up to GRAM_OFFSET_LIMIT characters
    // before its start. Two more (the keyword among them) would find the keyword a second time.
    const automaton = new KeywordAutomaton(["k"]);
    for (let at = WASM_INPUT_CHARS - GRAM_OFFSET_LIMIT - 3; at <= WASM_INPUT_CHARS; at++) {
      expect(scanAll(automaton, `${".".repeat(at)}k${".".repeat(60)}`, 256).found, String(at)).toEqual([0, at]);
    }
    expect((automaton as unknown as { wasm: unknown }).wasm, "WebAssembly is available here").toBeTruthy();
  });

  it("has room for a full hit buffer (4,096 hits) in one call", () => {
    // The scanner itself: the automaton hands it at most an eighth of its own buffer per call.
    const automaton = new KeywordAutomaton(["password", "secret", "token", "apikey"]);
    automaton.scan("token", 0, 5, new Int32Array(256));
    const scanner = (automaton as unknown as { wasm: WasmScanner }).wasm;
    expect(scanner, "WebAssembly is available here").toBeTruthy();
    const text = "token ".repeat(5000);
    const hits = new Int32Array(8192);
    const step = scanner.scan(text, 0, text.length, 0, hits);
    expect(step.count).toBe(4096);
    // (end, encoded state) pairs: every "token" ends 6 after the last.
    expect(Array.from(hits.filter((_, i) => i % 2 === 0))).toEqual(Array.from({ length: 4096 }, (_, i) => 6 * i + 5));
    expect(step.next).toBe(6 * 4095 + 5);
    expect([step.firstControl, step.lastControl]).toEqual([-1, -1]);
    // From further on, with no control character either, then with one: positions in the text.
    const later = scanner.scan(text, 6000, 6100, 0, hits);
    expect([later.count, later.firstControl, later.lastControl]).toEqual([16, -1, -1]);
    const withControls = `${text.slice(0, 6010)}\x1b[0m${text.slice(6010, 6020)}\r${text.slice(6020)}`;
    const controlled = scanner.scan(withControls, 6000, 6100, 0, hits);
    expect([controlled.firstControl, controlled.lastControl]).toEqual([6010, 6024]);
  });
});
