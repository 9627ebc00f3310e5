// The redaction rule set: gitleaks' rules, vendored as data (secret-rules/gitleaks-rules.json,
// with its source commit and MIT licence; regenerate with scripts/vendor-secret-rules.ts), compiled
// once per process into regular expressions with keywords, entropy thresholds and allowlists, as
// gitleaks applies them. Private key blocks are not a regular expression here: redaction.ts
// finds them as blocks (header, base64 body, end line), so a key cut short is still removed.
// Never throws at run time: the data is checked by the tests.
import { KeywordAutomaton } from "./keyword-automaton.ts";
import vendored from "./secret-rules/gitleaks-rules.json" with { type: "json" };

export interface VendoredRegex {
  source: string;
  flags: string;
}
export interface VendoredAllowlist {
  condition: string;
  regexTarget: string;
  regexes: VendoredRegex[];
  stopwords: string[];
}
export interface VendoredRule {
  id: string;
  description: string;
  regex: VendoredRegex;
  secretGroup: number;
  entropy: number;
  keywords: string[];
  allowlists: VendoredAllowlist[];
}
/** A gitleaks rule set as scripts/vendor-secret-rules.ts writes it (secret-rules/gitleaks-rules.json). */
export interface VendoredRuleSet {
  rules: VendoredRule[];
  globalAllowlist: { regexes: VendoredRegex[]; stopwords: string[] };
}

export interface Allowlist {
  and: boolean;
  target: "secret" | "match" | "line";
  regexes: RegExp[];
  stopwords: string[];
  /** The stopwords as one automaton (the generic rule has about 1,500 of them). */
  stopwordFinder?: KeywordAutomaton;
}

export interface SecretRule {
  id: string;
  /** Shown in `[REDACTED: kind]` and in the note to the model. */
  kind: string;
  /** Global. Without match indices: asking for them costs microseconds per match (see `indices`). */
  regex: RegExp;
  hasGroups: boolean;
  /** With groups: the expression, sticky with match indices, to locate the secret of a match that is kept. */
  indices?: RegExp;
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
  /** With keywordStart: a token character follows the keyword in every match. */
  tokenAfterKeyword: boolean;
  /** With keywordStart: the expression begins with `\b` and every keyword with a word character, so none follows a word character. */
  boundaryBefore: boolean;
  /**
   * The secret is the whole match, though the expression has groups: its first group is named or
   * repeated (`(?<alg>...)` alternatives of a base64 web token's header, `([a-z0-9]{4}-){3}` of a
   * Teams webhook's UUIDs), so the first group that matched is a fragment, not the secret.
   */
  wholeMatch: boolean;
  /**
   * With keywordPrefix: the generic rule's shape (its keywords all letters, GENERIC_ASSIGNMENT
   * after them) and a kept match's value must hold a digit, so keyword-filters.ts's
   * digitValueAssigned bounds where it can be.
   */
  digitValue: boolean;
}

/** What follows the keywords in the generic rule (digitValueAssigned's shape). */
const GENERIC_ASSIGNMENT = String.raw`)(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'"\s=]{0,5}([\w.=-]{10,150}|[a-z0-9][a-z0-9+/]{11,}={0,3})(?:[\x60'"\s;]|\\[nr]|$)`;

function digitValueShape(r: VendoredRule): boolean {
  const head = "[\\w.-]{0,50}?(?:";
  const { source } = r.regex;
  if (!r.id.startsWith("generic") || r.entropy <= 0 || !source.startsWith(head) || !source.endsWith(GENERIC_ASSIGNMENT)) return false;
  // The keyword alternation matches letters only (so no gap character test is needed within it).
  return /^[A-Za-z|()?:\-[\]]+$/.test(source.slice(head.length, source.length - GENERIC_ASSIGNMENT.length)) && r.secretGroup <= 1;
}

/**
 * Whether every match begins with a keyword (`\b(ghp_...`, `(?:xoxb-...`), and whether a token
 * character must follow the literal it begins with (then a hit followed by a blank is no match).
 */
