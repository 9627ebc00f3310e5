// Secret redaction: finds secrets with the vendored gitleaks rules (secret-rules.ts), private key
// blocks, and literal values (the configured provider keys, and values of environment variables
// whose names look secret), and replaces each with `[REDACTED: kind]`. One pass of a keyword
// automaton over the text, then each rule's regular expression only in windows around its
// keywords, so the cost barely grows with the number of rules. Keywords whose rules all need a
// token or an assignment after them carry that as a filter (keyword-filters.ts), checked in the
// automaton's loop: the many hits that lead nowhere never come back here. The generic rule's
// matches are checked last, and not at all inside a secret another rule found. `SecretScanner.stream()` redacts
// text that arrives in chunks (secret-stream.ts). Pure; never throws; large texts are the
// caller's to chunk (a stream keeps each step bounded).
import { KeywordAutomaton } from "./keyword-automaton.ts";
import { assignmentFollows, digitValueAssigned, FILTER_ASSIGNMENT, FILTER_DIGIT_VALUE, FILTER_TOKEN_AFTER, isTokenChar, isWordChar, isWordish } from "./keyword-filters.ts";
import { keepsFinding, secretRules, type SecretRule } from "./secret-rules.ts";
import { applySpans, type ControlPositions, type Redaction, type SecretSpan } from "./secret-spans.ts";
import { SecretStream, type SecretStreamOptions } from "./secret-stream.ts";

export const CONFIGURED_KIND = "configured secret";
const GENERIC_KIND = "secret";
const PRIVATE_KEY = "private key";
const KEY_HEADER = /-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----/iy;
/** Base64 lines (real or escaped newlines) and `Name: value` header lines, then a last partial line. */
const KEY_LINES = String.raw`(?:[ \t]*(?:[A-Za-z0-9+/=]{1,1024}[ \t]*)?(?:\r?\n|(?:\\r)?\\n)|[A-Za-z-]{2,40}: [^\n]{0,200}\n)*`;
const KEY_BODY = new RegExp(`${KEY_LINES}[A-Za-z0-9+/=]*`, "y");
/** The body's whole lines alone: where its last line, cut short, begins. */
const KEY_WHOLE_LINES = new RegExp(KEY_LINES, "y");
const KEY_END = /-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----/iy;
/** A body whose line breaks became blanks (`echo $KEY` unquoted): blank-separated base64 words. */
const KEY_WORDS = /(?:[ \t]+[A-Za-z0-9+/=]{1,1024})+[ \t]*/y;
/** Blank-separated base64 words long enough to be a key's lines, not prose. */
const KEY_LINE_WORDS = /(?:[ \t]+[A-Za-z0-9+/=]{16,1024}(?![A-Za-z0-9+/=]))+/y;
/** A blank, then more text on the same line. */
const BLANK_THEN_TEXT = /[ \t]+[^\s]/y;
/** A key line is longer than this (64 characters in PEM, 70 in OpenSSH); a shorter word is ordinary text. */
const MIN_KEY_LINE = 16;
/** A private key block longer than this is closed there (and, in a stream, swallowed after). */
export const MAX_KEY_BLOCK = 64 * 1024;
/** Literal secrets shorter than this are not redacted (too likely to be ordinary words). */
export const MIN_LITERAL_LENGTH = 8;

/** A rule's `index`: its place in `rules` (for the per-rule arrays of a scan). */
type Target = { kind: "rule"; rule: SecretRule; index: number } | { kind: "literal"; value: string } | { kind: "key" };

export class SecretScanner {
  private readonly automaton: KeywordAutomaton;
  /** Per keyword: what it points at. */
  private readonly targets: Target[][];
  private readonly rules: SecretRule[];
  private readonly nonAsciiLiterals: string[];
  private readonly hits = new Int32Array(8192);
  /** Per prefixed rule (by index): the keyword position last tried, valid while `lastTryScan[i]` is this `find`'s number. */
  private readonly lastTry: Int32Array;
  private readonly lastTryScan: Int32Array;
  private scans = 0;
  /** The generic rule's matches of this `find`, checked last. */
  private readonly generic: { rule: SecretRule; text: string; match: RegExpExecArray; offset: number }[] = [];
  /** How much trailing text a stream holds back so that every match there is complete. */
  readonly hold: number;

