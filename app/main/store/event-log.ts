// The lifecycle event log: how AgentEvents are stored compactly and re-inflated for replay.
//
// What is logged (so the log stays bounded by the size of the transcript, not of the stream):
// - every non-delta event, in emission order, with the time the recorder received it;
// - message payloads are not copied: message_start/message_end/turn_end/agent_end keep the stored
//   message's position (`ref`) and replay puts the stored message back;
// - message_update keeps only its structural sub-events (start, text/thinking/toolcall start and
//   end, done, error) with their contentIndex; the *_delta sub-events are not logged, since the
//   matching *_end carries the whole block. Replay therefore shows each block complete at the time
//   its *_end was emitted, and `partial` is the final message;
// - tool_execution_update (streaming tool progress) is not logged; tool_execution_end keeps the
//   full result.
// Encoding never throws; a payload whose message is unknown to the recorder is stored inline.
import type { Database } from "better-sqlite3";
import type { AgentEvent, AgentMessage, AssistantMessage, AssistantMessageEvent, ToolResultMessage } from "../../shared/agent-types.ts";
import type { StoredEvent } from "./store-types.ts";
import { statement } from "./sql.ts";

export interface EncodedEvent {
  type: AgentEvent["type"];
  data: string;
}

/** Position of a message this recorder stored (or is about to store), if known. */
export type MessageRef = (message: AgentMessage) => number | undefined;

type StructuralUpdate = { type: AssistantMessageEvent["type"]; contentIndex?: number; reason?: string };

function refOrInline(message: AgentMessage, ref: MessageRef): { ref: number } | { message: AgentMessage } {
  const position = ref(message);
  return position === undefined ? { message } : { ref: position };
}

/** Null for events that are not logged (deltas). */
export function encodeEvent(event: AgentEvent, ref: MessageRef): EncodedEvent | null {
  let payload: unknown;
  switch (event.type) {
    case "agent_start":
    case "turn_start":
      payload = {};
      break;
    case "message_start":
    case "message_end":
      payload = refOrInline(event.message, ref);
      break;
    case "message_update": {
      const sub = event.assistantMessageEvent;
      if (sub.type.endsWith("_delta")) return null;
      const update: StructuralUpdate = { type: sub.type };
      if ("contentIndex" in sub) update.contentIndex = sub.contentIndex;
      if (sub.type === "done" || sub.type === "error") update.reason = sub.reason;
      payload = { ...refOrInline(event.message, ref), update };
      break;
    }
    case "turn_end":
      payload = { ...refOrInline(event.message, ref), toolResults: event.toolResults.map((m) => refOrInline(m, ref)) };
      break;
    case "agent_end":
      payload = { messages: event.messages.map((m) => refOrInline(m, ref)) };
      break;
    case "tool_execution_update":
      return null;
    default: {
      const { type: _type, ...rest } = event;
      payload = rest;
    }
  }
  return { type: event.type, data: JSON.stringify(payload) };
}

function inflate(stored: unknown, messages: readonly AgentMessage[]): AgentMessage | undefined {
  const s = stored as { ref?: number; message?: AgentMessage };
  return s.message ?? (s.ref === undefined ? undefined : messages[s.ref]);
}

function inflateUpdate(update: StructuralUpdate, message: AssistantMessage): AssistantMessageEvent | undefined {
  const index = update.contentIndex ?? 0;
  const block = message.content[index];
  switch (update.type) {
    case "start":
      return { type: "start", partial: message };
    case "text_start":
    case "thinking_start":
    case "toolcall_start":
      return { type: update.type, contentIndex: index, partial: message };
    case "text_end":
      return block?.type === "text" ? { type: "text_end", contentIndex: index, content: block.text, partial: message } : undefined;
    case "thinking_end":
      return block?.type === "thinking"
        ? { type: "thinking_end", contentIndex: index, content: block.thinking, partial: message }
        : undefined;
    case "toolcall_end":
      return block?.type === "toolCall" ? { type: "toolcall_end", contentIndex: index, toolCall: block, partial: message } : undefined;
    case "done":
      return { type: "done", reason: update.reason as "stop" | "length" | "toolUse", message };
    case "error":
      return { type: "error", reason: update.reason as "error" | "aborted", error: message };
    default:
      return undefined;
  }
}

/**
 * Rebuilds an AgentEvent from its stored form, given the session's messages. Undefined when the
 * event refers to a message that was never stored (the one still streaming at a crash).
 */
export function decodeEvent(type: string, p: Record<string, unknown>, messages: readonly AgentMessage[]): AgentEvent | undefined {
  switch (type) {
    case "agent_start":
    case "turn_start":
      return { type };
    case "message_start":
    case "message_end": {
      const message = inflate(p, messages);
      return message && { type, message };
    }
    case "message_update": {
      const message = inflate(p, messages);
      if (message?.role !== "assistant") return undefined;
      const sub = inflateUpdate(p.update as StructuralUpdate, message);
      return sub && { type, message, assistantMessageEvent: sub };
    }
    case "turn_end": {
      const message = inflate(p, messages);
      const toolResults = (p.toolResults as unknown[]).map((r) => inflate(r, messages));
      if (message?.role !== "assistant" || toolResults.some((r) => r?.role !== "toolResult")) return undefined;
      return { type, message, toolResults: toolResults as ToolResultMessage[] };
    }
    case "agent_end": {
      const all = (p.messages as unknown[]).map((m) => inflate(m, messages));
      return { type, messages: all.filter((m): m is AgentMessage => m !== undefined) };
    }
    default:
      return { type, ...p } as AgentEvent;
  }
}

export interface PendingEvent {
  runId: number;
  seq: number;
  at: number;
  type: string;
  data: string;
}

export function insertEvents(db: Database, events: readonly PendingEvent[]): void {
  const insert = statement(db, "INSERT INTO events (run_id, seq, at, type, data) VALUES (?, ?, ?, ?, ?)");
  for (const e of events) insert.run(e.runId, e.seq, e.at, e.type, e.data);
}

/** All logged events of a session's runs, decoded against its messages, oldest run first. */
export function readSessionEvents(db: Database, sessionId: number, messages: readonly AgentMessage[]): StoredEvent[] {
  const rows = statement(
    db,
    `SELECT e.run_id AS runId, e.seq, e.at, e.type, e.data FROM runs r JOIN events e ON e.run_id = r.id
      WHERE r.session_id = ? ORDER BY r.id, e.seq`,
  ).all(sessionId) as PendingEvent[];
  // One parse of the joined payloads is cheaper than one parse per row.
  const payloads = JSON.parse(`[${rows.map((r) => r.data).join(",")}]`) as Record<string, unknown>[];
  const events: StoredEvent[] = [];
  rows.forEach((row, i) => {
    const event = decodeEvent(row.type, payloads[i]!, messages);
    if (event) events.push({ runId: row.runId, seq: row.seq, at: row.at, event });
  });
  return events;
}
