// The session view model: a pure fold of a session's messages and lifecycle events into what the
// session view shows. Transcript items are in source order and keep their place (a tool card sits
// under the assistant message that asked for it, whatever order the calls finish in); tool cards,
// keyed by toolCallId, change state in completion order. Never throws on unexpected events: an
// event for an unknown call creates its card, a result without a card gets one.
//
// Terminal output is kept as an append-only chunk list shared between successive versions of a
// card (copying it on every update would be quadratic); `chunkCount` tells how many chunks belong
// to a version, so a version stays a consistent snapshot.
//
// Card states (tool-cards.ts): "pending" until the loop starts preparing the call, "queued" from
// tool_execution_start (validation, the permission question, the batch), "running" from the
// session's tool_call_phase "executing" (so a card's timer counts the run, not the wait), then
// "done" or "error", or "denied" / "stopped" as the session says (with the reason). Stored pages
// carry each call's start, execute start, end and outcome (stored-model.ts), so a reopened session
// shows what the live one showed.
// Thinking blocks get their start and end as seen live ("Thinking… 4 s", "Thought for 12 s").
// Usage of answers ended since the session info was read is summed in `liveUsage` (the sync
// layer resets it with fresh info).
//
// The streaming message is rebuilt from its updates, which carry only what changed
// (app/shared/streaming-message.ts): a batch copies the message and its block list once and
// appends its deltas to the copy, so a batch costs O(its deltas + the message's blocks), never
// O(the message's text). A tool call's card follows the call while it is written (its name and
// the arguments parsed so far, as often as they are sent). An update that does not fit sets
// `outOfStep`, and the sync layer takes a fresh snapshot.
//
// Pages: the model holds a window of the session, positions first..first+messages.length-1, of
// `total` messages (a long session opens at its newest page; older pages are added in front as
// the view scrolls up, see session-pages.ts). While the window reaches the end, finished messages
// are appended to it; when it does not (opened around a search hit), they only count. An update
// costs O(what changed), never O(window).
import type { AgentMessage, AssistantMessage, CustomMessage, ProviderRetry, UserMessage } from "../../../shared/agent-types";
import type { WireAgentEvent } from "../../../shared/ipc/agent-schemas";
import { applyStreamUpdate, streamingCopy } from "../../../shared/streaming-message";
import { applyToolEvent, isToolEvent, newCard, type ToolCardState, type ToolOutcome, type ToolStatus } from "./tool-cards";

export type { ToolCardState } from "./tool-cards";

/** A compaction entry or its undo, wherever it is in the session. */
export interface CompactionMark {
  position: number;
  message: CustomMessage;
}

/** What became of a stored tool call and when (the store's tool_calls row). */
export interface ToolTime {
  toolCallId: string;
  /** tool_execution_start: its wait (preparation, the permission question) began. */
  startedAt: number | null;
  /** Its execute began; null when it never ran. */
  executingAt: number | null;
  endedAt: number | null;
  isError: boolean | null;
  outcome: "done" | "failed" | "denied" | "stopped" | null;
  reason: string | null;
}

/** A page of stored messages from position `first`, as sessions.open and sessions.page return it. */
export interface StoredPage {
  first: number;
  messages: readonly AgentMessage[];
  toolCalls: readonly ToolTime[];
  outputs: readonly { toolCallId: string }[];
}

export type TranscriptItem =
  | { kind: "user"; key: string; position: number; message: UserMessage }
  | { kind: "assistant"; key: string; position: number; message: AssistantMessage; streaming: boolean; thinking?: readonly (ThinkingTime | undefined)[] }
  | { kind: "tool"; key: string; toolCallId: string; position: number }
  | { kind: "timeline"; key: string; position: number; toolCallIds: string[] }
  | { kind: "custom"; key: string; position: number; message: CustomMessage };

/** When a thinking block started and ended streaming, as seen (end null while it streams). */
export interface ThinkingTime {
  startedAt: number;
  endedAt: number | null;
}

export interface SessionModel {
  /** Position of messages[0]. */
  first: number;
  /** Messages in the session (the window holds some of them). */
  total: number;
  /** Finalized messages of the window: messages[i] is at position first + i. */
  messages: AgentMessage[];
  /** Every compaction entry and undo of the session, in order (also those outside the window). */
  compactions: readonly CompactionMark[];
  /** Items for the finalized messages (rebuilt incrementally). */
  items: TranscriptItem[];
  /** The assistant message being streamed, if any. */
  streaming: AssistantMessage | null;
  tools: ReadonlyMap<string, ToolCardState>;
  running: boolean;
  retry: ProviderRetry | null;
  /** When the retry notice arrived (null when unknown, as in a snapshot). */
  retryAt: number | null;
  /** Thinking times by `${message timestamp}:${content index}`. */
  thinking: ReadonlyMap<string, ThinkingTime>;
  /** Tokens and cost of answers that ended since the session info was last read. */
  liveUsage: { tokens: number; cost: number };
  /**
   * A streaming update did not fit the message it was applied to (the view missed part of the
   * stream): the view needs a fresh snapshot (session-sync.ts takes one).
   */
  outOfStep: boolean;
}

