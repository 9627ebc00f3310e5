// Stored terminal logs of tool calls (table tool_output, one row per call: head, tail and counts;
// see terminal-log.ts). Callers provide the transaction; these functions throw SQLite errors as
// they come.
import type { Database } from "better-sqlite3";
import { joinLog } from "./terminal-log.ts";
import { statement } from "./sql.ts";

export interface ToolOutputRow {
  head: string;
  tail: string;
  totalChars: number;
  omittedChars: number;
  skippedChars: number;
}

/** What a session has logs for (the text is fetched per call, when a card shows it). */
export interface ToolOutputInfo {
  toolCallId: string;
  totalChars: number;
}

export interface StoredToolOutput {
  toolCallId: string;
  /** Head, a marker for what was left out, tail: ready for a terminal. */
  text: string;
  totalChars: number;
  /** True when part of the output was not kept (only head and tail are). */
  truncated: boolean;
}

export function writeToolOutput(db: Database, sessionId: number, toolCallId: string, row: ToolOutputRow, now: number): void {
  statement(
    db,
    `INSERT INTO tool_output (session_id, tool_call_id, head, tail, total_chars, omitted_chars, skipped_chars, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (session_id, tool_call_id) DO UPDATE SET head = excluded.head, tail = excluded.tail, total_chars = excluded.total_chars,
       omitted_chars = excluded.omitted_chars, skipped_chars = excluded.skipped_chars, updated_at = excluded.updated_at`,
  ).run(sessionId, toolCallId, row.head, row.tail, row.totalChars, row.omittedChars, row.skippedChars, now);
}

export function listToolOutputs(db: Database, sessionId: number): ToolOutputInfo[] {
  return statement(db, "SELECT tool_call_id AS toolCallId, total_chars AS totalChars FROM tool_output WHERE session_id = ? ORDER BY id").all(sessionId) as ToolOutputInfo[];
}

/** The given calls that have a log (one lookup each, for a page). */
export function toolOutputsOf(db: Database, sessionId: number, toolCallIds: readonly string[]): ToolOutputInfo[] {
  const read = statement(db, "SELECT total_chars FROM tool_output WHERE session_id = ? AND tool_call_id = ?").pluck();
  const infos: ToolOutputInfo[] = [];
  for (const toolCallId of toolCallIds) {
    const totalChars = read.get(sessionId, toolCallId) as number | undefined;
    if (totalChars !== undefined) infos.push({ toolCallId, totalChars });
  }
  return infos;
}

export function readToolOutput(db: Database, sessionId: number, toolCallId: string): StoredToolOutput | undefined {
  const row = statement(
    db,
    `SELECT head, tail, total_chars AS totalChars, omitted_chars AS omittedChars, skipped_chars AS skippedChars
       FROM tool_output WHERE session_id = ? AND tool_call_id = ?`,
  ).get(sessionId, toolCallId) as ToolOutputRow | undefined;
  if (!row) return undefined;
  return {
    toolCallId,
    text: joinLog(row.head, row.tail, row.omittedChars, row.skippedChars),
    totalChars: row.totalChars,
    truncated: row.omittedChars + row.skippedChars > 0,
  };
}

/** Copies the logs of the given calls from one session to another (a fork). */
export function copyToolOutputs(db: Database, fromSession: number, toSession: number, toolCallIds: readonly string[]): void {
  const copy = statement(
    db,
    `INSERT OR IGNORE INTO tool_output (session_id, tool_call_id, head, tail, total_chars, omitted_chars, skipped_chars, updated_at)
     SELECT ?, tool_call_id, head, tail, total_chars, omitted_chars, skipped_chars, updated_at FROM tool_output
      WHERE session_id = ? AND tool_call_id = ?`,
  );
  for (const id of toolCallIds) copy.run(toSession, fromSession, id);
}
