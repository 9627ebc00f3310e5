// The redaction rule set: gitleaks' rules, vendored as data (secret-rules/gitleaks-rules.json,
// with its source commit and MIT licence; regenerate with scripts/vendor-secret-rules.ts), compiled
// once per process into regular expressions with keywords, entropy thresholds and allowlists, as
// gitleaks applies them. Private key blocks are not a regular expression here: redaction.ts
// finds them as blocks (header, base64 body, end line), so a key cut short is still removed.
// Never throws at run time: the data is checked by the tests.
import vendored from "./secret-rules/gitleaks-rules.json" with { type: "json" };

interface VendoredRegex {
  source: string;
  flags: string;
}
interface VendoredAllowlist {
  condition: string;
  regexTarget: string;
  regexes: VendoredRegex[];
  stopwords: string[];
}
interface VendoredRule {
  id: string;
  description: string;
  regex: VendoredRegex;
  secretGroup: number;
  entropy: number;
  keywords: string[];
  allowlists: VendoredAllowlist[];
}

export interface Allowlist {
  and: boolean;
  target: "secret" | "match" | "line";
  regexes: RegExp[];
  stopwords: string[];
}

export interface SecretRule {
  id: string;
  /** Shown in `[REDACTED: kind]` and in the note to the model. */
  kind: string;
  /** Global, with match indices when the rule has groups. */
  regex: RegExp;
  hasGroups: boolean;
  secretGroup: number;
  entropy: number;
  keywords: string[];
  allowlists: Allowlist[];
  /** How far from a keyword a match can begin (before) and end (after). */
  before: number;
  after: number;
  /**
   * The expression begins with `[\w.-]{0,50}?` and then its keyword: a match begins at most 50
   * word characters before a keyword, so it is tried once there (sticky), not at every position.
   */
  keywordPrefix?: RegExp;
  /** The match begins with one of its keywords: tried once at each keyword (sticky). */
  keywordStart?: RegExp;
}

/** Whether every match begins with a keyword (`\b(ghp_...`, `(?:xoxb-...`). */
function startsWithKeyword(source: string, keywords: string[]): boolean {
  let s = source;
  for (let m = /^(?:\\b|\((?:\?:|\?i:)?)/.exec(s); m && m[0]; m = /^(?:\\b|\((?:\?:|\?i:)?)/.exec(s)) s = s.slice(m[0].length);
  let literal = "";
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "\\" && /[.\-_~/]/.test(s[i + 1] ?? "")) literal += s[++i];
    else if (/[A-Za-z0-9_\-~]/.test(c)) literal += c;
    else break;
  }
  literal = literal.toLowerCase();
  return keywords.length > 0 && keywords.some((k) => literal.startsWith(k) || (k.startsWith(literal) && literal.length >= 2));
}

export const RULE_SOURCE = { source: vendored.source, commit: vendored.commit, license: vendored.license };

const KINDS: [prefix: string, kind: string][] = [
  ["github", "GitHub token"],
  ["gitlab", "GitLab token"],
  ["aws", "AWS key"],
  ["anthropic", "Anthropic key"],
  ["openai", "OpenAI key"],
  ["gcp", "Google API key"],
  ["slack", "Slack token"],
  ["stripe", "Stripe key"],
  ["npm", "npm token"],
  ["jwt", "JSON web token"],
  ["generic", "secret"],
  ["curl-auth", "credential in a curl command"],
];

export function kindOf(ruleId: string): string {
  return KINDS.find(([prefix]) => ruleId.startsWith(prefix))?.[1] ?? `${ruleId.replace(/-/g, " ")}`;
}

function compile(re: VendoredRegex, extra = ""): RegExp {
  return new RegExp(re.source, [...new Set(re.flags + extra)].join(""));
}

function unbounded(source: string): boolean {
  return /(?<!\\)[+*]|\{\d+,\}/.test(source.replace(/\\./g, "").replace(/\[[^\]]*\]/g, "x"));
}

let compiled: { rules: SecretRule[]; global: Allowlist } | undefined;

/** The compiled rules, built on first use. */
export function secretRules(): { rules: SecretRule[]; global: Allowlist } {
  if (compiled) return compiled;
  const rules = (vendored.rules as VendoredRule[]).map((r): SecretRule => {
    const probe = compile(r.regex);
    const hasGroups = new RegExp(`${probe.source}|`).exec("")!.length > 1;
    const prefixed = r.regex.source.startsWith("[\\w.-]{0,50}?");
    return {
      id: r.id,
      kind: kindOf(r.id),
      regex: compile(r.regex, hasGroups ? "gd" : "g"),
      hasGroups,
      secretGroup: r.secretGroup,
      entropy: r.entropy,
      keywords: r.keywords,
      allowlists: r.allowlists.map(toAllowlist),
      before: 160,
      after: unbounded(r.regex.source) ? 1024 : 400,
      ...(prefixed ? { keywordPrefix: compile(r.regex, hasGroups ? "yd" : "y") } : {}),
      ...(!prefixed && startsWithKeyword(r.regex.source, r.keywords) ? { keywordStart: compile(r.regex, hasGroups ? "yd" : "y") } : {}),
    };
  });
  const g = vendored.globalAllowlist as { regexes: VendoredRegex[]; stopwords: string[] };
  compiled = { rules, global: { and: false, target: "secret", regexes: g.regexes.map((x) => compile(x)), stopwords: g.stopwords } };
  return compiled;
}

function toAllowlist(a: VendoredAllowlist): Allowlist {
  return {
    and: a.condition.toUpperCase() === "AND",
    target: a.regexTarget === "match" || a.regexTarget === "line" ? a.regexTarget : "secret",
    regexes: a.regexes.map((x) => compile(x)),
    stopwords: a.stopwords.map((w) => w.toLowerCase()),
  };
}

/** Shannon entropy in bits per character, as gitleaks computes it. */
export function shannonEntropy(text: string): number {
  if (text.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let entropy = 0;
  for (const n of counts.values()) {
    const p = n / text.length;
    entropy -= p * Math.log2(p);
  }
  return entropy;
}

/** Whether an allowlist says a finding is not a secret. */
export function allowed(list: Allowlist, secret: string, match: string, line: string): boolean {
  const target = list.target === "match" ? match : list.target === "line" ? line : secret;
  const regexHit = list.regexes.length > 0 ? list.regexes.some((re) => re.test(target)) : undefined;
  const lower = secret.toLowerCase();
  const stopHit = list.stopwords.length > 0 ? list.stopwords.some((w) => lower.includes(w)) : undefined;
  const checks = [regexHit, stopHit].filter((x): x is boolean => x !== undefined);
  if (checks.length === 0) return false;
  return list.and ? checks.every(Boolean) : checks.some(Boolean);
}
