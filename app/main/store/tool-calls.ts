// When each tool call started and ended (table tool_calls, one row per call; see V6 in
// migrations.ts): the tool cards' elapsed times and the parallel timeline, read per page of the
// transcript. The call's arguments and result are in the messages; only the times live here.
// Callers provide the transaction; these functions throw SQLite errors as they come.
import type { Database } from "better-sqlite3";
import type { AgentMessage } from "../../shared/agent-types.ts";
import { statement } from "./sql.ts";

export interface ToolCallTime {
  toolCallId: string;
  /** Milliseconds since the epoch; null when only the end was recorded. */
  startedAt: number | null;
  /** Null while it runs, or when the run ended before the call did. */
  endedAt: number | null;
  isError: boolean | null;
}

export function recordToolStart(db: Database, sessionId: number, toolCallId: string, at: number): void {
  statement(
    db,
    `INSERT INTO tool_calls (session_id, tool_call_id, started_at) VALUES (?, ?, ?)
     ON CONFLICT (session_id, tool_call_id) DO UPDATE SET started_at = excluded.started_at`,
  ).run(sessionId, toolCallId, at);
}

export function recordToolEnd(db: Database, sessionId: number, toolCallId: string, at: number, isError: boolean): void {
  statement(
    db,
    `INSERT INTO tool_calls (session_id, tool_call_id, ended_at, is_error) VALUES (?, ?, ?, ?)
     ON CONFLICT (session_id, tool_call_id) DO UPDATE SET ended_at = excluded.ended_at, is_error = excluded.is_error`,
  ).run(sessionId, toolCallId, at, isError ? 1 : 0);
}

interface Row {
  toolCallId: string;
  startedAt: number | null;
  endedAt: number | null;
  isError: number | null;
}

const toTime = (row: Row): ToolCallTime => ({ ...row, isError: row.isError === null ? null : row.isError !== 0 });

/** The calls of these messages (tool calls of assistant messages, results), in the messages' order. */
export function toolCallIdsOf(messages: readonly AgentMessage[]): string[] {
  const ids = new Set<string>();
  for (const m of messages) {
    if (m.role === "assistant") for (const block of m.content) if (block.type === "toolCall") ids.add(block.id);
    if (m.role === "toolResult") ids.add(m.toolCallId);
  }
  return [...ids];
}

/** Times of the given calls that have any (one primary-key lookup each). */
export function readToolCallTimes(db: Database, sessionId: number, toolCallIds: readonly string[]): ToolCallTime[] {
  const read = statement(
    db,
    "SELECT tool_call_id AS toolCallId, started_at AS startedAt, ended_at AS endedAt, is_error AS isError FROM tool_calls WHERE session_id = ? AND tool_call_id = ?",
  );
  const times: ToolCallTime[] = [];
  for (const id of toolCallIds) {
    const row = read.get(sessionId, id) as Row | undefined;
    if (row) times.push(toTime(row));
  }
  return times;
}

/** Every call's times (exports). */
export function listToolCallTimes(db: Database, sessionId: number): ToolCallTime[] {
  const rows = statement(
    db,
    "SELECT tool_call_id AS toolCallId, started_at AS startedAt, ended_at AS endedAt, is_error AS isError FROM tool_calls WHERE session_id = ? ORDER BY started_at, tool_call_id",
  ).all(sessionId) as Row[];
  return rows.map(toTime);
}

/** Copies the times of the given calls to another session (a fork). */
export function copyToolCallTimes(db: Database, fromSession: number, toSession: number, toolCallIds: readonly string[]): void {
  const copy = statement(
    db,
    `INSERT OR IGNORE INTO tool_calls (session_id, tool_call_id, started_at, ended_at, is_error)
     SELECT ?, tool_call_id, started_at, ended_at, is_error FROM tool_calls WHERE session_id = ? AND tool_call_id = ?`,
  );
  for (const id of toolCallIds) copy.run(toSession, fromSession, id);
}
