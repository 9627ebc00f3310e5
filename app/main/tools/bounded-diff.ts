// Unified diffs bounded in time and size, for the permission dialog and the edit and write cards.
// Only the changed region is diffed: for a write, the text between the common leading and
// trailing lines; for an edit, a window of a few lines around each replacement (windows that
// touch are merged). jsdiff then runs on each region with maxEditLength and a timeout, unless a
// linear count already proves the region needs more edits than that (lines of one side found
// nowhere in the other). A region over those bounds is summarized instead: its line counts, the first lines removed and added, and
// a note saying so. The whole text is cut at DIFF_MAX_LINES lines of at most DIFF_MAX_LINE_CHARS
// characters. Pure functions; never throw for any input.
import { structuredPatch, type StructuredPatchHunk } from "diff";
import type { Splice } from "./edit-match.ts";

/**
 * Lines removed plus added that jsdiff may search through in one region before giving up (its
 * cost grows with the square of this: about 0.35 s for 1,000 on this project's machine).
 */
export const DIFF_MAX_EDIT_LENGTH = 1_000;
/** Time jsdiff may spend on all the regions of one diff. */
export const DIFF_TIMEOUT_MS = 1_000;
/** Lines of diff text kept. */
export const DIFF_MAX_LINES = 2_000;
/** Each line of diff text is cut to this many characters. */
export const DIFF_MAX_LINE_CHARS = 1_000;
/** A summarized region shows this many removed and this many added lines. */
export const DIFF_SUMMARY_LINES_EACH = 100;
const CONTEXT = 3;

export interface BoundedDiff {
  /** The unified diff (file headers, hunks), with notes where something was summarized or cut. */
  text: string;
  /** False when a region was summarized or the text was cut. */
  complete: boolean;
  /** 1-based line of the new text where the first change is; undefined when nothing changed. */
  firstChangedLine?: number;
}

interface Region {
  /** Lines before the region in the old and new texts. */
  oldBefore: number;
  newBefore: number;
  oldText: string;
  newText: string;
}

interface RenderedRegion {
  lines: string[];
  summarized: boolean;
  firstChangedLine?: number;
}

