// The file work of edit and write that may be large: run in a worker thread of the compute pool
// (app/main/workers), never on the main process. Synchronous I/O is fine here for that reason.
// - runEditJob: reads the file (refusing special files, binary files, and files that are not valid
//   UTF-8: decoding those and writing them back would replace their other bytes with U+FFFD),
//   matches the edits (edit-match.ts), writes the result to the temporary file the caller named
//   (when asked), and computes the bounded diff. Every byte outside the replaced ranges is written
//   back as it was (a UTF-8 BOM and CRLF line breaks included). The edited text is never built
//   whole: the temporary file is written piece by piece from the original and the replacements, in
//   chunks that never cut a surrogate pair, so memory stays about twice the file's size.
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
  let text: string;
  try {
    // fatal: a byte that is not UTF-8 is an error, not a U+FFFD that the rewrite would then keep.
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(raw.subarray(bom ? 3 : 0));
  } catch {
    const offset = firstInvalidUtf8(raw);
    let line = 1;
    for (let i = raw.indexOf(0x0a); i !== -1 && i < offset; i = raw.indexOf(0x0a, i + 1)) line++;
    throw new Error(
      `${job.shown} is not valid UTF-8 text (first invalid byte at offset ${offset}, line ${line}): the edit tool only edits UTF-8 files, ` +
        `and rewriting this one would replace its non-UTF-8 bytes. The file is unchanged. Change it with bash instead (e.g. sed, which keeps the other bytes), ` +
        `or convert it to UTF-8 first (e.g. iconv -f latin1 -t utf-8) if that is what its users expect.`,
    );
  }
  return { text, bom };
}

/** Offset of the first byte that does not begin a well-formed UTF-8 sequence (as TextDecoder judges it), or -1. */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length;) {
    const b = bytes[i]!;
    if (b < 0x80) {
      i++;
      continue;
    }
    // Allowed range of the second byte, excluding overlong forms, surrogates and code points past U+10FFFF.
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0;
      if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90;
      if (b === 0xf4) hi = 0x8f;
    } else return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined || c < (k === 1 ? lo : 0x80) || c > (k === 1 ? hi : 0xbf)) return i;
    }
    i += need + 1;
  }
  return -1;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/** Whether position `at` of `text` falls between the two halves of a surrogate pair. */
function splitsPair(text: string, at: number): boolean {
  return at > 0 && at < text.length && isHighSurrogate(text.charCodeAt(at - 1)) && isLowSurrogate(text.charCodeAt(at));
}

/**
 * Writes `text` as UTF-8 in chunks of about WRITE_CHUNK_CHARS, each ending on a character boundary
 * (a half of a surrogate pair alone would be encoded as U+FFFD), the LF breaks turned into CRLF
 * when asked; each chunk is written fully (writeSync may write less than it is given).
 */
function writeText(fd: number, text: string, crlf: boolean): void {
  for (let at = 0; at < text.length;) {
    let end = Math.min(at + WRITE_CHUNK_CHARS, text.length);
    if (splitsPair(text, end)) end--;
    const chunk = text.slice(at, end);
    const bytes = Buffer.from(crlf ? chunk.replaceAll("\n", "\r\n") : chunk, "utf8");
    for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done);
    at = end;
  }
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
  // An oldText that begins or ends with half of a surrogate pair would leave the other half alone,
  // which cannot be written as UTF-8: it would become U+FFFD, a change nobody asked for.
  if (plan.splices.some((s) => splitsPair(original, s.start) || splitsPair(original, s.end))) {
    throw new Error(
      `Could not edit ${job.shown}: an oldText begins or ends in the middle of a character (half of a surrogate pair, such as an emoji). Include the whole character in oldText and newText.`,
    );
  }
  if (job.tempPath !== undefined) {
    const fd = openSync(job.tempPath, "wx");
    try {
      const put = (piece: string) => writeText(fd, piece, crlf);
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
