// What a permission dialog shows about a call: a title, the exact command, or the file and the
// diff the call would make (computed from the file as it is now, without writing anything).
// Never throws: a preview that cannot be computed is left out.
import { createTwoFilesPatch } from "diff";
import { readFileSync } from "node:fs";
import type { PermissionRequest } from "../../shared/ipc/contract.ts";
import { applyEdits, type TextEdit } from "../tools/edit-match.ts";
import type { CallSubjects } from "./policy.ts";

const MAX_DIFF_CHARS = 200_000;
const MAX_PREVIEW_FILE = 5 * 1024 * 1024;

export function summarizeCall(toolName: string, args: unknown, s: CallSubjects): PermissionRequest["summary"] {
  const where = s.outsideProject ? " (outside the project)" : "";
  const path = s.subjects[0];
  const abs = s.absolutePaths[0];
  const a = (args ?? {}) as Record<string, unknown>;
  switch (toolName) {
    case "bash":
      return { title: "Run a command", command: s.command ?? "", outsideProject: false };
    case "edit":
      return { title: `Edit ${path}${where}`, path, diff: abs ? editDiff(abs, path!, a.edits) : undefined, outsideProject: s.outsideProject };
    case "write":
      return { title: `Write ${path}${where}`, path, diff: abs ? writeDiff(abs, path!, a.content) : undefined, outsideProject: s.outsideProject };
    default:
      return { title: `${capitalize(toolName)} ${path ?? ""}${where}`.trim(), path, outsideProject: s.outsideProject };
  }
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

function currentText(file: string): string | null | undefined {
  try {
    const buffer = readFileSync(file);
    if (buffer.length > MAX_PREVIEW_FILE) return undefined;
    return buffer.toString("utf8").replace(/^\uFEFF/, "").replace(/\r\n/g, "\n");
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? null : undefined;
  }
}

function patch(name: string, before: string, after: string): string {
  // Drop jsdiff's "=====" separator line: the dialog starts at the file names.
  const text = createTwoFilesPatch(`a/${name}`, `b/${name}`, before, after, undefined, undefined, { context: 3 }).replace(/^=+\n/, "");
  return text.length > MAX_DIFF_CHARS ? `${text.slice(0, MAX_DIFF_CHARS)}\n… (diff cut at ${MAX_DIFF_CHARS} characters)` : text;
}

function editDiff(file: string, name: string, edits: unknown): string | undefined {
  const before = currentText(file);
  if (typeof before !== "string" || !Array.isArray(edits)) return undefined;
  try {
    const normalized = (edits as TextEdit[]).map((e) => ({ oldText: e.oldText.replace(/\r\n/g, "\n"), newText: e.newText.replace(/\r\n/g, "\n") }));
    return patch(name, before, applyEdits(before, normalized).content);
  } catch {
    return undefined;
  }
}

function writeDiff(file: string, name: string, content: unknown): string | undefined {
  if (typeof content !== "string") return undefined;
  const before = currentText(file);
  if (before === undefined) return undefined;
  return patch(name, before ?? "", content.replace(/\r\n/g, "\n"));
}
