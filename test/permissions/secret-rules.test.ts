// The compiled rule set (secret-rules.ts) on its own: every vendored rule compiled with its flags,
// groups and sticky forms; which rules are tried once at their keyword (and what may be checked
// before trying), named for rules whose expressions show why; the merged allowlists, which must
// answer as their expressions one by one; the entropy; and the checks that keep or drop a match.
// The rule set is compiled once per process and cached (secretRules), so each test compiles it
// afresh (compileSecretRules): what the compile does is then checked by every test here, not only
// by the first to ask for the rules.
import { describe, expect, it } from "vitest";
import {
  allowed,
  type Allowlist,
  compileSecretRules,
  keepsFinding,
  kindOf,
  type SecretRule,
  shannonEntropy,
  type VendoredAllowlist,
  type VendoredRegex,
  type VendoredRule,
  type VendoredRuleSet,
} from "../../app/main/permissions/secret-rules.ts";
import vendored from "../../app/main/permissions/secret-rules/gitleaks-rules.json" with { type: "json" };

const rule = (id: string): SecretRule => {
  const found = compileSecretRules().rules.find((r) => r.id === id);
  if (!found) throw new Error(`no rule ${id}`);
  return found;
};

/** A match of `rule` in `text` (its whole expression, run where the secret's line is). */
function matchOf(r: SecretRule, text: string): RegExpExecArray {
  const re = new RegExp(r.regex.source, r.regex.flags);
  const m = re.exec(text);
  if (!m) throw new Error(`${r.id} does not match ${text}`);
  return m;
}