function keywordStart(source: string, keywords: string[]): { starts: boolean; tokenAfter: boolean } {
  let s = source;
  for (let m = /^(?:\\b|\((?:\?:|\?i:)?)/.exec(s); m && m[0]; m = /^(?:\\b|\((?:\?:|\?i:)?)/.exec(s)) s = s.slice(m[0].length);
  let literal = "";
  let i = 0;
  for (; i < s.length; i++) {
    const c = s[i]!;
    if (c === "\\" && /[.\-_~/]/.test(s[i + 1] ?? "")) literal += s[++i];
    else if (/[A-Za-z0-9_\-~]/.test(c)) literal += c;
    else break;
  }
  literal = literal.toLowerCase();
  const starts = keywords.length > 0 && keywords.some((k) => literal.startsWith(k) || (k.startsWith(literal) && literal.length >= 2));
  // Only when every keyword is the whole literal can the character after a hit be checked.
  const tokenAfter = keywords.every((k) => k === literal) && /^(?:\[|\\w|\(\?i:\[|[A-Za-z0-9_~.+/=-])/.test(s.slice(i));
  return { starts, tokenAfter };
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

/**
 * Capturing groups in a pattern, counted from its text (compiling it to find out costs ~1 ms), and
 * whether the first is a fragment: named, or followed by a quantifier (see `wholeMatch`).
 */
function groupsOf(source: string): { count: number; firstIsFragment: boolean } {
  let count = 0;
  let firstIsFragment = false;
  /** Per open parenthesis: its group's number, 0 when it captures nothing. */
  const open: number[] = [];
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") i++;
    else if (c === "[") {
      for (i++; i < source.length && source[i] !== "]"; i++) if (source[i] === "\\") i++;
    } else if (c === "(") {
      const capturing = source[i + 1] !== "?" || (source[i + 2] === "<" && source[i + 3] !== "=" && source[i + 3] !== "!");
      if (capturing && ++count === 1) firstIsFragment = source[i + 1] === "?";
      open.push(capturing ? count : 0);
    } else if (c === ")" && open.pop() === 1 && /[?*+{]/.test(source[i + 1] ?? "")) firstIsFragment = true;
  }
  return { count, firstIsFragment };
}

let compiled: { rules: SecretRule[]; global: Allowlist } | undefined;

/** The compiled rules, built on first use. */
export function secretRules(): { rules: SecretRule[]; global: Allowlist } {
  compiled ??= compileSecretRules();
  return compiled;
}

/**
 * Compiles the vendored rules anew (secretRules keeps one compiled set per process), or another
 * gitleaks rule set of the same shape (the tests give shapes the vendored set does not hold yet).
 */
export function compileSecretRules(set: VendoredRuleSet = vendored as VendoredRuleSet): { rules: SecretRule[]; global: Allowlist } {
  const rules = set.rules.map((r): SecretRule => {
    const groups = groupsOf(r.regex.source);
    const hasGroups = groups.count > 0;
    const prefixed = r.regex.source.startsWith("[\\w.-]{0,50}?");
    const start = keywordStart(r.regex.source, r.keywords);
    return {
      id: r.id,
      kind: kindOf(r.id),
      regex: compile(r.regex, "g"),
      hasGroups,
      ...(hasGroups ? { indices: compile(r.regex, "yd") } : {}),
      secretGroup: r.secretGroup,
      entropy: r.entropy,
      keywords: r.keywords,
      allowlists: r.allowlists.map(toAllowlist),
      before: 160,
      after: unbounded(r.regex.source) ? 1024 : 400,
      ...(prefixed ? { keywordPrefix: compile(r.regex, "y") } : {}),
      ...(!prefixed && start.starts ? { keywordStart: compile(r.regex, "y") } : {}),
      tokenAfterKeyword: !prefixed && start.starts && start.tokenAfter,
      boundaryBefore: !prefixed && start.starts && r.regex.source.startsWith("\\b") && r.keywords.every((k) => /^\w/.test(k)),
      digitValue: prefixed && digitValueShape(r),
      wholeMatch: r.secretGroup === 0 && groups.firstIsFragment,
    };
  });
  const g = set.globalAllowlist;
  return { rules, global: { and: false, target: "secret", regexes: anyOf(g.regexes), stopwords: g.stopwords } };
}

/**
 * An allowlist's expressions as one (`allowed` asks whether any matches: one pass instead of
 * one per expression; the global list has 13), case-insensitive ones as `(?i:...)` groups. Kept
 * apart where that could change a meaning: a backreference, flags other than i.
 */
function anyOf(list: VendoredRegex[]): RegExp[] {
  const single = () => list.map((x) => compile(x));
  if (list.length < 2 || list.some((x) => /[^i]/.test(x.flags) || /\\(?:[1-9]|k<)/.test(x.source))) return single();
  try {
    return [new RegExp(list.map((x) => (x.flags === "i" ? `(?i:${x.source})` : `(?:${x.source})`)).join("|"))];
  } catch {
    return single();
  }
}

function toAllowlist(a: VendoredAllowlist): Allowlist {
  const stopwords = a.stopwords.map((w) => w.toLowerCase());
  return {
    and: a.condition.toUpperCase() === "AND",
    target: a.regexTarget === "match" || a.regexTarget === "line" ? a.regexTarget : "secret",
    regexes: anyOf(a.regexes),
    stopwords,
    ...(stopwords.length > 16 ? { stopwordFinder: new KeywordAutomaton(stopwords) } : {}),
  };
}

/** Shannon entropy in bits per character, as gitleaks computes it. */
const asciiCounts = new Int32Array(128);

export function shannonEntropy(text: string): number {
  const n = text.length;
  if (n === 0) return 0;
  // Counted per UTF-16 unit, as gitleaks counts per byte for the ASCII secrets rules find.
  let others: Map<number, number> | undefined;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c < 128) asciiCounts[c]!++;
    else (others ??= new Map()).set(c, (others.get(c) ?? 0) + 1);
  }
  // Summed in the same order as always (ASCII by code, then the others as first seen); each
  // count is cleared for the next call as it is read.
  let entropy = 0;
  for (let c = 0; c < 128; c++) {
    const k = asciiCounts[c]!;
    if (k === 0) continue;
    asciiCounts[c] = 0;
    const p = k / n;
    entropy -= p * Math.log2(p);
  }
  if (others) {
    for (const k of others.values()) {
      const p = k / n;
      entropy -= p * Math.log2(p);
    }
  }
  return entropy;
}

/**
 * Whether a match of `rule` in `text` is a secret, as gitleaks decides: its secret (`secret`,
 * the match or its secret group) has enough entropy (and a digit, for the generic rules), and no
 * allowlist of the rule or the global one says otherwise.
 */
export function keepsFinding(rule: SecretRule, text: string, m: RegExpExecArray, secret: string): boolean {
  if (rule.entropy > 0 && ((rule.id.startsWith("generic") && !/\d/.test(secret)) || shannonEntropy(secret) <= rule.entropy)) return false;
  const lineStart = text.lastIndexOf("\n", m.index) + 1;
  const lineEnd = text.indexOf("\n", m.index + m[0].length);
  const line = text.slice(lineStart, lineEnd === -1 ? undefined : lineEnd);
  const { global } = secretRules();
  return !allowed(global, secret, m[0], line) && !rule.allowlists.some((a) => allowed(a, secret, m[0], line));
}

/** Whether an allowlist says a finding is not a secret. */
export function allowed(list: Allowlist, secret: string, match: string, line: string): boolean {
  const target = list.target === "match" ? match : list.target === "line" ? line : secret;
  const regexHit = list.regexes.length > 0 ? list.regexes.some((re) => re.test(target)) : undefined;
  const stopHit =
    list.stopwords.length === 0 ? undefined : list.stopwordFinder ? list.stopwordFinder.contains(secret) : list.stopwords.some((w) => secret.toLowerCase().includes(w));
  const checks = [regexHit, stopHit].filter((x): x is boolean => x !== undefined);
  if (checks.length === 0) return false;
  return list.and ? checks.every(Boolean) : checks.some(Boolean);
}
