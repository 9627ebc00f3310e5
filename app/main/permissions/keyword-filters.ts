// What must follow a keyword for a redaction rule to possibly match there, checked inside the
// keyword loop so that most keyword hits ("key" in "key handling", "auth" in "Author:") never
// reach JavaScript. Three checks, all cheap and bounded:
// - TOKEN_AFTER: a token character follows the keyword (rules whose match begins with it: `ghp_`,
//   JWT's `ey`);
// - ASSIGNMENT: an assignment-like operator follows within 24 characters, then a value of at least
//   5 token characters (the `[\w.-]{0,50}?keyword...` rules: see `assignmentFollows`);
// - DIGIT_VALUE: the generic rule's assignment to its exact bounds, with a value of 10 characters
//   or more holding a digit (`digitValueAssigned`: "apiKey = process.env.API_KEY" is not one).
// A keyword's hits are reported when any of its bits' checks passes.
// `assignmentFollows`, `digitValueAssigned` and `isTokenChar` are the exact checks, on the text's characters (the
// scanner applies them again to every hit). `mayPass` is the loop's prefilter: the same checks on
// each character's low byte (as the WebAssembly loop sees latin1 bytes), and "pass" whenever the
// look-ahead would reach past `limit`; so whenever the exact check passes, `mayPass` passes too.
// Pure; never throws.

/** A token character must follow the keyword. */
export const FILTER_TOKEN_AFTER = 1;
/** An assignment of a value must follow the keyword. */
export const FILTER_ASSIGNMENT = 2;
/** The generic rule's assignment (digitValueAssigned) must follow the keyword. */
export const FILTER_DIGIT_VALUE = 4;
/** How far past a keyword the checks look (24 + 4 + 6 + 5 characters, rounded up; digitValueAssigned may look further, and passes where it would read past its limit). */
export const FILTER_LOOKAHEAD = 40;

/** Bits of BYTE_KINDS. */
export const KIND_BEFORE_OPERATOR = 1;
export const KIND_OPERATOR = 2;
export const KIND_BEFORE_VALUE = 4;
export const KIND_TOKEN = 8;
export const KIND_VALUE = 16;
export const KIND_BEFORE_VALUE_OR_OPERATOR = 32;

/**
 * Bytes that make a chunk of terminal output other than plain text: C0 controls but tab and line
 * feed (carriage return and escape included), DEL, and the 8-bit CSI (0x9b). Text is copied in as
 * latin1, so a character past 255 is tested by its low byte: it may be flagged, never missed.
 */
export function isControlByte(c: number): boolean {
  return (c < 32 && c !== 9 && c !== 10) || c === 127 || c === 0x9b;
}

/** [\w.-] */
export function isWordish(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 46 || c === 45;
}

/** \w: [A-Za-z0-9_]. */
export function isWordChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

/** Characters of tokens and keys: [A-Za-z0-9_.~+/=-]. */
export function isTokenChar(c: number): boolean {
  return isWordish(c) || c === 126 || c === 43 || c === 47 || c === 61;
}

/** = : > , | ? */
function isOperator(c: number): boolean {
  return c === 61 || c === 58 || c === 62 || c === 44 || c === 124 || c === 63;
}

/** Between the keyword and its operator: word characters, blanks and quotes. */
function isBeforeOperator(c: number): boolean {
  return isWordish(c) || c === 32 || c === 9 || c === 10 || c === 13 || c === 39 || c === 34 || c === 11 || c === 12;
}

/** Between the operator and the value: ` ' " blanks and =. */
function isBeforeValue(c: number): boolean {
  return c === 96 || c === 39 || c === 34 || c === 32 || c === 9 || c === 10 || c === 13 || c === 61;
}

/** After an operator's first character, before the value: = : > | ` ' " and ASCII blanks. */
function isBeforeValueOrOperator(c: number): boolean {
  return c === 61 || c === 58 || c === 62 || c === 124 || c === 96 || c === 39 || c === 34 || c === 32 || (c >= 9 && c <= 13);
}

/** Per byte value: which of the sets above it belongs to (KIND_* bits). */
export const BYTE_KINDS: Uint8Array = Uint8Array.from({ length: 256 }, (_, c) => {
  if (c >= 128) return 0;
  return (
    (isBeforeOperator(c) ? KIND_BEFORE_OPERATOR : 0) |
    (isOperator(c) ? KIND_OPERATOR : 0) |
    (isBeforeValue(c) ? KIND_BEFORE_VALUE : 0) |
    (isTokenChar(c) ? KIND_TOKEN : 0) |
    (isValueChar(c) ? KIND_VALUE : 0) |
    (isBeforeValueOrOperator(c) ? KIND_BEFORE_VALUE_OR_OPERATOR : 0)
  );
});

