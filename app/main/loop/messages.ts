// Small constructors and the default message pipeline shared by the loop and the Agent.
import type { AgentMessage, AgentToolResult, AssistantMessage, Message, Model, ToolCall } from "../../shared/agent-types.ts";
import { emptyUsage } from "../../shared/agent-types.ts";

/**
 * The default `convertToLlm`: keeps what a model understands and drops custom app messages.
 * It runs before every request over the whole transcript, so it avoids a callback per message.
 */
export function defaultConvertToLlm(messages: AgentMessage[]): Message[] {
  let i = 0;
  while (i < messages.length && messages[i]!.role !== "custom") i++;
  if (i === messages.length) return messages.slice() as Message[];
  const kept = messages.slice(0, i) as Message[];
  for (; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role !== "custom") kept.push(m);
  }
  return kept;
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
