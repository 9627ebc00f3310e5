// What became of each tool call and when (table tool_calls, one row per call; see V6 and V7 in
// migrations.ts): when the loop started preparing it, when its execute began, when it ended, and
// its outcome (done, failed, denied or stopped, with the reason the session gave). A reopened
// session's cards and parallel timeline come from these, so they show what the live view showed:
// waiting (start to execute) and running (execute to end) apart, a denial as a denial.
// The call's arguments and result are in the messages; only the times and outcome live here.
// Callers provide the transaction; these functions throw SQLite errors as they come.
import type { Database } from "better-sqlite3";
import type { AgentMessage } from "../../shared/agent-types.ts";
import { statement } from "./sql.ts";

export type ToolCallOutcome = "done" | "failed" | "denied" | "stopped";

export interface ToolCallTime {
  toolCallId: string;
  /** Milliseconds since the epoch (tool_execution_start: preparation and the wait for an answer begin); null when only the end was recorded. */
  startedAt: number | null;
  /** When its execute began (tool_call_phase "executing"); null when it never ran, or for calls stored before version 7 without it. */
  executingAt: number | null;
  /** Null while it runs, or when the run ended before the call did. */
  endedAt: number | null;
  isError: boolean | null;
  /** Null while it runs (or never ended). */
  outcome: ToolCallOutcome | null;
  /** Why it was denied or stopped (as the model was told); null otherwise. */
  reason: string | null;
}

export function recordToolStart(db: Database, sessionId: number, toolCallId: string, at: number): void {
  statement(
    db,
    `INSERT INTO tool_calls (session_id, tool_call_id, started_at) VALUES (?, ?, ?)
     ON CONFLICT (session_id, tool_call_id) DO UPDATE SET started_at = excluded.started_at`,
  ).run(sessionId, toolCallId, at);
}

/** A denial or a stop decides the outcome, whether it is reported before or after the end. */
export function recordToolEnd(db: Database, sessionId: number, toolCallId: string, at: number, isError: boolean): void {
  statement(
    db,
    `INSERT INTO tool_calls (session_id, tool_call_id, ended_at, is_error, outcome) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (session_id, tool_call_id) DO UPDATE SET ended_at = excluded.ended_at, is_error = excluded.is_error,
       outcome = CASE WHEN tool_calls.outcome IN ('denied', 'stopped') THEN tool_calls.outcome ELSE excluded.outcome END`,
  ).run(sessionId, toolCallId, at, isError ? 1 : 0, isError ? "failed" : "done");
}

/** The session's tool_call_phase: "executing" stamps the execute start; "denied"/"stopped" set the outcome and reason. */
export function recordToolPhase(db: Database, sessionId: number, toolCallId: string, phase: "executing" | "denied" | "stopped", reason: string | null, at: number): void {
  if (phase === "executing") {
    statement(
      db,
      `INSERT INTO tool_calls (session_id, tool_call_id, executing_at) VALUES (?, ?, ?)
       ON CONFLICT (session_id, tool_call_id) DO UPDATE SET executing_at = excluded.executing_at`,
    ).run(sessionId, toolCallId, at);
    return;
  }
  statement(
    db,
    `INSERT INTO tool_calls (session_id, tool_call_id, outcome, reason) VALUES (?, ?, ?, ?)
     ON CONFLICT (session_id, tool_call_id) DO UPDATE SET outcome = excluded.outcome, reason = excluded.reason`,
  ).run(sessionId, toolCallId, phase, reason);
}

interface Row {
  toolCallId: string;
  startedAt: number | null;
  executingAt: number | null;
  endedAt: number | null;
  isError: number | null;
  outcome: string | null;
  reason: string | null;
}

const OUTCOMES: ReadonlySet<string> = new Set<ToolCallOutcome>(["done", "failed", "denied", "stopped"]);
const COLUMNS = "tool_call_id AS toolCallId, started_at AS startedAt, executing_at AS executingAt, ended_at AS endedAt, is_error AS isError, outcome, reason";

const toTime = (row: Row): ToolCallTime => ({
  ...row,
  isError: row.isError === null ? null : row.isError !== 0,
  outcome: row.outcome !== null && OUTCOMES.has(row.outcome) ? (row.outcome as ToolCallOutcome) : null,
});

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
  const read = statement(db, `SELECT ${COLUMNS} FROM tool_calls WHERE session_id = ? AND tool_call_id = ?`);
  const times: ToolCallTime[] = [];
  for (const id of toolCallIds) {
    const row = read.get(sessionId, id) as Row | undefined;
    if (row) times.push(toTime(row));
  }
  return times;
}

/** Every call's times (exports). */
export function listToolCallTimes(db: Database, sessionId: number): ToolCallTime[] {
  const rows = statement(db, `SELECT ${COLUMNS} FROM tool_calls WHERE session_id = ? ORDER BY started_at, tool_call_id`).all(sessionId) as Row[];
  return rows.map(toTime);
}

/** Copies the times of the given calls to another session (a fork). */
export function copyToolCallTimes(db: Database, fromSession: number, toSession: number, toolCallIds: readonly string[]): void {
  const copy = statement(
    db,
    `INSERT OR IGNORE INTO tool_calls (session_id, tool_call_id, started_at, executing_at, ended_at, is_error, outcome, reason)
     SELECT ?, tool_call_id, started_at, executing_at, ended_at, is_error, outcome, reason FROM tool_calls WHERE session_id = ? AND tool_call_id = ?`,
  );
  for (const id of toolCallIds) copy.run(toSession, fromSession, id);
}