/** Diff of two whole texts (write, and the dialog's preview of a write). */
export function boundedTextDiff(oldName: string, newName: string, before: string, after: string): BoundedDiff {
  const a = before.split("\n");
  const b = after.split("\n");
  let prefix = 0;
  const shorter = Math.min(a.length, b.length);
  while (prefix < shorter && a[prefix] === b[prefix]) prefix++;
  if (prefix === a.length && a.length === b.length) return render(oldName, newName, []);
  let suffix = 0;
  while (suffix < shorter - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  const from = Math.max(0, prefix - CONTEXT);
  const tail = Math.min(suffix, CONTEXT);
  const region: Region = {
    oldBefore: from,
    newBefore: from,
    oldText: joinLines(a, from, a.length - suffix + tail),
    newText: joinLines(b, from, b.length - suffix + tail),
  };
  return render(oldName, newName, [region]);
}

/** Lines [from, to) of a split text, with their newlines (the last line has none if the text had none). */
function joinLines(lines: string[], from: number, to: number): string {
  if (from >= to) return "";
  const text = lines.slice(from, to).join("\n");
  return to < lines.length ? `${text}\n` : text;
}

/** Diff of an edit: `original` (LF) and its replacements, sorted and non-overlapping. */
export function boundedEditDiff(oldName: string, newName: string, original: string, splices: readonly Splice[]): BoundedDiff {
  // A window: whole lines from CONTEXT lines before a splice to CONTEXT lines after it.
  const windows: { start: number; end: number; splices: Splice[] }[] = [];
  const lineStartOf = (pos: number) => (pos <= 0 ? 0 : original.lastIndexOf("\n", pos - 1) + 1);
  const lineEndAfter = (pos: number) => {
    const nl = original.indexOf("\n", pos);
    return nl === -1 ? original.length : nl + 1;
  };
  for (const splice of splices) {
    let start = lineStartOf(splice.start);
    for (let k = 0; k < CONTEXT && start > 0; k++) start = lineStartOf(start - 1);
    let end = lineEndAfter(Math.max(splice.start, splice.end - 1));
    for (let k = 0; k < CONTEXT && end < original.length; k++) end = lineEndAfter(end);
    const last = windows[windows.length - 1];
    if (last && start <= last.end) {
      last.end = Math.max(last.end, end);
      last.splices.push(splice);
    } else windows.push({ start, end, splices: [splice] });
  }
  const starts = lineNumbers(
    original,
    windows.map((w) => w.start),
  );
  let delta = 0;
  const regions: Region[] = windows.map((w, i) => {
    const oldText = original.slice(w.start, w.end);
    const parts: string[] = [];
    let at = w.start;
    for (const s of w.splices) {
      parts.push(original.slice(at, s.start), s.newText);
      at = s.end;
    }
    parts.push(original.slice(at, w.end));
    const newText = parts.join("");
    const region = { oldBefore: starts[i]!, newBefore: starts[i]! + delta, oldText, newText };
    delta += countLines(newText) - countLines(oldText);
    return region;
  });
  return render(oldName, newName, regions);
}

/** 0-based line index of each ascending position, in one pass. */
function lineNumbers(text: string, positions: number[]): number[] {
  const out: number[] = [];
  let line = 0;
  let from = 0;
  for (const p of positions) {
    for (let nl = text.indexOf("\n", from); nl !== -1 && nl < p; nl = text.indexOf("\n", nl + 1)) {
      line++;
      from = nl + 1;
    }
    out.push(line);
  }
  return out;
}

function countLines(text: string): number {
  let n = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/** 20000 as "20,000" (toLocaleString is slow enough to matter here). */
function fmt(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+$)/g, ",");
}

function render(oldName: string, newName: string, regions: Region[]): BoundedDiff {
  const deadline = Date.now() + DIFF_TIMEOUT_MS;
  const body: string[] = [];
  let summarized = false;
  let firstChangedLine: number | undefined;
  for (const region of regions) {
    const rendered = renderRegion(region, deadline);
    body.push(...rendered.lines);
    summarized ||= rendered.summarized;
    firstChangedLine ??= rendered.firstChangedLine;
  }
  const lines = [`--- ${oldName}`, `+++ ${newName}`];
  let cut = false;
  for (const line of body) {
    if (lines.length >= DIFF_MAX_LINES + 2) {
      cut = true;
      break;
    }
    lines.push(line.length > DIFF_MAX_LINE_CHARS ? `${line.slice(0, DIFF_MAX_LINE_CHARS)}… [line cut]` : line);
  }
  if (cut) lines.push(`@@ diff cut at ${fmt(DIFF_MAX_LINES)} lines: ${fmt(body.length - DIFF_MAX_LINES)} more not shown @@`);
  return { text: `${lines.join("\n")}\n`, complete: !summarized && !cut, firstChangedLine };
}

/**
 * Whether the region surely needs more than `bound` edits: lines of either side that appear
 * nowhere in the other must all be removed or added. Stops counting as soon as it is sure.
 */
function needsMoreEditsThan(oldText: string, newText: string, bound: number): boolean {
  const counts = new Map<string, number>();
  for (const line of newText.split("\n")) counts.set(line, (counts.get(line) ?? 0) + 1);
  let unmatched = 0;
  for (const line of oldText.split("\n")) {
    const n = counts.get(line);
    if (n) counts.set(line, n - 1);
    else if (++unmatched > bound) return true;
  }
  for (const n of counts.values()) if ((unmatched += n) > bound) return true;
  return false;
}

