// The streaming assistant message as it crosses to a renderer: each `message_update` carries what
// changed (toWireEvent), and whoever got the message at `message_start` rebuilds it by applying
// the updates in order (applyStreamUpdate): the renderer's session model, and the main process's
// live view, whose copy goes into a snapshot so that a window opening mid-stream gets the message
// exactly as of the snapshot's sequence number, and applies the updates numbered after it.
//
// Two kinds of fields. Text (a text block's `text`, a thinking block's `thinking`) and the list of
// blocks are built only from the updates: a `*_start` adds an empty block, a `*_delta` appends, so
// the rebuilt text is exactly the deltas so far, whatever the provider's message (mutated in place,
// possibly ahead of the events the loop has emitted yet) holds. The small fields (usage, a tool
// call's id, name and parsed arguments so far, a thinking signature) are sent as they are now and
// replace what the receiver had: being ahead does no harm there. `toolcall_end` sends the call's
// final form; `message_end` the final message, which replaces the rebuilt one.
//
// Pure, never throws. applyStreamUpdate mutates the message it is given (its usage and its
// content array) but never a block: a changed block is a new object, so a receiver that keeps
// versions (React) copies the message and its content array once and applies any number of
// updates to the copy.
import type { AssistantMessage, AssistantMessageEvent, SessionEvent } from "./agent-types.ts";
import type { WireAgentEvent, WireAssistantEvent, WireMessageUpdate } from "./ipc/agent-schemas.ts";

/**
 * The wire form of a session event: a `message_update` loses the message, keeping what changed;
 * `turn_end` and `agent_end` lose their messages (each went with its message_end).
 */
export function toWireEvent(event: SessionEvent): WireAgentEvent {
  // Their messages were each sent with its message_end (a long answer would go three times).
  if (event.type === "turn_end" || event.type === "agent_end") return { type: event.type };
  if (event.type !== "message_update") return event as WireAgentEvent;
  return { type: "message_update", assistantMessageEvent: wireAssistantEvent(event.assistantMessageEvent, event.message), usage: event.message.usage };
}

/** What one assistant-message event changed; the small fields read from `message` as it is now. */
export function wireAssistantEvent(e: AssistantMessageEvent, message: AssistantMessage): WireAssistantEvent {
  switch (e.type) {
    case "start":
    case "done":
    case "error":
      return { type: e.type };
    case "text_start":
    case "text_end":
      return { type: e.type, contentIndex: e.contentIndex };
    case "text_delta":
    case "thinking_delta":
      return { type: e.type, contentIndex: e.contentIndex, delta: e.delta };
    case "thinking_start":
    case "thinking_end": {
      const block = message.content[e.contentIndex];
      const thinking = block?.type === "thinking" ? block : undefined;
      return {
        type: e.type,
        contentIndex: e.contentIndex,
        ...(thinking?.thinkingSignature !== undefined ? { thinkingSignature: thinking.thinkingSignature } : {}),
        ...(e.type === "thinking_start" && thinking?.redacted !== undefined ? { redacted: thinking.redacted } : {}),
      };
    }
    case "toolcall_start": {
      const block = message.content[e.contentIndex];
      return { type: e.type, contentIndex: e.contentIndex, id: block?.type === "toolCall" ? block.id : "", name: block?.type === "toolCall" ? block.name : "" };
    }
    case "toolcall_delta": {
      const block = message.content[e.contentIndex];
      if (block?.type !== "toolCall") return { type: e.type, contentIndex: e.contentIndex, delta: e.delta };
      return { type: e.type, contentIndex: e.contentIndex, delta: e.delta, id: block.id, name: block.name, arguments: block.arguments };
    }
    case "toolcall_end":
      return { type: e.type, contentIndex: e.contentIndex, toolCall: e.toolCall };
  }
}

/**
 * Applies one update to `message` (in place: its usage and content array; blocks are replaced,
 * never changed). False when the update does not fit the message (a delta for a block it does not
 * have, a block started past the end): the receiver is out of step and needs a fresh snapshot.
 */
export function applyStreamUpdate(message: AssistantMessage, update: WireMessageUpdate): boolean {
  if (update.usage) message.usage = update.usage;
  const e = update.assistantMessageEvent;
  if (!("contentIndex" in e)) return true;
  const content = message.content;
  const i = e.contentIndex;
  const block = content[i];
  switch (e.type) {
    case "text_start":
      if (i > content.length) return false;
      content[i] = { type: "text", text: "" };
      return true;
    case "text_delta":
      if (block?.type !== "text") return false;
      content[i] = { ...block, text: block.text + e.delta };
      return true;
    case "text_end":
      return block?.type === "text";
    case "thinking_start":
      if (i > content.length) return false;
      content[i] = {
        type: "thinking",
        thinking: "",
        ...(e.thinkingSignature !== undefined ? { thinkingSignature: e.thinkingSignature } : {}),
        ...(e.redacted !== undefined ? { redacted: e.redacted } : {}),
      };
      return true;
    case "thinking_delta":
      if (block?.type !== "thinking") return false;
      content[i] = { ...block, thinking: block.thinking + e.delta };
      return true;
    case "thinking_end":
      if (block?.type !== "thinking") return false;
      if (e.thinkingSignature !== undefined) content[i] = { ...block, thinkingSignature: e.thinkingSignature };
      return true;
    case "toolcall_start":
      if (i > content.length) return false;
      content[i] = { type: "toolCall", id: e.id, name: e.name, arguments: {} };
      return true;
    case "toolcall_delta":
      if (block?.type !== "toolCall") return false;
      if (e.id !== undefined || e.name !== undefined || e.arguments !== undefined) {
        content[i] = {
          ...block,
          ...(e.id !== undefined ? { id: e.id } : {}),
          ...(e.name !== undefined ? { name: e.name } : {}),
          ...(e.arguments !== undefined ? { arguments: e.arguments } : {}),
        };
      }
      return true;
    case "toolcall_end":
      if (i > content.length) return false;
      content[i] = { ...e.toolCall };
      return true;
  }
}

/** A copy to build on: the message and its content array (blocks are never changed in place). */
export function streamingCopy(message: AssistantMessage): AssistantMessage {
  return { ...message, content: message.content.slice() };
}
