// The write tool: creates or replaces a whole file, atomically (see atomic-write.ts), creating
// parent folders and keeping the file's mode. Serialized with edits of the same file through the
// per-file lock. Throws on failure.
import { Type } from "@sinclair/typebox";
import type { AgentTool } from "../loop/types.ts";
import { writeFileAtomic } from "./atomic-write.ts";
import { withFileLock } from "./file-lock.ts";
import { displayPath, isOutsideProject, resolveToolPath } from "./paths.ts";
import { byteLength, formatBytes } from "./truncate.ts";
import type { WriteDetails } from "../../shared/tool-details.ts";
export type { WriteDetails };

const writeParameters = Type.Object({
  path: Type.String({ description: "File to write, relative to the project folder (or absolute, or ~/...)." }),
  content: Type.String({ description: "The complete new content of the file." }),
});

const DESCRIPTION =
  "Write a file: creates it (and any missing parent folders) or replaces its whole content. Use edit for changes to part of an existing file.";

export function createWriteTool(options: { projectDir: string }): AgentTool<typeof writeParameters, WriteDetails> {
  return {
    name: "write",
    label: "Write file",
    description: DESCRIPTION,
    parameters: writeParameters,
    async execute(_toolCallId, params, signal) {
      const absolutePath = resolveToolPath(params.path, options.projectDir);
      const shown = displayPath(absolutePath, options.projectDir);
      return withFileLock(absolutePath, async () => {
        if (signal?.aborted) throw new Error("Write aborted before it started.");
        const result = await writeFileAtomic(absolutePath, params.content).catch((err: Error) => {
          throw new Error(`Could not write ${shown}: ${err.message}`);
        });
        const bytes = byteLength(params.content);
        const lines = params.content === "" ? 0 : params.content.split("\n").length - (params.content.endsWith("\n") ? 1 : 0);
        const verb = result.created ? "Created" : "Overwrote";
        return {
          content: [{ type: "text", text: `${verb} ${shown} (${lines} lines, ${formatBytes(bytes)}).` }],
          details: {
            path: shown,
            absolutePath,
            outsideProject: isOutsideProject(absolutePath, options.projectDir),
            created: result.created,
            bytes,
            lines,
            previousBytes: result.previousSize,
          },
        };
      });
    },
  };
}
