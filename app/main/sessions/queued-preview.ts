// How a queued steering or follow-up message is listed in the session state (the composer shows
// the queue): its text, images as "[image]", cut after QUEUED_PREVIEW_CHARS with how many
// characters more it holds. Every state event carries the whole queue again, so only the start is
// copied: a queued message of a megabyte costs its parts' lengths, not its text, per event.
import type { AgentMessage } from "../../shared/agent-types.ts";

/** Characters of a queued message the state shows. */
export const QUEUED_PREVIEW_CHARS = 2_000;

export function queuedPreview(message: AgentMessage): string {
  if (message.role !== "user") return "";
  const parts = typeof message.content === "string" ? [message.content] : message.content.map((c) => (c.type === "text" ? c.text : "[image]"));
  let total = 0;
  for (let i = 0; i < parts.length; i++) total += parts[i]!.length + (i > 0 ? 1 : 0);
  if (total <= QUEUED_PREVIEW_CHARS) return parts.join(" ");
  let start = "";
  for (let i = 0; i < parts.length && start.length < QUEUED_PREVIEW_CHARS; i++) start += (i > 0 ? " " : "") + parts[i]!.slice(0, QUEUED_PREVIEW_CHARS - start.length);
  start = start.slice(0, QUEUED_PREVIEW_CHARS);
  // Not between the two halves of a character outside the BMP (an emoji).
  if (/[\ud800-\udbff]/.test(start.at(-1)!)) start = start.slice(0, -1);
  return `${start}… (${(total - start.length).toLocaleString("en-US")} more characters)`;
}
