// Redaction with gitleaks' rules, private key blocks, configured keys and secret-looking
// environment values: each class found in whole text, and in a stream cut at every point (the
// streamed output always equals the whole-text result, so nothing unredacted is ever emitted),
// through terminal colours, and with keys cut short; what is found equals a rule-by-rule reference
// scan. Also the vendored data's provenance.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { KeywordAutomaton } from "../../app/main/permissions/keyword-automaton.ts";
import { looksSecretName, SecretScanner, secretEnvValues } from "../../app/main/permissions/redaction.ts";
import { RULE_SOURCE, secretRules } from "../../app/main/permissions/secret-rules.ts";
import { referenceSpans } from "../../bench/support/secret-reference.ts";

let seed = 12345;
const random = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
const pick = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const LOWER_DIGITS = "abcdefghijklmnopqrstuvwxyz0123456789";

/** [kind, text holding the secret, the secret itself]. */
const samples: [string, string, string][] = (() => {
  const list: [string, string, string][] = [];
  const add = (kind: string, before: string, secret: string, after = "") => list.push([kind, `${before}${secret}${after}`, secret]);
  add("GitHub token", "token: ", `ghp_${pick(ALNUM, 36)}`);
  add("GitHub token", "GH=", `github_pat_${pick(ALNUM + "_", 82)}`);
  add("GitLab token", "", `glpat-${pick(ALNUM, 20)}`);
  add("AWS key", "aws_access_key_id = ", `AKIA${pick("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)}`);
  add("Anthropic key", "x-api-key: ", `sk-ant-api03-${pick(ALNUM, 93)}AA`);
  add("OpenAI key", "key ", `sk-proj-${pick(ALNUM, 74)}T3BlbkFJ${pick(ALNUM, 74)}`);
  add("Google API key", "", `AIza${pick(ALNUM, 35)}`);
  add("Slack token", "SLACK=", `xoxb-${pick("0123456789", 12)}-${pick("0123456789", 12)}-${pick(ALNUM, 24)}`);
  add("Stripe key", "", `sk_live_${pick(ALNUM, 24)}`);
  add("npm token", "//registry/:_authToken=", `npm_${pick(LOWER_DIGITS, 36)}`);
  add("JSON web token", "Authorization: Bearer ", `eyJ${pick(ALNUM, 30)}.eyJ${pick(ALNUM, 40)}.${pick(ALNUM, 43)}`);
  add("secret", 'db_password = "', "Zq8Wv3Rt6Yp1Lk", '"');
  add("secret", "API_TOKEN: ", "9f2c71e0b4d85a3361fe0c7b9a2d4e18");
  add("huggingface access token", "HF=", `hf_${pick("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", 34)}`);
  add("vault service token", "VAULT_TOKEN ", `s.${pick(ALNUM, 24)}`);
  const key = `-----BEGIN RSA PRIVATE KEY-----\n${Array.from({ length: 6 }, () => pick(ALNUM + "+/", 64)).join("\n")}\n-----END RSA PRIVATE KEY-----`;
  add("private key", "", key);
  const escaped = `-----BEGIN PRIVATE KEY-----\\n${pick(ALNUM, 64)}\\n${pick(ALNUM, 40)}==\\n-----END PRIVATE KEY-----\\n`;
  add("private key", '{"private_key": "', escaped, '"}');
  return list;
})();

const scanner = new SecretScanner({ literals: ["my-local-server-key-123"] });
const pieces = (secret: string) => [secret.slice(0, 12), secret.slice(-12), secret.slice(secret.length / 2 - 6, secret.length / 2 + 6)];

function streamed(text: string, cuts: number[], ansi = false): string {
  const stream = scanner.stream({ ansi });
  let out = "";
  let at = 0;
  for (const cut of [...cuts, text.length]) {
    out += stream.push(text.slice(at, cut));
    at = cut;
  }
  return out + stream.end();
}

