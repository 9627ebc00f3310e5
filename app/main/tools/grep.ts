// The grep tool: searches file contents for a regex or literal, with case and context options and
// a glob filter, respecting .gitignore; ripgrep when it is on PATH, a JavaScript search otherwise
// (see grep-search.ts: it never follows symlinks out of the project and runs the regex in a worker
// with a time budget). Results are capped at `limit` matches and the output bounds, with a
// notice. Throws on a missing path, a FIFO/device/proc path, an invalid or runaway pattern, a NUL in
// the pattern or glob, a glob over glob-match.ts's size limits. A very long line of a file is
// read cut (grep-search.ts) and shown cut, as any line over MAX_LINE_CHARS.
import { stat } from "node:fs/promises";
import { Type } from "@sinclair/typebox";
import type { AgentTool } from "../loop/index.ts";
import type { ComputePool } from "../workers/compute-pool.ts";
import { refuseSpecialPath } from "./file-guard.ts";
import { findRipgrep, type GrepLine, type GrepQuery, ripgrepCanFilter, searchWithJs, searchWithRipgrep } from "./grep-search.ts";
import { displayPath, isOutsideProject, MAX_PATH_ARGUMENT_CHARS, resolveToolPath } from "./paths.ts";
import { truncateHead } from "./truncate.ts";
import type { GrepDetails } from "../../shared/tool-details.ts";
export type { GrepDetails };

const DEFAULT_LIMIT = 100;
const MAX_LINE_CHARS = 500;

const grepParameters = Type.Object({
  pattern: Type.String({ description: "Regular expression (or literal text with literal: true)." }),
  path: Type.Optional(Type.String({ description: "Folder or file to search (default: the project folder).", maxLength: MAX_PATH_ARGUMENT_CHARS })),
  glob: Type.Optional(Type.String({ description: 'Only files matching this glob, e.g. "*.ts" or "src/**/*.tsx".' })),
  ignoreCase: Type.Optional(Type.Boolean({ description: "Case-insensitive search." })),
  literal: Type.Optional(Type.Boolean({ description: "Treat pattern as plain text, not a regex." })),
  context: Type.Optional(Type.Integer({ minimum: 0, maximum: 20, description: "Lines of context around each match." })),
  limit: Type.Optional(Type.Integer({ minimum: 1, description: `Maximum matches (default ${DEFAULT_LIMIT}).` })),
  noIgnore: Type.Optional(Type.Boolean({ description: "Also search .gitignored files, .git and node_modules." })),
});

export interface GrepToolOptions {
  projectDir: string;
  /** "auto" (default) uses ripgrep when on PATH; "javascript" forces the built-in search. */
  engine?: "auto" | "javascript";
  /** The worker pool of the JavaScript engine (default: the process-wide one). */
  pool?: ComputePool;
  /** Time the JavaScript engine's regex may run on one batch of files. Default 5 s. */
  regexBudgetMs?: number;
}

/** A NUL can match nothing (files holding one are binary: skipped) and no program argument can hold it. */
function refuseNul(pattern: string, glob: string | undefined): void {
  if (pattern.includes("\0")) throw new Error("The pattern holds a NUL character: grep skips binary files, the only ones that hold one, so it could match nothing.");
  if (glob?.includes("\0")) throw new Error("The glob holds a NUL character, which no file name can hold.");
}

export function createGrepTool(options: GrepToolOptions): AgentTool<typeof grepParameters, GrepDetails> {
  return {
    name: "grep",
    label: "Search files",
    description: `Search file contents with a regular expression (or literal text). Output lines are "file:line: text" for matches and "file-line- text" for context. Respects .gitignore and skips binary files, .git and node_modules unless noIgnore is true. At most ${DEFAULT_LIMIT} matches unless limit is set; long lines are cut to ${MAX_LINE_CHARS} characters.`,
    parameters: grepParameters,
    async execute(_toolCallId, params, signal) {
      refuseNul(params.pattern, params.glob);
      const absolutePath = resolveToolPath(params.path ?? ".", options.projectDir);
      const shown = displayPath(absolutePath, options.projectDir);
      const info = await stat(absolutePath).catch(() => {
        throw new Error(`Path not found: ${shown}`);
      });
      await refuseSpecialPath(absolutePath, info, shown, "grep", true);
      const query: GrepQuery = {
        pattern: params.pattern,
        root: absolutePath,
        projectDir: options.projectDir,
        glob: params.glob,
        ignoreCase: params.ignoreCase ?? false,
        literal: params.literal ?? false,
        context: params.context ?? 0,
        limit: params.limit ?? DEFAULT_LIMIT,
        noIgnore: params.noIgnore ?? false,
        signal,
      };
      // A path glob that could backtrack hard is matched in the compute pool, by the JavaScript search.
      const rg = options.engine === "javascript" || !ripgrepCanFilter(params.glob) ? null : findRipgrep();
      const outcome = rg ? await searchWithRipgrep(rg, query) : await searchWithJs(query, { pool: options.pool, regexBudgetMs: options.regexBudgetMs });
      const lines = trimTrailingContext(outcome.lines, query.context);
      const bounded = truncateHead(formatLines(lines, query.context > 0));
      let text = outcome.matches === 0 ? `No matches for ${JSON.stringify(params.pattern)} in ${shown}.` : bounded.text;
      if (outcome.limited) {
        text += `\n\n[Stopped at ${query.limit} matches; more exist. Narrow the pattern, path or glob, or raise limit.]`;
      } else if (bounded.truncated) {
        text += `\n\n[Output cut to ${bounded.keptLines} of ${bounded.totalLines} lines. Narrow the search.]`;
      }
      return {
        content: [{ type: "text", text }],
        details: {
          path: shown,
          absolutePath,
          outsideProject: await isOutsideProject(absolutePath, options.projectDir),
          matches: outcome.matches,
          files: new Set(lines.filter((l) => l.isMatch).map((l) => l.file)).size,
          truncated: outcome.limited || bounded.truncated,
          engine: rg ? "ripgrep" : "javascript",
        },
      };
    },
  };
}

/** Drops context lines beyond the last match's own (left by a search that stopped at its limit). */
function trimTrailingContext(lines: GrepLine[], context: number): GrepLine[] {
  const lastIndex = lines.findLastIndex((l) => l.isMatch);
  if (lastIndex === -1) return [];
  const last = lines[lastIndex]!;
  let end = lastIndex + 1;
  while (end < lines.length && lines[end]!.file === last.file && lines[end]!.line <= last.line + context) end++;
  return lines.slice(0, end);
}

function formatLines(lines: GrepLine[], withSeparators: boolean): string {
  const out: string[] = [];
  let prev: GrepLine | undefined;
  for (const l of lines) {
    if (withSeparators && prev && (prev.file !== l.file || l.line > prev.line + 1)) out.push("--");
    const text = l.text.length > MAX_LINE_CHARS ? `${l.text.slice(0, MAX_LINE_CHARS)}… [line cut]` : l.text;
    out.push(`${l.file}${l.isMatch ? ":" : "-"}${l.line}${l.isMatch ? ":" : "-"} ${text}`);
    prev = l;
  }
  return out.join("\n");
}
