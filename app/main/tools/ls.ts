// The ls tool: one folder's entries, sorted by name (case-insensitive), folders marked with "/",
// dotfiles included, bounded by `limit` and the output bounds. Throws on a missing path.
import type { Dirent } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { Type } from "@sinclair/typebox";
import type { AgentTool } from "../loop/index.ts";
import { displayPath, isOutsideProject, MAX_PATH_ARGUMENT_CHARS, resolveToolPath } from "./paths.ts";
import { truncateHead } from "./truncate.ts";
import type { LsDetails } from "../../shared/tool-details.ts";
export type { LsDetails };

const DEFAULT_LIMIT = 500;

const lsParameters = Type.Object({
  path: Type.Optional(Type.String({ description: "Folder to list (default: the project folder).", maxLength: MAX_PATH_ARGUMENT_CHARS })),
  limit: Type.Optional(Type.Integer({ minimum: 1, description: `Maximum entries (default ${DEFAULT_LIMIT}).` })),
});

export function createLsTool(options: { projectDir: string }): AgentTool<typeof lsParameters, LsDetails> {
  return {
    name: "ls",
    label: "List folder",
    description: `List a folder's entries, sorted by name; folders end with "/". Includes dotfiles. At most ${DEFAULT_LIMIT} entries unless limit is set.`,
    parameters: lsParameters,
    async execute(_toolCallId, params, signal) {
      const absolutePath = resolveToolPath(params.path ?? ".", options.projectDir);
      const shown = displayPath(absolutePath, options.projectDir);
      const info = await stat(absolutePath).catch(() => {
        throw new Error(`Folder not found: ${shown}`);
      });
      if (!info.isDirectory()) throw new Error(`${shown} is not a folder; use the read tool for files.`);
      if (signal?.aborted) throw new Error("Listing aborted.");
      const dirents: Dirent[] = await readdir(absolutePath, { withFileTypes: true });
      if (signal?.aborted) throw new Error("Listing aborted.");
      const names = await Promise.all(
        dirents.map(async (d) => {
          const isDir =
            d.isDirectory() ||
            (d.isSymbolicLink() &&
              (await stat(`${absolutePath}/${d.name}`).then(
                (s) => s.isDirectory(),
                () => false,
              )));
          return isDir ? `${d.name}/` : d.name;
        }),
      );
      if (signal?.aborted) throw new Error("Listing aborted.");
      names.sort((a, b) => a.localeCompare(b, "en", { sensitivity: "base" }) || (a < b ? -1 : 1));
      const limit = params.limit ?? DEFAULT_LIMIT;
      const listed = names.slice(0, limit);
      const bounded = truncateHead(listed.join("\n"));
      const shownCount = bounded.truncated ? bounded.keptLines : listed.length;
      let text = names.length === 0 ? "(empty folder)" : bounded.text;
      if (shownCount < names.length) {
        text += `\n\n[Showing ${shownCount} of ${names.length} entries. Use a larger limit, or find with a pattern, to see more.]`;
      }
      return {
        content: [{ type: "text", text }],
        details: {
          path: shown,
          absolutePath,
          outsideProject: await isOutsideProject(absolutePath, options.projectDir),
          entries: names.length,
          shown: shownCount,
          truncated: shownCount < names.length,
        },
      };
    },
  };
}