describe("compiling the vendored rules", () => {
  it("compiles every rule from its own expression, global, with sticky forms where they are used", () => {
    const { rules } = compileSecretRules();
    expect(rules).toHaveLength(vendored.rules.length);
    vendored.rules.forEach((v, i) => {
      const r = rules[i]!;
      expect(r.id).toBe(v.id);
      expect(r.regex.source, v.id).toBe(new RegExp(v.regex.source).source);
      expect([...r.regex.flags].sort().join(""), v.id).toBe([...new Set(`${v.regex.flags}g`)].sort().join(""));
      // Groups, counted by the engine: an expression that also matches "" reports them all.
      const groups = new RegExp(`${v.regex.source}|`, v.regex.flags).exec("")!.length - 1;
      expect(r.hasGroups, v.id).toBe(groups > 0);
      if (r.hasGroups) {
        expect(r.indices?.source).toBe(r.regex.source);
        expect(r.indices?.sticky && r.indices.hasIndices && !r.indices.global, v.id).toBe(true);
        expect(r.indices?.ignoreCase).toBe(v.regex.flags.includes("i"));
      } else expect(r.indices).toBeUndefined();
      const prefixed = v.regex.source.startsWith("[\\w.-]{0,50}?");
      expect(r.keywordPrefix !== undefined, v.id).toBe(prefixed);
      if (prefixed) {
        expect(r.keywordPrefix!.sticky && !r.keywordPrefix!.global).toBe(true);
        expect(r.keywordPrefix!.source).toBe(r.regex.source);
        expect(r.keywordStart).toBeUndefined();
        expect(r.tokenAfterKeyword || r.boundaryBefore).toBe(false);
      } else expect(r.digitValue).toBe(false);
      if (r.keywordStart) expect(r.keywordStart.sticky && !r.keywordStart.global && r.keywordStart.source === r.regex.source, v.id).toBe(true);
      else expect(r.tokenAfterKeyword || r.boundaryBefore, v.id).toBe(false);
      expect(r.secretGroup).toBe(v.secretGroup);
      expect(r.entropy).toBe(v.entropy);
      expect(r.keywords).toEqual(v.keywords);
      expect(r.allowlists).toHaveLength(v.allowlists.length);
      expect(r.before).toBe(160);
      expect([400, 1024]).toContain(r.after);
    });
  });

  it("counts named groups as groups, and only the rules with groups locate a secret group", () => {
    // jwt-base64: only named groups; github-pat: none; hashicorp-tf-api-token: `(?-i:...)` only.
    expect(rule("jwt-base64").hasGroups).toBe(true);
    expect(rule("github-pat").hasGroups).toBe(false);
    expect(rule("hashicorp-tf-api-token").hasGroups).toBe(false);
    expect(rule("generic-api-key").hasGroups).toBe(true);
  });

  it("gives a long reach after the keyword only to expressions with an unbounded repeat", () => {
    // `*` or `+` outside a class, or {n,}; a bounded {n,m} or a `+` inside a class is bounded.
    for (const id of ["slack-bot-token", "1password-service-account-token", "jwt", "curl-auth-user", "generic-api-key"]) expect(rule(id).after, id).toBe(1024);
    for (const id of [
      "github-pat",
      "gitlab-pat",
      "aws-access-token",
      "stripe-access-token",
      "npm-access-token",
      "vault-service-token",
      "adafruit-api-key",
      "hashicorp-tf-api-token",
      // `[A-Za-z0-9+/]{32,400}`: a `+` inside a class.
      "grafana-cloud-api-token",
    ])
      expect(rule(id).after, id).toBe(400);
  });

  it.each([
    // id, tried at its keyword, a token character must follow the keyword, no word character may precede it
    ["github-pat", true, true, false], // ghp_[0-9a-zA-Z]{36}
    ["gitlab-pat", true, true, false], // glpat-[\w-]{20}: the literal holds "-"
    ["npm-access-token", true, true, true], // \b(npm_[a-z0-9]{36})
    ["doppler-api-token", true, true, false], // dp\.pt\.(?i:[a-z0-9]{43}): a group only after the keyword
    ["vault-batch-token", true, true, true], // \b(hvb\.[\w-]{138,300}): the escaped dot is part of the keyword
    ["jwt", true, true, true], // \b(ey[a-zA-Z0-9]{17,}...
    ["vault-service-token", true, false, true], // \b((?:hvs\.…|s\.(?i:…): "hvs." with its escaped dot; "s." is another keyword
    ["aws-access-token", true, false, true], // \b((?:A3T[A-Z0-9]|AKIA|…: begins with one of its keywords
    ["stripe-access-token", true, false, true], // \b((?:sk|rk)_(?:test|…: "sk" begins the keyword "sk_test"
    ["slack-bot-token", true, false, false], // xoxb-[0-9]…: "-" follows the keyword "xoxb"
    ["1password-service-account-token", true, false, false], // ops_eyJ…: the literal goes on past the keyword
    ["jwt-base64", true, false, true], // \bZXlK(?:(?<alg>…: a group follows
    ["curl-auth-user", true, false, true], // \bcurl\b…: a boundary follows
    ["openai-api-key", false, false, false], // \b(sk-(?:proj|…: its keyword "t3blbkfj" lies inside
    ["hashicorp-tf-api-token", false, false, false], // [a-z0-9]{14}\.(?-i:atlasv1): a class first
  ])("%s: tried at its keyword %s, token after it %s, boundary before it %s", (id, starts, tokenAfter, boundary) => {
    const r = rule(id);
    expect(r.keywordStart !== undefined).toBe(starts);
    expect(r.tokenAfterKeyword).toBe(tokenAfter);
    expect(r.boundaryBefore).toBe(boundary);
    expect(r.keywordPrefix).toBeUndefined();
  });

  it("keeps the whole match as the secret where the first group is named or repeated (a fragment)", () => {
    const { rules } = compileSecretRules();
    expect(rules.filter((r) => r.wholeMatch).map((r) => r.id)).toEqual(["jwt-base64", "microsoft-teams-webhook"]);
    // A plain first group, or an explicit secret group, is the secret.
    for (const id of ["generic-api-key", "curl-auth-user", "facebook-access-token", "aws-access-token"]) expect(rule(id).wholeMatch, id).toBe(false);
  });

  it("the generic rule alone has the digit-value shape; other assignment rules are only prefixed", () => {
    const { rules } = compileSecretRules();
    expect(rules.filter((r) => r.digitValue).map((r) => r.id)).toEqual(["generic-api-key"]);
    expect(rule("adafruit-api-key").keywordPrefix).toBeDefined();
    expect(rule("adafruit-api-key").digitValue).toBe(false);
  });

  it("every rule tried at its keyword matches there for a secret it finds", () => {
    const samples: [string, string][] = [
      ["github-pat", `ghp_${"aB3".repeat(12)}`],
      ["stripe-access-token", "rk_live_a1B2c3D4e5F6g7H8"],
      ["aws-access-token", "ASIAQWERTYUIOPASDFGH"],
      ["vault-service-token", "s.Ab3De6Gh9Jk2Mn5Pq8St1Vw4"],
      ["slack-bot-token", "xoxb-1234567890-1234567890-abcDEF"],
      ["npm-access-token", `npm_${"a1b2c3".repeat(6)}`],
    ];
    for (const [id, secret] of samples) {
      const r = rule(id);
      const text = `x = ${secret} `;
      const lower = text.toLowerCase();
      const at = Math.min(...r.keywords.map((k) => lower.indexOf(k)).filter((i) => i >= 0));
      r.keywordStart!.lastIndex = at;
      const m = r.keywordStart!.exec(text);
      expect(m?.index, id).toBe(4);
      expect(m![0]).toContain(secret);
    }
  });
});

