// The text of a message as search, titles and exports see it. Pure functions; never throw.
// Searchable text is the text blocks of user, assistant, tool-result and custom messages: no
// thinking, no signatures, no images, no tool-call arguments.
import type { AgentMessage } from "../../shared/agent-types.ts";

/** Name of the SQL function (registered on every connection) that the full-text index uses. */
export const MESSAGE_TEXT_FUNCTION = "lathe_message_text";

/** Text blocks of a message's `content` (string or block list), joined by newlines. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const block of content) {
    if (block && typeof block === "object" && block.type === "text" && typeof block.text === "string") parts.push(block.text);
  }
  return parts.join("\n");
}

/** The SQL function's body: stored JSON in, searchable text out (null when there is none). */
export function searchableTextOfJson(json: unknown): string | null {
  if (typeof json !== "string") return null;
  try {
    const text = contentText((JSON.parse(json) as { content?: unknown }).content);
    return text === "" ? null : text;
  } catch {
    return null;
  }
}

export function searchableText(message: AgentMessage): string {
  return contentText(message.content);
}

/** A session title from its first prompt: the first non-empty line, at most 80 characters. */
export function titleFromPrompt(message: AgentMessage): string | null {
  if (message.role !== "user") return null;
  const line = searchableText(message)
    .split("\n")
    .map((l) => l.trim())
    .find((l) => l !== "");
  if (!line) return null;
  return line.length <= 80 ? line : `${line.slice(0, 79).trimEnd()}…`;
}
