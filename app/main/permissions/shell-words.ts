// What one shell word means before it runs, read from its syntax node: its literal value after
// quote removal, or null when bash would compute it (expansions, substitutions, ANSI-C or locale
// quoting, brace expansion, `~user`), with the reason. Unquoted glob characters are kept in the
// value and flagged, since bash replaces them by file names. Pure; never throws.
import type { SyntaxNode } from "./shell-parser.ts";

export interface ShellWord {
  /** The word after quote removal, or null when it is computed when the command runs. */
  value: string | null;
  /** Contains unquoted `*`, `?` or `[...]`: bash may replace it with file names. */
  glob: boolean;
  /** Starts with an unquoted `~` or `~/`: bash replaces it with the home folder. */
  tilde: boolean;
}

/** Why a node's value is not known before it runs, by node type. */
export const COMPUTED_REASONS: Record<string, string> = {
  ansi_c_string: "uses ANSI-C quoting ($'...'), which bash decodes when it runs",
  translated_string: 'uses locale quoting ($"..."), which bash translates when it runs',
  simple_expansion: "expands a variable ($NAME), whose value is only known when it runs",
  expansion: "expands a parameter (${...}), whose value is only known when it runs",
  command_substitution: "contains command substitution ($(...) or backticks)",
  process_substitution: "contains process substitution (<(...) or >(...))",
  arithmetic_expansion: "contains arithmetic expansion ($((...)))",
  brace_expression: "uses brace expansion ({a..b})",
};

export function wordOf(node: SyntaxNode, source: string, reasons: Set<string>): ShellWord {
  if (node.type === "word") {
    const known = internedWord(source, node.start, node.end);
    if (known) return known;
  }
  const raw = source.slice(node.start, node.end);
  const out: ShellWord = { value: "", glob: false, tilde: false };
  // Brace expansion and bracket globs span the parser's pieces (`r{m,}` and `a[b]` are several
  // words to it): look at the whole word with its quoted parts blanked out (no brace or bracket
  // at all: nothing to look for).
  const braces = raw.includes("{");
  const brackets = raw.includes("[");
  const unquotedText = braces || brackets ? raw.replace(/\\[\s\S]|'[^']*'|"(?:[^"\\]|\\[\s\S])*"/g, (m) => "_".repeat(m.length)) : "";
  if (braces && hasBraceExpansion(unquotedText)) {
    fail(out, reasons, "uses brace expansion ({a,b} or {1..3})");
    return out;
  }
  append(node, source, out, reasons, true, raw);
  // `.en[v]` is a pattern bash replaces by the file names it matches (`.env`), however the
  // parser split it.
  if (hasBracketPair(unquotedText)) out.glob = true;
  return out;
}

// Both scans are linear: the regular expressions they replace (/\{[^{}\s]*(?:,|\.\.)[^{}\s]*\}/
// and /\[[\s\S]*\]/) backtracked quadratically, a second for a 32 KB word of `{,,,` or `a[[[`.

/** A `{` and later a `}` with no brace or whitespace between them, and a `,` or `..` there: `{a,b}`, `{1..3}`. */
export function hasBraceExpansion(text: string): boolean {
  for (let open = text.indexOf("{"); open !== -1; open = text.indexOf("{", open + 1)) {
    let end = open + 1;
    let list = false;
    for (; end < text.length; end++) {
      const c = text.charCodeAt(end);
      if (c === 0x7b || c === 0x7d || isSpace(c)) break;
      if (c === 0x2c || (c === 0x2e && text.charCodeAt(end + 1) === 0x2e)) list = true;
    }
    if (list && text.charCodeAt(end) === 0x7d) return true;
    // Nothing between this `{` and where the run stopped holds another `{`: go on from there.
    if (end > open + 1) open = end - 1;
  }
  return false;
}

/** A `[` with a `]` somewhere after it. */
export function hasBracketPair(text: string): boolean {
  const open = text.indexOf("[");
  return open !== -1 && text.lastIndexOf("]") > open;
}

/** What \s matches (JavaScript's white space and line terminators). */
function isSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d) || (c > 0x7f && /\s/.test(String.fromCharCode(c)));
}

function fail(out: ShellWord, reasons: Set<string>, reason: string): void {
  out.value = null;
  reasons.add(reason);
}

function append(node: SyntaxNode, source: string, out: ShellWord, reasons: Set<string>, first: boolean, text = source.slice(node.start, node.end)): void {
  switch (node.type) {
    case "word":
    case "number":
      return unquoted(text, out, reasons, first);
    case "raw_string":
      if (out.value !== null) out.value += source.slice(node.start + 1, Math.max(node.start + 1, node.end - 1));
      return;
    case "string":
      return doubleQuoted(node, source, out, reasons);
    case "concatenation":
      for (let i = 0; i < node.children.length; i++) {
        // The string of a `$"..."` is still read, for its own reasons (the value is null by then).
        if (translatedString(node.children, i)) fail(out, reasons, COMPUTED_REASONS.translated_string!);
        else append(node.children[i]!, source, out, reasons, first && i === 0);
      }
      return;
    default:
      fail(out, reasons, COMPUTED_REASONS[node.type] ?? `contains ${describeNode(node)}, which is not a plain word`);
  }
}