  constructor(options: { literals?: readonly string[] } = {}) {
    const { rules } = secretRules();
    this.rules = rules;
    const keywordIds = new Map<string, number>();
    const keywords: string[] = [];
    this.targets = [];
    const add = (keyword: string, target: Target) => {
      let id = keywordIds.get(keyword);
      if (id === undefined) {
        id = keywords.length;
        keywordIds.set(keyword, id);
        keywords.push(keyword);
        this.targets.push([]);
      }
      this.targets[id]!.push(target);
    };
    rules.forEach((rule, index) => {
      for (const keyword of rule.keywords) add(keyword, { kind: "rule", rule, index });
    });
    this.lastTry = new Int32Array(rules.length);
    this.lastTryScan = new Int32Array(rules.length);
    add("-----begin", { kind: "key" });
    const literals = [...new Set((options.literals ?? []).filter((l) => l.length >= MIN_LITERAL_LENGTH))];
    this.nonAsciiLiterals = literals.filter((l) => /[\u0080-\uffff]/.test(l));
    for (const literal of literals) if (!this.nonAsciiLiterals.includes(literal)) add(literal.toLowerCase(), { kind: "literal", value: literal });
    this.automaton = new KeywordAutomaton(keywords, this.targets.map(keywordFilter));
    const longest = Math.max(16, ...keywords.map((k) => k.length));
    this.hold = Math.max(...rules.map((r) => r.before + r.after)) + 64 + 256 + longest + 200;
  }

  /**
   * Secrets in `text` that end after `from`, sorted and merged. With `controls`, also where the
   * first and last control characters of `text` are (-1 when none; see isControlByte), found in
   * the same pass.
   */
  find(text: string, from = 0, controls?: ControlPositions): SecretSpan[] {
    const spans: SecretSpan[] = [];
    if (++this.scans === 0x7fffffff) {
      this.scans = 1;
      this.lastTryScan.fill(0);
    }
    const windows = new Map<SecretRule, number[]>();
    const hits = this.hits;
    this.generic.length = 0;
    if (controls) controls.first = controls.last = -1;
    for (let from = 0, state = 0; from < text.length;) {
      const { count, next, state: after, firstControl, lastControl } = this.automaton.scan(text, from, text.length, hits, state);
      from = next;
      state = after;
      if (controls && firstControl >= 0) {
        if (controls.first < 0) controls.first = firstControl;
        controls.last = lastControl;
      }
      for (let h = 0; h < count; h += 2) {
        const keyword = hits[h]!;
        const start = hits[h + 1]!;
        for (const target of this.targets[keyword]!) {
          if (target.kind === "rule") {
            if (target.rule.keywordPrefix) {
              this.runPrefixed(target.rule, target.index, text, start, start + this.automaton.keywords[keyword]!.length, spans);
              continue;
            }
            if (target.rule.keywordStart) {
              // Every such secret goes on after its keyword with token characters: most hits of
              // short keywords ("ey" in "key", "sk" in "task") end here without a regex call.
              if (target.rule.tokenAfterKeyword && !isTokenChar(text.charCodeAt(start + this.automaton.keywords[keyword]!.length))) continue;
              // Its `\b` before a word character: "s." in "process.env" is no vault token.
              if (target.rule.boundaryBefore && start > 0 && isWordChar(text.charCodeAt(start - 1))) continue;
              const re = target.rule.keywordStart;
              re.lastIndex = start;
              const m = re.exec(text);
              if (m) this.accept(target.rule, text, m, 0, spans);
              continue;
            }
            let list = windows.get(target.rule);
            if (!list) windows.set(target.rule, (list = []));
            const ws = start - target.rule.before;
            const we = start + this.automaton.keywords[keyword]!.length + target.rule.after;
            if (list.length > 0 && ws <= list[list.length - 1]!) list[list.length - 1] = we;
            else list.push(ws, we);
          } else if (target.kind === "literal") {
            if (text.startsWith(target.value, start)) spans.push({ start, end: start + target.value.length, kind: CONFIGURED_KIND });
          } else {
            const block = keyBlock(text, start);
            if (block) spans.push(block);
          }
        }
      }
    }
    for (const literal of this.nonAsciiLiterals) {
      for (let at = text.indexOf(literal); at !== -1; at = text.indexOf(literal, at + literal.length)) spans.push({ start: at, end: at + literal.length, kind: CONFIGURED_KIND });
    }
    for (const [rule, list] of windows) {
      for (let i = 0; i < list.length; i += 2) this.runRule(rule, text, list[i]!, list[i + 1]!, spans);
    }
    // The generic rule's matches last: one whose secret lies inside a secret found already
    // ("GITHUB_TOKEN=ghp_...": the GitHub token) needs no checks, as keeping it changes nothing.
    const generic = this.generic;
    for (let i = 0; i < generic.length; i++) {
      const { rule, text: where, match, offset } = generic[i]!;
      if (!insideFound(spans, rule, match, offset)) this.keep(rule, where, match, offset, spans);
    }
    generic.length = 0;
    return merge(spans).filter((s) => s.end > from);
  }

