// Pure matching for the edit tool: every edit's oldText is located in the original text (exactly,
// or failing that after normalising trailing whitespace, Unicode quotes, dashes and spaces), must
// match exactly once, and must not overlap another edit. Failures throw EditError with a distinct
// `kind` and a bounded message that tells the model what to fix. Works on LF text; the caller
// handles CRLF and BOM around it.
//
// Cost: linear in the file. Occurrences are found with indexOf, never re-scanning what was passed;
// line numbers come from one forward pass over the positions in order; the normalised copy of the
// file is built only when an exact match fails, with a map back to the original that holds one
// entry per line whose trailing whitespace was dropped (not one per character); at most
// MAX_LISTED_MATCHES positions are ever turned into line numbers or text. The result is a list of
// splices, so the caller can write or diff it without a second copy of the file.

export interface TextEdit {
  oldText: string;
  newText: string;
}

export type EditErrorKind = "empty_old_text" | "not_found" | "ambiguous" | "overlap" | "no_change";

export class EditError extends Error {
  readonly kind: EditErrorKind;

  constructor(kind: EditErrorKind, message: string) {
    super(message);
    this.name = "EditError";
    this.kind = kind;
  }
}

/** One replacement in the original text: [start, end) becomes newText. */
export interface Splice {
  start: number;
  end: number;
  newText: string;
}

export interface EditPlan {
  /** Replacements in file order, non-overlapping. */
  splices: Splice[];
  /** Indices (0-based) of the edits that only matched after normalisation. */
  normalizedEdits: number[];
}

/** Ambiguity errors list the lines of at most this many matches. */
export const MAX_LISTED_MATCHES = 5;
/** Lines quoted in error messages are cut to this many characters. */
const MAX_QUOTED_LINE_CHARS = 300;

const QUOTES: Record<string, string> = {
  "\u2018": "'",
  "\u2019": "'",
  "\u201A": "'",
  "\u201B": "'",
  "\u2032": "'",
  "\u201C": '"',
  "\u201D": '"',
  "\u201E": '"',
  "\u201F": '"',
  "\u2033": '"',
  "\u2010": "-",
  "\u2011": "-",
  "\u2012": "-",
  "\u2013": "-",
  "\u2014": "-",
  "\u2015": "-",
  "\u2212": "-",
};
const ONE_FOR_ONE = /[\r\u00A0\u2000-\u200A\u202F\u205F\u3000\u2018\u2019\u201A\u201B\u2032\u201C\u201D\u201E\u201F\u2033\u2010-\u2015\u2212]/g;

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0d || code === 0xa0 || (code >= 0x2000 && code <= 0x200a) || code === 0x202f || code === 0x205f || code === 0x3000;
}

export interface Normalized {
  text: string;
  /** Index in the original text of the character at `index` of the normalised text. */
  originalIndex(index: number): number;
}

/**
 * The text with whitespace before each newline (and at the end) dropped, Unicode spaces and "\r"
 * as " ", and Unicode quotes and dashes as their ASCII forms. Every other character maps 1:1.
 */
export function normalizeForMatch(text: string): Normalized {
  const pieces: string[] = [];
  // For each line that lost trailing whitespace: where the next kept text starts in the
  // normalised text, and how many characters were dropped before it in total.
  const cutAt: number[] = [];
  const droppedBefore: number[] = [];
  let dropped = 0;
  let lineStart = 0;
  let normLength = 0;
  for (;;) {
    const nl = text.indexOf("\n", lineStart);
    const lineEnd = nl === -1 ? text.length : nl;
    let keptEnd = lineEnd;
    while (keptEnd > lineStart && isSpace(text.charCodeAt(keptEnd - 1))) keptEnd--;
    const piece = text.slice(lineStart, keptEnd) + (nl === -1 ? "" : "\n");
    pieces.push(piece);
    normLength += piece.length;
    if (keptEnd < lineEnd) {
      dropped += lineEnd - keptEnd;
      // The newline (or the end) that follows now sits at normLength - 1 (or normLength).
      cutAt.push(nl === -1 ? normLength : normLength - 1);
      droppedBefore.push(dropped);
    }
    if (nl === -1) break;
    lineStart = nl + 1;
  }
  const joined = pieces.join("").replace(ONE_FOR_ONE, (ch) => QUOTES[ch] ?? " ");
  return {
    text: joined,
    originalIndex(index: number): number {
      // The last cut at or before `index` tells how much was dropped before it.
      let lo = 0;
      let hi = cutAt.length - 1;
      let found = -1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if (cutAt[mid]! <= index) {
          found = mid;
          lo = mid + 1;
        } else hi = mid - 1;
      }
      return index + (found === -1 ? 0 : droppedBefore[found]!);
    },
  };
}

interface Occurrences {
  /** Positions of the first MAX_LISTED_MATCHES occurrences, in order. */
  first: number[];
  /** How many occurrences there are (overlapping ones counted once each, see below). */
  count: number;
}

