// Message rows: appending (with the session's counters in the same statement group), reading a
// session's range, copying a prefix for a fork. Messages that change session-wide state (custom
// entries, tool results adding tools) are also listed in message_marks (see V6 in migrations.ts),
// kept here with the rows. Callers provide the transaction; these functions throw SQLite errors
// as they come.
import type { Database } from "better-sqlite3";
import type { AgentMessage } from "../../shared/agent-types.ts";
import { StoreError } from "./errors.ts";
import { titleFromPrompt } from "./message-text.ts";
import { POSITION_SPAN } from "./migrations.ts";
import { statement } from "./sql.ts";

export function messageId(sessionId: number, position: number): number {
  return sessionId * POSITION_SPAN + position;
}

export function firstMessageId(sessionId: number): number {
  return sessionId * POSITION_SPAN;
}

/** One past the last possible message id of the session. */
export function endMessageId(sessionId: number): number {
  return (sessionId + 1) * POSITION_SPAN;
}

export function positionOf(id: number): number {
  return id % POSITION_SPAN;
}

export function sessionOf(id: number): number {
  return Math.floor(id / POSITION_SPAN);
}

export function usageOf(message: AgentMessage): { tokens: number; cost: number } {
  if (message.role !== "assistant") return { tokens: 0, cost: 0 };
  return { tokens: message.usage?.totalTokens ?? 0, cost: message.usage?.cost?.total ?? 0 };
}

/**
 * Appends one message at the session's next position and bumps its counters; returns the position.
 * Run it inside a transaction. Throws StoreError("not-found") for an unknown session.
 */
export function appendMessageRow(db: Database, sessionId: number, message: AgentMessage, now: number): number {
  const { tokens, cost } = usageOf(message);
  const bumped = statement(
    db,
    `UPDATE sessions SET message_count = message_count + 1, updated_at = ?, tokens = tokens + ?, cost = cost + ?,
       title = coalesce(title, ?) WHERE id = ? RETURNING message_count`,
  ).get(now, tokens, cost, titleFromPrompt(message), sessionId) as { message_count: number } | undefined;
  if (!bumped) throw new StoreError("not-found", `Session ${sessionId} does not exist.`);
  const position = bumped.message_count - 1;
  insertMessageAt(db, sessionId, position, message, now);
  return position;
}

/**
 * Inserts the message row (and its mark) at `position` without touching the session's counters:
 * for a writer that keeps them itself (the recorder, see recorder-counters.ts). Throws SQLite's
 * constraint error when the position is taken.
 */
export function insertMessageAt(db: Database, sessionId: number, position: number, message: AgentMessage, now: number): void {
  if (position >= POSITION_SPAN) throw new StoreError("invalid", `Session ${sessionId} is full (${POSITION_SPAN} messages).`);
  const { tokens, cost } = usageOf(message);
  const id = messageId(sessionId, position);
  statement(db, "INSERT INTO messages (id, role, data, tokens, cost, created_at) VALUES (?, ?, ?, ?, ?, ?)").run(id, message.role, JSON.stringify(message), tokens, cost, now);
  if (isMarked(message)) statement(db, "INSERT INTO message_marks (id) VALUES (?)").run(id);
}

/** Whether the message changes session-wide state: a custom entry, or a tool result that adds tools. */
export function isMarked(message: AgentMessage): boolean {
  return message.role === "custom" || (message.role === "toolResult" && Array.isArray(message.addedToolNames));
}

/** The marked messages of a session (see isMarked), with their positions, in order. */
export function readMarkedMessages(db: Database, sessionId: number): { position: number; message: AgentMessage }[] {
  const rows = statement(db, "SELECT m.id, m.data FROM message_marks k JOIN messages m ON m.id = k.id WHERE k.id >= ? AND k.id < ? ORDER BY k.id").all(
    firstMessageId(sessionId),
    endMessageId(sessionId),
  ) as { id: number; data: string }[];
  return rows.map((row) => ({ position: positionOf(row.id), message: JSON.parse(row.data) as AgentMessage }));
}

/** Messages at positions [from, to) of a session, in order. */
export function readMessages(db: Database, sessionId: number, from = 0, to = POSITION_SPAN): AgentMessage[] {
  const rows = statement(db, "SELECT data FROM messages WHERE id >= ? AND id < ? ORDER BY id")
    .pluck()
    .all(messageId(sessionId, from), messageId(sessionId, Math.min(to, POSITION_SPAN))) as string[];
  // One parse of the joined array is cheaper than one parse per row.
  return JSON.parse(`[${rows.join(",")}]`) as AgentMessage[];
}

export function readMessage(db: Database, sessionId: number, position: number): AgentMessage | undefined {
  const data = statement(db, "SELECT data FROM messages WHERE id = ?").pluck().get(messageId(sessionId, position)) as string | undefined;
  return data === undefined ? undefined : (JSON.parse(data) as AgentMessage);
}

/** Copies positions 0..through of `fromSession` into the empty session `toSession`; returns the count. */
export function copyMessagePrefix(db: Database, fromSession: number, toSession: number, through: number): number {
  const offset = firstMessageId(toSession) - firstMessageId(fromSession);
  const copied = statement(
    db,
    `INSERT INTO messages (id, role, data, tokens, cost, created_at)
     SELECT id + ?, role, data, tokens, cost, created_at FROM messages WHERE id >= ? AND id <= ? ORDER BY id`,
  ).run(offset, firstMessageId(fromSession), messageId(fromSession, through));
  statement(db, "INSERT INTO message_marks (id) SELECT id + ? FROM message_marks WHERE id >= ? AND id <= ?").run(
    offset,
    firstMessageId(fromSession),
    messageId(fromSession, through),
  );
  return copied.changes;
}

export function deleteSessionMessages(db: Database, sessionId: number): void {
  statement(db, "DELETE FROM messages WHERE id >= ? AND id < ?").run(firstMessageId(sessionId), endMessageId(sessionId));
  statement(db, "DELETE FROM message_marks WHERE id >= ? AND id < ?").run(firstMessageId(sessionId), endMessageId(sessionId));
}
