// The session view model: a pure fold of a session's messages and lifecycle events into what the
// session view shows. Transcript items are in source order and keep their place (a tool card sits
// under the assistant message that asked for it, whatever order the calls finish in); tool cards,
// keyed by toolCallId, change state in completion order. Never throws on unexpected events: an
// event for an unknown call creates its card, a result without a card gets one.
//
// Terminal output is kept as an append-only chunk list shared between successive versions of a
// card (copying it on every update would be quadratic); `chunkCount` tells how many chunks belong
// to a version, so a version stays a consistent snapshot.
import type { AgentMessage, AssistantMessage, CustomMessage, ProviderRetry, UserMessage } from "../../../shared/agent-types";
import type { WireAgentEvent } from "../../../shared/ipc/agent-schemas";
import type { LiveSnapshot } from "../../../shared/ipc/contract";

export type ToolStatus = "pending" | "running" | "done" | "error";

export interface ToolOutcome {
  content: { type: string; text?: string; data?: string; mimeType?: string }[];
  details: unknown;
  isError: boolean;
}

export interface ToolCardState {
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
  /** Set when the model's arguments could not be parsed. */
  argumentsError?: string;
  status: ToolStatus;
  startedAt: number | null;
  endedAt: number | null;
  chunks: string[];
  chunkCount: number;
  /** Raw bytes dropped by the tool because updates fell behind. */
  skippedBytes: number;
  /** The latest partial-result details (bash: BashProgressDetails). */
  progress: unknown;
  waitingForInput: boolean;
  result: ToolOutcome | null;
  /** Position of the assistant message that asked for the call (null while it streams). */
  position: number | null;
  /** A terminal log of the call is stored (fetched when its card shows it: tools.output). */
  storedOutput: boolean;
}

export type TranscriptItem =
  | { kind: "user"; key: string; position: number; message: UserMessage }
  | { kind: "assistant"; key: string; position: number; message: AssistantMessage; streaming: boolean }
  | { kind: "tool"; key: string; toolCallId: string; position: number }
  | { kind: "timeline"; key: string; position: number; toolCallIds: string[] }
  | { kind: "custom"; key: string; position: number; message: CustomMessage };

export interface SessionModel {
  /** Finalized messages, by position. */
  messages: AgentMessage[];
  /** Items for the finalized messages (rebuilt incrementally). */
  items: TranscriptItem[];
  /** The assistant message being streamed, if any. */
  streaming: AssistantMessage | null;
  tools: ReadonlyMap<string, ToolCardState>;
  running: boolean;
  retry: ProviderRetry | null;
}

export interface StoredEventLike {
  at: number;
  event: WireAgentEvent;
}

export function emptyModel(): SessionModel {
  return { messages: [], items: [], streaming: null, tools: new Map(), running: false, retry: null };
}

function newCard(toolCallId: string, toolName: string, args: Record<string, unknown>, position: number | null): ToolCardState {
  return { toolCallId, toolName, args, status: "pending", startedAt: null, endedAt: null, chunks: [], chunkCount: 0, skippedBytes: 0, progress: null, waitingForInput: false, result: null, position, storedOutput: false };
}

