// The two search engines behind the grep tool, with one result shape: ripgrep (`rg --json`) when
// it is on PATH, and a JavaScript search over the gitignore-aware walk otherwise. Both skip binary
// files, .git and node_modules (unless noIgnore), honour .gitignore, and stop after `limit`
// matches. Reject on an invalid pattern or a failed ripgrep run.
import { spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import path from "node:path";
import picomatch from "picomatch";
import { walk } from "./walk.ts";

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

export interface GrepLine {
  /** Relative to the searched folder (the file's name when a single file is searched). */
  file: string;
  line: number;
  text: string;
  isMatch: boolean;
}

export interface GrepOutcome {
  lines: GrepLine[];
  matches: number;
  /** True when the search stopped at `limit` and more matches may exist. */
  limited: boolean;
}

let ripgrepPath: string | null | undefined;

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
  const isFile = (await stat(q.root)).isFile();
  const cwd = isFile ? path.dirname(q.root) : q.root;
  const args = ["--json", "--no-config", "--hidden", "--no-require-git", "--sort", "path"];
  if (q.noIgnore) args.push("--no-ignore");
  else args.push("--glob", "!.git", "--glob", "!node_modules");
  if (q.ignoreCase) args.push("--ignore-case");
  if (q.literal) args.push("--fixed-strings");
  if (q.context > 0) args.push("--context", String(q.context));
  // rg's --glob would override .gitignore: a name glob becomes a file type instead, and a path glob
  // filters the results here.
  const pathGlob = q.glob?.includes("/") ? picomatch(q.glob, { dot: true }) : undefined;
  if (q.glob && !pathGlob) args.push("--type-add", `lathe:${q.glob}`, "--type", "lathe");
  args.push("--regexp", q.pattern, "--");
  if (isFile) args.push(path.basename(q.root));
  const child = spawn(rg, args, { cwd, stdio: ["ignore", "pipe", "pipe"], signal: q.signal });
  const outcome: GrepOutcome = { lines: [], matches: 0, limited: false };
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr = (stderr + d).slice(-4000)));
  let buffered = "";
  const handle = (json: string) => {
    const event = JSON.parse(json) as { type: string; data: RgData };
    if (outcome.limited || (event.type !== "match" && event.type !== "context")) return;
    const line = toLine(event.data, event.type === "match");
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
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    buffered += d;
    let nl: number;
    while ((nl = buffered.indexOf("\n")) !== -1) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line) handle(line);
    }
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", resolve);
  });
  if (q.signal?.aborted) throw new Error("Search aborted.");
  // 0: matches, 1: none; 2 with output means some files could not be read (still a result).
  if (!outcome.limited && code !== 0 && code !== 1 && !(code === 2 && outcome.matches > 0)) {
    throw new Error(`ripgrep failed: ${stderr.trim() || `exit code ${code}`}`);
  }
  return outcome;
}

interface RgData {
  path: { text?: string; bytes?: string };
  lines: { text?: string; bytes?: string };
  line_number: number;
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
const BATCH = 32;

export async function searchWithJs(q: GrepQuery): Promise<GrepOutcome> {
  const source = q.literal ? escapeRegExp(q.pattern) : q.pattern;
  let lineRegex: RegExp;
  let fileRegex: RegExp;
  try {
    lineRegex = new RegExp(source, q.ignoreCase ? "i" : "");
    fileRegex = new RegExp(source, q.ignoreCase ? "im" : "m");
  } catch (err) {
    throw new Error(`Invalid regular expression: ${(err as Error).message}`, { cause: err });
  }
  const globMatch = q.glob ? picomatch(q.glob, { dot: true }) : undefined;
  const globByPath = q.glob?.includes("/") ?? false;
  const isFile = (await stat(q.root)).isFile();
  const files: { rel: string; abs: string }[] = [];
  const outcome: GrepOutcome = { lines: [], matches: 0, limited: false };

  const searchFile = async (file: { rel: string; abs: string }): Promise<GrepLine[]> => {
    let buf: Buffer;
    try {
      if ((await stat(file.abs)).size > MAX_FILE_BYTES) return [];
      buf = await readFile(file.abs);
    } catch {
      return [];
    }
    if (buf.subarray(0, 8192).includes(0)) return [];
    const text = buf.toString("utf8");
    if (!fileRegex.test(text)) return [];
    const lines = text.split("\n");
    const out: GrepLine[] = [];
    let lastEmitted = -1;
    for (let i = 0; i < lines.length; i++) {
      if (!lineRegex.test(lines[i]!)) continue;
      for (let k = Math.max(lastEmitted + 1, i - q.context); k <= Math.min(lines.length - 1, i + q.context); k++) {
        if (k === lines.length - 1 && lines[k] === "") break;
        out.push({ file: file.rel, line: k + 1, text: lines[k]!.replace(/\r$/, ""), isMatch: lineRegex.test(lines[k]!) });
        lastEmitted = k;
      }
    }
    return out;
  };

  const flush = async (): Promise<boolean> => {
    const results = await Promise.all(files.splice(0).map(searchFile));
    for (const fileLines of results) {
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
    return true;
  };

  if (isFile) {
    files.push({ rel: path.basename(q.root), abs: q.root });
  } else {
    for await (const entry of walk(q.root, { projectDir: q.projectDir, noIgnore: q.noIgnore, signal: q.signal })) {
      if (entry.isDir) continue;
      if (globMatch && !globMatch(globByPath ? entry.rel : entry.rel.slice(entry.rel.lastIndexOf("/") + 1))) continue;
      files.push(entry);
      if (files.length >= BATCH && !(await flush())) break;
    }
  }
  if (files.length > 0) await flush();
  if (q.signal?.aborted) throw new Error("Search aborted.");
  return outcome;
}
