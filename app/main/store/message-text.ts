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

/**
 * Characters of a message's text that the search index holds at most, its first ones (cut at a
 * blank near the bound): indexing a model's 7.5 MB answer held the main thread 100 to 150 ms in
 * one FTS5 insert (bench:huge-answer), and a word past the bound is rarely what a person looks
 * for. The words list reads as far (search-words.ts, MAX_CHARS_COUNTED). Messages indexed before
 * schema 10 keep their whole text in the index (migrations.ts: sessions.capped_from).
 */
export const MAX_INDEXED_CHARS = 1_000_000;

/**
 * The SQL function's body: stored JSON in, the text the index holds out (null when there is
 * none): its first part when `capped` is 1, else whole (a message indexed before schema 10, and
 * the migrations before it). The index's deletes pass the same arguments, so they remove exactly
 * what was indexed.
 */
export function searchableTextOfJson(json: unknown, capped: unknown = 0): string | null {
  const text = wholeTextOfJson(json);
  // SQLite's 1 arrives as a number, or a bigint on a connection with safe integers.
  return text === null || Number(capped) !== 1 ? text : indexedPart(text);
}

/** A stored message's searchable text, whole (null when there is none or the JSON is not readable). */
function wholeTextOfJson(json: unknown): string | null {
  if (typeof json !== "string") return null;
  try {
    const text = contentText((JSON.parse(json) as { content?: unknown }).content);
    return text === "" ? null : text;
  } catch {
    return null;
  }
}

/** The first MAX_INDEXED_CHARS of `text`, ended at its last blank in the bound's final 256 characters, if any. */
function indexedPart(text: string): string {
  if (text.length <= MAX_INDEXED_CHARS) return text;
  let end = MAX_INDEXED_CHARS;
  const blank = text.slice(end - 256, end).search(/\s\S*$/);
  if (blank >= 0) end = end - 256 + blank;
  // Never half of a surrogate pair.
  else if (/[\ud800-\udbff]/.test(text[end - 1]!)) end--;
  return text.slice(0, end);
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
