// The find tool: files and folders whose name (or, for a pattern with "/", whose path relative to
// the search folder) matches a glob, respecting .gitignore and skipping .git and node_modules
// unless `noIgnore` is set. Results in walk order, capped by `limit` with a notice. Throws on a
// missing path, an invalid pattern, or one over glob-match.ts's size limits (checked before any
// compile, so a hostile glob cannot hold the main thread).
import { stat } from "node:fs/promises";
import { Type } from "@sinclair/typebox";
import type { AgentTool } from "../loop/index.ts";
import type { ComputePool } from "../workers/compute-pool.ts";
import { GLOB_BATCH, GlobLimitError, globMatcher, type GlobMatcher } from "./glob-match.ts";
import { displayPath, isOutsideProject, MAX_PATH_ARGUMENT_CHARS, resolveToolPath } from "./paths.ts";
import { truncateHead } from "./truncate.ts";
import { walk, type WalkEntry } from "./walk.ts";
import type { FindDetails } from "../../shared/tool-details.ts";
export type { FindDetails };

const DEFAULT_LIMIT = 1000;

const findParameters = Type.Object({
  pattern: Type.String({ description: 'Glob, e.g. "*.ts", "src/**/*.test.ts", "{README,LICENSE}*".' }),
  path: Type.Optional(Type.String({ description: "Folder to search (default: the project folder).", maxLength: MAX_PATH_ARGUMENT_CHARS })),
  limit: Type.Optional(Type.Integer({ minimum: 1, description: `Maximum results (default ${DEFAULT_LIMIT}).` })),
  noIgnore: Type.Optional(Type.Boolean({ description: "Also search .gitignored files, .git and node_modules." })),
});

export interface FindToolOptions {
  projectDir: string;
  /** Where a glob that could backtrack hard is matched (glob-match.ts; default: the process-wide pool). */
  pool?: ComputePool;
  /** Matching time such a glob may take in one call, all batches together (default GLOB_BUDGET_MS). */
  globBudgetMs?: number;
}

export function createFindTool(options: FindToolOptions): AgentTool<typeof findParameters, FindDetails> {
  return {
    name: "find",
    label: "Find files",
    description: `Find files by glob pattern. A pattern without "/" matches names anywhere in the tree ("*.ts"); with "/" it matches paths relative to the search folder ("src/**/*.ts"). Respects .gitignore and skips .git and node_modules unless noIgnore is true. Folders in results end with "/". At most ${DEFAULT_LIMIT} results unless limit is set.`,
    parameters: findParameters,
    async execute(_toolCallId, params, signal) {
      const absolutePath = resolveToolPath(params.path ?? ".", options.projectDir);
      const shown = displayPath(absolutePath, options.projectDir);
      const info = await stat(absolutePath).catch(() => {
        throw new Error(`Folder not found: ${shown}`);
      });
      if (!info.isDirectory()) throw new Error(`${shown} is not a folder.`);
      const byPath = params.pattern.includes("/");
      let matcher: GlobMatcher;
      try {
        matcher = globMatcher(params.pattern.replace(/^\.\//, ""), { pool: options.pool, budgetMs: options.globBudgetMs });
      } catch (err) {
        // A glob over the size limits: the error names the limit (and shows the glob cut).
        if (err instanceof GlobLimitError) throw err;
        throw new Error(`Invalid glob pattern ${JSON.stringify(params.pattern)}: ${(err as Error).message}`, { cause: err });
      }
      const limit = params.limit ?? DEFAULT_LIMIT;
      const found: string[] = [];
      let more = false;
      const subjectOf = (entry: WalkEntry) => (byPath ? entry.rel : entry.rel.slice(entry.rel.lastIndexOf("/") + 1));
      /** Adds a match; false once the limit is passed. */
      const take = (entry: WalkEntry): boolean => {
        if (found.length >= limit) {
          more = true;
          return false;
        }
        found.push(entry.isDir ? `${entry.rel}/` : entry.rel);
        return true;
      };
      const entries = walk(absolutePath, { projectDir: options.projectDir, noIgnore: params.noIgnore, signal });
      if (matcher.inline) {
        const isMatch = matcher.inline;
        for await (const entry of entries) {
          if (isMatch(subjectOf(entry)) && !take(entry)) break;
        }
      } else {
        // Names go to the compute pool in batches, in walk order.
        let batch: WalkEntry[] = [];
        const flush = async (): Promise<boolean> => {
          const matched = await matcher.filter(batch.map(subjectOf), signal).catch((err: unknown) => {
            if (signal?.aborted) throw new Error("Find aborted.", { cause: err });
            throw err;
          });
          const taken = batch.every((entry, i) => !matched[i] || take(entry));
          batch = [];
          return taken;
        };
        let stopped = false;
        for await (const entry of entries) {
          batch.push(entry);
          if (batch.length >= GLOB_BATCH && !(await flush())) {
            stopped = true;
            break;
          }
        }
        if (!stopped && batch.length > 0) await flush();
      }
      if (signal?.aborted) throw new Error("Find aborted.");
      const bounded = truncateHead(found.join("\n"));
      const shownCount = bounded.truncated ? bounded.keptLines : found.length;
      let text = found.length === 0 ? `No files match ${JSON.stringify(params.pattern)} in ${shown}.` : bounded.text;
      if (more || bounded.truncated) {
        text += `\n\n[Showing the first ${shownCount} matches; there are more. Narrow the pattern or the path${more ? ", or raise limit" : ""}.]`;
      }
      return {
        content: [{ type: "text", text }],
        details: {
          path: shown,
          absolutePath,
          outsideProject: await isOutsideProject(absolutePath, options.projectDir),
          matches: shownCount,
          truncated: more || bounded.truncated,
        },
      };
    },
  };
}
