// The diff text a file tool's card shows: the tool's own bounded diff once it has run (edit and
// write put one in their details), and before that a preview built from the call's arguments, cut
// to a few lines per piece so a huge argument never makes a huge view. Pure functions.
import type { WriteDetails } from "../../../shared/tool-details";

/** Lines of each piece of an argument preview. */
export const PREVIEW_LINES = 60;

function previewLines(text: string, prefix: string, maxLines: number): string[] {
  const lines = text.split("\n", maxLines + 1);
  const shown = lines.slice(0, maxLines).map((l) => `${prefix}${l.length > 1000 ? `${l.slice(0, 1000)}… [line cut]` : l}`);
  if (lines.length > maxLines) shown.push(`@@ more lines not shown @@`);
  return shown;
}

/** A preview diff from edit arguments (before the tool has run and produced the real one). */
export function editArgsDiff(path: string, edits: unknown, maxLines = PREVIEW_LINES): string {
  if (!Array.isArray(edits)) return "";
  const out = [`--- ${path}`, `+++ ${path}`];
  for (const edit of edits as { oldText?: unknown; newText?: unknown }[]) {
    out.push("@@ edit @@");
    out.push(...previewLines(String(edit.oldText ?? ""), "-", maxLines));
    out.push(...previewLines(String(edit.newText ?? ""), "+", maxLines));
  }
  return out.join("\n");
}

/** write's content as an all-added diff, cut to `maxLines`. */
export function writeArgsDiff(path: string, content: unknown, maxLines = PREVIEW_LINES): string {
  return [`+++ ${path}`, ...previewLines(String(content ?? ""), "+", maxLines)].join("\n");
}

/** What a write card shows: the diff against the previous content when the tool made one. */
export function writeCardDiff(path: string, content: unknown, details: WriteDetails | undefined): { diff: string; label: string } {
  if (details?.diff) return { diff: details.diff, label: `Changes to ${path}` };
  return { diff: writeArgsDiff(path, content), label: `Content written to ${path}` };
}
