// Checks of a command line's characters that the syntax tree does not show: control characters,
// invisible or direction-changing characters, non-ASCII look-alikes outside quotes, and text the
// parser skipped between tokens (where bash and the parser may disagree about where words end).
// Each returns what it found (a reason or a warning) or nothing; pure; never throws.
import type { SyntaxNode } from "./shell-parser.ts";

// Control characters other than tab and newline: bash and the parser may read them differently.
// eslint-disable-next-line no-control-regex -- control characters are what is looked for
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f]/;
// Zero-width, invisible and direction-changing characters: the dialog would not show them.
// eslint-disable-next-line no-misleading-character-class -- single code points are meant, joiners included
const INVISIBLE = /[\u00ad\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0]/;
const NON_ASCII = /[\u0080-\uffff]/;

const NONE: readonly string[] = Object.freeze([]);

/** Why the characters of `source` alone keep any rule from allowing it (none: empty). */
export function characterReasons(source: string): readonly string[] {
  // Tested first: most lines have neither, and then no match or list is made.
  if (!CONTROL.test(source) && !INVISIBLE.test(source)) return NONE;
  const reasons: string[] = [];
  const control = CONTROL.exec(source);
  if (control) reasons.push(`contains a control character (${codePoint(control[0])}), which bash and the dialog may read differently`);
  const invisible = INVISIBLE.exec(source);
  if (invisible) reasons.push(`contains an invisible or direction-changing character (${codePoint(invisible[0])})`);
  return reasons;
}

/** A warning for a non-ASCII character outside quotes (it may look like another one), or undefined. */
export function lookAlikeWarning(source: string): string | undefined {
  if (!NON_ASCII.test(source)) return undefined;
  const lookAlike = NON_ASCII.exec(source.replace(/'[^']*'|"(?:[^"\\]|\\.)*"/g, ""));
  return lookAlike ? `Contains a character outside ASCII (${codePoint(lookAlike[0])}) outside quotes: it may look like another one.` : undefined;
}

function codePoint(char: string): string {
  return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
}

/**
 * Every character the parser left outside a token must be a blank, a newline or a line
 * continuation; two words may only be joined by a blank. Otherwise bash and the parser disagree
 * about where words end (`te\<newline>st` is one word to bash, two to the parser).
 */
export function skippedTextReason(root: SyntaxNode, source: string): string | undefined {
  skipSource = source;
  skipPos = 0;
  skipped = false;
  visitLeaves(root);
  skipSource = "";
  return skipped || !onlyBlanks(source, skipPos, source.length) ? "contains text the parser skipped, which bash may read differently" : undefined;
}

// The walk's state, in the module rather than a closure's context (one walk at a time: it is synchronous).
let skipSource = "";
let skipPos = 0;
let skipped = false;

function visitLeaves(n: SyntaxNode): void {
  if (skipped) return;
  if (n.children.length > 0) {
    for (let i = 0; i < n.children.length; i++) visitLeaves(n.children[i]!);
    return;
  }
  if (n.start < skipPos) return;
  if (!onlyBlanks(skipSource, skipPos, n.start)) skipped = true;
  skipPos = n.end;
}

/** Whether source[from, to) is only blanks, newlines and line continuations (`\` newline). */
function onlyBlanks(source: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = source.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10) continue;
    if (c === 92 && i + 1 < to && source.charCodeAt(i + 1) === 10) {
      i++;
      continue;
    }
    return false;
  }
  return true;
}

/** Where the line continuations (`\` newline) that follow `from` end, not past `to`. */
export function afterContinuations(source: string, from: number, to: number): number {
  let at = from;
  while (at + 2 <= to && source.charCodeAt(at) === 92 && source.charCodeAt(at + 1) === 10) at += 2;
  return at;
}