function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** Items one finalized message contributes to the transcript. */
function itemsFor(message: AgentMessage, position: number, tools: Map<string, ToolCardState>): TranscriptItem[] {
  switch (message.role) {
    case "user":
      return [{ kind: "user", key: `m${position}`, position, message }];
    case "custom":
      return message.display ? [{ kind: "custom", key: `m${position}`, position, message }] : [];
    case "assistant": {
      const out: TranscriptItem[] = [{ kind: "assistant", key: `m${position}`, position, message, streaming: false }];
      const ids: string[] = [];
      for (const block of message.content) {
        if (block.type !== "toolCall") continue;
        ids.push(block.id);
        const card = tools.get(block.id);
        tools.set(block.id, card ? { ...card, position, args: block.arguments, argumentsError: block.argumentsError } : { ...newCard(block.id, block.name, block.arguments, position), argumentsError: block.argumentsError });
        out.push({ kind: "tool", key: `t${block.id}`, toolCallId: block.id, position });
      }
      if (ids.length > 1) out.push({ kind: "timeline", key: `tl${position}`, position, toolCallIds: ids });
      return out;
    }
    case "toolResult": {
      const card = tools.get(message.toolCallId);
      const outcome: ToolOutcome = { content: message.content, details: message.details, isError: message.isError };
      if (card) {
        if (!card.result || card.status === "pending" || card.status === "running") tools.set(message.toolCallId, { ...card, status: message.isError ? "error" : "done", result: outcome, waitingForInput: false });
        return [];
      }
      // A result whose call we never saw (a damaged transcript): show it on its own.
      tools.set(message.toolCallId, { ...newCard(message.toolCallId, message.toolName, {}, position), status: message.isError ? "error" : "done", result: outcome });
      return [{ kind: "tool", key: `t${message.toolCallId}`, toolCallId: message.toolCallId, position }];
    }
  }
}

/** Applies one frame's events (or a stored run's) to the model; `now` stamps live timings. */
export function applyEvents(model: SessionModel, events: readonly WireAgentEvent[], now: number | ((index: number) => number)): SessionModel {
  if (events.length === 0) return model;
  const tools = new Map(model.tools);
  let { messages, items, streaming, running, retry } = model;
  let messagesCopied = false;
  const at = (i: number) => (typeof now === "number" ? now : now(i));
  events.forEach((event, i) => {
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
      case "message_update":
        if (event.message.role === "assistant") {
          streaming = event.message;
          retry = null;
          for (const block of event.message.content) {
            if (block.type === "toolCall" && !tools.has(block.id)) tools.set(block.id, newCard(block.id, block.name, block.arguments, null));
          }
        }
        break;
      case "message_end": {
        if (!messagesCopied) {
          messages = messages.slice();
          items = items.slice();
          messagesCopied = true;
        }
        const position = messages.length;
        const message = event.message;
        messages.push(message);
        items.push(...itemsFor(message, position, tools));
        if (event.message.role === "assistant") streaming = null;
        break;
      }
      case "provider_retry":
        retry = event.retry;
        break;
      case "tool_execution_start": {
        const card = tools.get(event.toolCallId) ?? newCard(event.toolCallId, event.toolName, asRecord(event.args), null);
        tools.set(event.toolCallId, { ...card, status: "running", startedAt: at(i), endedAt: null, args: asRecord(event.args) });
        break;
      }
      case "tool_execution_update": {
        const card = tools.get(event.toolCallId) ?? { ...newCard(event.toolCallId, event.toolName, asRecord(event.args), null), status: "running" as const, startedAt: at(i) };
        const details = asRecord(event.partialResult.details);
        const next: ToolCardState = { ...card, progress: event.partialResult.details };
        if (typeof details.chunk === "string" && details.chunk.length > 0) {
          // Append to the shared list only at its end; a stale version gets its own copy.
          const chunks = card.chunks.length === card.chunkCount ? card.chunks : card.chunks.slice(0, card.chunkCount);
          chunks.push(details.chunk);
          next.chunks = chunks;
          next.chunkCount = chunks.length;
        }
        if (typeof details.skippedBytes === "number") next.skippedBytes = card.skippedBytes + details.skippedBytes;
        if (typeof details.waitingForInput === "boolean") next.waitingForInput = details.waitingForInput;
        tools.set(event.toolCallId, next);
        break;
      }
      case "tool_execution_end": {
        const card = tools.get(event.toolCallId) ?? newCard(event.toolCallId, event.toolName, {}, null);
        tools.set(event.toolCallId, {
          ...card,
          status: event.isError ? "error" : "done",
          startedAt: card.startedAt ?? at(i),
          endedAt: at(i),
          waitingForInput: false,
          result: { content: event.result.content, details: event.result.details, isError: event.isError },
        });
        break;
      }
      case "turn_start":
      case "turn_end":
        break;
    }
  });
  return { messages, items, streaming, tools, running, retry };
}