/**
 * Where `needle` occurs in `haystack`. Whether it occurs more than once is decided exactly
 * (overlapping occurrences included); the count then continues past each match, so that the
 * total work stays linear in the haystack.
 */
function occurrences(haystack: string, needle: string): Occurrences {
  const firstAt = haystack.indexOf(needle);
  if (firstAt === -1) return { first: [], count: 0 };
  const secondAt = haystack.indexOf(needle, firstAt + 1);
  if (secondAt === -1) return { first: [firstAt], count: 1 };
  const first = [firstAt, secondAt];
  let count = 2;
  for (let i = haystack.indexOf(needle, secondAt + needle.length); i !== -1; i = haystack.indexOf(needle, i + needle.length)) {
    if (first.length < MAX_LISTED_MATCHES) first.push(i);
    count++;
  }
  return { first, count };
}

/** 1-based line numbers of ascending `positions`, in one forward pass. */
export function linesOf(text: string, positions: readonly number[]): number[] {
  const lines: number[] = [];
  let line = 1;
  let from = 0;
  for (const position of positions) {
    for (let nl = text.indexOf("\n", from); nl !== -1 && nl < position; nl = text.indexOf("\n", nl + 1)) {
      line++;
      from = nl + 1;
    }
    lines.push(line);
  }
  return lines;
}

function ambiguous(label: string, count: number, lines: number[], how: string): EditError {
  const more = count > lines.length ? `, and ${count - lines.length} more` : "";
  return new EditError(
    "ambiguous",
    `${label}: oldText is found ${count} times${how} (at lines ${lines.join(", ")}${more}); it must match exactly once. Include more surrounding lines to make it unique.`,
  );
}

interface Located {
  index: number;
  start: number;
  end: number;
  normalized: boolean;
}

function locate(original: string, normalized: () => Normalized, edit: TextEdit, index: number): Located {
  const label = `Edit #${index + 1}`;
  const exact = occurrences(original, edit.oldText);
  if (exact.count === 1) return { index, start: exact.first[0]!, end: exact.first[0]! + edit.oldText.length, normalized: false };
  if (exact.count > 1) throw ambiguous(label, exact.count, linesOf(original, exact.first), "");
  const needle = normalizeForMatch(edit.oldText).text;
  const norm = normalized();
  const fuzzy = needle === "" ? { first: [], count: 0 } : occurrences(norm.text, needle);
  if (fuzzy.count === 1) {
    const at = fuzzy.first[0]!;
    return { index, start: norm.originalIndex(at), end: norm.originalIndex(at + needle.length - 1) + 1, normalized: true };
  }
  if (fuzzy.count > 1) {
    // Newlines survive normalisation one for one, so line numbers can be counted in its text.
    throw ambiguous(label, fuzzy.count, linesOf(norm.text, fuzzy.first), " once whitespace and quotes are normalised");
  }
  throw new EditError("not_found", `${label}: oldText was not found.${closestMatchHint(original, edit.oldText)}`);
}

/** Locates all edits in `original` (LF text); throws EditError when any cannot apply. */
export function planEdits(original: string, edits: readonly TextEdit[]): EditPlan {
  edits.forEach((edit, i) => {
    if (edit.oldText === "") throw new EditError("empty_old_text", `Edit #${i + 1}: oldText is empty; give the exact text to replace.`);
  });
  let normalized: Normalized | undefined;
  const lazyNormalized = () => (normalized ??= normalizeForMatch(original));
  const located = edits.map((edit, i) => locate(original, lazyNormalized, edit, i));
  const sorted = [...located].sort((a, b) => a.start - b.start);
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1]!;
    const b = sorted[i]!;
    if (b.start < a.end) {
      throw new EditError("overlap", `Edits #${a.index + 1} and #${b.index + 1} overlap (around line ${linesOf(original, [b.start])[0]}); merge them into one edit.`);
    }
  }
  const splices = sorted.map((loc) => ({ start: loc.start, end: loc.end, newText: edits[loc.index]!.newText }));
  if (splices.every((s) => original.slice(s.start, s.end) === s.newText)) {
    throw new EditError("no_change", "The edits change nothing: each newText equals the text it replaces.");
  }
  return {
    splices,
    normalizedEdits: located
      .filter((l) => l.normalized)
      .map((l) => l.index)
      .sort((a, b) => a - b),
  };
}

/** The text with the splices applied (for callers that need it whole; small texts). */
export function applySplices(original: string, splices: readonly Splice[]): string {
  const parts: string[] = [];
  let at = 0;
  for (const s of splices) {
    parts.push(original.slice(at, s.start), s.newText);
    at = s.end;
  }
  parts.push(original.slice(at));
  return parts.join("");
}