  redact(text: string): Redaction {
    return applySpans(text, this.find(text));
  }

  /** A redactor for text arriving in chunks. */
  stream(options: SecretStreamOptions = {}): SecretStream {
    return new SecretStream(this, options);
  }

  /** Tries a `[\w.-]{0,50}?keyword...` rule once, where its match would begin for this keyword. */
  private runPrefixed(rule: SecretRule, index: number, text: string, keywordAt: number, keywordEnd: number, spans: SecretSpan[]): void {
    if (rule.digitValue ? !digitValueAssigned(text, keywordEnd) : !assignmentFollows(text, keywordEnd)) return;
    let at = keywordAt;
    while (at > 0 && keywordAt - at < 50 && isWordish(text.charCodeAt(at - 1))) at--;
    // The same run was tried for an earlier keyword.
    if (this.lastTryScan[index] === this.scans && this.lastTry[index]! >= at) return;
    this.lastTryScan[index] = this.scans;
    this.lastTry[index] = keywordAt;
    const re = rule.keywordPrefix!;
    re.lastIndex = at;
    const m = re.exec(text);
    if (m) this.accept(rule, text, m, 0, spans);
  }

  /** Runs one rule's expression in a window around its keywords (widened to word boundaries). */
  private runRule(rule: SecretRule, text: string, from: number, to: number, spans: SecretSpan[]): void {
    let ws = Math.max(0, from);
    for (let n = 0; ws > 0 && n < 64 && !/\s/.test(text[ws - 1]!); n++) ws--;
    let we = Math.min(text.length, to);
    for (let n = 0; we < text.length && n < 256 && !/\s/.test(text[we]!); n++) we++;
    const window = text.slice(ws, we);
    const re = rule.regex;
    re.lastIndex = 0;
    for (let m = re.exec(window); m; m = re.exec(window)) {
      if (m[0].length === 0) {
        re.lastIndex++;
        continue;
      }
      this.accept(rule, window, m, ws, spans);
    }
  }

  /** A match: kept (see `keep`) now, or, for the generic rule, once every other rule's are (see `find`). */
  private accept(rule: SecretRule, text: string, m: RegExpExecArray, offset: number, spans: SecretSpan[]): void {
    if (rule.kind === GENERIC_KIND) this.generic.push({ rule, text, match: m, offset });
    else this.keep(rule, text, m, offset, spans);
  }

  /**
   * Records a match unless its entropy is too low or an allowlist says it is not a secret. The
   * checks need only the secret's text; where it is in the match is asked of the `indices`
   * expression (the same match, from the same start) only for a match that is kept.
   */
  private keep(rule: SecretRule, text: string, m: RegExpExecArray, offset: number, spans: SecretSpan[]): void {
    const group = secretGroup(rule, m);
    const secret = group > 0 && m[group] !== undefined ? m[group] : m[0];
    if (!keepsFinding(rule, text, m, secret)) return;
    let start = m.index;
    let end = m.index + m[0].length;
    if (group > 0 && m[group] !== undefined && rule.indices) {
      rule.indices.lastIndex = m.index;
      const range = rule.indices.exec(text)?.indices?.[group];
      if (range) [start, end] = range;
    }
    spans.push({ start: offset + start, end: offset + end, kind: rule.kind });
  }