describe("whole text", () => {
  it.each(samples)("removes a %s", (kind, text, secret) => {
    const r = scanner.redact(`before line\n${text}\nafter line`);
    expect(r.found[kind], JSON.stringify(r)).toBeGreaterThanOrEqual(1);
    expect(r.text).toContain(`[REDACTED: ${kind}]`);
    expect(r.text).toContain("before line\n");
    expect(r.text).toContain("\nafter line");
    for (const piece of pieces(secret)) expect(r.text).not.toContain(piece);
  });

  it("removes configured keys of any shape and leaves ordinary text alone", () => {
    const r = scanner.redact("curl -H 'x-api-key: my-local-server-key-123' http://localhost");
    expect(r.text).toBe("curl -H 'x-api-key: [REDACTED: configured secret]' http://localhost");
    const plain = "const skill = 'sk-short'; // AKIA is a prefix; the key to success; tokens: 12\nmonkey = banana\n";
    expect(scanner.redact(plain)).toEqual({ text: plain, found: {} });
  });

  it("a private key cut short is still removed, to the end of its body", () => {
    const cut = `key:\n-----BEGIN OPENSSH PRIVATE KEY-----\n${pick(ALNUM, 70)}\n${pick(ALNUM, 30)}`;
    const r = scanner.redact(`${cut}\n$ next command`);
    expect(r.text).toBe("key:\n[REDACTED: private key]\n$ next command");
  });
});

