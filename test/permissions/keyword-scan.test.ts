// The keyword automaton's WebAssembly loop against its JavaScript loop on random text: the same
// keyword hits in the same order whatever the hit buffer's size (stopping early when the buffer
// fills and resuming), and control characters never missed. The grams it skips by: every keyword
// of the rule set has one near its start, and a keyword cut by a call's end is still found. Keyword filters: the loops' check
// never drops a hit the exact checks would keep, and both loops drop the same ones.
import { describe, expect, it } from "vitest";
import { KeywordAutomaton } from "../../app/main/permissions/keyword-automaton.ts";
import { GRAM_DIRECT, GRAM_TRIGRAM, gramTables, trigramHash } from "../../app/main/permissions/keyword-grams.ts";
import { secretRules } from "../../app/main/permissions/secret-rules.ts";
import { WASM_INPUT_CHARS } from "../../app/main/permissions/keyword-scan-wasm.ts";
import { SecretScanner } from "../../app/main/permissions/redaction.ts";
import {
  assignmentFollows,
  digitValueAssigned,
  FILTER_ASSIGNMENT,
  FILTER_DIGIT_VALUE,
  FILTER_TOKEN_AFTER,
  isControlByte,
  isTokenChar,
  isWordish,
  mayPass,
} from "../../app/main/permissions/keyword-filters.ts";

