// Pages of a session's transcript for the view: a range of messages with their tool calls' times
// and stored terminal logs, and the opening page, which adds what the view needs to be right
// without the other messages (length, tools active at the end, compaction entries). Every read
// here costs O(page + marked messages), never O(session): messages are one contiguous range of
// the clustered messages table, and the session-wide state comes from message_marks.
// Callers provide the transaction when they need the parts to agree.
import type { Database } from "better-sqlite3";
import { COMPACTION, COMPACTION_UNDO } from "../../shared/compaction.ts";
import { endMessageId, firstMessageId, positionOf, readMarkedMessages, readMessages } from "./messages.ts";
import { POSITION_SPAN } from "./migrations.ts";
import { statement } from "./sql.ts";
import type { CompactionMark, MessagePage, PageOptions, SessionInfo, TranscriptPage } from "./store-types.ts";
import { readToolCallTimes, toolCallIdsOf } from "./tool-calls.ts";
import { toolOutputsOf } from "./tool-output.ts";

export const DEFAULT_PAGE = 200;
export const MAX_PAGE = 1000;

function pageLimit(limit: number | undefined): number {
  return Math.max(1, Math.min(MAX_PAGE, Math.floor(limit ?? DEFAULT_PAGE)));
}

/** Messages [max(0, before - limit), before), or [from, from + limit), with their calls' times and logs. */
export function readPage(db: Database, sessionId: number, range: { before: number; limit?: number } | { from: number; limit?: number }): MessagePage {
  const limit = pageLimit(range.limit);
  // Positions past the session's last possible one would name another session's messages.
  const position = (n: number) => Math.max(0, Math.min(POSITION_SPAN, Math.floor(n)));
  const first = "before" in range ? position(range.before - limit) : position(range.from);
  const end = "before" in range ? Math.max(first, position(range.before)) : position(first + limit);
  const messages = readMessages(db, sessionId, first, end);
  const calls = toolCallIdsOf(messages);
  return { first, messages, toolCalls: readToolCallTimes(db, sessionId, calls), outputs: toolOutputsOf(db, sessionId, calls) };
}

/** The opening page of a session (see TranscriptPage). */
export function readTranscriptPage(db: Database, session: SessionInfo, options: PageOptions = {}): TranscriptPage {
  const limit = pageLimit(options.limit);
  // From the rows: the row's counter can be behind them while a write of it fails (recorder-counters.ts).
  const total = Math.max(session.messageCount, storedCount(db, session.id));
  const newest = Math.max(0, total - limit);
  const from = options.around === undefined ? newest : Math.max(0, Math.min(newest, Math.floor(options.around) - Math.floor(limit / 2)));
  const page = readPage(db, session.id, { from, limit });
  const active = new Set(session.baseToolNames);
  const compactions: CompactionMark[] = [];
  for (const { position, message } of readMarkedMessages(db, session.id)) {
    if (message.role === "toolResult") for (const name of message.addedToolNames ?? []) active.add(name);
    if (message.role === "custom" && (message.customType === COMPACTION || message.customType === COMPACTION_UNDO)) compactions.push({ position, message });
  }
  return { ...page, session: { ...session, messageCount: total }, total, activeToolNames: [...active], compactions };
}

/** Position after the session's last stored message (one index seek). */
function storedCount(db: Database, sessionId: number): number {
  const last = statement(db, "SELECT max(id) FROM messages WHERE id >= ? AND id < ?").pluck().get(firstMessageId(sessionId), endMessageId(sessionId)) as number | null;
  return last === null ? 0 : positionOf(last) + 1;
}