function renderRegion(region: Region, deadline: number): RenderedRegion {
  const remaining = deadline - Date.now();
  const large = region.oldText.length + region.newText.length > DIFF_MAX_EDIT_LENGTH * 8;
  const hopeless = large && needsMoreEditsThan(region.oldText, region.newText, DIFF_MAX_EDIT_LENGTH);
  const patch =
    remaining > 0 && !hopeless
      ? structuredPatch("a", "b", region.oldText, region.newText, undefined, undefined, {
          context: CONTEXT,
          maxEditLength: DIFF_MAX_EDIT_LENGTH,
          timeout: remaining,
        })
      : undefined;
  if (!patch) return summarizeRegion(region);
  const lines: string[] = [];
  let firstChangedLine: number | undefined;
  for (const hunk of patch.hunks) {
    const shifted: StructuredPatchHunk = { ...hunk, oldStart: hunk.oldStart + region.oldBefore, newStart: hunk.newStart + region.newBefore };
    lines.push(hunkHeader(shifted.oldStart, shifted.oldLines, shifted.newStart, shifted.newLines), ...shifted.lines);
    firstChangedLine ??= firstChangeIn(shifted);
  }
  return { lines, summarized: false, firstChangedLine };
}

function hunkHeader(oldStart: number, oldLines: number, newStart: number, newLines: number): string {
  // Unified diff quirk: a side with no lines names the line before it.
  return `@@ -${oldLines === 0 ? oldStart - 1 : oldStart},${oldLines} +${newLines === 0 ? newStart - 1 : newStart},${newLines} @@`;
}

function firstChangeIn(hunk: StructuredPatchHunk): number {
  let line = hunk.newStart;
  for (const l of hunk.lines) {
    if (l.startsWith("+") || l.startsWith("-")) return Math.max(1, line);
    if (!l.startsWith("\\")) line++;
  }
  return Math.max(1, hunk.newStart);
}

/** A region too large to diff: what changed, in numbers, and the first lines of each side. */
function summarizeRegion(region: Region): RenderedRegion {
  const a = region.oldText.split("\n");
  const b = region.newText.split("\n");
  // Drop the empty piece after a final newline: it is not a line.
  if (region.oldText.endsWith("\n")) a.pop();
  if (region.newText.endsWith("\n")) b.pop();
  let lead = 0;
  while (lead < a.length && lead < b.length && a[lead] === b[lead]) lead++;
  let trail = 0;
  while (trail < a.length - lead && trail < b.length - lead && a[a.length - 1 - trail] === b[b.length - 1 - trail]) trail++;
  const removed = a.slice(lead, a.length - trail);
  const added = b.slice(lead, b.length - trail);
  const before = a.slice(Math.max(0, lead - CONTEXT), lead);
  const after = a.slice(a.length - trail, a.length - trail + Math.min(trail, CONTEXT));
  const oldStart = region.oldBefore + lead - before.length + 1;
  const newStart = region.newBefore + lead - before.length + 1;
  const shownRemoved = removed.slice(0, DIFF_SUMMARY_LINES_EACH);
  const shownAdded = added.slice(0, DIFF_SUMMARY_LINES_EACH);
  const lines = [
    `@@ The diff is too large to show in full: ${fmt(removed.length)} lines removed and ${fmt(added.length)} added from line ${fmt(region.oldBefore + lead + 1)}; here are the first ${fmt(shownRemoved.length)} removed and the first ${fmt(shownAdded.length)} added. @@`,
    hunkHeader(oldStart, before.length + removed.length + after.length, newStart, before.length + added.length + after.length),
    ...before.map((l) => ` ${l}`),
    ...shownRemoved.map((l) => `-${l}`),
  ];
  if (removed.length > shownRemoved.length) lines.push(`@@ … ${fmt(removed.length - shownRemoved.length)} more removed lines not shown @@`);
  lines.push(...shownAdded.map((l) => `+${l}`));
  if (added.length > shownAdded.length) lines.push(`@@ … ${fmt(added.length - shownAdded.length)} more added lines not shown @@`);
  lines.push(...after.map((l) => ` ${l}`));
  return { lines, summarized: true, firstChangedLine: region.newBefore + lead + 1 };
}