let seed = 777;
const random = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
const KEYWORDS = ["key", "token", "ey", "ghp_", "akia", "-----begin", "s.", "secret", "a-configured-literal-value-that-is-long"];
const PIECES = [
  "key",
  "Token",
  "ghp_",
  "AKIA",
  "s.",
  "x",
  "y",
  " ",
  "\n",
  "\t",
  "\r",
  "\x1b[31m",
  "\x7f",
  "\u00e9",
  "\u4e00",
  "\u019b",
  "-----BEGIN",
  "SeCrEt",
  "a-configured-literal-value-that-is-long",
  "e",
  "k",
];

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
  for (let from = 0, state = 0; from < text.length;) {
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
      const buffer = [256, 600, 2000, 9000, 40_000][trial % 5]!;
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

describe("passing over text that begins no keyword's gram", () => {
  it("finds a keyword whose gram lies past a WebAssembly call's end, wherever the keyword is cut", () => {
    // The rare letters put each keyword's gram at a different offset (0 to GRAM_OFFSET_LIMIT).
    const keywords = ["qzvee", "eqzve", "eeqzv", "eeeqzvee", "ey", "s."];
    const { pairs, trigrams } = gramTables(keywords);
    const gramAt = (k: string) => [0, 1, 2, 3].find((o) => pairs[k.charCodeAt(o) | (k.charCodeAt(o + 1) << 8)] === GRAM_TRIGRAM && o + 3 <= k.length && bitOf(trigrams, k, o));
    expect(keywords.slice(0, 4).map(gramAt)).toEqual([0, 1, 2, 3]);
    for (const keyword of keywords) {
      for (let cut = 1; cut < keyword.length; cut++) {
        for (const filler of ["e", "a b\n"]) {
          const before = filler.repeat(WASM_INPUT_CHARS).slice(0, WASM_INPUT_CHARS - cut);
          const text = `${before}${keyword.toUpperCase()}${filler.repeat(50)}`;
          const wasm = new KeywordAutomaton(keywords);
          const js = new KeywordAutomaton(keywords);
          (js as unknown as { wasm: null }).wasm = null;
          const a = scanAll(wasm, text, 9000);
          expect(a.found, `${keyword} cut after ${cut}`).toEqual(scanAll(js, text, 9000).found);
          expect(a.found).toContain(before.length);
        }
      }
    }
  });

  it("every keyword of the rule set, in any case, has its gram within GRAM_OFFSET_LIMIT of its start", () => {
    const scanner = new SecretScanner({ literals: ["a-configured-KEY-value-42", "short~key"] });
    const { keywords, filters } = (scanner as unknown as { automaton: KeywordAutomaton }).automaton;
    const { pairs, buckets, thirds, trigrams } = gramTables(keywords, filters);
    const misses: string[] = [];
    for (const [id, keyword] of keywords.entries()) {
      const mixed = [...keyword].map((c) => (random() < 0.5 ? c.toUpperCase() : c)).join("");
      // A keyword reported only before a token character is followed by one.
      const text = `${mixed}${filters[id] === FILTER_TOKEN_AFTER ? "Q" : "\u0000"}`;
      const passes = [0, 1, 2, 3].some((g) => {
        if (g + 1 >= text.length) return false;
        const pair = (text.charCodeAt(g) & 0xff) | ((text.charCodeAt(g + 1) & 0xff) << 8);
        const v = pairs[pair]!;
        // The first test, four at a time, lets it through too.
        const third = g + 2 < text.length ? text.charCodeAt(g + 2) & 0xff : 0x41;
        if ((buckets[pair]! & thirds[third]!) === 0) return false;
        return (v & GRAM_DIRECT) !== 0 || ((v & GRAM_TRIGRAM) !== 0 && bitOf(trigrams, text, g));
      });
      if (!passes) misses.push(keyword);
    }
    expect(keywords.length).toBeGreaterThan(200);
    expect(misses).toEqual([]);
  });
});

describe("grams of keywords reported only before a token character", () => {
  it('are the keyword and a token character: the loop passes over "ey" in "key " and "they", not over "eyJ", even at a call\'s end', () => {
    const { pairs, trigrams } = gramTables(["ey", "s."], [FILTER_TOKEN_AFTER, 0]);
    expect(pairs["e".charCodeAt(0) | ("y".charCodeAt(0) << 8)]! & (GRAM_DIRECT | GRAM_TRIGRAM)).toBe(GRAM_TRIGRAM);
    expect(bitOf(trigrams, "eyJ", 0)).toBe(true);
    expect(bitOf(trigrams, "EY_", 0)).toBe(true);
    expect(bitOf(trigrams, "ey ", 0)).toBe(false);
    expect(bitOf(trigrams, "ey;", 0)).toBe(false);
    expect(pairs["s".charCodeAt(0) | (".".charCodeAt(0) << 8)]! & GRAM_DIRECT).toBe(GRAM_DIRECT);
    const keywords = ["ey", "key", "token"];
    const filters = [FILTER_TOKEN_AFTER, FILTER_ASSIGNMENT, FILTER_TOKEN_AFTER];
    for (const cut of [0, 1, 2, 3]) {
      for (const ending of ["", "J", " ", "J rest"]) {
        // The keyword (and what follows it) cut by a WebAssembly call's end, or ending the text.
        const before = "the key they ".repeat(WASM_INPUT_CHARS).slice(0, WASM_INPUT_CHARS - cut);
        const text = `${before}eY${ending}`;
        const wasm = new KeywordAutomaton(keywords, filters);
        const js = new KeywordAutomaton(keywords, filters);
        (js as unknown as { wasm: null }).wasm = null;
        const found = scanAll(wasm, text, 9000).found;
        expect(found, `cut ${cut}, ending ${JSON.stringify(ending)}`).toEqual(scanAll(js, text, 9000).found);
        expect(found.includes(before.length)).toBe(ending !== " ");
      }
    }
  });
});

function bitOf(trigrams: Uint8Array, text: string, at: number): boolean {
  const h = trigramHash((text.charCodeAt(at) & 0xff) | ((text.charCodeAt(at + 1) & 0xff) << 8) | ((text.charCodeAt(at + 2) & 0xff) << 16));
  return ((trigrams[h >> 3]! >> (h & 7)) & 1) === 1;
}

const FILTER_PIECES = [
  "key",
  "Token",
  "ey",
  "ghp_",
  " = ",
  ":",
  "=>",
  "'",
  '"',
  "`",
  "abcde",
  "Zq8Wv3",
  "x",
  " ",
  "\t",
  "\n",
  ";",
  "(",
  "\u013d",
  "\u0120",
  "\u4e00",
  "\x1b[0m",
  "-",
  ".",
  "9f2c71e0b4",
  "==",
  "||",
  "?=",
  ":::=",
  "password",
];

function filterText(length: number): string {
  let text = "";
  while (text.length < length) text += FILTER_PIECES[Math.floor(random() * FILTER_PIECES.length)]!;
  return text;
}

describe("keyword filters", () => {
  it("mayPass (the loop's check, on low bytes) passes wherever the exact checks pass, reading nothing past its limit", () => {
    const text = filterText(60_000);
    let exactPasses = 0;
    let digitPasses = 0;
    const missed: string[] = [];
    for (let at = 0; at < text.length; at++) {
      const limit = Math.min(text.length, at + Math.floor(random() * 60));
      // The exact check over the text as far as `limit` (nothing past it is read by mayPass).
      if (assignmentFollows(text.slice(0, limit), at)) {
        exactPasses++;
        if (!mayPass(text, at, limit, FILTER_ASSIGNMENT)) missed.push(`assignment at ${at}`);
      }
      if ((at >= limit || isTokenChar(text.charCodeAt(at))) && !mayPass(text, at, limit, FILTER_TOKEN_AFTER)) missed.push(`token at ${at}`);
      if (digitValueAssigned(text.slice(0, limit), at)) {
        digitPasses++;
        if (!mayPass(text, at, limit, FILTER_DIGIT_VALUE)) missed.push(`digit value at ${at}`);
      }
      if (!mayPass(text, at, limit, 0)) missed.push(`no filter at ${at}`);
    }
    expect(missed).toEqual([]);
    expect(exactPasses).toBeGreaterThan(100);
    expect(digitPasses).toBeGreaterThan(100);
    // And it does filter: no operator, or a value too short, or a blank after a token keyword.
    expect(mayPass("key handling in the parser (#12) and more text after it", 3, 60, FILTER_ASSIGNMENT)).toBe(false);
    expect(mayPass("Author: Dev Person <dev@example.com> and more text after it", 4, 60, FILTER_ASSIGNMENT)).toBe(false);
    expect(mayPass("apiKey = process.env.API_KEY; and more text after it......", 3, 60, FILTER_ASSIGNMENT)).toBe(true);
    expect(mayPass("key handling", 3, 12, FILTER_TOKEN_AFTER)).toBe(false);
    // The generic rule's value holds a digit and has 10 or more characters.
    expect(mayPass("apiKey = process.env.API_KEY; and more text after it......", 3, 60, FILTER_DIGIT_VALUE)).toBe(false);
    expect(mayPass('db_password = "Zq8Wv3Rt6Yp1Lk"; and more text after it....', 11, 60, FILTER_DIGIT_VALUE)).toBe(true);
    expect(mayPass('"api_version": "v2"}\n5KXVx+Qu8Fyd5+Lj//nfp/WF0JQf42XHZv0A5o9', 3, 60, FILTER_DIGIT_VALUE)).toBe(false);
    // Where the check would read past its limit, it passes.
    expect(mayPass('db_password = "Zq8Wv3R', 11, 22, FILTER_DIGIT_VALUE)).toBe(true);
    expect(digitValueAssigned('db_password = "Zq8Wv3R', 11)).toBe(false);
    // U+013D's low byte is "=": the loop may pass it, the exact check does not.
    expect(assignmentFollows("key\u013d abcdefg", 3)).toBe(false);
  });

  it("digitValueAssigned passes wherever the generic rule's expression finds a value with a digit, from where the scanner tries it", () => {
    const rule = secretRules().rules.find((r) => r.id === "generic-api-key")!;
    expect(rule.digitValue).toBe(true);
    expect(
      secretRules()
        .rules.filter((r) => r.digitValue)
        .map((r) => r.id),
    ).toEqual(["generic-api-key"]);
    const pieces = [
      "api_key",
      "Token",
      "PASSWORD",
      "secret",
      "auth",
      " ",
      "\t",
      "\n",
      '"',
      "'",
      "`",
      "=",
      "==",
      ":",
      "::=",
      "=>",
      "||",
      "?=",
      ",",
      ">",
      ";",
      "-",
      ".",
      "/",
      "+",
      "x",
      "9",
      "Zq8Wv3Rt6Y",
      "abcdefghij",
      "0123456789",
      "\u00a0",
      "\u0161",
    ];
    let text = "";
    while (text.length < 200_000) text += pieces[Math.floor(random() * pieces.length)]!;
    const re = rule.keywordPrefix!;
    let matches = 0;
    let rejected = 0;
    for (const m of text.toLowerCase().matchAll(/access|api|auth|key|credential|creds|passwd|password|secret|token/g)) {
      const end = m.index + m[0].length;
      let at = m.index;
      while (at > 0 && m.index - at < 50 && isWordish(text.charCodeAt(at - 1))) at--;
      re.lastIndex = at;
      const match = re.exec(text);
      const kept = match !== null && /\d/.test(match[1]!);
      // Non-ASCII blanks are not gap characters here (as in assignmentFollows): leave those out.
      if (kept && [...match[0]].some((c) => c.charCodeAt(0) > 127)) continue;
      if (kept) {
        matches++;
        expect(digitValueAssigned(text, end), JSON.stringify(text.slice(at, end + 60))).toBe(true);
      } else if (!digitValueAssigned(text, end)) rejected++;
    }
    expect(matches).toBeGreaterThan(50);
    expect(rejected).toBeGreaterThan(1000);
  });

  it("the loops report the same filtered hits, never fewer than the exact checks allow, and fewer than without filters", () => {
    const keywords = ["key", "token", "ey", "ghp_", "api", "password"];
    const filters = [FILTER_ASSIGNMENT, FILTER_ASSIGNMENT, FILTER_TOKEN_AFTER, FILTER_TOKEN_AFTER, FILTER_ASSIGNMENT, FILTER_DIGIT_VALUE];
    for (let trial = 0; trial < 6; trial++) {
      const text = filterText(30_000 + Math.floor(random() * 90_000));
      const wasm = new KeywordAutomaton(keywords, filters);
      const js = new KeywordAutomaton(keywords, filters);
      (js as unknown as { wasm: null }).wasm = null;
      const buffer = [256, 600, 9000][trial % 3]!;
      const a = scanAll(wasm, text, buffer);
      expect((wasm as unknown as { wasm: unknown }).wasm, "WebAssembly is available here").toBeTruthy();
      const b = scanAll(js, text, buffer);
      expect(a.found).toEqual(b.found);
      expect([a.first, a.last]).toEqual([b.first, b.last]);
      const reported = new Set<string>();
      for (let i = 0; i < a.found.length; i += 2) reported.add(`${a.found[i]}@${a.found[i + 1]}`);
      const lower = text.replace(/[A-Z]/g, (c) => c.toLowerCase());
      let all = 0;
      keywords.forEach((k, id) => {
        for (let at = lower.indexOf(k); at !== -1; at = lower.indexOf(k, at + 1)) {
          all++;
          const end = at + k.length;
          const filter = filters[id];
          const exact =
            filter === FILTER_ASSIGNMENT
              ? assignmentFollows(text, end)
              : filter === FILTER_DIGIT_VALUE
                ? digitValueAssigned(text, end)
                : end < text.length && isTokenChar(text.charCodeAt(end));
          if (exact) expect(reported.has(`${id}@${at}`), `${k} at ${at}`).toBe(true);
        }
      });
      expect(reported.size).toBeLessThan(all / 2);
    }
  });

  it("a keyword with a control character is still found, and control characters still located, without the WebAssembly loop", () => {
    const automaton = new KeywordAutomaton(["line\rkey", "token"]);
    const text = `${"x".repeat(5000)}line\rkey token \x1b[0m`;
    const r = scanAll(automaton, text, 600);
    expect((automaton as unknown as { wasm: unknown }).wasm).toBeNull();
    expect(r.found).toEqual([0, 5000, 1, 5009]);
    expect([r.first, r.last]).toEqual([5004, 5015]);
    expect(automaton.contains("a line\rkey")).toBe(true);
    expect(automaton.contains("a line\r\x1bkey")).toBe(false);
  });
});
