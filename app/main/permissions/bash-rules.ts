// Bash rules with meaning: a rule's pattern names a command and its leading words, matched word
// by word against a parsed simple command (never against text, so `npm test; curl x` or
// `npm test$(curl x)` can never match `npm test *`).
//   `npm test *`  npm test, then any arguments (not options that run other code, see below)
//   `npm test`    exactly npm test
//   `npm run test:*`  a `*` inside a word matches any characters of that one word
//   `*`           any command Lathe can judge
// Allow rules match exactly so; a trailing `*` never covers an option that makes the command run
// other code (`git -c`, `npm --script-shell`: command-knowledge.ts) nor, for such commands, a word
// with wildcards. Deny rules match more: the command name as bash finds it (`/bin/rm`, `\rm`,
// `"rm"` are rm), the rule's other words in order anywhere after it, its options in any order
// (`-rf` matches `-r -f` and `-fr`), whatever follows; a pattern with `*` inside also matches the
// command's words as text, as rules did before this version. Pure; never throws.
import { CODE_RUNNING_OPTIONS, isCodeRunningOption } from "./command-knowledge.ts";

export interface BashPattern {
  /** The words before a final lone `*`. */
  words: string[];
  /** Per word: contains an unquoted `*`. */
  globs: boolean[];
  /** Ended with a lone `*`: any further arguments. */
  anyArgs: boolean;
  /** The pattern `*`: any command. */
  any: boolean;
  /** Why the pattern can never match (it is not one command). */
  invalid?: string;
  /** The pattern as text with `*` matching anything, for deny rules written before this version. */
  legacyText?: RegExp;
  /** The first word as a command name (commandName), kept once computed, case kept or folded. */
  name?: string;
  foldedName?: string;
}

const cache = new Map<string, BashPattern>();

export function parseBashPattern(pattern: string): BashPattern {
  let parsed = cache.get(pattern);
  if (!parsed) {
    parsed = parse(pattern.trim());
    if (cache.size > 2000) cache.clear();
    cache.set(pattern, parsed);
  }
  return parsed;
}

