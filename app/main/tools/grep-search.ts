// The two search engines behind the grep tool, with one result shape: ripgrep (`rg --json`) when
// it is on PATH, and a JavaScript search over the gitignore-aware walk otherwise. ripgrep searches
// with every core (`--sort path` would make it single-threaded), so files finish in any order:
// the results are sorted by path afterwards, in the order of a sorted walk (`--sort path`'s), each
// file's lines kept in order. When the search stops at `limit`, which matches it found first may
// vary from run to run; without a limit the result is the same as a sorted search's. Both skip binary
// files, .git and node_modules (unless noIgnore), honour .gitignore, never follow symlinks met in
// the walk (so nothing outside the project is read through one), and stop after `limit` matches.
// The JavaScript engine runs the regex in the compute pool's worker threads (grep-match.ts), a
// batch of files at a time, each batch with a deadline: a regex that backtracks catastrophically
// is stopped and reported instead of freezing the app. Reject on an invalid pattern, a regex over
// its time budget, a glob over glob-match.ts's size limits, or a failed ripgrep run.
//
// Long lines: ripgrep's --json output has one line per matching line of a file, with the line's
// whole text and one `submatches` entry per match (ripgrep ignores --max-columns with --json), so
// a 1 MB line of a minified file can come out as 50 MB of JSON. RgJsonLines reads that output in
// time linear in it (each chunk scanned once) and keeps at most RG_JSON_LINE_MAX bytes of a line:
// a longer one is never JSON.parsed but read from its head (rgLongLine), its text cut to what the
// head holds, far more than grep shows (grep.ts cuts a line to 500 characters and says so). The
// JavaScript engine's workers cut a line's text the same way (grep-match.ts MAX_LINE_TEXT).
import { accessSync, constants } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import { spawnChild } from "./child-spawn.ts";
import { ComputeAbortedError, type ComputePool, ComputeTimeoutError, computePool } from "../workers/compute-pool.ts";
import type { GrepLine } from "./grep-match.ts";
import { checkGlob, GLOB_BATCH, globMatcher } from "./glob-match.ts";
import { walk, type WalkEntry } from "./walk.ts";

export type { GrepLine };

export interface GrepQuery {
  pattern: string;
  /** Folder or file to search (absolute). */
  root: string;
  projectDir: string;
  glob?: string;
  ignoreCase: boolean;
  literal: boolean;
  context: number;
  limit: number;
  noIgnore: boolean;
  signal?: AbortSignal;
}

export interface GrepOutcome {
  lines: GrepLine[];
  matches: number;
  /** True when the search stopped at `limit` and more matches may exist. */
  limited: boolean;
}

let ripgrepPath: string | null | undefined;

/**
 * Whether searchWithRipgrep can take this glob: a path glob (with "/") filters ripgrep's lines
 * here as they stream, so it must be one matched inline (glob-match.ts); the JavaScript search
 * matches any other in the compute pool. An invalid glob is left to the search to report.
 */
export function ripgrepCanFilter(glob: string | undefined): boolean {
  if (!glob?.includes("/")) return true;
  try {
    return globMatcher(glob).inline !== null;
  } catch {
    return true;
  }
}

/** The ripgrep executable on PATH, looked up once. */
export function findRipgrep(): string | null {
  if (ripgrepPath !== undefined) return ripgrepPath;
  ripgrepPath = null;
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, process.platform === "win32" ? "rg.exe" : "rg");
    try {
      accessSync(candidate, constants.X_OK);
      ripgrepPath = candidate;
      break;
    } catch {
      // Not here.
    }
  }
  return ripgrepPath;
}

