// The file work of edit and write that may be large: run in a worker thread of the compute pool
// (app/main/workers), never on the main process. Synchronous I/O is fine here for that reason.
// - runEditJob: reads the file (refusing special files), matches the edits (edit-match.ts), writes
//   the result to the temporary file the caller named (when asked), and computes the bounded diff.
//   The edited text is never built whole: the temporary file is written piece by piece from the
//   original and the replacements, so memory stays about twice the file's size.
// - runFileDiffJob: the bounded diff between a file as it is and the content a write would put
//   there (for the permission dialog and the write card).
// runEditJob throws Error / EditError / FileKindError with messages meant for the model;
// runFileDiffJob never throws: a diff it cannot compute is a one-line note saying why.
import { closeSync, openSync, readSync, writeSync } from "node:fs";
import { boundedEditDiff, boundedTextDiff } from "./bounded-diff.ts";
import { planEdits, type TextEdit } from "./edit-match.ts";
import { looksBinary } from "./file-kind.ts";
import { openRegularFileSync } from "./file-guard.ts";
import { formatBytes } from "./truncate.ts";

/** edit refuses files larger than this (its own memory is about twice the file). */
export const MAX_EDIT_FILE_BYTES = 64 * 1024 * 1024;
/** The dialog and the write card show no diff against a current file larger than this. */
export const MAX_DIFF_FILE_BYTES = 64 * 1024 * 1024;
const WRITE_CHUNK_CHARS = 1 << 20;

export interface EditJob {
  kind: "edit";
  path: string;
  /** How the file is named to the model. */
  shown: string;
  edits: TextEdit[];
  /** File names in the diff's header lines. */
  oldName: string;
  newName: string;
  /** When set, the edited file is written there (created; must not exist). */
  tempPath?: string;
}

export interface EditJobResult {
  diff: string;
  diffComplete: boolean;
  firstChangedLine: number;
  /** 1-based numbers of the edits that matched only after normalisation. */
  normalizedEdits: number[];
  crlf: boolean;
  bom: boolean;
}

export interface FileDiffJob {
  kind: "fileDiff";
  path: string;
  shown: string;
  /** The new content (as the model sent it). */
  content: string;
  oldName: string;
  newName: string;
}

export interface FileDiffJobResult {
  diff: string;
  diffComplete: boolean;
  /** Whether the file exists now. */
  existed: boolean;
}

function readWhole(path: string, shown: string, tool: string, maxBytes: number, tooLarge: (size: number) => Error): Buffer {
  const { fd, stats } = openRegularFileSync(path, shown, tool);
  try {
    if (stats.size > maxBytes) throw tooLarge(stats.size);
    const buffer = Buffer.allocUnsafe(stats.size);
    let filled = 0;
    while (filled < buffer.length) {
      const n = readSync(fd, buffer, filled, buffer.length - filled, filled);
      if (n === 0) break;
      filled += n;
    }
    return buffer.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}

function openError(error: unknown, shown: string, tool: "edit" | "write"): Error {
  const err = error as NodeJS.ErrnoException;
  if (err.code === "ENOENT") return new Error(tool === "edit" ? `File not found: ${shown}. Use the write tool to create a file.` : `File not found: ${shown}.`);
  if (err.code === "EISDIR") return new Error(`${shown} is a directory.`);
  if (err.name === "FileKindError" || err.name === "EditError" || !err.code) return err;
  return new Error(`Cannot read ${shown}: ${err.message}`);
}

/** CRLF when every line break is CRLF (and there is at least one). Mixed files are left as they are. */
export function isCrlf(text: string): boolean {
  let lf = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
    if (text.charCodeAt(i - 1) !== 13) return false;
    lf++;
  }
  return lf > 0;
}

/** The file's text without its BOM; the raw bytes are not kept. */
function readEditText(job: EditJob): { text: string; bom: boolean } {
  let raw: Buffer;
  try {
    raw = readWhole(
      job.path,
      job.shown,
      "edit",
      MAX_EDIT_FILE_BYTES,
      (size) => new Error(`${job.shown} is ${formatBytes(size)}; edit changes files up to ${formatBytes(MAX_EDIT_FILE_BYTES)}. Use bash (e.g. sed) for larger files.`),
    );
  } catch (error) {
    throw openError(error, job.shown, "edit");
  }
  if (looksBinary(raw.subarray(0, 8192))) throw new Error(`${job.shown} is a binary file; edit changes text files only.`);
  const bom = raw.length >= 3 && raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf;
  return { text: raw.toString("utf8", bom ? 3 : 0), bom };
}

export function runEditJob(job: EditJob): EditJobResult {
  const { text, bom } = readEditText(job);
  const crlf = isCrlf(text);
  const original = crlf ? text.replaceAll("\r\n", "\n") : text;
  const edits = job.edits.map((e) => ({
    oldText: crlf ? e.oldText.replaceAll("\r\n", "\n") : e.oldText,
    newText: crlf ? e.newText.replaceAll("\r\n", "\n") : e.newText,
  }));
  const plan = planEdits(original, edits);
  if (job.tempPath !== undefined) {
    const fd = openSync(job.tempPath, "wx");
    try {
      const put = (piece: string) => {
        for (let at = 0; at < piece.length; at += WRITE_CHUNK_CHARS) {
          const chunk = piece.slice(at, at + WRITE_CHUNK_CHARS);
          writeSync(fd, crlf ? chunk.replaceAll("\n", "\r\n") : chunk);
        }
      };
      if (bom) put("\uFEFF");
      let at = 0;
      for (const splice of plan.splices) {
        put(original.slice(at, splice.start));
        put(splice.newText);
        at = splice.end;
      }
      put(original.slice(at));
    } finally {
      closeSync(fd);
    }
  }
  const diff = boundedEditDiff(job.oldName, job.newName, original, plan.splices);
  return {
    diff: diff.text,
    diffComplete: diff.complete,
    firstChangedLine: diff.firstChangedLine ?? 1,
    normalizedEdits: plan.normalizedEdits.map((i) => i + 1),
    crlf,
    bom,
  };
}

export function runFileDiffJob(job: FileDiffJob): FileDiffJobResult {
  const note = (why: string): FileDiffJobResult => ({ diff: `The diff is not shown: ${why}\n`, diffComplete: false, existed: true });
  let before = "";
  let existed = true;
  try {
    const raw = readWhole(
      job.path,
      job.shown,
      "write",
      MAX_DIFF_FILE_BYTES,
      (size) => new Error(`${job.shown} is ${formatBytes(size)}, over the ${formatBytes(MAX_DIFF_FILE_BYTES)} a diff is computed for.`),
    );
    if (looksBinary(raw.subarray(0, 8192))) return note(`${job.shown} is a binary file now.`);
    before = raw
      .toString("utf8")
      .replace(/^\uFEFF/, "")
      .replaceAll("\r\n", "\n");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") return note(openError(error, job.shown, "write").message);
    existed = false;
  }
  const diff = boundedTextDiff(existed ? job.oldName : "/dev/null", job.newName, before, job.content.replaceAll("\r\n", "\n"));
  return { diff: diff.text, diffComplete: diff.complete, existed };
}