/** Applies all edits to `original` (LF text); throws EditError when any cannot apply. */
export function applyEdits(original: string, edits: readonly TextEdit[]): { content: string; normalizedEdits: number[] } {
  const plan = planEdits(original, edits);
  return { content: applySplices(original, plan.splices), normalizedEdits: plan.normalizedEdits };
}

/** Lines are compared on at most this many characters. */
const SIMILARITY_CHARS = 400;
/** The search for the closest text stops after this long and shows the best found so far. */
const HINT_BUDGET_MS = 2_000;

/** A line's character bigrams (of its trimmed first SIMILARITY_CHARS characters), as numbers. */
function bigramCodes(s: string): number[] {
  const t = s.trim().slice(0, SIMILARITY_CHARS);
  const codes: number[] = [];
  for (let i = 0; i < t.length - 1; i++) codes.push(t.charCodeAt(i) * 65536 + t.charCodeAt(i + 1));
  return codes;
}

/** Dice similarity against one fixed line, without allocating per compared line. */
class SimilarityTo {
  readonly #trimmed: string;
  readonly #ids = new Map<number, number>();
  readonly #counts: number[] = [];
  readonly #used: Int32Array;
  readonly #touched: Int32Array;
  readonly #total: number;

  constructor(line: string) {
    this.#trimmed = line.trim();
    const codes = bigramCodes(line);
    for (const code of codes) {
      const id = this.#ids.get(code);
      if (id === undefined) {
        this.#ids.set(code, this.#counts.length);
        this.#counts.push(1);
      } else this.#counts[id]!++;
    }
    this.#used = new Int32Array(this.#counts.length);
    this.#touched = new Int32Array(SIMILARITY_CHARS);
    this.#total = codes.length;
  }

  /** 1 for equal trimmed lines, 0 for nothing in common. */
  of(line: string): number {
    const t = line.trim();
    if (t === this.#trimmed) return 1;
    const n = Math.max(0, Math.min(t.length, SIMILARITY_CHARS) - 1);
    if (n + this.#total === 0) return 0;
    let common = 0;
    let touched = 0;
    for (let i = 0; i < n; i++) {
      const id = this.#ids.get(t.charCodeAt(i) * 65536 + t.charCodeAt(i + 1));
      if (id !== undefined && this.#used[id]! < this.#counts[id]!) {
        if (this.#used[id] === 0) this.#touched[touched++] = id;
        this.#used[id]!++;
        common++;
      }
    }
    for (let k = 0; k < touched; k++) this.#used[this.#touched[k]!] = 0;
    return (2 * common) / (n + this.#total);
  }
}

function quoteLine(line: string): string {
  return line.length > MAX_QUOTED_LINE_CHARS ? `${line.slice(0, MAX_QUOTED_LINE_CHARS)}… [line cut]` : line;
}

/**
 * Shows the lines of `original` most like `oldText`, numbered, so the model can correct itself.
 * Linear in the file, and given up after HINT_BUDGET_MS with the best candidates found by then.
 */
function closestMatchHint(original: string, oldText: string): string {
  const oldLines = oldText.split("\n");
  const anchor = oldLines.findIndex((l) => l.trim() !== "");
  if (anchor === -1) return "";
  const anchorSimilarity = new SimilarityTo(oldLines[anchor]!);
  const fileLines = original.split("\n");
  const deadline = Date.now() + HINT_BUDGET_MS;
  // Candidates: the file lines most like the first non-blank line of oldText.
  const candidates: { i: number; score: number }[] = [];
  for (let i = 0; i < fileLines.length; i++) {
    if ((i & 4095) === 4095 && Date.now() > deadline) break;
    const score = anchorSimilarity.of(fileLines[i]!);
    if (candidates.length < 5 || score > candidates[candidates.length - 1]!.score) {
      candidates.push({ i, score });
      candidates.sort((a, b) => b.score - a.score);
      if (candidates.length > 5) candidates.pop();
    }
  }
  let best = { start: 0, score: 0 };
  const compared = Math.min(oldLines.length, 200);
  const similarities = oldLines.slice(0, compared).map((l) => new SimilarityTo(l));
  for (const c of candidates) {
    const start = Math.max(0, c.i - anchor);
    let score = 0;
    for (let k = 0; k < compared; k++) score += similarities[k]!.of(fileLines[start + k] ?? "");
    score /= compared;
    if (score > best.score) best = { start, score };
  }
  if (best.score < 0.3) return " No similar text was found either; read the file to see its current content.";
  const end = Math.min(fileLines.length, best.start + Math.min(oldLines.length, 40));
  const shown = fileLines
    .slice(best.start, end)
    .map((l, k) => `${String(best.start + k + 1).padStart(6)}\t${quoteLine(l)}`)
    .join("\n");
  return ` The closest text is at lines ${best.start + 1}-${end}:\n${shown}\noldText must match the file exactly, whitespace and indentation included.`;
}