export async function searchWithRipgrep(rg: string, q: GrepQuery): Promise<GrepOutcome> {
  // A name glob goes to ripgrep uncompiled: refuse one over the size limits here too, as the JavaScript search does.
  if (q.glob) checkGlob(q.glob);
  const isFile = (await stat(q.root)).isFile();
  const cwd = isFile ? path.dirname(q.root) : q.root;
  const args = ["--json", "--no-config", "--hidden", "--no-require-git"];
  if (q.noIgnore) args.push("--no-ignore");
  else args.push("--glob", "!.git", "--glob", "!node_modules");
  if (q.ignoreCase) args.push("--ignore-case");
  if (q.literal) args.push("--fixed-strings");
  if (q.context > 0) args.push("--context", String(q.context));
  // rg's --glob would override .gitignore: a name glob becomes a file type instead, and a path glob
  // filters the results here.
  const pathGlob = q.glob?.includes("/") ? globMatcher(q.glob).inline : undefined;
  if (pathGlob === null) throw new Error(`The glob ${JSON.stringify(q.glob)} cannot filter ripgrep's results here: search it with the JavaScript engine.`);
  if (q.glob && !pathGlob) args.push("--type-add", `lathe:${q.glob}`, "--type", "lathe");
  args.push("--regexp", q.pattern, "--");
  if (isFile) args.push(path.basename(q.root));
  // Started without fork() where it can (child-spawn.ts): a fork holds the main thread 10 to 30 ms.
  const child = spawnChild(rg, args, { cwd, stdio: ["ignore", "pipe", "pipe"], signal: q.signal });
  const outcome: GrepOutcome = { lines: [], matches: 0, limited: false };
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (stderr = (stderr + d).slice(-4000)));
  const handle = (json: string) => {
    if (outcome.limited) return;
    const event = JSON.parse(json) as { type: string; data: RgData };
    if (event.type !== "match" && event.type !== "context") return;
    take(toLine(event.data, event.type === "match"));
  };
  const take = (line: GrepLine) => {
    if (outcome.limited) return;
    if (pathGlob && !pathGlob(line.file)) return;
    const isMatch = line.isMatch;
    if (isMatch && outcome.matches >= q.limit) {
      outcome.limited = true;
      child.kill();
      return;
    }
    if (isMatch) outcome.matches++;
    outcome.lines.push(line);
  };
  const jsonLines = new RgJsonLines(handle, (head, lineNumber) => {
    const line = rgLongLine(head, lineNumber);
    if (line) take(line);
  });
  // A last line without a newline (ripgrep stopped: at the limit, or aborted) is left unread.
  child.stdout!.on("data", (d: Buffer) => jsonLines.push(d));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", resolve);
  });
  if (q.signal?.aborted) throw new Error("Search aborted.");
  // 0: matches, 1: none; 2 with output means some files could not be read (still a result), and 2
  // with "No files were searched" that no file passed the glob or the ignore files (no matches, as
  // the JavaScript search says; it was an error naming a ripgrep filter the model never set).
  // (After any warning, such as a line of an ignore file ripgrep could not read.)
  const noFiles = code === 2 && /^No files were searched/m.test(stderr);
  if (!outcome.limited && code !== 0 && code !== 1 && !(code === 2 && outcome.matches > 0) && !noFiles) {
    throw new Error(`ripgrep failed: ${stderr.trim() || `exit code ${code}`}`);
  }
  outcome.lines = sortedByPath(outcome.lines);
  return outcome;
}

/**
 * Lines grouped by file in the order of a walk that sorts each folder's names (bytewise, as
 * ripgrep's `--sort path`: `a/b` before `a.txt`), each file's lines in their own order.
 */
export function sortedByPath(lines: GrepLine[]): GrepLine[] {
  const keys = new Map<string, Buffer[]>();
  const key = (file: string) => {
    let k = keys.get(file);
    if (!k) keys.set(file, (k = file.split("/").map((part) => Buffer.from(part))));
    return k;
  };
  const compare = (a: string, b: string): number => {
    if (a === b) return 0;
    const ka = key(a);
    const kb = key(b);
    for (let i = 0; i < ka.length && i < kb.length; i++) {
      const c = Buffer.compare(ka[i]!, kb[i]!);
      if (c !== 0) return c;
    }
    return ka.length - kb.length;
  };
  // Array sort is stable: each file's lines keep their order.
  return [...lines].sort((x, y) => compare(x.file, y.file));
}

interface RgData {
  path: { text?: string; bytes?: string };
  lines: { text?: string; bytes?: string };
  line_number: number;
}