function parse(text: string): BashPattern {
  if (text === "*" || text === "**") return { words: [], globs: [], anyArgs: true, any: true };
  const words: string[] = [];
  const globs: boolean[] = [];
  let word: string | null = null;
  let glob = false;
  let invalid: string | undefined;
  const end = () => {
    if (word !== null) {
      words.push(word);
      globs.push(glob);
    }
    word = null;
    glob = false;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === " " || c === "\t" || c === "\n") end();
    else if (c === "\\" && i + 1 < text.length) word = (word ?? "") + text[++i];
    else if (c === "'" || c === '"') {
      const close = text.indexOf(c, i + 1);
      if (close === -1) {
        invalid ??= "it has an unterminated quote";
        break;
      }
      const inner = text.slice(i + 1, close);
      if (c === '"' && /[$`]/.test(inner)) invalid ??= "it contains $ or ` inside double quotes, which bash would expand";
      word = (word ?? "") + inner;
      i = close;
    } else if (";|&<>()`$".includes(c)) {
      invalid ??= `a rule names one command, and this pattern contains "${c}"`;
      word = (word ?? "") + c;
    } else {
      if (c === "*") glob = true;
      word = (word ?? "") + c;
    }
  }
  end();
  let anyArgs = false;
  if (words.length > 1 && words.at(-1) === "*" && globs.at(-1)) {
    words.pop();
    globs.pop();
    anyArgs = true;
  }
  const legacy = globs.some(Boolean) ? legacyRegExp(text) : undefined;
  if (words.length === 0) invalid ??= "the pattern is empty";
  return { words, globs, anyArgs, any: false, invalid, legacyText: legacy };
}

/** The old meaning of a pattern: its text, `*` matching anything (a trailing ` *` also nothing). */
function legacyRegExp(text: string): RegExp {
  const body = text
    .replace(/\s+/g, " ")
    .split("*")
    .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${body.endsWith(" .*") ? `${body.slice(0, -3)}(?: .*)?` : body}$`, "s");
}

/** A pattern's old meaning (text, `*` matching anything) applied to a command's text. */
export function legacyTextMatches(pattern: string, text: string): boolean {
  let re = legacyCache.get(pattern);
  if (!re) {
    re = legacyRegExp(pattern.trim());
    if (legacyCache.size > 2000) legacyCache.clear();
    legacyCache.set(pattern, re);
  }
  return re.test(text);
}
const legacyCache = new Map<string, RegExp>();

const globCache = new Map<string, RegExp>();
function wordGlob(pattern: string): RegExp {
  let re = globCache.get(pattern);
  if (!re) {
    re = new RegExp(
      `^${pattern
        .split("*")
        .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
        .join(".*")}$`,
      "s",
    );
    if (globCache.size > 2000) globCache.clear();
    globCache.set(pattern, re);
  }
  return re;
}

export interface CommandWords {
  /** Literal words after quote removal, the command word first (normalized by the caller). */
  words: string[];
  /** Per word: bash will expand wildcards in it. */
  globbed: boolean[];
}

/** Whether an allow rule's pattern covers a command. */
export function allowMatches(pattern: BashPattern, command: CommandWords): boolean {
  if (pattern.invalid) return false;
  if (pattern.any) return true;
  const { words, globbed } = command;
  if (words.length < pattern.words.length || (!pattern.anyArgs && words.length !== pattern.words.length)) return false;
  const name = words[0] ?? "";
  for (let i = 0; i < pattern.words.length; i++) {
    const want = pattern.words[i]!;
    const have = words[i]!;
    if (have === want) continue;
    if (!pattern.globs[i] || globbed[i] || isCodeRunningOption(name, have) || !wordGlob(want).test(have)) return false;
  }
  for (let i = pattern.words.length; i < words.length; i++) {
    if (isCodeRunningOption(name, words[i]!)) return false;
    // A file name bash expands could itself read as such an option (a file named `-c...`).
    if (globbed[i] && name in CODE_RUNNING_OPTIONS) return false;
  }
  return true;
}

/**
 * Whether a deny rule's pattern matches one form of a command (its words, the command word
 * already reduced to a name: see denyForms in deny-forms.ts).
 */
export function denyMatches(pattern: BashPattern, words: readonly string[], foldCase: boolean): boolean {
  if (pattern.any) return true;
  if (words.length === 0) return false;
  if (pattern.legacyText?.test(words.join(" "))) return true;
  if (pattern.words.length === 0) return false;
  // Most forms differ in their name: nothing is made before that is known.
  const name = foldCase ? (pattern.foldedName ??= commandName(pattern.words[0]!, true)) : (pattern.name ??= commandName(pattern.words[0]!, false));
  if (pattern.globs[0] ? !wordGlob(name).test(words[0]!) : name !== words[0]) return false;
  // The operands are the words after the name that are not options; the rule's operands are
  // looked for among them in order, its options anywhere.
  let letters: Set<string> | undefined;
  let at = 1;
  for (let i = 1; i < pattern.words.length; i++) {
    const want = pattern.words[i]!;
    if (isOption(want)) {
      if (want.startsWith("--")) {
        if (!hasLongOption(words, want)) return false;
      } else {
        letters ??= shortOptionLetters(words);
        for (const letter of want.slice(1)) if (!letters.has(letter)) return false;
      }
      continue;
    }
    const re = pattern.globs[i] ? wordGlob(want) : undefined;
    while (at < words.length && (isOption(words[at]!) || !(re ? re.test(words[at]!) : sameWord(words[at]!, want, foldCase)))) at++;
    if (at === words.length) return false;
    at++;
  }
  return true;
}

// Not a closure in denyMatches: a function that makes one gets a new context each call.
function sameWord(a: string, b: string, foldCase: boolean): boolean {
  return foldCase ? a.toLowerCase() === b.toLowerCase() : a === b;
}

function isOption(word: string): boolean {
  return word.startsWith("-") && word !== "-";
}

/** `--name` or `--name=value` among the words after the command's name. */
function hasLongOption(words: readonly string[], name: string): boolean {
  for (let i = 1; i < words.length; i++) {
    const o = words[i]!;
    if (isOption(o) && o.startsWith(name) && (o.length === name.length || o.charCodeAt(name.length) === 61)) return true;
  }
  return false;
}

/** The letters of the short options (`-rf`: r and f) among the words after the command's name. */
function shortOptionLetters(words: readonly string[]): Set<string> {
  const letters = new Set<string>();
  for (let i = 1; i < words.length; i++) {
    const o = words[i]!;
    if (isOption(o) && /^-[^-]/.test(o)) for (const letter of o.slice(1)) letters.add(letter);
  }
  return letters;
}

/** A command word as a deny rule sees it: quotes gone, a path reduced to its name. */
export function commandName(word: string, foldCase: boolean): string {
  let name = word.slice(Math.max(word.lastIndexOf("/"), word.lastIndexOf("\\")) + 1);
  if (foldCase) name = name.toLowerCase().replace(/\.(?:exe|cmd|bat|com)$/, "");
  return name;
}

/** What a bash rule means now, in a sentence, for the dialog and the rules screen. */
export function describeBashRule(patternText: string, action: "allow" | "deny"): string {
  const p = parseBashPattern(patternText);
  if (p.invalid) return action === "allow" ? `Never matches: ${p.invalid}.` : `Denies any command whose words read as this text (${p.invalid}).`;
  const shown = p.words.join(" ");
  if (action === "deny") {
    if (p.any) return "Denies every command.";
    const options = p.words.slice(1).filter((w) => w.startsWith("-"));
    return (
      `Denies ${p.words[0]}${
        p.words.length > 1
          ? ` with ${p.words
              .slice(1)
              .map((w) => (w.startsWith("-") ? w : `"${w}"`))
              .join(", ")}`
          : ""
      }` +
      `${options.length > 0 ? " (options in any order)" : ""}, whatever follows, however it is written (/bin/${p.words[0]}, \\${p.words[0]}, quoted) and ` +
      "inside sudo, env, xargs, find -exec, bash -c and the like" +
      (p.legacyText ? "; also any command whose words match the pattern as text" : "") +
      "."
    );
  }
  if (p.any) return "Allows any command Lathe can read word by word (never one with substitutions, variables as commands, loops or other code it cannot judge).";
  const globNote = p.globs.some(Boolean) ? " A * inside a word matches any characters of that word only." : "";
  if (!p.anyArgs) return `Allows exactly "${shown}", nothing added.${globNote}`;
  return `Allows "${shown}" followed by any arguments, except options that make it run other code (such as git -c or npm --script-shell).${globNote}`;
}

/** Quotes a word for a pattern when it needs it. */
export function quotePatternWord(word: string): string {
  if (word !== "" && /^[A-Za-z0-9_@%+=:,./~^-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", "'\\''")}'`;
}
