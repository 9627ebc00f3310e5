// The keyword automaton's WebAssembly loop against its JavaScript loop on random text: the same
// keyword hits in the same order whatever the hit buffer's size (stopping early when the buffer
// fills and resuming), and control characters never missed.
import { describe, expect, it } from "vitest";
import { KeywordAutomaton } from "../../app/main/permissions/keyword-automaton.ts";
import { isControlByte } from "../../app/main/permissions/keyword-scan-wasm.ts";

let seed = 777;
const random = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
const KEYWORDS = ["key", "token", "ey", "ghp_", "akia", "-----begin", "s.", "secret", "a-configured-literal-value-that-is-long"];
const PIECES = ["key", "Token", "ghp_", "AKIA", "s.", "x", "y", " ", "\n", "\t", "\r", "\x1b[31m", "\x7f", "\u00e9", "\u4e00", "\u019b", "-----BEGIN", "SeCrEt", "a-configured-literal-value-that-is-long", "e", "k"];

function randomText(length: number): string {
  let text = "";
  while (text.length < length) text += PIECES[Math.floor(random() * PIECES.length)]!;
  return text;
}

function scanAll(automaton: KeywordAutomaton, text: string, hitBuffer: number) {
  const hits = new Int32Array(hitBuffer);
  const found: number[] = [];
  let first = -1;
  let last = -1;
  for (let from = 0, state = 0; from < text.length; ) {
    const r = automaton.scan(text, from, text.length, hits, state);
    for (let i = from; i < r.next; i++) {
      if (!isControlByte(text.charCodeAt(i) & 0xff)) continue;
      // Every control character scanned is inside the reported range.
      if (r.firstControl < 0 || r.firstControl > i || r.lastControl < i) expect.fail(`control character at ${i} outside ${r.firstControl}..${r.lastControl}`);
    }
    if (r.firstControl >= 0) {
      first = first < 0 ? r.firstControl : Math.min(first, r.firstControl);
      last = Math.max(last, r.lastControl);
    }
    expect(r.next).toBeGreaterThan(from);
    from = r.next;
    state = r.state;
    found.push(...hits.subarray(0, r.count));
  }
  return { found, first, last };
}

describe("the keyword loop in WebAssembly", () => {
  it("finds what the JavaScript loop finds, whatever the buffer size", () => {
    for (let trial = 0; trial < 15; trial++) {
      const text = randomText(trial % 4 === 0 ? 200 + Math.floor(random() * 2000) : 20_000 + Math.floor(random() * 50_000));
      const wasm = new KeywordAutomaton(KEYWORDS);
      const js = new KeywordAutomaton(KEYWORDS);
      (js as unknown as { wasm: null }).wasm = null;
      const buffer = [150, 600, 2000, 9000, 40_000][trial % 5]!;
      const a = scanAll(wasm, text, buffer);
      expect((wasm as unknown as { wasm: unknown }).wasm, "WebAssembly is available here").toBeTruthy();
      const b = scanAll(js, text, buffer);
      expect(a.found.length, `trial ${trial}`).toBe(b.found.length);
      expect(a.found).toEqual(b.found);
      expect([a.first, a.last]).toEqual([b.first, b.last]);
      // And what a plain search finds (ASCII case folded; the keywords are ASCII).
      const lower = text.replace(/[A-Z]/g, (c) => c.toLowerCase());
      const naive: string[] = [];
      KEYWORDS.forEach((k, id) => {
        for (let at = lower.indexOf(k); at !== -1; at = lower.indexOf(k, at + 1)) naive.push(`${id}@${at}`);
      });
      const pairs: string[] = [];
      for (let i = 0; i < a.found.length; i += 2) pairs.push(`${a.found[i]}@${a.found[i + 1]}`);
      expect(pairs.sort()).toEqual(naive.sort());
    }
  });
});
