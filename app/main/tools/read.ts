// The read tool: a file's text with line numbers, from `offset` for `limit` lines, bounded and
// naming the offset to continue from; PNG/JPEG/GIF/WebP images (detected from their bytes) as
// image content; other binary files refused. Reads in chunks, so a huge file or one enormous line
// never blows the bounds. Refuses FIFOs, sockets, devices and /proc-like files without ever
// blocking on them (file-guard.ts), and stops between chunks when aborted. Throws on any failure,
// with a message the model can act on.
import type { FileHandle } from "node:fs/promises";
import { Type } from "@sinclair/typebox";
import type { AgentTool, ImageContent, TextContent } from "../loop/index.ts";
import { describeBinary, detectImage, type ImageMime, looksBinary } from "./file-kind.ts";
import { openRegularFile } from "./file-guard.ts";
import { scanLines } from "./line-scanner.ts";
import { displayPath, isOutsideProject, MAX_PATH_ARGUMENT_CHARS, resolveToolPath } from "./paths.ts";
import { byteLength, cutToBytes, formatBytes, MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES } from "./truncate.ts";
import type { ReadDetails } from "../../shared/tool-details.ts";
export type { ReadDetails };

/** Images larger than this are refused: model APIs reject them. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Beyond this size the total line count is not computed (the scan stops at the last line shown). */
const COUNT_ALL_LINES_UP_TO = 16 * 1024 * 1024;

const readParameters = Type.Object({
  path: Type.String({ description: "File to read, relative to the project folder (or absolute, or ~/...).", maxLength: MAX_PATH_ARGUMENT_CHARS }),
  offset: Type.Optional(Type.Integer({ minimum: 1, description: "First line to show (1-based). Default 1." })),
  limit: Type.Optional(Type.Integer({ minimum: 1, description: "Maximum number of lines to show." })),
});

const DESCRIPTION = `Read a file. Text comes back with line numbers (as "   N\\tline"); at most ${MAX_OUTPUT_LINES} lines or ${MAX_OUTPUT_BYTES / 1024} KB at a time: the result then names the offset to continue from. Use offset and limit to read parts of large files. PNG, JPEG, GIF and WebP images are returned as images. Other binary files are refused.`;

export function createReadTool(options: { projectDir: string }): AgentTool<typeof readParameters, ReadDetails> {
  return {
    name: "read",
    label: "Read file",
    description: DESCRIPTION,
    parameters: readParameters,
    async execute(_toolCallId, params, signal) {
      const absolutePath = resolveToolPath(params.path, options.projectDir);
      const shown = displayPath(absolutePath, options.projectDir);
      const base = { path: shown, absolutePath, outsideProject: await isOutsideProject(absolutePath, options.projectDir) };
      if (signal?.aborted) throw new Error("Read aborted.");
      const { handle, stats: info } = await openRegularFile(absolutePath, shown, "read").catch((err: NodeJS.ErrnoException) => {
        if (err.name === "FileKindError") throw err;
        throw new Error(err.code === "ENOENT" ? `File not found: ${shown}` : `Cannot read ${shown}: ${err.message}`);
      });
      try {
        const head = await readHead(handle, 8192);
        const mimeType = detectImage(head);
        if (mimeType) return await readImage(handle, shown, info.size, mimeType, base);
        if (looksBinary(head)) {
          throw new Error(`${shown} is a binary file (${describeBinary(head)}, ${formatBytes(info.size)}); read shows text files and PNG, JPEG, GIF or WebP images only.`);
        }
        return await readText(handle, shown, info.size, params.offset ?? 1, params.limit, base, signal);
      } finally {
        await handle.close();
      }
    },
  };
}

async function readHead(handle: FileHandle, bytes: number): Promise<Buffer> {
  const buffer = Buffer.alloc(bytes);
  const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
  return buffer.subarray(0, bytesRead);
}

async function readImage(handle: FileHandle, shown: string, size: number, mimeType: ImageMime, base: Pick<ReadDetails, "path" | "absolutePath" | "outsideProject">) {
  if (size > MAX_IMAGE_BYTES) {
    throw new Error(`${shown} is an image (${mimeType}) of ${formatBytes(size)}, over the ${formatBytes(MAX_IMAGE_BYTES)} a model accepts.`);
  }
  const data = (await handle.readFile()).toString("base64");
  const content: (TextContent | ImageContent)[] = [
    { type: "text", text: `Image ${shown} (${mimeType}, ${formatBytes(size)}):` },
    { type: "image", data, mimeType },
  ];
  return { content, details: { ...base, kind: "image" as const, mimeType, truncated: false } };
}

