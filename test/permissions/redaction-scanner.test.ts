// The secret scanner (redaction.ts) case by case: configured literals (length, case, non-ASCII),
// how far back a `[\w.-]{0,50}?keyword` rule's match may begin, rules run in windows around
// several keywords, where a generic match's secret lies in its match, private key blocks cut at
// MAX_KEY_BLOCK or at the text's end, merged spans and their kinds, control characters found in
// the same pass over several steps, what `from` leaves out, the hold a stream needs, the scanner
// cache and the names and values taken from the environment.
import { describe, expect, it } from "vitest";
import { CONFIGURED_KIND, describeRedactions, looksSecretName, MAX_KEY_BLOCK, scannerFor, SecretScanner, secretEnvValues } from "../../app/main/permissions/redaction.ts";
import { secretRules } from "../../app/main/permissions/secret-rules.ts";

const GENERIC_VALUE = "Zq8Wv3Rt6Yp1Lk";
const scanner = () => new SecretScanner();

function streamed(s: SecretScanner, text: string, cuts: number[]): string {
  const stream = s.stream();
  let out = "";
  let at = 0;
  for (const cut of [...cuts, text.length]) {
    out += stream.push(text.slice(at, cut));
    at = cut;
  }
  return out + stream.end();
}

describe("configured literals", () => {
  it("are redacted from 8 characters on, in their own case only, each once however often configured", () => {
    const s = new SecretScanner({ literals: ["seven77", "eight888", "Mixed-Case-Key", "Mixed-Case-Key"] });
    expect(s.redact("seven77 eight888 x").text).toBe(`seven77 [REDACTED: ${CONFIGURED_KIND}] x`);
    expect(s.redact("MIXED-CASE-KEY mixed-case-key").text).toBe("MIXED-CASE-KEY mixed-case-key");
    const r = s.redact("use Mixed-Case-Key here");
    expect(r).toEqual({ text: `use [REDACTED: ${CONFIGURED_KIND}] here`, found: { [CONFIGURED_KIND]: 1 } });
    // Each configured once in the automaton.
    const { keywords } = (s as unknown as { automaton: { keywords: string[] } }).automaton;
    expect(new Set(keywords).size).toBe(keywords.length);
    expect(keywords.filter((k) => k === "mixed-case-key")).toHaveLength(1);
  });

  it("outside ASCII are found too, every occurrence, with or without ASCII characters in them", () => {
    const s = new SecretScanner({ literals: ["секретныйключ", "pässwörd-geheim"] });
    const r = s.redact("a секретныйключ b секретныйключсекретныйключ c pässwörd-geheim");
    expect(r.text).toBe(`a [REDACTED: ${CONFIGURED_KIND}] b [REDACTED: ${CONFIGURED_KIND}][REDACTED: ${CONFIGURED_KIND}] c [REDACTED: ${CONFIGURED_KIND}]`);
    expect(r.found[CONFIGURED_KIND]).toBe(4);
    expect(s.find("секретныйключсекретныйключ")).toEqual([
      { start: 0, end: 13, kind: CONFIGURED_KIND },
      { start: 13, end: 26, kind: CONFIGURED_KIND },
    ]);
  });

  it("back to back stay two secrets; overlapping ones become one", () => {
    const s = new SecretScanner({ literals: ["AAAAAAAA", "BBBBBBBB"] });
    expect(s.find("AAAAAAAABBBBBBBB")).toEqual([
      { start: 0, end: 8, kind: CONFIGURED_KIND },
      { start: 8, end: 16, kind: CONFIGURED_KIND },
    ]);
    const overlapping = new SecretScanner({ literals: ["AAAAAAAA", "AAAABBBBBB"] });
    expect(overlapping.find("xAAAAAAAABBBBBBy")).toEqual([{ start: 1, end: 15, kind: CONFIGURED_KIND }]);
    // One inside another: the outer one.
    const inside = new SecretScanner({ literals: ["AAAAAAAAAAAA", "AAAABBBB"] });
    expect(inside.find("AAAAAAAAAAAA")).toEqual([{ start: 0, end: 12, kind: CONFIGURED_KIND }]);
  });

  it("a stream holds back enough for the longest of them, split anywhere", () => {
    const literal = Array.from({ length: 2500 }, (_, i) => "abcdefghij"[i % 10]).join("");
    const s = new SecretScanner({ literals: [literal] });
    const text = `before ${literal} after`;
    for (const cut of [1, 100, 1000, 1900, 2400, 2506]) expect(streamed(s, text, [cut])).toBe(`before [REDACTED: ${CONFIGURED_KIND}] after`);
  });
});

