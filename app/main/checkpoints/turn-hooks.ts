// Which turns take checkpoints, and under which key (pure; never throws). The checkpoint service
// answers a running session through it: sessions declare what they need as a port of their own
// (app/main/sessions/checkpoint-port.ts), which CheckpointService satisfies; app-services.ts
// passes the service in.
import type { AssistantMessage, ToolCall } from "../../shared/agent-types.ts";
import { READ_ONLY_TOOLS, turnKey } from "./turns.ts";

export interface TurnScope {
  sessionId: number;
  projectId: number;
  projectDir: string;
}

/**
 * The checkpoint key of a turn, or null when it needs none: a message without tool calls, one
 * whose calls only read, or (with `callName`) a call that only reads.
 */
export function turnCheckpointKey(sessionId: number, message: AssistantMessage, callName?: string): string | null {
  if (callName !== undefined && READ_ONLY_TOOLS.has(callName)) return null;
  const calls = message.content.filter((c): c is ToolCall => c.type === "toolCall");
  if (calls.length === 0 || calls.every((c) => READ_ONLY_TOOLS.has(c.name))) return null;
  return turnKey(sessionId, calls[0]!.id);
}