/**
 * The cheap part of every `[\w.-]{0,50}?keyword[ \t\w.-]{0,20}[\s'"]{0,3}(?:=|>|:|,|\|\||?=)
 * [\x60'"\s=]{0,5}(value)` rule: an assignment-like operator within 24 characters of word, blank
 * or quote characters, then a value of at least 5 token characters (no such rule's is shorter).
 */
export function assignmentFollows(text: string, from: number): boolean {
  return assignmentAt(text, from, text.length, 0xffff);
}

/**
 * The prefilter of the keyword loop for a keyword ending at `at` (the `filter` bits of its
 * keywords): whether a rule may match there. Reads text[at, limit) only.
 */
export function mayPass(text: string, at: number, limit: number, filter: number): boolean {
  if (filter === 0) return true;
  if ((filter & FILTER_TOKEN_AFTER) !== 0) {
    if (at >= limit || (BYTE_KINDS[text.charCodeAt(at) & 0xff]! & KIND_TOKEN) !== 0) return true;
  }
  if ((filter & FILTER_DIGIT_VALUE) !== 0 && digitValueAt(text, at, limit, 0xff, true)) return true;
  if ((filter & FILTER_ASSIGNMENT) === 0) return false;
  if (at + FILTER_LOOKAHEAD > limit) return true;
  return assignmentAt(text, at, limit, 0xff);
}

/** A character of the generic rule's value, `[\w.=-]` or (any case) `[a-z0-9+/]`: a token character but ~. */
function isValueChar(c: number): boolean {
  return c !== 126 && isTokenChar(c);
}

/**
 * The generic rule (`[\w.-]{0,50}?keyword(?:[ \t\w.-]{0,20})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|
 * \?=|,)[\x60'"\s=]{0,5}([\w.=-]{10,150}|[a-z0-9][a-z0-9+/]{11,}={0,3})`, a match kept only when
 * its value holds a digit) after a keyword ending at `from`, to its exact bounds: the operator is
 * the first character that is not a gap character (word, blank, quote: what may stand between),
 * at most 23 characters on; after its first character come only operator characters, quotes,
 * blanks and = up to the first other character, which begins the value's run of value characters
 * (the value may take = signs before it), and the value starts at most 9 characters after the
 * operator's first (4 of operator, 5 of the rest). Whether that run has at least 10 characters
 * from there with a digit among them: false only where no kept match can be. As
 * assignmentFollows, only ASCII characters count as gap and blank characters.
 */
export function digitValueAssigned(text: string, from: number): boolean {
  return digitValueAt(text, from, text.length, 0xffff, false);
}

/**
 * digitValueAssigned over text[from, limit), each character code masked with `mask`; `past`:
 * the answer where the check would read at or past `limit`, or go on past 1,024 characters.
 */
function digitValueAt(text: string, from: number, limit: number, mask: number, past: boolean): boolean {
  if (past && from + 24 > limit) return true;
  const gapEnd = Math.min(limit, from + 24);
  let q = from;
  while (q < gapEnd && isBeforeOperator(text.charCodeAt(q) & mask)) q++;
  if (q === gapEnd) return false;
  const op = text.charCodeAt(q) & mask;
  if (op === 124 || op === 63) {
    if (q + 1 >= limit) return past;
    if ((text.charCodeAt(q + 1) & mask) !== (op === 124 ? 124 : 61)) return false;
  } else if (!isOperator(op)) return false;
  let f = q + 1;
  for (; ; f++) {
    if (f >= limit || f - q > 1024) return past || f - q > 1024;
    if (!isBeforeValueOrOperator(text.charCodeAt(f) & mask)) break;
  }
  if (!isValueChar(text.charCodeAt(f) & mask)) return false;
  let start = f;
  while (start > q + 1 && (text.charCodeAt(start - 1) & mask) === 61) start--;
  if (start > q + 9) return false;
  let digit = false;
  for (let e = f; ; e++) {
    if (e >= limit) return past;
    const c = text.charCodeAt(e) & mask;
    if (!isValueChar(c)) return false;
    if (c >= 48 && c <= 57) digit = true;
    if ((digit && e + 1 - start >= 10) || e - start >= 1024) return true;
  }
}

/** assignmentFollows over text[from, length), each character code masked with `mask`. */
function assignmentAt(text: string, from: number, length: number, mask: number): boolean {
  const to = Math.min(length, from + 24);
  let i = from;
  for (; i < to; i++) {
    const c = text.charCodeAt(i) & mask;
    if (isOperator(c)) break;
    if (!isBeforeOperator(c)) return false;
  }
  if (i === to) return false;
  for (let n = 0; n < 4 && i < length && isOperator(text.charCodeAt(i) & mask); n++) i++;
  for (let n = 0; n < 6 && i < length && isBeforeValue(text.charCodeAt(i) & mask); n++) i++;
  let run = 0;
  while (run < 5 && i + run < length && isTokenChar(text.charCodeAt(i + run) & mask)) run++;
  return run >= 5;
}
