// The regex side of grep's JavaScript engine, run in a worker thread of the compute pool: a
// JavaScript regex can backtrack for minutes (`^(a+)+$`), and only a thread can be stopped in the
// middle of one. The pool's deadline stops it; this module only searches. A job takes a batch of
// files and returns early (with `searched` < files.length) once it has run for `softLimitMs`, so a
// batch of big files never looks like a runaway regex. Special files (FIFOs, devices…) and files
// that cannot be read are skipped, like binary files and files over maxFileBytes. A line's text
// is cut to MAX_LINE_TEXT characters (grep shows at most 500 of them and says a line was cut), so
// a file of one long line never sends megabytes back to the main thread to be copied there.
import { closeSync, readSync } from "node:fs";
import { openRegularFileSync } from "./file-guard.ts";

export interface GrepLine {
  /** Relative to the searched folder (the file's name when a single file is searched). */
  file: string;
  line: number;
  text: string;
  isMatch: boolean;
}

export interface GrepJob {
  kind: "grep";
  files: { rel: string; abs: string }[];
  /** RegExp source (already escaped for a literal search) and whether to ignore case. */
  source: string;
  ignoreCase: boolean;
  context: number;
  maxFileBytes: number;
  /** Stop after the file during which this much time has passed. */
  softLimitMs: number;
}

export interface GrepJobResult {
  /** Lines per searched file, in the order of `files`. */
  lines: GrepLine[][];
  /** How many of `files` were searched (the rest are for another job). */
  searched: number;
}

function readSmallFile(abs: string, maxBytes: number): Buffer | undefined {
  let opened: ReturnType<typeof openRegularFileSync>;
  try {
    opened = openRegularFileSync(abs, abs, "grep");
  } catch {
    return undefined;
  }
  try {
    if (opened.stats.size > maxBytes) return undefined;
    const buffer = Buffer.allocUnsafe(opened.stats.size);
    let filled = 0;
    while (filled < buffer.length) {
      const n = readSync(opened.fd, buffer, filled, buffer.length - filled, filled);
      if (n === 0) break;
      filled += n;
    }
    return buffer.subarray(0, filled);
  } catch {
    return undefined;
  } finally {
    closeSync(opened.fd);
  }
}

/** Characters of a line's text returned (more than grep.ts shows: it still sees the line is long). */
export const MAX_LINE_TEXT = 4_096;

export function searchText(rel: string, text: string, lineRegex: RegExp, fileRegex: RegExp, context: number): GrepLine[] {
  if (!fileRegex.test(text)) return [];
  const lines = text.split("\n");
  const out: GrepLine[] = [];
  let lastEmitted = -1;
  for (let i = 0; i < lines.length; i++) {
    if (!lineRegex.test(lines[i]!)) continue;
    for (let k = Math.max(lastEmitted + 1, i - context); k <= Math.min(lines.length - 1, i + context); k++) {
      if (k === lines.length - 1 && lines[k] === "") break;
      const shown = lines[k]!.length > MAX_LINE_TEXT ? lines[k]!.slice(0, MAX_LINE_TEXT) : lines[k]!.replace(/\r$/, "");
      out.push({ file: rel, line: k + 1, text: shown, isMatch: k === i || lineRegex.test(lines[k]!) });
      lastEmitted = k;
    }
  }
  return out;
}

export function runGrepJob(job: GrepJob): GrepJobResult {
  const lineRegex = new RegExp(job.source, job.ignoreCase ? "i" : "");
  const fileRegex = new RegExp(job.source, job.ignoreCase ? "im" : "m");
  const started = Date.now();
  const lines: GrepLine[][] = [];
  for (const file of job.files) {
    const buffer = readSmallFile(file.abs, job.maxFileBytes);
    lines.push(buffer && !buffer.subarray(0, 8192).includes(0) ? searchText(file.rel, buffer.toString("utf8"), lineRegex, fileRegex, job.context) : []);
    if (Date.now() - started >= job.softLimitMs) break;
  }
  return { lines, searched: lines.length };
}