/**
 * Whether `nodes[i]` is the `$` of a `$"..."` the parser gave apart from its string (in an argument
 * or inside a word; elsewhere it gives a translated_string): a `$` token the string follows at once.
 */
export function translatedString(nodes: SyntaxNode[], i: number): boolean {
  const next = nodes[i + 1];
  return nodes[i]!.type === "$" && next !== undefined && next.type === "string" && next.start === nodes[i]!.end;
}

export function describeNode(node: SyntaxNode): string {
  return node.named ? node.type.replaceAll("_", " ") : `"${node.type}"`;
}

/** Characters that mean nothing special in an unquoted word (see `unquoted`). */
const PLAIN_WORD = /^[^\\*?[$`()<>;&|]*$/;

/** Unquoted text: backslash escapes, globs and tilde. */
function unquoted(text: string, out: ShellWord, reasons: Set<string>, first: boolean): void {
  if (first && text.startsWith("~")) {
    const slash = text.indexOf("/");
    const user = slash === -1 ? text.slice(1) : text.slice(1, slash);
    if (user !== "") return fail(out, reasons, "uses ~user, which bash expands to that user's home folder");
    out.tilde = true;
  }
  // Most words have nothing to remove or flag: their text is their value.
  if (PLAIN_WORD.test(text)) {
    if (out.value !== null) out.value += text;
    return;
  }
  let value = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "\\") {
      const next = text[i + 1];
      if (next === undefined) {
        value += "\\";
      } else if (next !== "\n") {
        value += next;
      }
      i++;
      continue;
    }
    // A bracket glob (`a[b]`) is flagged by wordOf, which sees the whole word.
    if (c === "*" || c === "?") out.glob = true;
    else if (c === "$" && i < text.length - 1) return fail(out, reasons, "expands a variable, whose value is only known when it runs");
    else if ("`()<>;&|".includes(c)) return fail(out, reasons, `contains an unquoted "${c}" inside a word`);
    value += c;
  }
  if (out.value !== null) out.value += value;
}

/** "..." with only literal content: `\$`, `` \` ``, `\"`, `\\` and `\newline` are escapes. */
function doubleQuoted(node: SyntaxNode, source: string, out: ShellWord, reasons: Set<string>): void {
  // Text between the child nodes is content too: walk the whole range, not only string_content.
  const end = node.end - 1;
  let pos = node.start + 1;
  let content = "";
  for (const child of node.children) {
    if (child.start < pos || child.end > end) continue; // the quotes
    content += source.slice(pos, child.start);
    pos = child.end;
    if (child.type === "string_content") content += source.slice(child.start, child.end);
    else if (!(child.type === "$" && child.end === end)) {
      fail(out, reasons, COMPUTED_REASONS[child.type] ?? `contains ${describeNode(child)} inside double quotes`);
    } else content += "$";
  }
  content += source.slice(pos, Math.max(pos, end));
  if (out.value !== null) out.value += content.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === "\n" ? "" : c));
}

/**
 * Plain words (printable ASCII with nothing bash expands or removes: no backslash, quote, glob,
 * `$`, brace, operator, or leading `~`) seen before, interned: their ShellWord is the same frozen
 * object each time (`npm`, `--silent`), so judging a line makes no string or object for them. A
 * word is interned the second time its hash comes up (a file name met once never is), in a table
 * of fixed size where a later word replaces an earlier one: what it holds is bounded.
 */
const INTERNED_SLOTS = 1024;
const INTERNED_MAX_LENGTH = 48;
const interned: (ShellWord | undefined)[] = new Array<ShellWord | undefined>(INTERNED_SLOTS).fill(undefined);
const internedSeen = new Int32Array(INTERNED_SLOTS);
/** Per ASCII code: 1 when it keeps a word from being plain (see internedWord). */
const NOT_PLAIN = new Uint8Array(128);
for (const c of "\\*?[$`()<>;&|{'\"") NOT_PLAIN[c.charCodeAt(0)] = 1;

function internedWord(source: string, start: number, end: number): ShellWord | undefined {
  const length = end - start;
  if (length <= 0 || length > INTERNED_MAX_LENGTH || source.charCodeAt(start) === 126) return undefined; // ~
  let hash = 0x811c9dc5;
  for (let i = start; i < end; i++) {
    const c = source.charCodeAt(i);
    if (c <= 32 || c >= 127 || NOT_PLAIN[c] === 1) return undefined;
    hash = Math.imul(hash ^ c, 0x01000193);
  }
  hash ^= length;
  const slot = (hash >>> 0) % INTERNED_SLOTS;
  const known = interned[slot];
  if (known && known.value!.length === length && source.startsWith(known.value!, start)) return known;
  if (internedSeen[slot] !== hash) {
    internedSeen[slot] = hash;
    return undefined;
  }
  // A copy of its own: a slice of a long string would keep the whole command line alive.
  const value = Buffer.from(source.slice(start, end), "latin1").toString("latin1");
  const word: ShellWord = Object.freeze({ value, glob: false, tilde: false });
  interned[slot] = word;
  return word;
}