  get ruleCount(): number {
    return this.rules.length;
  }
}

/**
 * What must follow a keyword for any of its targets to match there (FILTER_* bits), or 0 when
 * some target must see every hit. The same checks run again in `find`.
 */
function keywordFilter(targets: Target[]): number {
  let filter = 0;
  for (const target of targets) {
    if (target.kind !== "rule") return 0;
    if (target.rule.keywordPrefix) filter |= target.rule.digitValue ? FILTER_DIGIT_VALUE : FILTER_ASSIGNMENT;
    else if (target.rule.keywordStart && target.rule.tokenAfterKeyword) filter |= FILTER_TOKEN_AFTER;
    else return 0;
  }
  return filter;
}

/** Which group of a match holds its secret (0: the whole match). */
function secretGroup(rule: SecretRule, m: RegExpExecArray): number {
  return rule.hasGroups && !rule.wholeMatch ? (rule.secretGroup > 0 ? rule.secretGroup : m.findIndex((g, i) => i > 0 && g !== undefined && g.length > 0)) : 0;
}

/**
 * Whether a generic match's secret lies inside one of `spans`, wherever in the match it is (the
 * first to the last place its text occurs there): then keeping it would change no merged span,
 * nor its kind (merge names a span by its specific kind).
 */
function insideFound(spans: readonly SecretSpan[], rule: SecretRule, m: RegExpExecArray, offset: number): boolean {
  if (spans.length === 0) return false;
  const group = secretGroup(rule, m);
  const secret = group > 0 && m[group] !== undefined ? m[group] : m[0];
  const start = offset + m.index + m[0].indexOf(secret);
  const end = offset + m.index + m[0].lastIndexOf(secret) + secret.length;
  for (const s of spans) if (s.start <= start && end <= s.end) return true;
  return false;
}

/** A private key block starting at `at`: header, base64 body, end line (or as far as it goes). */
function keyBlock(text: string, at: number): SecretSpan | undefined {
  KEY_HEADER.lastIndex = at;
  if (!KEY_HEADER.test(text)) return undefined;
  const bodyStart = KEY_HEADER.lastIndex;
  const limit = Math.min(text.length, at + MAX_KEY_BLOCK);
  const slice = text.slice(0, limit);
  KEY_BODY.lastIndex = bodyStart;
  KEY_BODY.test(slice);
  let bodyEnd = KEY_BODY.lastIndex;
  KEY_END.lastIndex = bodyEnd;
  if (KEY_END.test(slice)) return { start: at, end: KEY_END.lastIndex, kind: PRIVATE_KEY };
  // Its lines joined by blanks, the first at least as long as a key's line: up to the end line.
  KEY_WORDS.lastIndex = bodyStart;
  if (bodyEnd === bodyStart && KEY_WORDS.test(slice)) {
    const wordsEnd = KEY_WORDS.lastIndex;
    KEY_END.lastIndex = wordsEnd;
    if (KEY_END.test(slice)) return { start: at, end: KEY_END.lastIndex, kind: PRIVATE_KEY };
    KEY_LINE_WORDS.lastIndex = bodyStart;
    // To the text's end (a stream waits for the rest) or as far as its words are a key's lines.
    if (KEY_LINE_WORDS.test(slice)) bodyEnd = wordsEnd === limit ? limit : KEY_LINE_WORDS.lastIndex;
  }
  // A last line cut short that a blank and more text follow on its line, and shorter than a key's
  // line, is the first word of the text after the key ("Done. ..."), not the key's.
  BLANK_THEN_TEXT.lastIndex = bodyEnd;
  if (BLANK_THEN_TEXT.test(slice)) {
    KEY_WHOLE_LINES.lastIndex = bodyStart;
    KEY_WHOLE_LINES.test(slice);
    const lineStart = KEY_WHOLE_LINES.lastIndex;
    if (lineStart > bodyStart && bodyEnd - lineStart < MIN_KEY_LINE) bodyEnd = lineStart;
  }
  // Cut short: still a key. Open when the text ends inside it (a stream waits for the rest).
  if (bodyEnd === limit && limit < text.length) return { start: at, end: bodyEnd, kind: PRIVATE_KEY, truncated: true };
  if (bodyEnd === text.length) return { start: at, end: bodyEnd, kind: PRIVATE_KEY, open: true };
  // The line break after the last line of the body is not part of the key.
  let end = bodyEnd;
  if (text[end - 1] === "\n") end--;
  if (text[end - 1] === "\r") end--;
  return { start: at, end: Math.max(end, KEY_HEADER.lastIndex), kind: PRIVATE_KEY };
}

