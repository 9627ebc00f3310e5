// The edit tool: exact text replacements in one file, all matched against the original text
// (see edit-match.ts). Keeps CRLF line endings and a UTF-8 BOM, writes atomically under the
// per-file lock, and puts a unified diff and the first changed line in `details`. Throws on any
// failure, with a message naming which edit failed and why.
import { readFile } from "node:fs/promises";
import { Type } from "@sinclair/typebox";
import { createTwoFilesPatch, structuredPatch } from "diff";
import type { AgentTool } from "../loop/types.ts";
import { writeFileAtomic } from "./atomic-write.ts";
import { applyEdits, EditError } from "./edit-match.ts";
import { looksBinary } from "./file-kind.ts";
import { withFileLock } from "./file-lock.ts";
import { displayPath, isOutsideProject, resolveToolPath } from "./paths.ts";
import type { EditDetails } from "../../shared/tool-details.ts";
export type { EditDetails };

const editParameters = Type.Object({
  path: Type.String({ description: "File to edit, relative to the project folder (or absolute, or ~/...)." }),
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

export function createEditTool(options: { projectDir: string }): AgentTool<typeof editParameters, EditDetails> {
  return {
    name: "edit",
    label: "Edit file",
    description: DESCRIPTION,
    parameters: editParameters,
    async execute(_toolCallId, params, signal) {
      const absolutePath = resolveToolPath(params.path, options.projectDir);
      const shown = displayPath(absolutePath, options.projectDir);
      return withFileLock(absolutePath, async () => {
        if (signal?.aborted) throw new Error("Edit aborted before it started.");
        const raw = await readFile(absolutePath).catch((err: NodeJS.ErrnoException) => {
          if (err.code === "ENOENT") throw new Error(`File not found: ${shown}. Use the write tool to create a file.`);
          if (err.code === "EISDIR") throw new Error(`${shown} is a directory.`);
          throw new Error(`Cannot read ${shown}: ${err.message}`);
        });
        if (looksBinary(raw.subarray(0, 8192))) throw new Error(`${shown} is a binary file; edit changes text files only.`);
        let text = raw.toString("utf8");
        const bom = text.startsWith("\uFEFF");
        if (bom) text = text.slice(1);
        const crlf = isCrlf(text);
        const original = crlf ? text.replaceAll("\r\n", "\n") : text;
        const edits = params.edits.map((e) => ({
          oldText: crlf ? e.oldText.replaceAll("\r\n", "\n") : e.oldText,
          newText: crlf ? e.newText.replaceAll("\r\n", "\n") : e.newText,
        }));
        let result;
        try {
          result = applyEdits(original, edits);
        } catch (err) {
          if (err instanceof EditError) throw new EditError(err.kind, `Could not edit ${shown}. ${err.message}`);
          throw err;
        }
        const output = (bom ? "\uFEFF" : "") + (crlf ? result.content.replaceAll("\n", "\r\n") : result.content);
        await writeFileAtomic(absolutePath, output);
        const patch = structuredPatch(shown, shown, original, result.content, undefined, undefined, { context: 3 });
        const diff = createTwoFilesPatch(shown, shown, original, result.content, undefined, undefined, { context: 3 });
        const firstChangedLine = firstChangedLineOf(patch.hunks);
        const normalizedEdits = result.normalizedEdits.map((i) => i + 1);
        let text2 = `Edited ${shown}: ${edits.length} ${edits.length === 1 ? "replacement" : "replacements"}, first change at line ${firstChangedLine}.`;
        if (normalizedEdits.length > 0) {
          text2 += ` Note: edit${normalizedEdits.length > 1 ? "s" : ""} #${normalizedEdits.join(", #")} matched only after normalising whitespace, quotes or dashes; the file's original text there was replaced.`;
        }
        return {
          content: [{ type: "text", text: text2 }],
          details: {
            path: shown,
            absolutePath,
            outsideProject: isOutsideProject(absolutePath, options.projectDir),
            diff,
            firstChangedLine,
            editCount: edits.length,
            normalizedEdits,
            lineEnding: crlf ? "crlf" : "lf",
            bom,
          },
        };
      });
    },
  };
}

/** CRLF when every line break is CRLF (and there is at least one). Mixed files are left as they are. */
function isCrlf(text: string): boolean {
  let lf = 0;
  let crlf = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
    lf++;
    if (text[i - 1] === "\r") crlf++;
  }
  return lf > 0 && crlf === lf;
}

function firstChangedLineOf(hunks: { newStart: number; lines: string[] }[]): number {
  const hunk = hunks[0];
  if (!hunk) return 1;
  let line = hunk.newStart;
  for (const l of hunk.lines) {
    if (l.startsWith("+") || l.startsWith("-")) return Math.max(1, line);
    line++;
  }
  return Math.max(1, hunk.newStart);
}