describe("the hold", () => {
  it("covers a rule's reach around its keyword, the window's widening, the longest keyword and a margin", () => {
    const reach = Math.max(...secretRules().rules.map((r) => r.before + r.after));
    expect(reach).toBe(160 + 1024);
    const longest = "k".repeat(300);
    expect(new SecretScanner({ literals: [longest] }).hold).toBe(reach + 64 + 256 + 300 + 200);
    expect(new SecretScanner({ literals: [`${longest}xx`] }).hold).toBe(reach + 64 + 256 + 302 + 200);
    // At least 16 for the keyword, whatever the rule set's keywords.
    const ruleKeywords = Math.max(...secretRules().rules.flatMap((r) => r.keywords.map((k) => k.length)));
    expect(scanner().hold).toBe(reach + 64 + 256 + Math.max(16, ruleKeywords, "-----begin".length) + 200);
  });
});

describe("rules that may begin before their keyword", () => {
  it("begin up to 50 word characters before it, not 51", () => {
    const s = scanner();
    for (const n of [0, 1, 49, 50]) {
      const text = `${"a".repeat(n)}api_key = "${GENERIC_VALUE}"`;
      expect(s.redact(text).text, `${n}`).toBe(`${"a".repeat(n)}api_key = "[REDACTED: secret]"`);
    }
    // 51 or more word characters before: gitleaks' expression cannot begin there; the scanner
    // tries it 50 back, where it finds the keyword's match all the same when the keyword is 50
    // characters on.
    const far = `${"a".repeat(60)}api_key = "${GENERIC_VALUE}"`;
    expect(s.redact(far).text).toBe(`${"a".repeat(60)}api_key = "[REDACTED: secret]"`);
  });

  it("a non-generic assignment rule is found after its keyword's assignment, and not without one", () => {
    const s = scanner();
    const key = "0123456789abcdef0123456789abcdef";
    expect(s.redact(`ADAFRUIT_IO_KEY = "${key}"`).text).toBe('ADAFRUIT_IO_KEY = "[REDACTED: adafruit api key]"');
    expect(s.redact(`adafruit ${key}`).text).toBe(`adafruit ${key}`);
  });

  it("locate the secret by its group: the value, not the name", () => {
    const s = scanner();
    expect(s.find(`x api_key = "${GENERIC_VALUE}" y`)).toEqual([{ start: 13, end: 13 + GENERIC_VALUE.length, kind: "secret" }]);
    // A rule without groups: the whole match.
    const token = `ghp_${"Zq8Wv3Rt6Yp1".repeat(3)}`;
    expect(s.find(`t ${token} u`)).toEqual([{ start: 2, end: 2 + token.length, kind: "GitHub token" }]);
  });

  it("the same rule, tried again for a later keyword of the same run, finds each secret once", () => {
    const s = scanner();
    const text = `db_password_secret_token = "${GENERIC_VALUE}"\nother_api_key = "9f2c71e0b4d85a33"`;
    expect(s.redact(text).text).toBe('db_password_secret_token = "[REDACTED: secret]"\nother_api_key = "[REDACTED: secret]"');
  });

  it("still finds a secret after two billion scans (the try marks start again)", () => {
    const s = scanner();
    const text = `${"x".repeat(200)} api_key = "${GENERIC_VALUE}"`;
    expect(s.find(text)).toHaveLength(1);
    // The scan counter wraps: marks of the very first scan must not be taken for this one's.
    (s as unknown as { scans: number }).scans = 0x7ffffffe;
    expect(s.redact(`api_key = "${GENERIC_VALUE}"`).text).toBe('api_key = "[REDACTED: secret]"');
    expect(s.redact(`api_key = "${GENERIC_VALUE}"`).text).toBe('api_key = "[REDACTED: secret]"');
  });
});

