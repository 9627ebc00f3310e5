// Adding stored pages to a session's window (see session-model.ts): older messages in front as the
// view scrolls up, newer ones behind when it was opened around an older message. Pure functions;
// each costs O(page), not O(window) (the item list is concatenated once). Stored messages never
// change, so a page fetched at any time fits; a page that no longer joins the window (a resync
// moved it) is ignored.
import type { AgentMessage } from "../../../shared/agent-types";
import { atEnd, itemsFor, type SessionModel, type StoredPage, type TranscriptItem } from "./session-model";
import { applyToolTimes, itemsOfRange, settleCards } from "./stored-model";

/** The window with `page` (ending where the window starts) in front. */
export function prependPage(model: SessionModel, page: StoredPage): SessionModel {
  if (page.messages.length === 0 || page.first + page.messages.length !== model.first) return model;
  const tools = new Map(model.tools);
  applyToolTimes(tools, page.toolCalls);
  const items = itemsOfRange(page.messages, page.first, tools);
  // The window's leading results waited for their call's message: those this page did not claim
  // (a damaged transcript) get their own row now, unless the page is all results as well.
  const claimed = new Set(items.flatMap((i) => (i.kind === "tool" ? [i.toolCallId] : [])));
  const pageHasCallSite = page.first === 0 || page.messages.some((m) => m.role !== "toolResult");
  const orphans: TranscriptItem[] = [];
  if (pageHasCallSite) {
    for (let i = 0; i < model.messages.length && model.messages[i]!.role === "toolResult"; i++) {
      const result = model.messages[i] as Extract<AgentMessage, { role: "toolResult" }>;
      if (claimed.has(result.toolCallId)) continue;
      const position = model.first + i;
      const card = tools.get(result.toolCallId);
      if (card) tools.set(result.toolCallId, { ...card, position });
      orphans.push({ kind: "tool", key: `t${result.toolCallId}`, toolCallId: result.toolCallId, position });
    }
  }
  // Older pages hold no call of a run still going (those are at the end).
  settleCards(tools, page.toolCalls, page.outputs, false);
  return {
    ...model,
    first: page.first,
    messages: [...page.messages, ...model.messages],
    items: [...items, ...orphans, ...model.items],
    tools,
  };
}

/**
 * The window with `page` (starting where the window ends) behind it, cut at the session's length
 * as this view knows it: messages beyond it come as events, which would add them again.
 */
export function appendPage(model: SessionModel, page: StoredPage): SessionModel {
  const end = model.first + model.messages.length;
  if (atEnd(model) || page.first !== end) return model;
  const messages = page.messages.slice(0, model.total - end);
  if (messages.length === 0) return model;
  const tools = new Map(model.tools);
  applyToolTimes(tools, page.toolCalls);
  const items: TranscriptItem[] = [];
  messages.forEach((message, i) => items.push(...itemsFor(message, end + i, tools)));
  settleCards(tools, page.toolCalls, page.outputs, model.running);
  return { ...model, messages: [...model.messages, ...messages], items: [...model.items, ...items], tools };
}
