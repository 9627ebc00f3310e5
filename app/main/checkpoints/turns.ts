// The turns of a transcript as the checkpoint store knows them (pure; never throws).
// A turn is an assistant message with tool calls; its key is `<session>:<first tool call id>`,
// where <session> is the session that ran it: a fork's copied messages (positions up to its fork
// position) belong to its parent (recursively), so a fork finds its parent's checkpoints.
// Attribution: a changed file is credited to the write or edit call that named it; otherwise to
// the turn's only call that can change files besides those (usually one bash command); when
// there are several such calls, to none of them (the window says "one of these commands").
import path from "node:path";
import type { AgentMessage, ToolCall } from "../../shared/agent-types.ts";
import { resolveToolPath } from "../tools/paths.ts";

/** Tools that never change files: a turn of only these takes no checkpoint. */
export const READ_ONLY_TOOLS: ReadonlySet<string> = new Set(["read", "ls", "find", "grep"]);

export interface TurnInfo {
  key: string;
  /** Transcript position of the assistant message. */
  position: number;
  /** Position of the last user message before it (-1 when none). */
  userPosition: number;
  calls: { id: string; name: string; path?: string }[];
}

export interface SessionLineage {
  sessionId: number;
  /** This session's parent and fork position (messages up to it were copied), up the chain. */
  parents: { sessionId: number; forkPosition: number }[];
}

export function turnKey(sessionId: number, firstToolCallId: string): string {
  return `${sessionId}:${firstToolCallId}`;
}

/** Which session ran the message at `position`: the oldest ancestor whose copy includes it. */
export function ownerOf(position: number, lineage: SessionLineage): number {
  let owner = lineage.sessionId;
  for (const parent of lineage.parents) {
    if (position <= parent.forkPosition) owner = parent.sessionId;
    else break;
  }
  return owner;
}

export function turnsOf(messages: readonly AgentMessage[], lineage: SessionLineage, projectDir: string): TurnInfo[] {
  const turns: TurnInfo[] = [];
  let userPosition = -1;
  messages.forEach((m, position) => {
    if (m.role === "user") userPosition = position;
    const turn = turnAt(m, position, userPosition, lineage, projectDir);
    if (turn) turns.push(turn);
  });
  return turns;
}

/** The turn of the message at `position`, or null when it is not one (no tool call, or only reads). */
export function turnAt(message: AgentMessage, position: number, userPosition: number, lineage: SessionLineage, projectDir: string): TurnInfo | null {
  if (message.role !== "assistant") return null;
  const calls = message.content.filter((c): c is ToolCall => c.type === "toolCall");
  if (calls.length === 0 || calls.every((c) => READ_ONLY_TOOLS.has(c.name))) return null;
  return {
    key: turnKey(ownerOf(position, lineage), calls[0]!.id),
    position,
    userPosition,
    calls: calls.map((c) => ({ id: c.id, name: c.name, path: relativeArgPath(c, projectDir) })),
  };
}

function relativeArgPath(call: ToolCall, projectDir: string): string | undefined {
  if (call.name !== "write" && call.name !== "edit") return undefined;
  const arg = (call.arguments as { path?: unknown }).path;
  if (typeof arg !== "string") return undefined;
  const rel = path.relative(projectDir, resolveToolPath(arg, projectDir));
  return rel.startsWith("..") || path.isAbsolute(rel) ? undefined : rel.split(path.sep).join("/");
}

export type Attribution = { toolCallIds: string[]; certain: boolean };

/** Which calls of the turn changed `file` (a '/'-separated relative path). */
export function attribute(turn: TurnInfo, file: string): Attribution {
  const named = turn.calls.filter((c) => c.path === file).map((c) => c.id);
  if (named.length > 0) return { toolCallIds: named, certain: true };
  const others = turn.calls.filter((c) => c.name !== "write" && c.name !== "edit" && !READ_ONLY_TOOLS.has(c.name)).map((c) => c.id);
  return { toolCallIds: others, certain: others.length === 1 };
}