describe("what keeps a match from being a secret", () => {
  it("an allowlist of the whole match, which begins before the keyword: a primary key's name", () => {
    const s = scanner();
    // The generic rule's match allowlist names `primary_key`; its match begins at "primary".
    expect(s.redact(`primary_key = "${GENERIC_VALUE}"`).text).toBe(`primary_key = "${GENERIC_VALUE}"`);
    const far = `const x = 1; this.db.table.primary_key = "${GENERIC_VALUE}"`;
    expect(s.redact(far).text).toBe(far);
    expect(s.redact(`key = "${GENERIC_VALUE}"`).text).toBe('key = "[REDACTED: secret]"');
  });

  it("too little entropy", () => {
    expect(scanner().redact('password = "aaaaaaaaaaa1"').text).toBe('password = "aaaaaaaaaaa1"');
  });

  it("nothing configured: no text is a configured secret", () => {
    // "Stryker was here" is the mutation tool's stand-in for a string: no scanner without
    // literals may take any text for a configured one.
    const s = scanner();
    expect(s.redact("Stryker was here, and more ordinary words").text).toBe("Stryker was here, and more ordinary words");
    expect(s.ruleCount).toBe(secretRules().rules.length);
  });
});

describe("secrets that overlap", () => {
  it("keep the kind of the first unless it is the generic one", () => {
    const token = `ghp_${"Zq8Wv3Rt6Yp1".repeat(3)}`;
    const s = new SecretScanner({ literals: [token.slice(20)] });
    expect(s.find(`x ${token} y`)).toEqual([{ start: 2, end: 42, kind: "GitHub token" }]);
    const first = new SecretScanner({ literals: [`x ${token.slice(0, 20)}`] });
    expect(first.find(`x ${token} y`)).toEqual([{ start: 0, end: 42, kind: CONFIGURED_KIND }]);
  });
});

describe("rules run in windows around their keywords", () => {
  let seed = 99;
  const random = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  const pick = (n: number) => Array.from({ length: n }, () => ALNUM[Math.floor(random() * ALNUM.length)]).join("");
  const key = (_c: string) => `sk-proj-${pick(74)}T3BlbkFJ${pick(74)}`;
  it("find every secret, near each other or far apart", () => {
    const s = scanner();
    const a = key("a1B2");
    for (const gap of [" ", "\n".repeat(3), " filler ".repeat(200)]) {
      const text = `one ${key("a")} two${gap}${key("b")} three`;
      expect(s.redact(text).text, JSON.stringify(gap.slice(0, 10))).toBe(`one [REDACTED: OpenAI key] two${gap}[REDACTED: OpenAI key] three`);
    }
    expect(s.redact(`k=${a.slice(0, 150)}`).text).toBe(`k=${a.slice(0, 150)}`);
  });
});

describe("a rule whose expression does not hold its keyword", () => {
  // airtable-personnal-access-token: `\b(pat[a-zA-Z0-9]{14}\.[a-f0-9]{64})\b`, keyword "airtable".
  const token = `patQ7xKm2Lp9Rv4Tz.${"0123456789abcdef".repeat(4)}`;
  it("finds a secret near its keyword only, whatever was scanned before", () => {
    const s = scanner();
    expect(s.redact(`airtable: ${token}`).text).toBe("airtable: [REDACTED: airtable personnal access token]");
    // A scan whose only hit was the keyword, then text with no keyword: nothing found there.
    expect(s.find("airtable")).toEqual([]);
    expect(s.redact(`value ${token}`).text).toBe(`value ${token}`);
  });
});