export function emptyModel(): SessionModel {
  return {
    first: 0,
    total: 0,
    messages: [],
    compactions: [],
    items: [],
    streaming: null,
    tools: new Map(),
    running: false,
    retry: null,
    retryAt: null,
    thinking: new Map(),
    liveUsage: { tokens: 0, cost: 0 },
    outOfStep: false,
  };
}

/** Whether the window reaches the session's last message (new messages are then shown). */
export function atEnd(model: Pick<SessionModel, "first" | "messages" | "total">): boolean {
  return model.first + model.messages.length === model.total;
}

const thinkingKey = (message: AssistantMessage, index: number) => `${message.timestamp}:${index}`;

/** The thinking times of a message's blocks, by content index (undefined when it has none). */
function thinkingOf(message: AssistantMessage, thinking: ReadonlyMap<string, ThinkingTime>): (ThinkingTime | undefined)[] | undefined {
  if (!message.content.some((b) => b.type === "thinking")) return undefined;
  return message.content.map((b, i) => (b.type === "thinking" ? thinking.get(thinkingKey(message, i)) : undefined));
}

/** Statuses a call ends in. */
export const FINAL: ReadonlySet<ToolStatus> = new Set(["done", "error", "denied", "stopped"]);

/**
 * Items one finalized message contributes to the transcript. A tool result whose call is not in
 * the window gets no row of its own when `orphanRow` is false (its call's message is on a page not
 * loaded yet, which brings the row).
 */
export function itemsFor(
  message: AgentMessage,
  position: number,
  tools: Map<string, ToolCardState>,
  orphanRow = true,
  thinking: ReadonlyMap<string, ThinkingTime> = new Map(),
): TranscriptItem[] {
  switch (message.role) {
    case "user":
      return [{ kind: "user", key: `m${position}`, position, message }];
    case "custom":
      return message.display ? [{ kind: "custom", key: `m${position}`, position, message }] : [];
    case "assistant": {
      const times = thinkingOf(message, thinking);
      const out: TranscriptItem[] = [{ kind: "assistant", key: `m${position}`, position, message, streaming: false, ...(times ? { thinking: times } : {}) }];
      const ids: string[] = [];
      for (const block of message.content) {
        if (block.type !== "toolCall") continue;
        ids.push(block.id);
        const card = tools.get(block.id);
        tools.set(
          block.id,
          card
            ? { ...card, toolName: block.name, position, args: block.arguments, argumentsError: block.argumentsError }
            : { ...newCard(block.id, block.name, block.arguments, position), argumentsError: block.argumentsError },
        );
        out.push({ kind: "tool", key: `t${block.id}`, toolCallId: block.id, position });
      }
      if (ids.length > 1) out.push({ kind: "timeline", key: `tl${position}`, position, toolCallIds: ids });
      return out;
    }
    case "toolResult": {
      const card = tools.get(message.toolCallId);
      const outcome: ToolOutcome = { content: message.content, details: message.details, isError: message.isError };
      if (card) {
        const named = card.toolName ? card : { ...card, toolName: message.toolName };
        if (!card.result || !FINAL.has(card.status)) {
          // A denial or a stop the session reported stays what it was.
          const status = card.status === "denied" || card.status === "stopped" ? card.status : message.isError ? "error" : "done";
          tools.set(message.toolCallId, { ...named, status, result: outcome, waitingForInput: false });
        } else if (named !== card) tools.set(message.toolCallId, named);
        return [];
      }
      // A result whose call we never saw (a damaged transcript): show it on its own.
      tools.set(message.toolCallId, {
        ...newCard(message.toolCallId, message.toolName, {}, orphanRow ? position : null),
        status: message.isError ? "error" : "done",
        result: outcome,
      });
      return orphanRow ? [{ kind: "tool", key: `t${message.toolCallId}`, toolCallId: message.toolCallId, position }] : [];
    }
  }
}

