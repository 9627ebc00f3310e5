// The WebAssembly keyword loop's memory layout (keyword-scan-wasm.ts, createWasmScanner), where
// only some inputs can tell a wrong layout: the automaton's table right after the restart offsets
// of the last trigram hashes (its first cell, the root's step on a character of no keyword, is
// read only where the automaton restarts before such a character) and a hit buffer filled in one
// call (the end of the memory).
import { describe, expect, it } from "vitest";
import { KeywordAutomaton } from "../../app/main/permissions/keyword-automaton.ts";
import { gramTables } from "../../app/main/permissions/keyword-grams.ts";
import type { WasmScanner } from "../../app/main/permissions/keyword-scan-wasm.ts";

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
function bothLoops(keywords: string[], text: string, hitBuffer: number) {
  const wasm = new KeywordAutomaton(keywords);
  const js = new KeywordAutomaton(keywords);
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