describe("streaming", () => {
  it.each(samples)("a %s split at every point is removed exactly as in whole text", (_kind, text, secret) => {
    const full = `Some output first\n${text}\nand more output after it\n`;
    const expected = scanner.redact(full).text;
    for (let cut = 1; cut < full.length; cut++) {
      const out = streamed(full, [cut]);
      expect(out, `cut at ${cut}`).toBe(expected);
    }
    for (let trial = 0; trial < 20; trial++) {
      const cuts = [...new Set(Array.from({ length: 6 }, () => Math.floor(random() * full.length)))].sort((a, b) => a - b);
      expect(streamed(full, cuts)).toBe(expected);
    }
    for (const piece of pieces(secret)) expect(expected).not.toContain(piece);
  });

  it("a long push, taken in pieces, redacts secrets across the pieces' ends exactly as whole text", () => {
    const secret = `ghp_${pick(ALNUM, 36)}`;
    for (const shift of [-30, -20, -5, 0, 5]) {
      let text = "";
      const piece = scanner.stream().pieceLength;
      expect(piece).toBeGreaterThan(50_000);
      for (const end of [piece, 2 * piece, 3 * piece]) text += `${"plain output line\n".repeat(10_000)}`.slice(0, end - text.length + shift) + `token: ${secret}\n`;
      text += "tail\n".repeat(100);
      const expected = scanner.redact(text).text;
      expect(expected).not.toContain(secret.slice(4, 20));
      expect(streamed(text, [])).toBe(expected);
      expect(streamed(text, [7, 70_001])).toBe(expected);
    }
  });

  it("secrets whose checks look past a keyword (the generic rule's value, a web token) straddling a piece's or a WebAssembly call's end", () => {
    const secrets = [
      `db_password = "${pick(ALNUM, 10)}9Qz"`,
      `Authorization: Bearer eyJ${pick(ALNUM, 30)}.eyJ${pick(ALNUM, 40)}.${pick(ALNUM, 43)}`,
      "API_TOKEN: 9f2c71e0b4d85a3361fe0c7b9a2d4e18",
    ];
    const filler = "const apiKey = process.env.API_KEY; // the key handling (#12)\n".repeat(4000);
    for (const secret of secrets) {
      // A push is taken in pieces of pieceLength; a WebAssembly call takes 65,536 characters.
      const piece = scanner.stream().pieceLength;
      for (const end of [piece, 65_536, 2 * piece]) {
        for (const shift of [-40, -25, -12, -8, -3, 0, 3, 9, 20]) {
          const at = end + shift;
          const text = `${filler.slice(0, at)}${secret}\n${filler.slice(0, 2000)}`;
          const expected = scanner.redact(text).text;
          expect(expected).not.toContain(secret.slice(-12));
          expect(streamed(text, [])).toBe(expected);
          expect(streamed(text, [at + 5])).toBe(expected);
        }
      }
    }
  });

  it("holds back only what could still be a secret; a pause releases up to the last blank", () => {
    const stream = scanner.stream();
    const first = stream.push("Password for deploy: ");
    expect(first).toBe("");
    expect(stream.flushIdle()).toBe("Password for deploy: ");
    const token = `ghp_${pick(ALNUM, 36)}`;
    expect(stream.push(`token ${token.slice(0, 10)}`)).toBe("");
    expect(stream.flushIdle()).toBe("token ");
    const rest = stream.push(`${token.slice(10)} done\n`) + stream.end();
    expect(rest).toBe("[REDACTED: GitHub token] done\n");
    expect(stream.found).toEqual({ "GitHub token": 1 });
  });

  it("a value whose keyword was already shown is still caught", () => {
    const stream = scanner.stream();
    let out = stream.push("export API_TOKEN=");
    out += stream.flushIdle();
    out += stream.push("9f2c71e0b4d85a3361fe0c7b9a2d4e18\n") + stream.end();
    expect(out).toBe("export API_TOKEN=[REDACTED: secret]\n");
  });

  it("matches through terminal colours in raw output", () => {
    const token = `ghp_${pick(ALNUM, 36)}`;
    const raw = `\x1b[32mok\x1b[0m ${token.slice(0, 14)}\x1b[1m${token.slice(14)}\x1b[0m\r\n`;
    for (let cut = 1; cut < raw.length; cut++) {
      const out = streamed(raw, [cut], true);
      expect(out).not.toContain(token.slice(0, 14));
      expect(out).not.toContain(token.slice(14));
      expect(out).toContain("[REDACTED: GitHub token]");
      expect(out).toContain("\x1b[32mok\x1b[0m");
    }
  });

  it("finds secrets through colours after plain output, and in plain output after colours", () => {
    // The stream looks for escapes only where the scan found control characters; U+011B's low
    // byte is an escape's, so the scan flags it, and it must not be taken for one.
    const token = `ghp_${pick(ALNUM, 36)}`;
    const plain = "build ok \u011b done\n".repeat(400);
    const raw = `${plain}\x1b[32mok\x1b[0m ${token.slice(0, 14)}\x1b[1m${token.slice(14)}\x1b[0m\n${plain}token ${token}\n${plain}`;
    for (const cuts of [[plain.length + 3], [plain.length + 20, plain.length + 40], [100, 2 * plain.length + 60], [raw.length - 30]]) {
      const out = streamed(raw, cuts, true);
      expect(out).not.toContain(token.slice(0, 14));
      expect(out).not.toContain(token.slice(14));
      expect(out.match(/\[REDACTED: GitHub token\]/g)).toHaveLength(2);
      expect(out.endsWith(plain)).toBe(true);
    }
  });

  it("a very long key block is redacted and the rest of its body swallowed", () => {
    const body = Array.from({ length: 1500 }, () => pick(ALNUM, 64)).join("\n");
    const text = `before\n-----BEGIN PRIVATE KEY-----\n${body}\n-----END PRIVATE KEY-----\nafter\n`;
    const chunks = text.match(/[\s\S]{1,4096}/g)!;
    const stream = scanner.stream();
    const out = chunks.map((c) => stream.push(c)).join("") + stream.end();
    expect(out).toBe("before\n[REDACTED: private key]\nafter\n");
  });
});

describe("environment values", () => {
  it("takes values of variables whose names look secret, not paths or flags", () => {
    expect(looksSecretName("GITHUB_TOKEN")).toBe(true);
    expect(looksSecretName("DB_PASSWORD")).toBe(true);
    expect(looksSecretName("MY_API_KEY")).toBe(true);
    expect(looksSecretName("PWD")).toBe(false);
    expect(looksSecretName("SSH_AUTH_SOCK")).toBe(false);
    expect(looksSecretName("KEY_FILE")).toBe(false);
    expect(looksSecretName("HOME")).toBe(false);
    expect(secretEnvValues({ DB_PASSWORD: "s3cr3t-value-xyz", SECRET_DIR: "/x/y/z/q", SESSION_TOKEN: "true", HOME: "/home/me/longer", TOKEN: "short" })).toEqual([
      "s3cr3t-value-xyz",
    ]);
    const s = new SecretScanner({ literals: secretEnvValues({ DB_PASSWORD: "s3cr3t-value-xyz" }) });
    expect(s.redact("connecting with s3cr3t-value-xyz").text).toBe("connecting with [REDACTED: configured secret]");
  });
});