/** Bytes of one line of ripgrep's --json output read whole; a longer line is read from its head (rgLongLine). */
export const RG_JSON_LINE_MAX = 64 * 1024;
const LINE_NUMBER_KEY = Buffer.from(',"line_number":');
const NO_BYTES = Buffer.alloc(0);

/**
 * Splits ripgrep's --json output into lines as it streams, in time linear in the output: each
 * chunk is scanned once, and at most `maxLine` bytes of a line are kept. Each line ended by a
 * newline within `maxLine` goes to `onLine`; a longer one to `onLongLine`, as its first
 * `maxLine` bytes (decoded, maybe ending in a cut character) and the line number read from the
 * rest (after the first `,"line_number":`, which no JSON string holds: a `"` in one is always
 * escaped), or undefined if there is none.
 */
export class RgJsonLines {
  private parts: Buffer[] = [];
  private size = 0;
  /** The head of a line over maxLine, while it lasts; then the tail kept to find its line number in. */
  private head: Buffer | undefined;
  private lineNumber: number | undefined;
  private carry: Buffer = NO_BYTES;
  private readonly onLine: (json: string) => void;
  private readonly onLongLine: (head: string, lineNumber: number | undefined) => void;
  private readonly maxLine: number;

  constructor(onLine: (json: string) => void, onLongLine: (head: string, lineNumber: number | undefined) => void, maxLine = RG_JSON_LINE_MAX) {
    this.onLine = onLine;
    this.onLongLine = onLongLine;
    this.maxLine = maxLine;
  }

  /** Bytes of the current line held (at most maxLine and a few more). */
  get held(): number {
    return this.head ? this.head.length + this.carry.length : this.size;
  }

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(0x0a, start);
      this.take(chunk.subarray(start, nl === -1 ? chunk.length : nl));
      if (nl === -1) return;
      this.endLine();
      start = nl + 1;
    }
  }

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.head) {
      if (this.lineNumber === undefined) this.findLineNumber(this.carry.length > 0 ? Buffer.concat([this.carry, piece]) : piece);
      return;
    }
    if (this.size + piece.length <= this.maxLine) {
      this.parts.push(piece);
      this.size += piece.length;
      return;
    }
    // Over the limit: keep a copy of the head (not the chunks it came in), and look for the line number from the start.
    const start = Buffer.concat([...this.parts, piece]);
    this.parts = [];
    this.size = 0;
    this.head = Buffer.from(start.subarray(0, this.maxLine));
    this.findLineNumber(start);
  }

  private findLineNumber(bytes: Buffer): void {
    const at = bytes.indexOf(LINE_NUMBER_KEY);
    if (at === -1) {
      // The key may straddle this piece and the next.
      this.carry = Buffer.from(bytes.subarray(Math.max(0, bytes.length - LINE_NUMBER_KEY.length + 1)));
      return;
    }
    let i = at + LINE_NUMBER_KEY.length;
    let n = 0;
    for (; i < bytes.length && bytes[i]! >= 0x30 && bytes[i]! <= 0x39; i++) n = n * 10 + bytes[i]! - 0x30;
    if (i === bytes.length && i - at < 40) {
      // The digits may go on in the next piece.
      this.carry = Buffer.from(bytes.subarray(at));
      return;
    }
    this.lineNumber = i - at - LINE_NUMBER_KEY.length > 0 && i < bytes.length ? n : -1;
    this.carry = NO_BYTES;
  }

  private endLine(): void {
    const head = this.head;
    const lineNumber = this.lineNumber;
    const json = head ? "" : (this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts)).toString("utf8");
    this.parts = [];
    this.size = 0;
    this.head = undefined;
    this.lineNumber = undefined;
    this.carry = NO_BYTES;
    if (head) this.onLongLine(head.toString("utf8"), lineNumber === undefined || lineNumber < 0 ? undefined : lineNumber);
    else if (json) this.onLine(json);
  }
}

