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
// Long lines: ripgrep's output is read in bounded lines (rg-json-lines.ts); the JavaScript
// engine's workers cut a line's text the same way (grep-match.ts MAX_LINE_TEXT).
import { accessSync, constants } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import { spawnChild } from "./child-spawn.ts";
import { ComputeAbortedError, type ComputePool, ComputeTimeoutError, computePool } from "../workers/compute-pool.ts";
import type { GrepLine } from "./grep-match.ts";
import { checkGlob, GLOB_BATCH, globMatcher } from "./glob-match.ts";
import { RgJsonLines, rgLongLine, toLine, type RgData } from "./rg-json-lines.ts";
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