/** The model of a stored session: its messages, then its logged events for timings and states. */
export function modelFromStored(
  storedMessages: readonly AgentMessage[],
  storedEvents: readonly StoredEventLike[],
  stillRunning = false,
  outputs: readonly { toolCallId: string }[] = [],
): SessionModel {
  const tools = new Map<string, ToolCardState>();
  // Timings first (from the event log), so the cards built from messages carry them.
  for (const { at, event } of storedEvents) {
    if (event.type === "tool_execution_start") {
      tools.set(event.toolCallId, { ...newCard(event.toolCallId, event.toolName, asRecord(event.args), null), status: "running", startedAt: at });
    } else if (event.type === "tool_execution_end") {
      const card = tools.get(event.toolCallId) ?? newCard(event.toolCallId, event.toolName, {}, null);
      tools.set(event.toolCallId, { ...card, status: event.isError ? "error" : "done", endedAt: at, result: { content: event.result.content, details: event.result.details, isError: event.isError } });
    }
  }
  const messages = storedMessages.slice();
  const items: TranscriptItem[] = [];
  messages.forEach((message, position) => items.push(...itemsFor(message, position, tools)));
  // A call that started but never ended in a stored (finished) run was cut off.
  if (!stillRunning) for (const [id, card] of tools) {
    if (card.status === "running" || card.status === "pending") tools.set(id, { ...card, status: "error", result: card.result ?? { content: [{ type: "text", text: "The run ended before this call finished." }], details: undefined, isError: true } });
  }
  for (const { toolCallId } of outputs) {
    const card = tools.get(toolCallId);
    if (card) tools.set(toolCallId, { ...card, storedOutput: true });
  }
  return { messages, items, streaming: null, tools, running: stillRunning, retry: null };
}

/**
 * The model of a session opened while it may run: the stored part, then what is live (the message
 * streaming, tool calls without a stored result, with the output they showed so far). Events
 * numbered after the snapshot apply on top with applyEvents, exactly as if seen from the start.
 */
export function modelFromSnapshot(
  opened: { messages: readonly AgentMessage[]; events: readonly StoredEventLike[]; outputs?: readonly { toolCallId: string }[] },
  live: LiveSnapshot | null,
  running: boolean,
): SessionModel {
  const model = modelFromStored(opened.messages, opened.events, running || live !== null, opened.outputs);
  if (!live) return model;
  const tools = new Map(model.tools);
  for (const t of live.tools) {
    const card = tools.get(t.toolCallId) ?? newCard(t.toolCallId, t.toolName, asRecord(t.args), null);
    tools.set(t.toolCallId, {
      ...card,
      status: t.status,
      startedAt: t.startedAt,
      endedAt: t.endedAt,
      chunks: t.output ? [t.output] : [],
      chunkCount: t.output ? 1 : 0,
      skippedBytes: t.skippedBytes,
      progress: t.progress,
      waitingForInput: t.waitingForInput,
      result: t.result,
      storedOutput: false,
    });
  }
  if (live.streaming) {
    for (const block of live.streaming.content) {
      if (block.type === "toolCall" && !tools.has(block.id)) tools.set(block.id, newCard(block.id, block.name, block.arguments, null));
    }
  }
  return { ...model, tools, streaming: live.streaming, retry: live.retry, running: model.running };
}

/** The transcript as shown: finalized items, then the streaming message and its calls so far. */
export function visibleItems(model: SessionModel): TranscriptItem[] {
  if (!model.streaming) return model.items;
  const position = model.messages.length;
  const live: TranscriptItem[] = [{ kind: "assistant", key: `m${position}`, position, message: model.streaming, streaming: true }];
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
