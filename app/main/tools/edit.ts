// The edit tool: exact text replacements in one file, all matched against the original text
// (see edit-match.ts). Keeps CRLF line endings and a UTF-8 BOM, writes atomically under the
// per-file lock, and puts a bounded unified diff and the first changed line in `details`. Throws
// on any failure, with a message naming which edit failed and why.
// The reading, matching, writing of the temporary file and diffing happen in a worker thread of
// the compute pool (file-jobs.ts), with a deadline: the main process only renames the result into
// place. Abort or the deadline stop the worker; the file is then left as it was.
import { Type } from "@sinclair/typebox";
import type { AgentTool } from "../loop/index.ts";
import { ComputeAbortedError, ComputeJobError, type ComputePool, ComputeTimeoutError, computePool } from "../workers/compute-pool.ts";
import { MissingFileError, prepareAtomicWrite } from "./atomic-write.ts";
import { EditError, type EditErrorKind } from "./edit-match.ts";
import { withFileLock, type FileLockAdmission } from "./file-lock.ts";
import { displayPath, isOutsideProject, MAX_PATH_ARGUMENT_CHARS, resolveToolPath } from "./paths.ts";
import type { EditDetails } from "../../shared/tool-details.ts";
export type { EditDetails };

/** An edit (read, match, write, diff) that takes longer than this is stopped and changes nothing. */
export const EDIT_TIMEOUT_MS = 20_000;

const editParameters = Type.Object({
  path: Type.String({ description: "File to edit, relative to the project folder (or absolute, or ~/...).", maxLength: MAX_PATH_ARGUMENT_CHARS }),
  edits: Type.Array(
    Type.Object({
      oldText: Type.String({ description: "Exact text to replace; must occur exactly once in the file." }),
      newText: Type.String({ description: "Replacement text." }),
    }),
    { minItems: 1, description: "Replacements, each matched against the original file (not after the others)." },
  ),
});

const DESCRIPTION =
  "Edit a file by exact text replacement. Each edit's oldText must match exactly one place in the current file (whitespace and indentation included) and is replaced by newText. Several edits to one file go in one call; they are all matched against the original file and must not overlap. Read the file first. Use write to create a file or replace all of it.";

export interface EditToolOptions {
  projectDir: string;
  /** The session's line of admissions to the file locks (file-lock.ts), shared with its other file tool. */
  admission?: FileLockAdmission;
  /** The worker pool that runs the edit (default: the process-wide one). */
  pool?: ComputePool;
  timeoutMs?: number;
}

export function createEditTool(options: EditToolOptions): AgentTool<typeof editParameters, EditDetails> {
  return {
    name: "edit",
    label: "Edit file",
    description: DESCRIPTION,
    parameters: editParameters,
    async execute(_toolCallId, params, signal) {
      const absolutePath = resolveToolPath(params.path, options.projectDir);
      const shown = displayPath(absolutePath, options.projectDir);
      // The lock gives where the file really is as the call begins (what its permission was judged on).
      return withFileLock(
        absolutePath,
        async (expectedTarget) => {
          if (signal?.aborted) throw new Error("Edit aborted before it started.");
          // Asked before the edit: once the file is replaced, nothing may fail the call.
          const outsideProject = await isOutsideProject(absolutePath, options.projectDir);
          const prepared = await prepareAtomicWrite(absolutePath, shown, { mustExist: true, expectedTarget }).catch((err: Error) => {
            if (err instanceof MissingFileError) throw new Error(`File not found: ${shown}. Use the write tool to create a file.`);
            throw err.name === "FileKindError" || err.name === "MovedTargetError" ? err : new Error(`Cannot edit ${shown}: ${err.message}`);
          });
          const timeoutMs = options.timeoutMs ?? EDIT_TIMEOUT_MS;
          let outcome;
          try {
            outcome = await (options.pool ?? computePool()).run(
              { kind: "edit", path: absolutePath, shown, edits: params.edits, oldName: shown, newName: shown, tempPath: prepared.tempPath },
              { timeoutMs, signal },
            );
            if (signal?.aborted) throw new ComputeAbortedError();
          } catch (err) {
            await prepared.discard();
            throw editFailure(err, shown, timeoutMs);
          }
          await prepared.commit().catch((err: Error) => {
            throw err.name === "MovedTargetError" ? err : new Error(`Could not edit ${shown}: ${err.message}`);
          });
          const count = params.edits.length;
          let text = `Edited ${shown}: ${count} ${count === 1 ? "replacement" : "replacements"}, first change at line ${outcome.firstChangedLine}.`;
          const normalized = outcome.normalizedEdits;
          if (normalized.length > 0) {
            text += ` Note: edit${normalized.length > 1 ? "s" : ""} #${normalized.join(", #")} matched only after normalising whitespace, quotes or dashes; the file's original text there was replaced.`;
          }
          return {
            content: [{ type: "text", text }],
            details: {
              path: shown,
              absolutePath,
              outsideProject,
              diff: outcome.diff,
              diffComplete: outcome.diffComplete,
              firstChangedLine: outcome.firstChangedLine,
              editCount: count,
              normalizedEdits: normalized,
              lineEnding: outcome.crlf ? "crlf" : "lf",
              bom: outcome.bom,
            },
          };
        },
        options.admission,
      );
    },
  };
}

/** The error the model sees for a failed edit; the file is unchanged in every case. */
function editFailure(err: unknown, shown: string, timeoutMs: number): Error {
  if (err instanceof ComputeJobError) {
    if (err.remoteName === "EditError") return new EditError(err.kind as EditErrorKind, `Could not edit ${shown}. ${err.message}`);
    const error = new Error(err.message);
    error.name = err.remoteName;
    return error;
  }
  if (err instanceof ComputeTimeoutError) {
    return new Error(`Could not edit ${shown}: the edit took longer than ${timeoutMs / 1000} s and was stopped; the file is unchanged. Edit a smaller file, or use bash.`);
  }
  if (err instanceof ComputeAbortedError) return new Error(`Edit of ${shown} aborted; the file is unchanged.`);
  return new Error(`Could not edit ${shown}: ${(err as Error).message}`);
}