function lineLabel(n: number): string {
  return `${String(n).padStart(6)}\t`;
}

async function readText(
  handle: FileHandle,
  shown: string,
  size: number,
  offset: number,
  limit: number | undefined,
  base: Pick<ReadDetails, "path" | "absolutePath" | "outsideProject">,
  signal: AbortSignal | undefined,
) {
  const maxLines = Math.min(limit ?? MAX_OUTPUT_LINES, MAX_OUTPUT_LINES);
  const out: string[] = [];
  let bytes = 0;
  let lastShown = 0;
  let lastLine = 0;
  let stoppedByBounds = false;
  let done = false;
  let cutLine: { number: number; length: number; shownChars: number } | undefined;
  const countAll = size <= COUNT_ALL_LINES_UP_TO;
  await scanLines(
    handle,
    MAX_OUTPUT_BYTES,
    (line) => {
      lastLine = line.number;
      if (line.number < offset) return true;
      if (done) return countAll;
      if (out.length >= maxLines) {
        done = true;
        stoppedByBounds = maxLines === MAX_OUTPUT_LINES && limit !== MAX_OUTPUT_LINES;
        return countAll;
      }
      const formatted = lineLabel(line.number) + line.text;
      const cost = byteLength(formatted) + 1;
      if (bytes + cost > MAX_OUTPUT_BYTES) {
        done = true;
        if (out.length > 0) {
          stoppedByBounds = true;
          return countAll;
        }
        // A single line longer than the whole budget: show its start.
        const cut = cutToBytes(line.text, MAX_OUTPUT_BYTES - 512);
        out.push(lineLabel(line.number) + cut);
        cutLine = { number: line.number, length: line.length, shownChars: cut.length };
        lastShown = line.number;
        return countAll;
      }
      if (line.length > line.text.length) cutLine = { number: line.number, length: line.length, shownChars: line.text.length };
      out.push(formatted);
      bytes += cost;
      lastShown = line.number;
      return true;
    },
    { signal, endAt: size },
  );
  const totalLines = countAll ? lastLine : undefined;
  if (lastShown === 0) {
    if (lastLine === 0 && offset === 1) {
      return { content: [{ type: "text" as const, text: "(empty file)" }], details: { ...base, kind: "text" as const, totalLines: 0, truncated: false } };
    }
    throw new Error(`Offset ${offset} is beyond the end of ${shown} (${lastLine} lines).`);
  }
  const moreFollow = totalLines !== undefined ? lastShown < totalLines : lastLine > lastShown;
  const notices: string[] = [];
  if (cutLine) {
    notices.push(
      `[Line ${cutLine.number} is ${cutLine.length} characters long; only its first ${cutLine.shownChars} are shown. ` +
        `See the rest with bash, e.g. sed -n '${cutLine.number}p' ${quote(shown)} | cut -c ${cutLine.shownChars + 1}-${cutLine.shownChars + 20000}]`,
    );
  }
  const nextOffset = moreFollow ? lastShown + 1 : undefined;
  if (nextOffset !== undefined) {
    const of = totalLines !== undefined ? ` of ${totalLines}` : "";
    const why = stoppedByBounds ? ` (output limit of ${MAX_OUTPUT_LINES} lines or ${MAX_OUTPUT_BYTES / 1024} KB reached)` : "";
    notices.push(`[Showing lines ${offset}-${lastShown}${of}${why}. Use offset=${nextOffset} to continue.]`);
  }
  const text = out.join("\n") + (notices.length > 0 ? `\n\n${notices.join("\n")}` : "");
  return {
    content: [{ type: "text" as const, text }],
    details: {
      ...base,
      kind: "text" as const,
      startLine: offset,
      endLine: lastShown,
      totalLines,
      truncated: nextOffset !== undefined || cutLine !== undefined,
      nextOffset,
    },
  };
}

function quote(p: string): string {
  return `'${p.replaceAll("'", `'\\''`)}'`;
}