describe("kinds", () => {
  it("names the common vendors, and any other rule by its id", () => {
    expect(kindOf("github-fine-grained-pat")).toBe("GitHub token");
    expect(kindOf("gitlab-pat")).toBe("GitLab token");
    expect(kindOf("aws-access-token")).toBe("AWS key");
    expect(kindOf("anthropic-admin-api-key")).toBe("Anthropic key");
    expect(kindOf("openai-api-key")).toBe("OpenAI key");
    expect(kindOf("gcp-api-key")).toBe("Google API key");
    expect(kindOf("slack-bot-token")).toBe("Slack token");
    expect(kindOf("stripe-access-token")).toBe("Stripe key");
    expect(kindOf("npm-access-token")).toBe("npm token");
    expect(kindOf("jwt-base64")).toBe("JSON web token");
    expect(kindOf("generic-api-key")).toBe("secret");
    expect(kindOf("curl-auth-header")).toBe("credential in a curl command");
    expect(kindOf("huggingface-access-token")).toBe("huggingface access token");
    // By its beginning only.
    expect(kindOf("my-github")).toBe("my github");
    expect(rule("hashicorp-tf-api-token").kind).toBe("hashicorp tf api token");
  });
});

describe("allowlists", () => {
  it("are compiled as vendored: targets, stopwords in lower case, a finder for long stopword lists", () => {
    const { rules } = compileSecretRules();
    vendored.rules.forEach((v, i) => {
      v.allowlists.forEach((a, j) => {
        const c = rules[i]!.allowlists[j]!;
        expect(c.and).toBe(a.condition.toUpperCase() === "AND");
        expect(c.target).toBe(a.regexTarget);
        expect(c.stopwords).toEqual(a.stopwords.map((w) => w.toLowerCase()));
        expect(c.stopwordFinder !== undefined).toBe(a.stopwords.length > 16);
      });
    });
    const generic = rule("generic-api-key").allowlists;
    expect(generic.map((a) => a.target)).toEqual(["secret", "match", "line"]);
    expect(generic[1]!.stopwordFinder?.contains("xxABOUTxx")).toBe(true);
  });

  it("merge their expressions into one where that keeps every answer", () => {
    const { rules, global } = compileSecretRules();
    expect(global.regexes).toHaveLength(1);
    expect(global.and).toBe(false);
    expect(global.target).toBe("secret");
    expect(global.stopwords).toEqual(vendored.globalAllowlist.stopwords);
    // The line list of the generic rule has two expressions: merged.
    expect(rule("generic-api-key").allowlists[2]!.regexes).toHaveLength(1);
    const probes = [
      "true",
      "TRUE",
      "False",
      "aaaaaa",
      "****",
      "$1",
      "${12}",
      "$HOME_DIR",
      "$Home",
      "${API_KEY}",
      "${Api_Key}",
      "{{ .Values.key }}",
      "${{ secrets.API_TOKEN }}",
      "%APPDATA%",
      "%s",
      "{12}",
      "@TOKEN@",
      "/Users/me/src/app",
      "/USERS/me/src",
      "/usr/local/bin/tool",
      "ghp_realLookingValue123",
      "RUN --mount=type=secret,id=npm",
      "import { a, b } from 'x'",
      "api_version=2",
      "xoxb-1234",
    ];
    const lists: [Allowlist, { regexes: { source: string; flags: string }[] }][] = [[global, vendored.globalAllowlist]];
    vendored.rules.forEach((v, i) => v.allowlists.forEach((a, j) => lists.push([rules[i]!.allowlists[j]!, a])));
    for (const [compiled, source] of lists) {
      for (const probe of probes) {
        const one = source.regexes.some((x) => new RegExp(x.source, x.flags).test(probe));
        expect(
          compiled.regexes.some((re) => re.test(probe)),
          `${probe} against ${source.regexes.map((x) => x.source).join(" | ")}`,
        ).toBe(one);
      }
    }
    // Case-insensitive members stay so, the others do not become so.
    expect(global.regexes[0]!.test("TRUE")).toBe(true);
    expect(global.regexes[0]!.test("$Home")).toBe(false);
  });

  it("answer for the secret, the match or the line; by any or every check; by expression or stopword", () => {
    const list = (over: Partial<Allowlist>): Allowlist => ({ and: false, target: "secret", regexes: [], stopwords: [], ...over });
    // Nothing to check: nothing is allowed.
    expect(allowed(list({}), "secret", "match", "line")).toBe(false);
    expect(allowed(list({ and: true }), "secret", "match", "line")).toBe(false);
    // The target decides what the expressions see.
    const r = [/^the-/];
    expect(allowed(list({ regexes: r }), "the-secret", "x", "x")).toBe(true);
    expect(allowed(list({ regexes: r }), "x", "the-match", "the-line")).toBe(false);
    expect(allowed(list({ regexes: r, target: "match" }), "the-secret", "x", "the-line")).toBe(false);
    expect(allowed(list({ regexes: r, target: "match" }), "x", "the-match", "x")).toBe(true);
    expect(allowed(list({ regexes: r, target: "line" }), "the-secret", "the-match", "x")).toBe(false);
    expect(allowed(list({ regexes: r, target: "line" }), "x", "x", "the-line")).toBe(true);
    // Any of several expressions.
    expect(allowed(list({ regexes: [/^a/, /^b/] }), "bcd", "", "")).toBe(true);
    expect(allowed(list({ regexes: [/^a/, /^b/] }), "cd", "", "")).toBe(false);
    // Stopwords: within the secret, whatever its case (stopwords are lower case), whatever the target.
    expect(allowed(list({ stopwords: ["sample"] }), "mySAMPLEvalue", "", "")).toBe(true);
    expect(allowed(list({ stopwords: ["sample", "other"] }), "mySAMPLEvalue", "", "")).toBe(true);
    expect(allowed(list({ stopwords: ["sample"], target: "match" }), "myvalue", "sample", "sample")).toBe(false);
    // OR: either check; AND: both.
    const both = { regexes: [/^x/], stopwords: ["word"] };
    expect(allowed(list(both), "x-other", "", "")).toBe(true);
    expect(allowed(list(both), "a-word", "", "")).toBe(true);
    expect(allowed(list({ ...both, and: true }), "x-other", "", "")).toBe(false);
    expect(allowed(list({ ...both, and: true }), "a-word", "", "")).toBe(false);
    expect(allowed(list({ ...both, and: true }), "x-word", "", "")).toBe(true);
    expect(allowed(list({ regexes: [/^x/], and: true }), "x-other", "", "")).toBe(true);
    expect(allowed(list({ stopwords: ["word"], and: true }), "a-word", "", "")).toBe(true);
  });
});

