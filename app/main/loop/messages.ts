// Small constructors and the default message pipeline shared by the loop and the Agent.
import type { AgentMessage, AgentToolResult, AssistantMessage, Message, Model, ToolCall } from "../../shared/agent-types.ts";
import { emptyUsage } from "../../shared/agent-types.ts";
import { incrementalConversion } from "./incremental-conversion.ts";

function withoutAppEntries(messages: readonly AgentMessage[]): Message[] {
  const kept: Message[] = [];
  for (const m of messages) if (m.role !== "custom") kept.push(m);
  return kept;
}

const convertIncrementally = incrementalConversion<AgentMessage, Message, undefined>({ convert: withoutAppEntries, splitsBefore: () => true });

/**
 * The default `convertToLlm`: keeps what a model understands and drops custom app messages.
 * It runs before every request, so it converts only the messages added since the last request
 * (incremental-conversion.ts); the result is a new array each time.
 */
export function defaultConvertToLlm(messages: AgentMessage[]): Message[] {
  return convertIncrementally(messages, "", undefined);
}

export function errorToolResult(text: string): AgentToolResult {
  return { content: [{ type: "text", text }], details: {} };
}

export function toolCallsOf(message: AssistantMessage): ToolCall[] {
  return message.content.filter((c): c is ToolCall => c.type === "toolCall");
}

/** A new assistant message from `model`, with nothing in it yet. */
export function emptyAssistantMessage(model: Model): AssistantMessage {
  return {
    role: "assistant",
    content: [],
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: emptyUsage(),
    stopReason: "stop",
    timestamp: Date.now(),
  };
}

/** The assistant message the loop records when a run is aborted before the model could answer. */
export function abortedAssistantMessage(model: Model, reason = "Aborted by the user."): AssistantMessage {
  return { ...emptyAssistantMessage(model), stopReason: "aborted", errorMessage: reason };
}
