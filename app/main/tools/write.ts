// The write tool: creates or replaces a whole file, atomically (see atomic-write.ts), creating
// parent folders and keeping the file's mode; refuses to replace anything but a regular file.
// Serialized with edits of the same file through the per-file lock. Before writing, a worker of
// the compute pool diffs the current content against the new one (bounded, with a deadline) for
// the card; a diff that cannot be computed in time is replaced by a note, never blocking the
// write. Throws on failure.
import { Type } from "@sinclair/typebox";
import type { AgentTool } from "../loop/index.ts";
import { type ComputePool, ComputeTimeoutError, computePool } from "../workers/compute-pool.ts";
import { writeFileAtomic } from "./atomic-write.ts";
import { withFileLock, type FileLockAdmission } from "./file-lock.ts";
import { displayPath, isOutsideProject, MAX_PATH_ARGUMENT_CHARS, resolveToolPath } from "./paths.ts";
import { byteLength, formatBytes } from "./truncate.ts";
import type { WriteDetails } from "../../shared/tool-details.ts";
export type { WriteDetails };

/** The card's diff is given up after this long (the write itself goes ahead). */
export const WRITE_DIFF_TIMEOUT_MS = 5_000;

const writeParameters = Type.Object({
  path: Type.String({ description: "File to write, relative to the project folder (or absolute, or ~/...).", maxLength: MAX_PATH_ARGUMENT_CHARS }),
  content: Type.String({ description: "The complete new content of the file." }),
});

const DESCRIPTION = "Write a file: creates it (and any missing parent folders) or replaces its whole content. Use edit for changes to part of an existing file.";

export interface WriteToolOptions {
  projectDir: string;
  /** The session's line of admissions to the file locks (file-lock.ts), shared with its other file tool. */
  admission?: FileLockAdmission;
  /** The worker pool that computes the card's diff (default: the process-wide one). */
  pool?: ComputePool;
  diffTimeoutMs?: number;
}

export function createWriteTool(options: WriteToolOptions): AgentTool<typeof writeParameters, WriteDetails> {
  return {
    name: "write",
    label: "Write file",
    description: DESCRIPTION,
    parameters: writeParameters,
    async execute(_toolCallId, params, signal) {
      const absolutePath = resolveToolPath(params.path, options.projectDir);
      const shown = displayPath(absolutePath, options.projectDir);
      // The lock gives where the file really is as the call begins (what its permission was judged on).
      return withFileLock(
        absolutePath,
        async (expectedTarget) => {
          if (signal?.aborted) throw new Error("Write aborted before it started.");
          const timeoutMs = options.diffTimeoutMs ?? WRITE_DIFF_TIMEOUT_MS;
          const diff = await (options.pool ?? computePool())
            .run({ kind: "fileDiff", path: absolutePath, shown, content: params.content, oldName: shown, newName: shown }, { timeoutMs, signal })
            .catch((err: Error) => ({
              diff: `The diff is not shown: ${err instanceof ComputeTimeoutError ? `computing it took longer than ${timeoutMs / 1000} s.` : err.message}\n`,
              diffComplete: false,
            }));
          // Asked before the write: once the file is written, nothing may fail the call.
          const outsideProject = await isOutsideProject(absolutePath, options.projectDir);
          if (signal?.aborted) throw new Error(`Write of ${shown} aborted; nothing was written.`);
          const result = await writeFileAtomic(absolutePath, params.content, shown, { expectedTarget }).catch((err: Error) => {
            throw err.name === "FileKindError" || err.name === "MovedTargetError" ? err : new Error(`Could not write ${shown}: ${err.message}`);
          });
          const bytes = byteLength(params.content);
          const lines = countLines(params.content);
          const verb = result.created ? "Created" : "Overwrote";
          return {
            content: [{ type: "text", text: `${verb} ${shown} (${lines} lines, ${formatBytes(bytes)}).` }],
            details: {
              path: shown,
              absolutePath,
              outsideProject,
              created: result.created,
              bytes,
              lines,
              previousBytes: result.previousSize,
              diff: diff.diff,
              diffComplete: diff.diffComplete,
            },
          };
        },
        options.admission,
      );
    },
  };
}

/** Lines of a text, the last one counted whether or not it ends with a newline. */
function countLines(text: string): number {
  let n = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return text === "" || text.endsWith("\n") ? n : n + 1;
}