describe("a rule tried at a keyword followed by a blank", () => {
  it("finds credentials in a curl command (the keyword is not followed by a token character)", () => {
    const s = scanner();
    expect(s.redact("curl -u admin:Zq8Wv3Rt6Yp1 https://example.test").text).toBe("curl -u [REDACTED: credential in a curl command] https://example.test");
  });
});

describe("a window around a keyword", () => {
  const uuid = "0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d";
  it("a Teams webhook is redacted whole, not only its repeated group (a secret that leaked)", () => {
    const s = scanner();
    const url = `https://contoso.webhook.office.com/webhookb2/${uuid}@${uuid}/IncomingWebhook/${"0123456789abcdef".repeat(2)}/${uuid}`;
    expect(s.redact(`hook: ${url} ok`).text).toBe("hook: [REDACTED: microsoft teams webhook] ok");
  });

  it("a base64 web token is redacted whole, not only its named header group (a secret that leaked)", () => {
    const s = scanner();
    const token = `ZXlKaGJHY2lPaUpJVXpJMU5pSXNJblI1Y0NJNklrcFhWQ0o5${"Lk1BZ0NaUTd4S20yTHA5UnY0VHoxcVc4ZVIz".repeat(2)}`;
    expect(s.redact(`jwt ${token} end`).text).toBe("jwt [REDACTED: JSON web token] end");
  });

  it("reaches back to the start of a long word: a Teams webhook with a long host name", () => {
    const s = scanner();
    const url = `https://${"q".repeat(200)}.webhook.office.com/webhookb2/${uuid}@${uuid}/IncomingWebhook/${"0123456789abcdef".repeat(2)}/${uuid}`;
    expect(s.redact(`hook: ${url} ok`).text).toBe("hook: [REDACTED: microsoft teams webhook] ok");
  });

  it("reaches on to the end of a word that begins inside it: a token near the window's end", () => {
    const s = scanner();
    const token = "123456789012345|Zq8Wv3Rt6Yp1LkXc7Nb4Mj2Hg5Fd9S";
    for (const gap of [100, 380, 395]) {
      const text = `facebook ${"x ".repeat(gap / 2)}${token} end`;
      expect(s.redact(text).text, `${gap}`).toBe(`facebook ${"x ".repeat(gap / 2)}[REDACTED: facebook access token] end`);
    }
  });
});

describe("the text a window rule's expression sees", () => {
  /** The windows `find` runs the expression of rule `id` over (its exec spied on). */
  function windowsOf(id: string, text: string): string[] {
    const rule = secretRules().rules.find((r) => r.id === id)!;
    expect(rule.keywordStart ?? rule.keywordPrefix).toBeUndefined();
    const re = rule.regex;
    const seen = new Set<string>();
    const exec = re.exec;
    re.exec = function (this: RegExp, s: string) {
      seen.add(s);
      return exec.call(this, s);
    };
    try {
      scanner().find(text);
    } finally {
      re.exec = exec;
    }
    return [...seen];
  }
  // airtable-personnal-access-token: keyword "airtable", 160 characters before it, 400 after.
  const ID = "airtable-personnal-access-token";
  const KEYWORD = "airtable";

  it("is the rule's reach around its keyword, widened to a blank by at most 64 characters back and 256 on", () => {
    const rule = secretRules().rules.find((r) => r.id === ID)!;
    expect([rule.before, rule.after]).toEqual([160, 400]);
    // No blank anywhere: widened by the bounds exactly.
    const at = 1000;
    const solid = `${"y".repeat(at)}${KEYWORD}${"y".repeat(2000)}`;
    expect(windowsOf(ID, solid)).toEqual([solid.slice(at - 160 - 64, at + KEYWORD.length + 400 + 256)]);
    // Blanks within reach: widened to them (not past them, not short of them).
    const blanks = `${"y".repeat(500)} word ${"y".repeat(189)}${KEYWORD}${"y".repeat(420)} tail ${"y".repeat(600)}`;
    const k = blanks.indexOf(KEYWORD);
    const [ws, we] = [blanks.lastIndexOf(" ", k - 160) + 1, blanks.indexOf(" ", k)];
    expect([k - 160 - ws, we - (k + KEYWORD.length + 400)]).toEqual([29, 20]);
    expect(windowsOf(ID, blanks)).toEqual([blanks.slice(ws, we)]);
    // Near the text's ends: up to them.
    const short = `yy${KEYWORD}yy`;
    expect(windowsOf(ID, short)).toEqual([short]);
    const tail = `${"y".repeat(300)}${KEYWORD}${"y".repeat(300)} x`;
    expect(windowsOf(ID, tail)).toEqual([tail.slice(300 - 160 - 64)]);
  });
});

