// What a running session calls to checkpoint its turns (LiveSession holds one): `prepare` when a
// run starts (the project's first snapshot, in the background), `beforeTurn` awaited before the
// first call of a turn that may change files runs, `afterTurn` when the turn ends (not awaited).
// None of them rejects: a checkpoint that cannot be taken is reported, and the turn goes on.
import type { AssistantMessage, ToolCall } from "../../shared/agent-types.ts";
import { READ_ONLY_TOOLS, turnKey } from "./turns.ts";

export interface TurnScope {
  sessionId: number;
  projectId: number;
  projectDir: string;
}

export interface TurnCheckpoints {
  prepare(scope: TurnScope): void;
  beforeTurn(scope: TurnScope, key: string): Promise<unknown>;
  afterTurn(scope: TurnScope, key: string): Promise<unknown>;
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
