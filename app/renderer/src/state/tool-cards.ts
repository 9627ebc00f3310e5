// How one tool call's card changes with the events about it (session-model.ts folds them): the
// loop's tool_execution_start/update/end and the session's tool_call_phase. Pure; never throws on
// unexpected events (an event for an unknown call creates its card).
//   start              → "queued" (preparing: validation, the permission question, the batch)
//   phase executing    → "running", the timer starts
//   phase denied       → "denied" with the reason (the result that follows keeps it)
//   phase stopped      → "stopped" with the reason (before, while or after the call ended)
//   update             → output; a call never marked executing is running from its first update
//   end                → "done" or "error", unless denied or stopped
// Stored pages carry each call's times and outcome (stored-model.ts: applyToolTimes).
import type { WireAgentEvent } from "../../../shared/ipc/agent-schemas";
import type { LiveTool } from "../../../shared/ipc/contract";

export type ToolStatus = "pending" | "queued" | "running" | "done" | "error" | "denied" | "stopped";

export interface ToolOutcome {
  content: { type: string; text?: string; data?: string; mimeType?: string }[];
  details: unknown;
  isError: boolean;
}

/** One tool call's card (session-model.ts keeps one per call; re-exported there). */
export interface ToolCardState {
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
  /** Set when the model's arguments could not be parsed. */
  argumentsError?: string;
  status: ToolStatus;
  /** When the loop started preparing it (tool_execution_start). */
  queuedAt: number | null;
  /** When its execute began (null when it never ran). */
  startedAt: number | null;
  endedAt: number | null;
  /** Why it was denied or stopped. */
  outcomeReason?: string;
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

export type ToolWireEvent = Extract<WireAgentEvent, { type: "tool_execution_start" | "tool_execution_update" | "tool_execution_end" | "tool_call_phase" }>;

export function isToolEvent(event: WireAgentEvent): event is ToolWireEvent {
  return event.type === "tool_execution_start" || event.type === "tool_execution_update" || event.type === "tool_execution_end" || event.type === "tool_call_phase";
}

export function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

export function newCard(toolCallId: string, toolName: string, args: Record<string, unknown>, position: number | null): ToolCardState {
  return {
    toolCallId,
    toolName,
    args,
    status: "pending",
    queuedAt: null,
    startedAt: null,
    endedAt: null,
    chunks: [],
    chunkCount: 0,
    skippedBytes: 0,
    progress: null,
    waitingForInput: false,
    result: null,
    position,
    storedOutput: false,
  };
}

/** Applies one tool event at time `t` to the cards. */
export function applyToolEvent(tools: Map<string, ToolCardState>, event: ToolWireEvent, t: number): void {
  const known = tools.get(event.toolCallId);
  switch (event.type) {
    case "tool_execution_start": {
      const card = known ?? newCard(event.toolCallId, event.toolName, asRecord(event.args), null);
      tools.set(event.toolCallId, { ...card, status: "queued", queuedAt: t, startedAt: null, endedAt: null, args: asRecord(event.args) });
      return;
    }
    case "tool_call_phase": {
      const card = known ?? newCard(event.toolCallId, "", {}, null);
      if (event.phase === "executing") {
        if (card.status === "queued" || card.status === "pending") tools.set(event.toolCallId, { ...card, status: "running", startedAt: t });
        return;
      }
      tools.set(event.toolCallId, { ...card, status: event.phase, outcomeReason: event.reason, endedAt: card.endedAt ?? t, waitingForInput: false });
      return;
    }
    case "tool_execution_update": {
      const card = known ?? newCard(event.toolCallId, event.toolName, asRecord(event.args), null);
      const details = asRecord(event.partialResult.details);
      const next: ToolCardState = { ...card, progress: event.partialResult.details };
      if (card.status === "pending" || card.status === "queued") {
        next.status = "running";
        next.startedAt = card.startedAt ?? t;
      }
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
      return;
    }
    case "tool_execution_end": {
      const card = known ?? newCard(event.toolCallId, event.toolName, {}, null);
      const kept = card.status === "denied" || card.status === "stopped";
      tools.set(event.toolCallId, {
        ...card,
        status: kept ? card.status : event.isError ? "error" : "done",
        endedAt: kept && card.endedAt !== null ? card.endedAt : t,
        waitingForInput: false,
        result: { content: event.result.content, details: event.result.details, isError: event.isError },
      });
      return;
    }
  }
}

/** A card as a snapshot of a running session reports it. */
export function cardFromLive(card: ToolCardState, t: LiveTool): ToolCardState {
  const status: ToolCardState["status"] = t.phase ? t.phase.outcome : t.status === "running" ? (t.executingAt === null ? "queued" : "running") : t.status;
  return {
    ...card,
    status,
    queuedAt: t.startedAt,
    startedAt: t.executingAt,
    endedAt: t.endedAt,
    ...(t.phase?.reason !== undefined ? { outcomeReason: t.phase.reason } : {}),
    chunks: t.output ? [t.output] : [],
    chunkCount: t.output ? 1 : 0,
    skippedBytes: t.skippedBytes,
    progress: t.progress,
    waitingForInput: t.waitingForInput,
    result: t.result,
    storedOutput: false,
  };
}