describe("private key blocks", () => {
  const body = (lines: number) => Array.from({ length: lines }, (_, i) => `${"TUlJQ".repeat(12)}${i % 10}abc`).join("\n");

  it("end at their end line; the line break after a body cut short is not part of the key", () => {
    const s = scanner();
    expect(s.redact(`a\n-----BEGIN PRIVATE KEY-----\n${body(3)}\n-----END PRIVATE KEY-----\nb`).text).toBe("a\n[REDACTED: private key]\nb");
    // No end line: the key ends with its body, before the line break (LF or CRLF).
    expect(s.redact(`-----BEGIN PRIVATE KEY-----\n${body(2)}\n$ ls`).text).toBe("[REDACTED: private key]\n$ ls");
    expect(s.redact(`-----BEGIN PRIVATE KEY-----\r\n${body(2).replace(/\n/g, "\r\n")}\r\n$ ls`).text).toBe("[REDACTED: private key]\r\n$ ls");
    // A header alone, followed by other text on its line.
    expect(s.redact("-----BEGIN PRIVATE KEY----- and so on").text).toBe("[REDACTED: private key] and so on");
    // Not a header: no key.
    expect(s.redact("-----BEGIN PUBLIC KEY-----\nabc\n").text).toBe("-----BEGIN PUBLIC KEY-----\nabc\n");
  });

  it("without an end line end at their body's last character, however long the text after them", () => {
    const s = scanner();
    expect(s.redact(`-----BEGIN PRIVATE KEY-----\n${body(2)}! more`).text).toBe("[REDACTED: private key]! more");
    const after = `\n${"$ other output line\n".repeat(5000)}`;
    expect(after.length).toBeGreaterThan(MAX_KEY_BLOCK);
    const spans = s.find(`-----BEGIN PRIVATE KEY-----\n${body(2)}${after}`);
    expect(spans).toEqual([{ start: 0, end: 28 + body(2).length, kind: "private key" }]);
  });

  it("without an end line, leave the first word of the next line when a blank follows it on its line", () => {
    const s = scanner();
    // A body whose last line is whole, then other output: its first word is no part of the key.
    expect(s.redact(`-----BEGIN PRIVATE KEY-----\n${body(2)}\nother output line`).text).toBe("[REDACTED: private key]\nother output line");
    expect(s.redact(`-----BEGIN PRIVATE KEY-----\r\n${body(2)}\r\nDone in 3s`).text).toBe("[REDACTED: private key]\r\nDone in 3s");
    // A word as long as a key's line (16 characters or more), or one at the text's end, still is.
    expect(s.redact(`-----BEGIN PRIVATE KEY-----\n${body(2)}\nABCDEFGHIJKLMNOP more`).text).toBe("[REDACTED: private key] more");
    expect(s.redact(`-----BEGIN PRIVATE KEY-----\n${body(2)}\nABCDEFGHIJKLMNO more`).text).toBe("[REDACTED: private key]\nABCDEFGHIJKLMNO more");
    expect(s.find(`-----BEGIN PRIVATE KEY-----\n${body(2)}\nabc`)).toEqual([{ start: 0, end: 28 + body(2).length + 4, kind: "private key", open: true }]);
    // A short last line followed by anything but a blank stays part of the key, as does base64
    // right after the header (no line of its own to tell it from).
    expect(s.redact(`-----BEGIN PRIVATE KEY-----\n${body(2)}\nabc! more`).text).toBe("[REDACTED: private key]! more");
    expect(s.redact("-----BEGIN PRIVATE KEY-----MIIEabc more").text).toBe("[REDACTED: private key] more");
    // A first line after a blank on the header's line, then more lines: all of them.
    expect(s.redact(`-----BEGIN PRIVATE KEY----- ${body(3)}\n! done`).text).toBe("[REDACTED: private key]\n! done");
  });

  it("whose line breaks became blanks (echo $KEY) are redacted whole, to their end line", () => {
    const s = scanner();
    const lines = body(4).split("\n");
    for (const blank of [" ", "\t", "  "]) {
      const joined = `-----BEGIN RSA PRIVATE KEY-----${blank}${lines.join(blank)}${blank}Zw==${blank}-----END RSA PRIVATE KEY-----`;
      expect(s.redact(`key: ${joined} done`).text, JSON.stringify(blank)).toBe("key: [REDACTED: private key] done");
    }
    // Without an end line: its words as long as a key's lines; to the text's end (open) when they reach it.
    expect(s.redact(`-----BEGIN PRIVATE KEY----- ${lines.join(" ")} and more.`).text).toBe("[REDACTED: private key] and more.");
    const open = `x -----BEGIN PRIVATE KEY----- ${lines.join(" ")} Zw`;
    expect(s.find(open)).toEqual([{ start: 2, end: open.length, kind: "private key", open: true }]);
    // Short words after a header are no key's lines: the header alone.
    expect(s.redact("-----BEGIN PRIVATE KEY----- is how a key begins").text).toBe("[REDACTED: private key] is how a key begins");
    // Streamed in pieces, cut anywhere: the same text.
    const streamedKey = `out: -----BEGIN RSA PRIVATE KEY----- ${lines.join(" ")} Zw== -----END RSA PRIVATE KEY----- done\nnext`;
    for (const cuts of [[10], [40], [45, 90], [100, 101, 200], [streamedKey.length - 40]])
      expect(streamed(s, streamedKey, cuts), JSON.stringify(cuts)).toBe("out: [REDACTED: private key] done\nnext");
    const streamedOpen = `out: -----BEGIN RSA PRIVATE KEY----- ${lines.join(" ")} Zw`;
    for (const cuts of [[40], [100, 200]]) expect(streamed(s, streamedOpen, cuts), JSON.stringify(cuts)).toBe("out: [REDACTED: private key]");
    // Cut at MAX_KEY_BLOCK.
    const long = `-----BEGIN PRIVATE KEY----- ${`${lines[0]} `.repeat(1200)}-----END PRIVATE KEY----- after`;
    expect(s.find(long)[0]).toEqual({ start: 0, end: MAX_KEY_BLOCK, kind: "private key", truncated: true });
  });

  it("reaching the end of the text are open; one longer than MAX_KEY_BLOCK is closed there, truncated", () => {
    const s = scanner();
    const open = s.find(`x -----BEGIN PRIVATE KEY-----\n${body(2)}`);
    expect(open).toEqual([{ start: 2, end: 2 + 28 + body(2).length, kind: "private key", open: true }]);
    const long = `-----BEGIN PRIVATE KEY-----\n${body(1200)}\n-----END PRIVATE KEY-----\nafter`;
    expect(long.length).toBeGreaterThan(MAX_KEY_BLOCK);
    const spans = s.find(`y ${long}`);
    expect(spans[0]).toEqual({ start: 2, end: 2 + MAX_KEY_BLOCK, kind: "private key", truncated: true });
    // A block that ends exactly at MAX_KEY_BLOCK with the text: open, not truncated.
    const exact = `-----BEGIN PRIVATE KEY-----\n${"A".repeat(MAX_KEY_BLOCK - 28)}`;
    expect(s.find(exact)).toEqual([{ start: 0, end: MAX_KEY_BLOCK, kind: "private key", open: true }]);
    // One just below the bound, with its end line past it: closed at the bound, truncated.
    const over = `${exact}A\n-----END PRIVATE KEY-----`;
    expect(s.find(over)).toEqual([{ start: 0, end: MAX_KEY_BLOCK, kind: "private key", truncated: true }]);
  });

  it("overlapping another secret take its place and keep its flags", () => {
    const s = new SecretScanner({ literals: ["-----BEGIN PRIVATE KEY-----\nTUlJQ"] });
    const spans = s.find(`-----BEGIN PRIVATE KEY-----\n${body(2)}`);
    expect(spans).toHaveLength(1);
    expect(spans[0]!.open).toBe(true);
    const spansLong = s.find(`-----BEGIN PRIVATE KEY-----\n${body(1200)}`);
    expect(spansLong[0]!.truncated).toBe(true);
  });
});

