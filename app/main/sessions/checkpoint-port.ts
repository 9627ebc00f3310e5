// What a running session asks of whoever checkpoints its turns (a port: the checkpoint service,
// app/main/checkpoints, satisfies it, and app-services.ts passes it in). Sessions know nothing of
// how checkpoints are taken or keyed: they ask for a turn's key, then call `beforeTurn` before the
// first call of a turn that may change files runs and `afterTurn` when the turn ends.
// Contract: none of these throws or rejects; a checkpoint that cannot be taken is reported by the
// implementation, and the turn goes on.
import type { AssistantMessage } from "../../shared/agent-types.ts";

export interface CheckpointScope {
  sessionId: number;
  projectId: number;
  projectDir: string;
}

export interface TurnCheckpoints {
  /** The checkpoint key of the turn of `message` (with `callName`: before that call), or null when it needs none. */
  turnKey(sessionId: number, message: AssistantMessage, callName?: string): string | null;
  /** The project's first snapshot, in the background (a session is created or starts running). */
  prepare(scope: CheckpointScope): void;
  /** `place`: where the turn's assistant message is in the transcript, and the user message before it (-1: none). */
  beforeTurn(scope: CheckpointScope, key: string, place?: { position: number; userPosition: number }): Promise<unknown>;
  afterTurn(scope: CheckpointScope, key: string): Promise<unknown>;
}

/** A session's place among its forks, for the checkpoints of the turns its parents ran. */
export interface SessionLineage {
  sessionId: number;
  /** This session's parent and fork position (messages up to it were copied), up the chain. */
  parents: { sessionId: number; forkPosition: number }[];
}