describe("entropy", () => {
  it("is the Shannon entropy per UTF-16 unit, the same on every call", () => {
    expect(shannonEntropy("")).toBe(0);
    expect(shannonEntropy("aaaa")).toBe(0);
    expect(shannonEntropy("ab")).toBe(1);
    expect(shannonEntropy("abcd")).toBe(2);
    expect(shannonEntropy("aabb")).toBe(1);
    expect(shannonEntropy("abcdefgh11223344")).toBe(3.5);
    // Past ASCII, and at its edge (127 and 128).
    expect(shannonEntropy("\u00e9\u00e9\u00e0\u00e0")).toBe(1);
    expect(shannonEntropy("a\u00e9")).toBe(1);
    expect(shannonEntropy("\x7f\x80")).toBe(1);
    expect(shannonEntropy("\u4e00\u4e01\u4e02\u4e03")).toBe(2);
    // Counts do not carry over from one call to the next.
    expect(shannonEntropy("zzzz")).toBe(0);
    expect(shannonEntropy("zzzz")).toBe(0);
    expect(shannonEntropy("\u00e9\u00e9")).toBe(0);
    expect(shannonEntropy("\u00e9\u00e9")).toBe(0);
  });
});

describe("keeping a match", () => {
  it("needs more entropy than the rule asks for (strictly), and a digit for the generic rules", () => {
    const generic = rule("generic-api-key");
    expect(generic.entropy).toBe(3.5);
    const keeps = (r: SecretRule, text: string, secret: string) => keepsFinding(r, text, matchOf(r, text), secret);
    expect(keeps(generic, 'api_key = "Zq8Wv3Rt6Yp1Lk"', "Zq8Wv3Rt6Yp1Lk")).toBe(true);
    // No digit: not a generic secret, whatever its entropy (letters only are allowlisted anyway).
    expect(keeps(generic, 'api_key = "ZqxWvkRtmYpwLk"', "ZqxWvkRtmYpwLk")).toBe(false);
    expect(keeps(generic, 'api_key = "ZqxWvk=RtmYpwLk"', "ZqxWvk=RtmYpwLk")).toBe(false);
    expect(keeps(generic, 'api_key = "ZqxWvk=RtmYpw1k"', "ZqxWvk=RtmYpw1k")).toBe(true);
    // Entropy exactly the threshold: dropped.
    expect(keeps(generic, 'api_key = "KqxWvyRt11223344"', "KqxWvyRt11223344")).toBe(false);
    expect(keeps(generic, 'api_key = "KqxWvyRt11223345"', "KqxWvyRt11223345")).toBe(true);
    // Another rule with an entropy threshold needs no digit.
    const github = rule("github-pat");
    const token = `ghp_${"ZqxWvkRtmYpwLkXcjNbsMjdHgrFdoSahQenT"}`;
    expect(keeps(github, token, token)).toBe(true);
    const flat = `ghp_${"a".repeat(36)}`;
    expect(keeps(github, flat, flat)).toBe(false);
    // A rule without a threshold keeps even a secret of no entropy.
    const anthropic = rule("anthropic-api-key");
    expect(anthropic.entropy).toBe(0);
    const key = `sk-ant-api03-${"a".repeat(93)}AA`;
    expect(keeps(anthropic, `${key} `, key)).toBe(true);
    const adafruit = rule("adafruit-api-key");
    const zeros = "0".repeat(32);
    expect(adafruit.entropy).toBe(0);
    expect(keeps(adafruit, `adafruit_key = "${zeros}"`, zeros)).toBe(true);
  });

  it("is refused by the global allowlist, a rule's allowlist for the secret or the match, or its line", () => {
    const generic = rule("generic-api-key");
    const keeps = (text: string, secret: string) => keepsFinding(generic, text, matchOf(generic, text), secret);
    // The global list: a variable reference.
    const github = rule("github-pat");
    expect(keepsFinding(github, "x", matchOf(github, `ghp_${"aB3".repeat(12)}`), "${GITHUB_TOKEN_VALUE}")).toBe(false);
    // The rule's stopwords ("about" among them), in the secret.
    expect(keeps('api_key = "aboutX7q9Lm2Zp4W"', "aboutX7q9Lm2Zp4W")).toBe(false);
    expect(keeps('api_key = "abxutX7q9Lm2Zp4W"', "abxutX7q9Lm2Zp4W")).toBe(true);
    // The rule's match list: an "author" match.
    expect(keeps('author = "Zq8Wv3Rt6Yp1Lk"', "Zq8Wv3Rt6Yp1Lk")).toBe(false);
    // Its line list: the whole line of the match, not the lines around it.
    expect(keeps('RUN --mount=type=secret,id=x api_key = "Zq8Wv3Rt6Yp1Lk"', "Zq8Wv3Rt6Yp1Lk")).toBe(false);
    expect(keeps('RUN --mount=type=secret,id=x\napi_key = "Zq8Wv3Rt6Yp1Lk"', "Zq8Wv3Rt6Yp1Lk")).toBe(true);
    expect(keeps('api_key = "Zq8Wv3Rt6Yp1Lk"\nRUN --mount=type=secret,id=x', "Zq8Wv3Rt6Yp1Lk")).toBe(true);
    expect(keeps('first line\napi_key = "Zq8Wv3Rt6Yp1Lk" --mount=type=secret,\nlast', "Zq8Wv3Rt6Yp1Lk")).toBe(false);
    // The line to its last character, when no line break follows (an import's closing quote).
    expect(keeps("key = \"Zq8Wv3Rt6Yp1Lk\" import { a } from 'x'", "Zq8Wv3Rt6Yp1Lk")).toBe(false);
    expect(keeps('key = "Zq8Wv3Rt6Yp1Lk" import { a } from \'x', "Zq8Wv3Rt6Yp1Lk")).toBe(true);
  });
});