describe("generic matches", () => {
  it("overlapping a specific secret merge into it under the specific kind", () => {
    const s = scanner();
    const token = `ghp_${"Zq8Wv3Rt6Yp1".repeat(3)}`;
    const text = `api_key = "${token}"`;
    expect(s.redact(text)).toEqual({ text: 'api_key = "[REDACTED: GitHub token]"', found: { "GitHub token": 1 } });
    // A generic secret that reaches past the specific one: one span, the specific name.
    const longer = `auth_token = "${token}.x9"`;
    const found = s.find(longer);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ start: 14, end: longer.length - 1, kind: "GitHub token" });
  });
});

describe("what find reports", () => {
  it("only secrets that end after `from`", () => {
    const s = new SecretScanner({ literals: ["literal-one-x", "literal-two-y"] });
    const text = "literal-one-x literal-two-y";
    expect(s.find(text, 0)).toHaveLength(2);
    expect(s.find(text, 12)).toHaveLength(2);
    expect(s.find(text, 13)).toEqual([{ start: 14, end: 27, kind: CONFIGURED_KIND }]);
    expect(s.find(text, 27)).toEqual([]);
  });

  it("where the first and last control characters are, over every step of a long scan", () => {
    const s = new SecretScanner({ literals: ["abcdefgh"] });
    const controls = { first: 5, last: 7 };
    expect(s.find("plain text", 0, controls)).toEqual([]);
    expect(controls).toEqual({ first: -1, last: -1 });
    // Thousands of hits: the scan takes several steps (its hit buffer fills).
    const many = "abcdefgh ".repeat(10_000);
    s.find(`\x01${many}`, 0, controls);
    expect(controls).toEqual({ first: 0, last: 0 });
    s.find(`\x01${many}\x02`, 0, controls);
    expect(controls).toEqual({ first: 0, last: many.length + 1 });
    s.find(`${many}\x02${many}\x03`, 0, controls);
    expect(controls).toEqual({ first: many.length, last: 2 * many.length + 1 });
    expect(s.find(`${many}`)).toHaveLength(10_000);
  });
});

