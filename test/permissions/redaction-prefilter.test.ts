// The keyword loop's prefilter edges (keyword-grams.ts, keyword-scan-wasm.ts) and the generic
// rule's late check (redaction.ts): third-byte classes that let ordinary words through the first
// test without stopping it; restarts only as far back as a keyword may hold the gram's trigram,
// with keywords that hold another's gram before their own, cut by a WebAssembly call's end at
// every point and in any case; the generic rule's matches inside a secret found already, in
// whole text and in a stream cut at every point.
import { describe, expect, it, vi } from "vitest";
import { KeywordAutomaton } from "../../app/main/permissions/keyword-automaton.ts";
import { gramTables, GRAM_OFFSET_LIMIT, trigramHash } from "../../app/main/permissions/keyword-grams.ts";
import { WASM_INPUT_CHARS } from "../../app/main/permissions/keyword-scan-wasm.ts";
import { SecretScanner } from "../../app/main/permissions/redaction.ts";

let seed = 4242;
const random = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
const pick = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

function hitsOf(automaton: KeywordAutomaton, text: string): string[] {
  const hits = new Int32Array(4096);
  const found: string[] = [];
  for (let from = 0, state = 0; from < text.length;) {
    const r = automaton.scan(text, from, text.length, hits, state);
    for (let h = 0; h < r.count; h += 2) found.push(`${automaton.keywords[hits[h]!]}@${hits[h + 1]}`);
    from = r.next;
    state = r.state;
  }
  return found.sort();
}

function javascriptLoop(keywords: string[]): KeywordAutomaton {
  const automaton = new KeywordAutomaton(keywords);
  (automaton as unknown as { wasm: null }).wasm = null;
  return automaton;
}

const cases = (word: string) => [word, word.toUpperCase(), [...word].map((c, i) => (i % 2 ? c.toUpperCase() : c)).join("")];

describe("the first test's third-byte classes", () => {
  it("let ordinary words through without stopping, and stop at every keyword of the rule set in any case", () => {
    const scanner = new SecretScanner({ literals: ["a-configured-KEY-value-42"] });
    const { keywords, filters } = (scanner as unknown as { automaton: KeywordAutomaton }).automaton;
    const { buckets, thirds } = gramTables(keywords, filters);
    const stops = (text: string) => {
      const bytes = Buffer.from(`${text}AAAA`, "latin1");
      const at: number[] = [];
      for (let i = 0; i < text.length; i++) if ((buckets[bytes[i]! | (bytes[i + 1]! << 8)]! & thirds[bytes[i + 2]!]!) !== 0) at.push(i);
      return at;
    };
    // With the third byte's low three bits for its class, "ssi", "the " and "com" stopped the loop
    // ("ss_" of shpss_, "thu" of github_pat_, "co-" of ico-).
    for (const word of ["session", "in the parser", "commit", "module"]) for (const text of cases(word)) expect(stops(` ${text} `), text).toEqual([]);
    // The classes follow case: a keyword in upper or mixed case stops the loop where it does in lower case.
    for (const keyword of keywords) {
      if (keyword.length < 3) continue;
      const [lower, ...others] = cases(keyword).map((k) => stops(` ${k} `));
      expect(lower!.length, keyword).toBeGreaterThan(0);
      for (const other of others) expect(other, keyword).toEqual(lower);
    }
  });
});