/**
 * Other gitleaks rule sets: shapes the vendored set does not hold (yet), which the compile reads
 * all the same: an AND allowlist, a lookbehind, an escaped or class parenthesis, flags other than
 * i, a backreference, a rule without keywords. A new vendored set may bring any of them.
 */
describe("compiling other rule sets", () => {
  type Over = Partial<Omit<VendoredRule, "regex">> & { source: string; flags?: string };
  const set = (...over: Over[]): VendoredRuleSet => ({
    rules: over.map(({ source, flags, ...r }, i) => ({
      id: `test-rule-${i}`,
      description: "",
      regex: { source, flags: flags ?? "" },
      secretGroup: 0,
      entropy: 0,
      keywords: ["key"],
      allowlists: [],
      ...r,
    })),
    globalAllowlist: { regexes: [], stopwords: [] },
  });
  const one = (over: Over): SecretRule => compileSecretRules(set(over)).rules[0]!;
  const generic = vendored.rules.find((r) => r.id === "generic-api-key")!;
  const HEAD = "[\\w.-]{0,50}?(?:";
  /** What follows the keywords in the generic rule. */
  const TAIL = generic.regex.source.slice(generic.regex.source.indexOf(")(?:[ \\t\\w.-]{0,20})"));

  it("compiles the set it is given, with its global allowlist", () => {
    const { rules, global } = compileSecretRules({
      rules: set({ source: "key[a-z]{8}" }).rules,
      globalAllowlist: { regexes: [{ source: "^x", flags: "" }], stopwords: ["Word"] },
    });
    expect(rules.map((r) => r.id)).toEqual(["test-rule-0"]);
    expect(global.regexes.map((re) => re.source)).toEqual(["^x"]);
    expect(global.stopwords).toEqual(["Word"]);
  });

  it("gives the digit-value shape only to a generic rule with an entropy, letters for keywords and the generic assignment", () => {
    expect(generic.regex.source.startsWith(HEAD) && TAIL.length > 100).toBe(true);
    const shaped = { id: "generic-test", entropy: 3.5, secretGroup: 1, keywords: ["key", "token"], source: `${HEAD}key|token${TAIL}` };
    expect(one(shaped).digitValue).toBe(true);
    expect(one({ ...shaped, secretGroup: 0 }).digitValue).toBe(true);
    // Not generic, no entropy, a second group for the secret, not the generic assignment.
    expect(one({ ...shaped, id: "other-test" }).digitValue).toBe(false);
    expect(one({ ...shaped, entropy: 0 }).digitValue).toBe(false);
    expect(one({ ...shaped, secretGroup: 2 }).digitValue).toBe(false);
    expect(one({ ...shaped, source: `${HEAD}key|token)=([a-z0-9]{10,})` }).digitValue).toBe(false);
    // Keywords with a character other than letters, first or last.
    expect(one({ ...shaped, source: `${HEAD}key|tok_en${TAIL}` }).digitValue).toBe(false);
    expect(one({ ...shaped, source: `${HEAD}_key|token${TAIL}` }).digitValue).toBe(false);
    expect(one({ ...shaped, source: `${HEAD}key|token_${TAIL}` }).digitValue).toBe(false);
    // Every rule built like that is still prefixed.
    expect(one({ ...shaped, id: "other-test" }).keywordPrefix).toBeDefined();
  });

  it("finds the keyword a match begins with behind a capturing group, and reads a whole literal", () => {
    const grouped = one({ source: "(ghx_[a-z]{8})", keywords: ["ghx_"] });
    expect(grouped.keywordStart).toBeDefined();
    expect(grouped.tokenAfterKeyword).toBe(true);
    // An expression that is a literal to its end.
    const literal = one({ source: "ghx_abcdefgh", keywords: ["ghx_"] });
    expect(literal.keywordStart).toBeDefined();
    expect(literal.tokenAfterKeyword).toBe(false);
    expect(one({ source: "ghx_abcdefgh", keywords: ["ghx_abcdefgh"] }).tokenAfterKeyword).toBe(false);
    // A keyword that goes on past the literal the expression begins with.
    expect(one({ source: "ghx_abcdefgh", keywords: ["ghx_abcdefghx"] }).keywordStart).toBeDefined();
  });

  it("without keywords, no match begins with one", () => {
    const r = one({ source: "ghx_[a-z]{8}", keywords: [] });
    expect(r.keywordStart).toBeUndefined();
    expect(r.tokenAfterKeyword).toBe(false);
    expect(r.boundaryBefore).toBe(false);
  });

  it("sees a boundary before the keyword only when every keyword begins with a word character", () => {
    expect(one({ source: "\\b(?:ab|\\.ab)[a-z0-9]{10}", keywords: ["ab", ".ab"] }).boundaryBefore).toBe(false);
    expect(one({ source: "\\b(?:ab|cab)[a-z0-9]{10}", keywords: ["ab", "cab"] }).boundaryBefore).toBe(true);
    expect(one({ source: "\\b(?:ab|\\.ab)[a-z0-9]{10}", keywords: ["ab", ".ab"] }).keywordStart).toBeDefined();
  });

  it("counts no group in escaped parentheses, classes or lookbehinds", () => {
    for (const source of ["key\\(x\\)[a-z]{8}", "key[a(]x[)]", "key[a-z][a(][)]", "key[\\]ab(][a-z]{4}", "key[\\]a(]x", "(?<=key=)[a-z]{10}", "(?<!no)key[a-z]{10}"])
      expect(one({ source }).hasGroups, source).toBe(false);
    for (const source of ["key[\\]ab(]([a-z]{4})", "(?<=key=)([a-z]{10})", "(?<!no)key(?<v>[a-z]{10})", "key\\(([a-z]{8})\\)"])
      expect(one({ source }).hasGroups, source).toBe(true);
  });

  it("keeps the whole match only where no group is named as the secret", () => {
    // A named or repeated first group is a fragment; with a secret group set, that group is the secret.
    expect(one({ source: "(?<pre>key)=([a-z0-9]{10})" }).wholeMatch).toBe(true);
    expect(one({ source: "(?<pre>key)=([a-z0-9]{10})", secretGroup: 2 }).wholeMatch).toBe(false);
    expect(one({ source: "(key-){2}([a-z0-9]{10})", secretGroup: 2 }).wholeMatch).toBe(false);
    expect(one({ source: "(key-){2}([a-z0-9]{10})" }).wholeMatch).toBe(true);
  });

  it("reads an allowlist's condition in any case, and an unknown target as the secret", () => {
    const lists = (allowlists: VendoredAllowlist[]) => one({ source: "key[a-z]{8}", allowlists }).allowlists;
    const list = (over: Partial<VendoredAllowlist>): VendoredAllowlist => ({ condition: "OR", regexTarget: "secret", regexes: [], stopwords: [], ...over });
    expect(lists([list({ condition: "AND" }), list({ condition: "and" }), list({ condition: "OR" }), list({ condition: "" })]).map((a) => a.and)).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect(lists([list({ regexTarget: "match" }), list({ regexTarget: "line" }), list({ regexTarget: "" }), list({ regexTarget: "path" })]).map((a) => a.target)).toEqual([
      "match",
      "line",
      "secret",
      "secret",
    ]);
    // AND: the expression and a stopword both.
    const [and] = lists([list({ condition: "AND", regexes: [{ source: "^x", flags: "" }], stopwords: ["word"] })]);
    expect(allowed(and!, "x-word", "", "")).toBe(true);
    expect(allowed(and!, "x-other", "", "")).toBe(false);
    expect(allowed(and!, "a-word", "", "")).toBe(false);
  });

  it("finds stopwords with an automaton past 16 of them", () => {
    const words = (n: number) => Array.from({ length: n }, (_, i) => `stop${i}word`);
    const lists = one({
      source: "key[a-z]{8}",
      allowlists: [16, 17].map((n) => ({ condition: "OR", regexTarget: "secret", regexes: [], stopwords: words(n) })),
    }).allowlists;
    expect(lists[0]!.stopwordFinder).toBeUndefined();
    expect(lists[1]!.stopwordFinder?.contains("xxSTOP16WORDxx")).toBe(true);
    expect(allowed(lists[0]!, "xxSTOP15WORDxx", "", "")).toBe(true);
    expect(allowed(lists[1]!, "xxSTOP16WORDxx", "", "")).toBe(true);
  });

  it("keeps an allowlist's expressions apart where merging them would change an answer", () => {
    const compiled = (regexes: VendoredRegex[]) => one({ source: "key[a-z]{8}", allowlists: [{ condition: "OR", regexTarget: "secret", regexes, stopwords: [] }] }).allowlists[0]!;
    const answers = (list: Allowlist, probes: string[]) => probes.map((p) => allowed(list, p, p, p));
    // One expression: compiled as it is, with its flags.
    const single = compiled([{ source: "^ab$", flags: "i" }]);
    expect(single.regexes.map((re) => [re.source, re.flags])).toEqual([["^ab$", "i"]]);
    // A multiline member, first or not: its ^ and $ see lines.
    for (const regexes of [
      [
        { source: "^foo$", flags: "m" },
        { source: "^bar", flags: "" },
      ],
      [
        { source: "^bar", flags: "" },
        { source: "^foo$", flags: "m" },
      ],
    ]) {
      const list = compiled(regexes);
      expect(list.regexes).toHaveLength(2);
      expect(answers(list, ["a\nfoo", "bar", "a\nbar", "foo x"])).toEqual([true, true, false, false]);
    }
    // A backreference counts its own groups.
    const back = compiled([
      { source: "x(y)", flags: "" },
      { source: "^(a)\\1$", flags: "" },
    ]);
    expect(back.regexes).toHaveLength(2);
    expect(answers(back, ["aa", "a", "xy"])).toEqual([true, false, true]);
    // Merged, these two do not compile (a named group makes `\k` a reference to one): kept apart.
    const refused = compiled([
      { source: "^\\k$", flags: "" },
      { source: "(?<n>x)", flags: "" },
    ]);
    expect(refused.regexes).toHaveLength(2);
    expect(answers(refused, ["k", "x", "y"])).toEqual([true, true, false]);
    // Case-insensitive members and the others merged into one.
    const merged = compiled([
      { source: "^ab$", flags: "i" },
      { source: "^cd$", flags: "" },
    ]);
    expect(merged.regexes).toHaveLength(1);
    expect(answers(merged, ["AB", "cd", "CD"])).toEqual([true, true, false]);
  });
});