describe("redaction notes", () => {
  it("count each kind, in the singular for one", () => {
    expect(describeRedactions({ "GitHub token": 1, secret: 3 })).toBe("1 GitHub token, 3 secrets");
    expect(describeRedactions({})).toBe("");
  });
});

describe("scannerFor", () => {
  it("reuses a scanner for the same literals in any order, and builds new ones for others", () => {
    const a = scannerFor(["first-literal-1", "second-literal-2"]);
    expect(scannerFor(["second-literal-2", "first-literal-1", "first-literal-1"])).toBe(a);
    const b = scannerFor(["first-literal-1"]);
    expect(b).not.toBe(a);
    expect(b.redact("first-literal-1 second-literal-2").text).toBe(`[REDACTED: ${CONFIGURED_KIND}] second-literal-2`);
    // Two literals are not one joined literal.
    expect(scannerFor(["ab", "cdefghijkl"])).not.toBe(scannerFor(["abcdefghijkl"]));
  });

  it("keeps up to nine sets, then starts again", () => {
    // Add sets until the cache empties (a probe set then comes back as a new scanner)...
    const probe = ["probe-literal-1"];
    let cached = scannerFor(probe);
    let added = 0;
    for (; added < 12; added++) {
      scannerFor([`filler-literal-${added}`]);
      const now = scannerFor(probe);
      if (now !== cached) {
        cached = now;
        break;
      }
    }
    expect(added).toBeLessThan(12);
    // ...then it holds the last filler and the probe: seven more sets keep the probe.
    const more = Array.from({ length: 7 }, (_, i) => scannerFor([`more-literal-${i}`]));
    expect(scannerFor(probe)).toBe(cached);
    for (const [i, k] of more.entries()) expect(scannerFor([`more-literal-${i}`])).toBe(k);
    // A tenth set empties it: the probe is built again (and still works).
    scannerFor(["tenth-literal"]);
    const again = scannerFor(probe);
    expect(again).not.toBe(cached);
    expect(again.redact("a probe-literal-1").text).toBe(`a [REDACTED: ${CONFIGURED_KIND}]`);
  });
});

