// Makes a transcript safe to send to any API, before an adapter converts it: assistant messages
// that ended in error or abort are dropped (their partial content can be invalid, e.g. a half tool
// call), every tool call gets a result (a synthetic error result if none was recorded), results
// without their call are dropped, and tool-call ids are rewritten by the adapter's id rule.
// Pure: returns new messages, never mutates its input.
// The adapters convert incrementally (loop/incremental-conversion.ts): a transcript may be cut
// before a user message or an answer that did not fail (`splitsPrepared`), since there everything
// before is settled: pending calls get their synthetic results either at the cut or at that
// message, the same ones. Before a failed answer it may not: a result after it can still answer
// a call before it.
import type { AssistantMessage, Message, Model, ToolResultMessage } from "../../shared/agent-types.ts";

export function splitsPrepared(message: Message): boolean {
  return message.role === "user" || (message.role === "assistant" && message.stopReason !== "error" && message.stopReason !== "aborted");
}

/** What of the model a conversion depends on (a cached conversion is keyed on it). */
export function conversionKey(model: Model): string {
  return `${model.api}\n${model.provider}\n${model.id}\n${model.name}\n${model.input.join(",")}`;
}

export function prepareMessages(messages: readonly Message[], normalizeId: (id: string) => string = (id) => id): Message[] {
  const out: Message[] = [];
  let pending: { id: string; name: string }[] = [];
  const flushPending = () => {
    for (const call of pending) {
      out.push({
        role: "toolResult",
        toolCallId: call.id,
        toolName: call.name,
        content: [{ type: "text", text: "No result was recorded for this tool call." }],
        isError: true,
        timestamp: Date.now(),
      });
    }
    pending = [];
  };

  for (const message of messages) {
    if (message.role === "assistant") {
      if (message.stopReason === "error" || message.stopReason === "aborted") continue;
      flushPending();
      const copy: AssistantMessage = {
        ...message,
        content: message.content.map((block) => (block.type === "toolCall" ? { ...block, id: normalizeId(block.id) } : block)),
      };
      pending = copy.content.flatMap((block) => (block.type === "toolCall" ? [{ id: block.id, name: block.name }] : []));
      out.push(copy);
    } else if (message.role === "toolResult") {
      const id = normalizeId(message.toolCallId);
      const index = pending.findIndex((call) => call.id === id);
      if (index < 0) continue;
      pending.splice(index, 1);
      out.push({ ...message, toolCallId: id } satisfies ToolResultMessage);
    } else {
      flushPending();
      out.push(message);
    }
  }
  flushPending();
  return out;
}

/** Keeps letters, digits, `_` and `-`, at most `max` characters: what Anthropic and OpenAI accept. */
export function sanitizeToolCallId(id: string, max = 64): string {
  const clean = id.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, max);
  return clean === "" ? "call" : clean;
}
