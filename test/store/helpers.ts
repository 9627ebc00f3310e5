// Shared test helpers: temporary data folders and message factories.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AssistantMessage, ToolCall, ToolResultMessage, UserMessage } from "../../app/shared/agent-types.ts";
import { emptyUsage } from "../../app/shared/agent-types.ts";

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "lathe-store-test-"));
}

export function user(text: string): UserMessage {
  return { role: "user", content: text, timestamp: 1_700_000_000_000 };
}

export function assistant(text: string, toolCalls: ToolCall[] = [], tokens = 0): AssistantMessage {
  const usage = emptyUsage();
  usage.totalTokens = tokens;
  usage.cost.total = tokens / 1_000_000;
  return {
    role: "assistant",
    content: [{ type: "thinking", thinking: "private reasoning zebra", thinkingSignature: "sig-zebra" }, { type: "text", text }, ...toolCalls],
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-test",
    usage,
    stopReason: toolCalls.length > 0 ? "toolUse" : "stop",
    timestamp: 1_700_000_000_001,
  };
}

export function call(id: string, name: string, args: Record<string, unknown> = {}): ToolCall {
  return { type: "toolCall", id, name, arguments: args };
}

export function result(toolCallId: string, toolName: string, text: string, addedToolNames?: string[]): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId,
    toolName,
    content: [{ type: "text", text }],
    details: { ok: true },
    isError: false,
    ...(addedToolNames ? { addedToolNames } : {}),
    timestamp: 1_700_000_000_002,
  };
}