describe("environment names and values", () => {
  it("takes names with a secret word as a part or at their end, not paths, files, sockets or ids", () => {
    for (const name of ["API_KEY", "github_token", "MY_SECRETS", "DB_PASS", "AUTH", "x-session-cookie", "SENTRY_DSN", "GH_PAT", "APIKEY", "MYTOKEN", "STRIPEKEY", "NPMPASSWORD"])
      expect(looksSecretName(name), name).toBe(true);
    for (const name of ["TOKEN_PATH", "KEY_FILE", "SECRET_DIR", "AUTH_SOCK", "SESSION_ID", "KEYBOARD", "TOKENIZER", "HOME", "PATH", "PASSAGE", "KEYTIMEOUT", "SSH_AUTH_SOCK"])
      expect(looksSecretName(name), name).toBe(false);
    // The exclusions apply at the end of the name only.
    expect(looksSecretName("API_ID_TOKEN")).toBe(true);
    expect(looksSecretName("SECRET_PATH_KEY")).toBe(true);
  });

  it("takes values of 8 characters or more that are not flags, paths or numbers", () => {
    const values = secretEnvValues({
      A_TOKEN: "1234567",
      B_TOKEN: "12345678x",
      C_TOKEN: "trueness-value",
      D_TOKEN: "TRUE",
      E_TOKEN: "~/secrets/file",
      F_TOKEN: "C:\\Users\\me",
      G_TOKEN: "12345678",
      H_TOKEN: "value/with/slash",
      I_TOKEN: "abc12345",
      J_TOKEN: "noneoftheabove",
      K_TOKEN: "/usr/local/x",
      L_TOKEN: undefined,
      M_TOKEN: "123456789a",
      HOME: "not-a-secret-name",
    });
    expect(values).toEqual(["12345678x", "trueness-value", "value/with/slash", "abc12345", "noneoftheabove", "123456789a"]);
    expect(secretEnvValues({ X_TOKEN: "yes" })).toEqual([]);
    expect(secretEnvValues({ X_TOKEN: "no-but-long" })).toEqual(["no-but-long"]);
    expect(secretEnvValues({ X_TOKEN: "value-is-true", Y_TOKEN: "C:/not/a/path" })).toEqual(["value-is-true", "C:/not/a/path"]);
  });
});
