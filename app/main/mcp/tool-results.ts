// An MCP `tools/call` result as tool-result content for the model: text blocks joined and bounded
// like every tool's output (2,000 lines or 50 KB, with a note saying what was cut); images kept
// only when their bytes really are a PNG, JPEG, GIF or WebP of at most 5 MB (a malformed image in
// the transcript would make every later request fail); embedded text resources as text with their
// URI; resource links, audio and binary resources as one line each; structured content as JSON
// text when the server sent no text. Pure; never throws, whatever the server sent.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ImageContent, TextContent } from "../../shared/agent-types.ts";
import { exceedsBounds } from "../../shared/json-bounds.ts";
import { detectImage } from "../tools/file-kind.ts";
import { formatBytes, MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES, truncateHead } from "../tools/truncate.ts";

export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
export const MAX_IMAGES = 8;
const MAX_STRUCTURED = { maxDepth: 64, maxChars: 1_000_000 };

export interface McpCallDetails {
  server: string;
  tool: string;
  /** The server marked the result as an error. */
  isError: boolean;
  truncated: boolean;
  /** What was not passed to the model, one line each. */
  omitted: string[];
  durationMs?: number;
}

export interface ConvertedResult {
  content: (TextContent | ImageContent)[];
  details: McpCallDetails;
  /** The text, for an error message when the server marked the result as an error. */
  text: string;
}

function short(text: unknown, max = 200): string {
  const s = typeof text === "string" ? text : "";
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** Base64 of an image the providers will accept, or why not. */
function checkImage(data: unknown, mimeType: unknown): { mimeType: ImageContent["mimeType"] } | { problem: string } {
  if (typeof data !== "string" || data.length === 0) return { problem: "no data" };
  const bytes = Math.floor((data.length * 3) / 4);
  if (bytes > MAX_IMAGE_BYTES) return { problem: `${formatBytes(bytes)}, over the ${formatBytes(MAX_IMAGE_BYTES)} a model accepts` };
  if (data.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(data)) return { problem: "its data is not base64" };
  const detected = detectImage(Buffer.from(data.slice(0, 24), "base64"));
  if (!detected) return { problem: `its bytes are not a PNG, JPEG, GIF or WebP image (declared ${short(mimeType, 40) || "no type"})` };
  return { mimeType: detected };
}

export function convertCallResult(server: string, tool: string, result: CallToolResult): ConvertedResult {
  const texts: string[] = [];
  const images: ImageContent[] = [];
  const omitted: string[] = [];
  const addImage = (data: unknown, mimeType: unknown, what: string) => {
    const checked = checkImage(data, mimeType);
    if ("problem" in checked) omitted.push(`${what} not passed: ${checked.problem}`);
    else if (images.length >= MAX_IMAGES) omitted.push(`${what} not passed: more than ${MAX_IMAGES} images in one result`);
    else images.push({ type: "image", data: data as string, mimeType: checked.mimeType });
  };
  const blocks = Array.isArray(result.content) ? result.content : [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        texts.push(block.text);
        break;
      case "image":
        addImage(block.data, block.mimeType, "An image");
        break;
      case "audio":
        omitted.push(`Audio (${short(block.mimeType, 40)}) not passed: Lathe passes text and images only`);
        break;
      case "resource_link":
        texts.push(
          `Resource link: ${short(block.name)} <${short(block.uri, 2000)}>${block.mimeType ? ` (${short(block.mimeType, 60)})` : ""}${block.description ? `: ${short(block.description)}` : ""}`,
        );
        break;
      case "resource": {
        const r = block.resource;
        if ("text" in r && typeof r.text === "string") {
          texts.push(`Resource <${short(r.uri, 2000)}>${r.mimeType ? ` (${short(r.mimeType, 60)})` : ""}:\n${r.text}`);
        } else if ("blob" in r && typeof r.blob === "string") {
          if (typeof r.mimeType === "string" && r.mimeType.startsWith("image/")) addImage(r.blob, r.mimeType, `The image resource <${short(r.uri, 200)}>`);
          else omitted.push(`Binary resource <${short(r.uri, 200)}> (${short(r.mimeType, 60) || "no type"}, ${formatBytes(Math.floor((r.blob.length * 3) / 4))}) not passed`);
        }
        break;
      }
    }
  }
  if (texts.length === 0 && result.structuredContent !== undefined) {
    const why = exceedsBounds(result.structuredContent, MAX_STRUCTURED);
    if (why) omitted.push(`Structured content not passed: it is ${why}`);
    else texts.push(JSON.stringify(result.structuredContent, null, 2));
  }
  const joined = texts.join("\n");
  const bounded = truncateHead(joined);
  let text = bounded.text;
  if (bounded.truncated) {
    text += `\n[Lathe cut this output: ${bounded.totalLines} lines, ${formatBytes(bounded.totalBytes)} from the MCP server; the model is shown at most ${MAX_OUTPUT_LINES} lines or ${MAX_OUTPUT_BYTES / 1024} KB. Ask the tool for less, or for a part.]`;
  }
  if (omitted.length > 0) text += `${text ? "\n" : ""}${omitted.map((o) => `[${o}.]`).join("\n")}`;
  if (!text && images.length === 0) text = "(The tool returned no content.)";
  const content: (TextContent | ImageContent)[] = text ? [{ type: "text", text }, ...images] : images;
  return {
    content,
    text,
    details: { server, tool, isError: result.isError === true, truncated: bounded.truncated, omitted },
  };
}
