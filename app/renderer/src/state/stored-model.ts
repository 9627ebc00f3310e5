// The session model of stored pages (session-model.ts holds the model and its fold of live
// events): a page's messages with its tool calls' stored times, outcomes and terminal logs, and a
// session opened while it runs (the stored page, then what is live). Pure functions; never throw.
import type { AgentMessage } from "../../../shared/agent-types";
import type { LiveSnapshot } from "../../../shared/ipc/contract";
import { FINAL, itemsFor, type CompactionMark, type SessionModel, type StoredPage, type ToolTime, type TranscriptItem } from "./session-model";
import { asRecord, cardFromLive, newCard, type ToolCardState, type ToolStatus } from "./tool-cards";

const STATUS_OF_OUTCOME = { done: "done", failed: "error", denied: "denied", stopped: "stopped" } as const satisfies Record<NonNullable<ToolTime["outcome"]>, ToolStatus>;

/**
 * Cards' states and times from a page's stored tool calls (only where a card has none yet): the
 * outcome as the live view showed it (a denial with its reason, a stop), waiting from the call's
 * start to its execute, running from its execute to its end.
 */
export function applyToolTimes(tools: Map<string, ToolCardState>, times: readonly ToolTime[]): void {
  for (const t of times) {
    const card = tools.get(t.toolCallId);
    if (card && (card.startedAt !== null || card.queuedAt !== null)) continue;
    const base = card ?? newCard(t.toolCallId, "", {}, null);
    const status: ToolStatus =
      t.outcome !== null
        ? STATUS_OF_OUTCOME[t.outcome]
        : t.endedAt !== null
          ? t.isError
            ? "error"
            : "done"
          : t.executingAt !== null
            ? "running"
            : t.startedAt !== null
              ? "queued"
              : base.status;
    tools.set(t.toolCallId, {
      ...base,
      status: base.result ? base.status : status,
      queuedAt: t.startedAt,
      startedAt: t.executingAt,
      endedAt: t.endedAt,
      ...(t.reason !== null ? { outcomeReason: t.reason } : {}),
    });
  }
}

/** Marks the calls that started but never ended in a run that is over, and the stored logs. */
export function settleCards(tools: Map<string, ToolCardState>, times: readonly ToolTime[], outputs: readonly { toolCallId: string }[], stillRunning: boolean): void {
  if (!stillRunning)
    for (const t of times) {
      const card = tools.get(t.toolCallId);
      if (card && t.endedAt === null && !FINAL.has(card.status))
        tools.set(t.toolCallId, {
          ...card,
          status: "error",
          result: card.result ?? { content: [{ type: "text", text: "The run ended before this call finished." }], details: undefined, isError: true },
        });
    }
  for (const { toolCallId } of outputs) {
    const card = tools.get(toolCallId);
    if (card) tools.set(toolCallId, { ...card, storedOutput: true });
  }
}

/** Items for a run of consecutive messages from `first`; results whose call may be on an earlier page get no row. */
export function itemsOfRange(messages: readonly AgentMessage[], first: number, tools: Map<string, ToolCardState>): TranscriptItem[] {
  const items: TranscriptItem[] = [];
  // Results before the window's first other message answer a call on the page before (when there is one).
  let leading = first > 0;
  messages.forEach((message, i) => {
    if (message.role !== "toolResult") leading = false;
    items.push(...itemsFor(message, first + i, tools, !leading));
  });
  return items;
}

/** The model of a stored page (a whole short session is one page from 0): its messages, its calls' times, its logs. */
export function modelFromStored(page: StoredPage & { total?: number; compactions?: readonly CompactionMark[] }, stillRunning = false): SessionModel {
  const tools = new Map<string, ToolCardState>();
  // Times first, so the cards built from messages carry them.
  applyToolTimes(tools, page.toolCalls);
  const messages = page.messages.slice();
  const items = itemsOfRange(messages, page.first, tools);
  settleCards(tools, page.toolCalls, page.outputs, stillRunning);
  return {
    first: page.first,
    total: page.total ?? page.first + messages.length,
    messages,
    compactions: page.compactions ?? [],
    items,
    streaming: null,
    tools,
    running: stillRunning,
    retry: null,
    retryAt: null,
    thinking: new Map(),
    liveUsage: { tokens: 0, cost: 0 },
    outOfStep: false,
  };
}

/**
 * The model of a session opened while it may run: the stored page, then what is live (the message
 * streaming, tool calls without a stored result, with the output they showed so far). Events
 * numbered after the snapshot apply on top with applyEvents, exactly as if seen from the start.
 */
export function modelFromSnapshot(opened: StoredPage & { total: number; compactions: readonly CompactionMark[] }, live: LiveSnapshot | null, running: boolean): SessionModel {
  const model = modelFromStored(opened, running || live !== null);
  if (!live) return model;
  const tools = new Map(model.tools);
  for (const t of live.tools) tools.set(t.toolCallId, cardFromLive(tools.get(t.toolCallId) ?? newCard(t.toolCallId, t.toolName, asRecord(t.args), null), t));
  if (live.streaming) {
    for (const block of live.streaming.content) {
      if (block.type === "toolCall" && !tools.has(block.id)) tools.set(block.id, newCard(block.id, block.name, block.arguments, null));
    }
  }
  return { ...model, tools, streaming: live.streaming, retry: live.retry, running: model.running };
}
