// Pure matching for the edit tool: every edit's oldText is located in the original text (exactly,
// or failing that after normalising trailing whitespace, Unicode quotes, dashes and spaces), must
// match exactly once, and must not overlap another edit. Failures throw EditError with a distinct
// `kind` and a message that tells the model what to fix. Works on LF text; the tool handles CRLF
// and BOM around it.

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

export interface EditResult {
  content: string;
  /** Indices (0-based) of the edits that only matched after normalisation. */
  normalizedEdits: number[];
}

interface Located {
  index: number;
  start: number;
  end: number;
  normalized: boolean;
}

const QUOTES: Record<string, string> = {
  "\u2018": "'", "\u2019": "'", "\u201A": "'", "\u201B": "'", "\u2032": "'",
  "\u201C": '"', "\u201D": '"', "\u201E": '"', "\u201F": '"', "\u2033": '"',
  "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2015": "-", "\u2212": "-",
};
const UNICODE_SPACE = /[\u00A0\u2000-\u200A\u202F\u205F\u3000]/;

/** The normalised text, and for each of its characters the index of the original one. */
export function normalizeForMatch(text: string): { text: string; map: number[] } {
  const out: string[] = [];
  const map: number[] = [];
  let pendingSpace: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === " " || ch === "\t" || ch === "\r" || UNICODE_SPACE.test(ch)) {
      pendingSpace.push(i);
      continue;
    }
    // Whitespace before a newline is dropped; elsewhere it is kept, Unicode spaces as " ".
    if (ch !== "\n") {
      for (const j of pendingSpace) {
        out.push(text[j] === "\t" ? "\t" : " ");
        map.push(j);
      }
    }
    pendingSpace = [];
    out.push(QUOTES[ch] ?? ch);
    map.push(i);
  }
  return { text: out.join(""), map };
}

function occurrences(haystack: string, needle: string): number[] {
  const found: number[] = [];
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + 1)) found.push(i);
  return found;
}

export function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

function locate(original: string, normalizedOriginal: ReturnType<typeof normalizeForMatch>, edit: TextEdit, index: number): Located {
  const label = `Edit #${index + 1}`;
  const exact = occurrences(original, edit.oldText);
  if (exact.length === 1) return { index, start: exact[0]!, end: exact[0]! + edit.oldText.length, normalized: false };
  if (exact.length > 1) {
    const lines = exact.map((i) => lineOf(original, i)).join(", ");
    throw new EditError(
      "ambiguous",
      `${label}: oldText is found ${exact.length} times (at lines ${lines}); it must match exactly once. Include more surrounding lines to make it unique.`,
    );
  }
  const needle = normalizeForMatch(edit.oldText).text;
  const fuzzy = needle === "" ? [] : occurrences(normalizedOriginal.text, needle);
  if (fuzzy.length === 1) {
    const start = normalizedOriginal.map[fuzzy[0]!]!;
    const end = normalizedOriginal.map[fuzzy[0]! + needle.length - 1]! + 1;
    return { index, start, end, normalized: true };
  }
  if (fuzzy.length > 1) {
    const lines = fuzzy.map((i) => lineOf(original, normalizedOriginal.map[i]!)).join(", ");
    throw new EditError(
      "ambiguous",
      `${label}: oldText is found ${fuzzy.length} times once whitespace and quotes are normalised (at lines ${lines}); it must match exactly once. Include more surrounding lines to make it unique.`,
    );
  }
  throw new EditError("not_found", `${label}: oldText was not found.${closestMatchHint(original, edit.oldText)}`);
}

/** Applies all edits to `original` (LF text); throws EditError when any cannot apply. */
export function applyEdits(original: string, edits: TextEdit[]): EditResult {
  edits.forEach((edit, i) => {
    if (edit.oldText === "") throw new EditError("empty_old_text", `Edit #${i + 1}: oldText is empty; give the exact text to replace.`);
  });
  const normalizedOriginal = normalizeForMatch(original);
  const located = edits.map((edit, i) => locate(original, normalizedOriginal, edit, i));
  const sorted = [...located].sort((a, b) => a.start - b.start);
  for (let i = 1; i < sorted.length; i++) {
    const a = sorted[i - 1]!;
    const b = sorted[i]!;
    if (b.start < a.end) {
      throw new EditError(
        "overlap",
        `Edits #${a.index + 1} and #${b.index + 1} overlap (around line ${lineOf(original, b.start)}); merge them into one edit.`,
      );
    }
  }
  let content = original;
  for (const loc of sorted.reverse()) {
    content = content.slice(0, loc.start) + edits[loc.index]!.newText + content.slice(loc.end);
  }
  if (content === original) {
    throw new EditError("no_change", "The edits change nothing: each newText equals the text it replaces.");
  }
  return { content, normalizedEdits: located.filter((l) => l.normalized).map((l) => l.index).sort((a, b) => a - b) };
}

function bigrams(s: string): Map<string, number> {
  const grams = new Map<string, number>();
  const t = s.trim();
  for (let i = 0; i < t.length - 1; i++) {
    const g = t.slice(i, i + 2);
    grams.set(g, (grams.get(g) ?? 0) + 1);
  }
  return grams;
}

/** Dice coefficient of character bigrams: 1 for equal trimmed lines, 0 for nothing in common. */
export function lineSimilarity(a: string, b: string): number {
  if (a.trim() === b.trim()) return 1;
  const ga = bigrams(a);
  const gb = bigrams(b);
  let total = 0;
  for (const n of ga.values()) total += n;
  for (const n of gb.values()) total += n;
  if (total === 0) return 0;
  let common = 0;
  for (const [g, n] of ga) common += Math.min(n, gb.get(g) ?? 0);
  return (2 * common) / total;
}

/** Shows the lines of `original` most like `oldText`, numbered, so the model can correct itself. */
function closestMatchHint(original: string, oldText: string): string {
  const fileLines = original.split("\n");
  const oldLines = oldText.split("\n");
  const anchor = oldLines.findIndex((l) => l.trim() !== "");
  if (anchor === -1) return "";
  // Candidates: the file lines most like the first non-blank line of oldText.
  const candidates = fileLines
    .map((line, i) => ({ i, score: lineSimilarity(line, oldLines[anchor]!) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, 5);
  let best = { start: 0, score: 0 };
  for (const c of candidates) {
    const start = Math.max(0, c.i - anchor);
    let score = 0;
    for (let k = 0; k < oldLines.length; k++) score += lineSimilarity(fileLines[start + k] ?? "", oldLines[k]!);
    score /= oldLines.length;
    if (score > best.score) best = { start, score };
  }
  if (best.score < 0.3) return " No similar text was found either; read the file to see its current content.";
  const end = Math.min(fileLines.length, best.start + Math.min(oldLines.length, 40));
  const shown = fileLines
    .slice(best.start, end)
    .map((l, k) => `${String(best.start + k + 1).padStart(6)}\t${l}`)
    .join("\n");
  return ` The closest text is at lines ${best.start + 1}-${end}:\n${shown}\noldText must match the file exactly, whitespace and indentation included.`;
}