/** Applies one frame's events (or a stored run's) to the model; `now` stamps live timings. */
export function applyEvents(model: SessionModel, events: readonly WireAgentEvent[], now: number | ((index: number) => number)): SessionModel {
  if (events.length === 0) return model;
  const tools = new Map(model.tools);
  let { messages, items, streaming, running, retry, total, compactions, retryAt, thinking, liveUsage } = model;
  const { first } = model;
  let messagesCopied = false;
  let thinkingCopied = false;
  // Whether `streaming` is this call's own copy (updates go into it) or a version others may hold.
  let streamingOwned = false;
  let outOfStep = model.outOfStep;
  const at = (i: number) => (typeof now === "number" ? now : now(i));
  events.forEach((event, i) => {
    if (isToolEvent(event)) return applyToolEvent(tools, event, at(i));
    switch (event.type) {
      case "agent_start":
        running = true;
        break;
      case "agent_end":
        running = false;
        streaming = null;
        retry = null;
        break;
      case "message_start":
        if (event.message.role === "assistant") {
          streaming = event.message;
          streamingOwned = false;
          retry = null;
          for (const block of event.message.content) {
            if (block.type === "toolCall" && !tools.has(block.id)) tools.set(block.id, newCard(block.id, block.name, block.arguments, null));
          }
        }
        break;
      case "message_update": {
        retry = null;
        if (!streaming) {
          // An update with no message to apply it to: the view missed the message's start.
          outOfStep = true;
          break;
        }
        // One copy of the message and its block list per batch; the updates go into the copy.
        if (!streamingOwned) {
          streaming = streamingCopy(streaming);
          streamingOwned = true;
        }
        if (!applyStreamUpdate(streaming, event)) {
          outOfStep = true;
          break;
        }
        const sub = event.assistantMessageEvent;
        if (!("contentIndex" in sub)) break;
        const index = sub.contentIndex;
        const block = streaming.content[index];
        if (block?.type === "toolCall") {
          // The call's card shows it as it is written: its name and arguments so far.
          const card = tools.get(block.id);
          if (!card) tools.set(block.id, { ...newCard(block.id, block.name, block.arguments, null), argumentsError: block.argumentsError });
          else if (card.status === "pending" && (card.args !== block.arguments || card.toolName !== block.name || card.argumentsError !== block.argumentsError))
            tools.set(block.id, { ...card, toolName: block.name, args: block.arguments, argumentsError: block.argumentsError });
        }
        if (block?.type === "thinking" && (sub.type === "thinking_start" || sub.type === "thinking_delta" || sub.type === "thinking_end")) {
          const key = thinkingKey(streaming, index);
          const time = thinking.get(key);
          if (!time || (sub.type === "thinking_end" && time.endedAt === null)) {
            if (!thinkingCopied) {
              thinking = new Map(thinking);
              thinkingCopied = true;
            }
            (thinking as Map<string, ThinkingTime>).set(key, { startedAt: time?.startedAt ?? at(i), endedAt: sub.type === "thinking_end" ? at(i) : null });
          }
        }
        break;
      }
      case "message_end": {
        const position = total++;
        const message = event.message;
        if (message.role === "custom" && isCompactionEntry(message)) compactions = [...compactions, { position, message }];
        if (message.role === "assistant") {
          streaming = null;
          liveUsage = { tokens: liveUsage.tokens + (message.usage?.totalTokens ?? 0), cost: liveUsage.cost + (message.usage?.cost?.total ?? 0) };
        }
        if (first + messages.length !== position) {
          // Beyond the window (opened around an older message): counted, shown once paged in.
          if (message.role === "toolResult") itemsFor(message, position, tools, false);
          break;
        }
        if (!messagesCopied) {
          messages = messages.slice();
          items = items.slice();
          messagesCopied = true;
        }
        messages.push(message);
        items.push(...itemsFor(message, position, tools, true, thinking));
        break;
      }
      case "provider_retry":
        retry = event.retry;
        retryAt = at(i);
        break;
      case "turn_start":
      case "turn_end":
        break;
    }
  });
  return { first, total, messages, compactions, items, streaming, tools, running, retry, retryAt, thinking, liveUsage, outOfStep };
}

function isCompactionEntry(message: CustomMessage): boolean {
  return message.customType === "compaction" || message.customType === "compaction_undo";
}

/** The transcript as shown: finalized items, then the streaming message and its calls so far. */
export function visibleItems(model: SessionModel): TranscriptItem[] {
  if (!model.streaming || !atEnd(model)) return model.items;
  const position = model.total;
  const times = thinkingOf(model.streaming, model.thinking);
  const live: TranscriptItem[] = [{ kind: "assistant", key: `m${position}`, position, message: model.streaming, streaming: true, ...(times ? { thinking: times } : {}) }];
  for (const block of model.streaming.content) {
    if (block.type === "toolCall") live.push({ kind: "tool", key: `t${block.id}`, toolCallId: block.id, position });
  }
  return model.items.concat(live);
}

/** Index of the first item at or after a message position (for jumps from search hits). */
export function itemIndexOfPosition(items: readonly TranscriptItem[], position: number): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (items[mid]!.position < position) lo = mid + 1;
    else hi = mid;
  }
  return Math.min(lo, Math.max(0, items.length - 1));
}

/**
 * The item a search hit at message `position` opens at: a tool result's hit is in its call's card
 * (tool results have no row of their own); anything else, the message's first item.
 */
export function jumpTargetIndex(model: Pick<SessionModel, "messages" | "first">, items: readonly TranscriptItem[], position: number): number {
  const message = model.messages[position - model.first];
  if (message?.role === "toolResult") {
    const card = items.findIndex((item) => item.kind === "tool" && item.toolCallId === message.toolCallId);
    if (card >= 0) return card;
  }
  return itemIndexOfPosition(items, position);
}