describe("restarting the automaton before a gram", () => {
  // "key" is its own gram (offset 0); "ekeyqz" holds "key" at offset 1 and has its gram, "yqz", at 3.
  const keywords = ["key", "ekeyqz", "token", "s."];

  it("goes back as far as a keyword holds the gram's trigram before its own gram", () => {
    const { offsets } = gramTables(keywords);
    const offsetOf = (t: string) => offsets[trigramHash(t.charCodeAt(0) | (t.charCodeAt(1) << 8) | (t.charCodeAt(2) << 16))]!;
    expect(offsetOf("yqz")).toBe(3);
    expect(offsetOf("key")).toBe(1);
    expect(offsetOf("oke")).toBe(1);
    expect(Math.max(...offsets)).toBeLessThanOrEqual(GRAM_OFFSET_LIMIT);
  });

  it("finds a keyword that holds another's gram before its own, in any case, wherever a call's end cuts it", () => {
    for (const word of ["ekeyqz", "token"]) {
      for (const keyword of cases(word)) {
        for (let cut = 0; cut <= keyword.length; cut++) {
          for (const filler of ["e", "a b\n", "ke"]) {
            const before = filler.repeat(WASM_INPUT_CHARS).slice(0, WASM_INPUT_CHARS - cut);
            const text = `${before}${keyword}${filler.repeat(20)}`;
            const found = hitsOf(new KeywordAutomaton(keywords), text);
            expect(found, `${keyword} cut after ${cut}, filler ${JSON.stringify(filler)}`).toEqual(hitsOf(javascriptLoop(keywords), text));
            expect(found).toContain(`${word}@${before.length}`);
          }
        }
      }
    }
  });

  it("finds keywords at the very start and end of the text, and back to back", () => {
    for (const text of ["ekeyqz", "EKEYQZ", "keyekeyqz", "ekeyqzkey", "tokenekeyqztoken", "s.ekeyqzs.", "eKeYqZ tOkEn"]) {
      expect(hitsOf(new KeywordAutomaton(keywords), text), text).toEqual(hitsOf(javascriptLoop(keywords), text));
    }
  });

  it("finds what the JavaScript loop finds in random text of the keywords' pieces", () => {
    const pieces = ["e", "k", "ke", "key", "KEY", "ekey", "qz", "yqz", "tok", "oken", " ", "\n", "s", ".", "x"];
    for (let n = 0; n < 200; n++) {
      let text = "";
      while (text.length < 300) text += pieces[Math.floor(random() * pieces.length)]!;
      expect(hitsOf(new KeywordAutomaton(keywords), text)).toEqual(hitsOf(javascriptLoop(keywords), text));
    }
  });
});

describe("the generic rule's matches, checked last", () => {
  const scanner = new SecretScanner();
  const token = `ghp_${pick(ALNUM, 36)}`;
  const access = `AKIA${pick("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)}`;

  it("skip their checks inside a secret found already, and still find a generic secret anywhere else", () => {
    const keep = vi.spyOn(SecretScanner.prototype as unknown as { keep: (rule: { kind: string }) => void }, "keep");
    try {
      const text = `GITHUB_TOKEN=${token}\naws_access_key_id = ${access}\n`;
      const { text: out, found } = scanner.redact(text);
      expect(out).toBe("GITHUB_TOKEN=[REDACTED: GitHub token]\naws_access_key_id = [REDACTED: AWS key]\n");
      expect(found).toEqual({ "GitHub token": 1, "AWS key": 1 });
      const generic = keep.mock.calls.filter(([rule]) => rule.kind === "secret");
      expect(generic).toEqual([]);
      keep.mockClear();
      const alone = scanner.redact(`db_password = "Zq8Wv3Rt6Yp1Lk"\n`);
      expect(alone.text).toBe('db_password = "[REDACTED: secret]"\n');
      expect(keep.mock.calls.filter(([rule]) => rule.kind === "secret").length).toBe(1);
    } finally {
      keep.mockRestore();
    }
  });

  it("redact alike in a stream cut at every point of the line, as in whole text", () => {
    const text = `build ok\nexport API_TOKEN=${token} DB_SECRET=9f2c71e0b4d85a3361fe0c7b9a2d4e18\ndone\n`;
    const whole = scanner.redact(text).text;
    expect(whole).toBe("build ok\nexport API_TOKEN=[REDACTED: GitHub token] DB_SECRET=[REDACTED: secret]\ndone\n");
    for (let cut = 1; cut < text.length; cut++) {
      const stream = scanner.stream();
      const out = stream.push(text.slice(0, cut)) + stream.push(text.slice(cut)) + stream.end();
      expect(out, `cut at ${cut}`).toBe(whole);
    }
  });
});