function merge(spans: SecretSpan[]): SecretSpan[] {
  if (spans.length <= 1) return spans;
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: SecretSpan[] = [spans[0]!];
  for (let i = 1; i < spans.length; i++) {
    const s = spans[i]!;
    const last = out[out.length - 1]!;
    if (s.start < last.end) {
      if (s.end > last.end) last.end = s.end;
      if (last.kind === GENERIC_KIND && s.kind !== GENERIC_KIND) last.kind = s.kind; // the specific name
      last.open ||= s.open;
      last.truncated ||= s.truncated;
    } else out.push({ ...s });
  }
  return out;
}

export function describeRedactions(found: Record<string, number>): string {
  return Object.entries(found)
    .map(([kind, n]) => `${n} ${kind}${n === 1 ? "" : "s"}`)
    .join(", ");
}

const SECRET_NAME_PARTS = new Set([
  "KEY",
  "APIKEY",
  "TOKEN",
  "SECRET",
  "SECRETS",
  "PASSWORD",
  "PASSWD",
  "PASS",
  "CREDENTIAL",
  "CREDENTIALS",
  "AUTH",
  "PRIVATE",
  "SESSION",
  "COOKIE",
  "DSN",
  "SIGNATURE",
  "PAT",
]);
const NOT_SECRET_NAMES = new Set([
  "PWD",
  "OLDPWD",
  "SSH_AUTH_SOCK",
  "XAUTHORITY",
  "GPG_AGENT_INFO",
  "KEYTIMEOUT",
  "SESSION_MANAGER",
  "DBUS_SESSION_BUS_ADDRESS",
  "XDG_SESSION_ID",
  "XDG_SESSION_TYPE",
  "XDG_SESSION_CLASS",
  "XDG_SESSION_DESKTOP",
  "DESKTOP_SESSION",
]);

/** Whether an environment variable's name says its value is a secret. */
export function looksSecretName(name: string): boolean {
  const upper = name.toUpperCase();
  if (NOT_SECRET_NAMES.has(upper) || /_(?:PATH|FILE|DIR|DIRS|URL_PATH|SOCK|ID)$/.test(upper)) return false;
  return upper.split(/[^A-Z0-9]+/).some((part) => SECRET_NAME_PARTS.has(part)) || /(?:KEY|TOKEN|SECRET|PASSWORD)$/.test(upper);
}

/** Values of environment variables whose names look secret, worth redacting wherever they appear. */
export function secretEnvValues(env: Record<string, string | undefined>): string[] {
  const values: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (typeof value !== "string" || value.length < MIN_LITERAL_LENGTH || !looksSecretName(name)) continue;
    if (/^(?:true|false|yes|no|null|none)$/i.test(value) || /^(?:\/|~\/|[A-Za-z]:\\)/.test(value) || /^\d+$/.test(value)) continue;
    values.push(value);
  }
  return values;
}

const scanners = new Map<string, SecretScanner>();

/** A scanner for these literals; reused while they stay the same. */
export function scannerFor(literals: readonly string[]): SecretScanner {
  const key = [...new Set(literals)].sort().join("\u0000");
  let scanner = scanners.get(key);
  if (!scanner) {
    scanner = new SecretScanner({ literals });
    if (scanners.size > 8) scanners.clear();
    scanners.set(key, scanner);
  }
  return scanner;
}