describe("the keyword loop", () => {
  it("in WebAssembly finds exactly what the JavaScript loop finds, across calls and buffer limits", () => {
    const keywords = ["key", "token", "ey", "ghp_", "akia", "-----begin", "s."];
    const text = `The Key of the token ghp_x AKIA s.x key\u00e9y \u4e00ey -----BEGIN `.repeat(4000);
    const all = (useWasm: boolean) => {
      const automaton = new KeywordAutomaton(keywords);
      if (!useWasm) (automaton as unknown as { wasm: null }).wasm = null;
      const hits = new Int32Array(600);
      const found: number[] = [];
      for (let from = 0, state = 0; from < text.length;) {
        const r = automaton.scan(text, from, text.length, hits, state);
        from = r.next;
        state = r.state;
        found.push(...hits.subarray(0, r.count));
      }
      return { found, wasm: (automaton as unknown as { wasm: unknown }).wasm };
    };
    const wasm = all(true);
    const js = all(false);
    expect(wasm.wasm, "WebAssembly is available here").toBeTruthy();
    expect(wasm.found.length).toBe(4000 * 10 * 2);
    expect(wasm.found).toEqual(js.found);
  });
});

describe("against the rule-by-rule reference scan", () => {
  it("finds exactly the secrets that every rule's expression finds over the whole text", () => {
    const filler = [
      "const apiKey = process.env.API_KEY; // read the key from the environment, never log it",
      '{"id": 7, "token_count": 812, "api_version": "v2", "auth": "none"}',
      "Author: Dev Person <dev@example.com>",
      "    Fix the key handling in the parser (#812)",
      `commit ${pick("0123456789abcdef", 40)}`,
      pick(ALNUM + "+/", 76),
      "diff --git a/src/auth/session.ts b/src/auth/session.ts",
      "  \u2713 test/unit/parser.test.ts > handles tasks. (12 ms)",
      // "s." after a word character: no vault token (its expression begins with \b).
      `const home = process.s.${pick(ALNUM, 24)}; os.${pick(ALNUM, 24)}`,
      '"api_version": "v2"}',
    ];
    const lines: string[] = [];
    for (const [kind, text] of samples) {
      if (kind === "private key") continue; // blocks, not expressions: the reference does not cover them
      for (let i = 0; i < 6; i++) lines.push(filler[Math.floor(random() * filler.length)]!);
      lines.push(text);
    }
    lines.push("curl -H 'x-api-key: my-local-server-key-123' http://localhost");
    const text = lines.join("\n");
    const found = scanner.find(text).map(({ start, end }) => ({ start, end }));
    const reference = referenceSpans(text, ["my-local-server-key-123"]);
    expect(reference.length).toBeGreaterThanOrEqual(samples.length - 2);
    expect(found).toEqual(reference);
  });
});

describe("the rule set", () => {
  it("is gitleaks' rules, with their source commit and licence recorded, every rule compiled", () => {
    expect(RULE_SOURCE.source).toContain("gitleaks");
    expect(RULE_SOURCE.commit).toMatch(/^[0-9a-f]{40}$/);
    const license = readFileSync(path.join(import.meta.dirname, "../../app/main/permissions/secret-rules/gitleaks-LICENSE"), "utf8");
    expect(license).toContain("MIT License");
    const { rules } = secretRules();
    expect(rules.length).toBeGreaterThan(200);
    for (const rule of rules) expect(rule.keywords.length, rule.id).toBeGreaterThan(0);
  });
});