const LONG_EVENT = /^\{"type":"(match|context)","data":\{"path":/;
const LINES_KEY = ',"lines":{"';

/**
 * The match or context line of a --json line cut to its head (RgJsonLines), or undefined for
 * another event, a head of another shape or a missing line number. The text is the line's whole
 * text when the head holds it (only the submatches were cut), else the part of it the head holds
 * (tens of thousands of characters: grep shows it cut). ripgrep writes a match's keys in one
 * order: type, data (path, lines, line_number, …); `,"lines":{"` cannot occur inside the path (a
 * JSON string escapes its quotes).
 */
export function rgLongLine(head: string, lineNumber: number | undefined): GrepLine | undefined {
  const event = LONG_EVENT.exec(head);
  if (!event || lineNumber === undefined) return undefined;
  const linesAt = head.indexOf(LINES_KEY, event[0].length);
  if (linesAt === -1) return undefined;
  let pathData: RgData["path"];
  try {
    pathData = JSON.parse(head.slice(event[0].length, linesAt)) as RgData["path"];
  } catch {
    return undefined;
  }
  const rest = head.slice(linesAt + LINES_KEY.length);
  const kind = rest.startsWith('text":"') ? "text" : rest.startsWith('bytes":"') ? "bytes" : undefined;
  if (!kind) return undefined;
  const body = rest.slice(kind.length + 3);
  const close = closingQuote(body);
  if (close !== -1) {
    // The head holds the whole text: only its submatches were cut.
    const value = JSON.parse(`"${body.slice(0, close)}"`) as string;
    return toLine({ path: pathData, lines: kind === "bytes" ? { bytes: value } : { text: value }, line_number: lineNumber }, event[1] === "match");
  }
  // A cut head may end inside a UTF-8 character (decoded as U+FFFD), an escape or a base64 quad.
  const text = kind === "bytes" ? Buffer.from(body.slice(0, body.length - (body.length % 4)), "base64").toString("utf8") : jsonStringPrefix(body);
  return toLine({ path: pathData, lines: { text: text.replace(/\uFFFD$/, "") }, line_number: lineNumber }, event[1] === "match");
}

/** Where the JSON string whose body starts `body` ends: its first quote not escaped, or -1. */
function closingQuote(body: string): number {
  for (let at = body.indexOf('"'); at !== -1; at = body.indexOf('"', at + 1)) {
    let slashes = 0;
    while (body[at - 1 - slashes] === "\\") slashes++;
    if (slashes % 2 === 0) return at;
  }
  return -1;
}

/** The text of a JSON string's body, or of its longest prefix that ends between two escapes. */
function jsonStringPrefix(body: string): string {
  // An escape is at most 6 characters (\uXXXX): one of the first 6 cuts ends between two.
  for (let cut = 0; cut <= 6 && cut <= body.length; cut++) {
    try {
      return JSON.parse(`"${body.slice(0, body.length - cut)}"`) as string;
    } catch {
      // Cut inside an escape: try shorter.
    }
  }
  return "";
}

function toLine(data: RgData, isMatch: boolean): GrepLine {
  const file = data.path.text ?? Buffer.from(data.path.bytes ?? "", "base64").toString("utf8");
  const text = data.lines.text ?? Buffer.from(data.lines.bytes ?? "", "base64").toString("utf8");
  return { file: file.replace(/^\.\//, ""), line: data.line_number, text: text.replace(/\r?\n$/, ""), isMatch };
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

const MAX_FILE_BYTES = 50 * 1024 * 1024;
/** Files per job sent to a worker. */
const BATCH = 64;
/** A worker returns its batch early after this long, so big files never look like a runaway regex. */
const BATCH_SOFT_LIMIT_MS = 1_000;
/** Time a regex may run on one batch of files before it is stopped. */
export const REGEX_BUDGET_MS = 5_000;

export interface JsSearchOptions {
  pool?: ComputePool;
  /** Time a regex may run on one batch of files before the search is stopped. */
  regexBudgetMs?: number;
}

export async function searchWithJs(q: GrepQuery, options: JsSearchOptions = {}): Promise<GrepOutcome> {
  const source = q.literal ? escapeRegExp(q.pattern) : q.pattern;
  try {
    // Compiling is linear in the pattern and checks its syntax; matching happens in a worker.
    new RegExp(source, q.ignoreCase ? "im" : "m");
  } catch (err) {
    throw new Error(`Invalid regular expression: ${(err as Error).message}`, { cause: err });
  }
  const pool = options.pool ?? computePool();
  const budgetMs = options.regexBudgetMs ?? REGEX_BUDGET_MS;
  const softLimitMs = Math.min(BATCH_SOFT_LIMIT_MS, Math.floor(budgetMs / 4));
  const glob = q.glob ? globMatcher(q.glob, { pool, budgetMs }) : undefined;
  const globByPath = q.glob?.includes("/") ?? false;
  const globSubject = (entry: WalkEntry) => (globByPath ? entry.rel : entry.rel.slice(entry.rel.lastIndexOf("/") + 1));
  const isFile = (await stat(q.root)).isFile();
  const files: { rel: string; abs: string }[] = [];
  const outcome: GrepOutcome = { lines: [], matches: 0, limited: false };

  const searchBatch = async (): Promise<boolean> => {
    while (files.length > 0) {
      let result;
      try {
        result = await pool.run(
          { kind: "grep", files: files.slice(0, BATCH), source, ignoreCase: q.ignoreCase, context: q.context, maxFileBytes: MAX_FILE_BYTES, softLimitMs },
          { timeoutMs: budgetMs, signal: q.signal },
        );
      } catch (err) {
        if (err instanceof ComputeAbortedError) throw new Error("Search aborted.", { cause: err });
        if (err instanceof ComputeTimeoutError) throw regexTooSlow(q.pattern, budgetMs, files.slice(0, BATCH));
        throw err;
      }
      files.splice(0, Math.max(1, result.searched));
      for (const fileLines of result.lines) {
        for (const line of fileLines) {
          if (line.isMatch) {
            if (outcome.matches >= q.limit) {
              outcome.limited = true;
              return false;
            }
            outcome.matches++;
          }
          outcome.lines.push(line);
        }
      }
    }
    return true;
  };

  if (isFile) {
    files.push({ rel: path.basename(q.root), abs: q.root });
  } else {
    /** Walked files whose names wait for the compute pool (a glob matched there: glob-match.ts). */
    let named: WalkEntry[] = [];
    /** Moves the named files that match to `files`, searching each full batch; false once the limit stopped the search. */
    const takeNamed = async (): Promise<boolean> => {
      const matched = await glob!.filter(named.map(globSubject), q.signal).catch((err: unknown) => {
        if (err instanceof ComputeAbortedError) throw new Error("Search aborted.", { cause: err });
        throw err;
      });
      const batch = named;
      named = [];
      for (let i = 0; i < batch.length; i++) {
        if (!matched[i]) continue;
        files.push(batch[i]!);
        if (files.length >= BATCH && !(await searchBatch())) return false;
      }
      return true;
    };
    let stopped = false;
    for await (const entry of walk(q.root, { projectDir: q.projectDir, noIgnore: q.noIgnore, signal: q.signal })) {
      // Symlinks, FIFOs, sockets and devices are never read: only regular files.
      if (!entry.isFile) continue;
      if (glob && !glob.inline) {
        named.push(entry);
        if (named.length >= GLOB_BATCH && !(await takeNamed())) {
          stopped = true;
          break;
        }
        continue;
      }
      if (glob?.inline && !glob.inline(globSubject(entry))) continue;
      files.push(entry);
      if (files.length >= BATCH && !(await searchBatch())) {
        stopped = true;
        break;
      }
    }
    if (!stopped && named.length > 0) await takeNamed();
  }
  if (!outcome.limited && files.length > 0) await searchBatch();
  if (q.signal?.aborted) throw new Error("Search aborted.");
  return outcome;
}

function regexTooSlow(pattern: string, budgetMs: number, batch: { rel: string }[]): Error {
  const where = batch.length === 1 ? batch[0]!.rel : `${batch.length} files from ${batch[0]!.rel}`;
  return new Error(
    `The regular expression ${JSON.stringify(pattern.length > 200 ? `${pattern.slice(0, 200)}…` : pattern)} ran for more than ${budgetMs / 1000} s on ${where} and was stopped: ` +
      "it probably backtracks catastrophically (nested quantifiers such as (a+)+, or alternatives that overlap). Simplify it, or use literal: true.",
  );
}
