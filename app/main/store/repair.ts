// Crash repair, run when the store opens: a run still marked "running" belongs to a process that
// died (kill -9, power loss). Its session's transcript may end with an assistant message whose tool
// calls have no results; those get "aborted" results, in source order, so the transcript is valid
// for a provider again. The run is marked "interrupted". The session row's counters, which a
// recorder writes shortly after its messages, are brought up to the stored rows first. Each
// session is repaired in one transaction.
import type { Database } from "better-sqlite3";
import type { AgentMessage, ToolResultMessage } from "../../shared/agent-types.ts";
import { appendMessageRow, endMessageId, firstMessageId, positionOf } from "./messages.ts";
import { statement } from "./sql.ts";

export const ABORTED_RESULT_TEXT = "aborted: Lathe stopped before this tool call finished, so it has no result.";

export function abortedToolResult(toolCallId: string, toolName: string, timestamp: number): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId,
    toolName,
    content: [{ type: "text", text: ABORTED_RESULT_TEXT }],
    details: { aborted: true },
    isError: true,
    timestamp,
  };
}

/** Appends aborted results for the tool calls of the session's last assistant message that have none. Returns how many. */
export function completeDanglingToolCalls(db: Database, sessionId: number, now: number): number {
  const last = statement(db, "SELECT id, data FROM messages WHERE id >= ? AND id < ? AND role = 'assistant' ORDER BY id DESC LIMIT 1").get(
    firstMessageId(sessionId),
    endMessageId(sessionId),
  ) as { id: number; data: string } | undefined;
  if (!last) return 0;
  const assistant = JSON.parse(last.data) as AgentMessage;
  if (assistant.role !== "assistant") return 0;
  const calls = assistant.content.filter((block) => block.type === "toolCall");
  if (calls.length === 0) return 0;
  const answered = new Set(
    (statement(db, "SELECT data FROM messages WHERE id > ? AND id < ? AND role = 'toolResult'").pluck().all(last.id, endMessageId(sessionId)) as string[]).map(
      (data) => (JSON.parse(data) as ToolResultMessage).toolCallId,
    ),
  );
  let added = 0;
  for (const call of calls) {
    if (answered.has(call.id)) continue;
    appendMessageRow(db, sessionId, abortedToolResult(call.id, call.name, now), now);
    added++;
  }
  return added;
}

/**
 * Brings the session row's counters up to its stored messages: a recorder writes them a few
 * milliseconds after each message (recorder-counters.ts), so a crash can leave them behind.
 * Reads only the rows beyond what the row counts. Returns how many messages it added to the count.
 */
export function reconcileCounters(db: Database, sessionId: number): number {
  const row = statement(db, "SELECT message_count AS counted, (SELECT max(id) FROM messages WHERE id >= @first AND id < @end) AS last FROM sessions WHERE id = @id").get({
    first: firstMessageId(sessionId),
    end: endMessageId(sessionId),
    id: sessionId,
  }) as { counted: number; last: number | null } | undefined;
  if (!row || row.last === null) return 0;
  const stored = positionOf(row.last) + 1;
  if (stored <= row.counted) return 0;
  statement(
    db,
    `UPDATE sessions SET message_count = @stored,
       tokens = tokens + (SELECT coalesce(sum(tokens), 0) FROM messages WHERE id >= @from AND id < @end),
       cost = cost + (SELECT coalesce(sum(cost), 0) FROM messages WHERE id >= @from AND id < @end),
       updated_at = max(updated_at, (SELECT coalesce(max(created_at), 0) FROM messages WHERE id >= @from AND id < @end))
     WHERE id = @id`,
  ).run({ stored, from: firstMessageId(sessionId) + row.counted, end: endMessageId(sessionId), id: sessionId });
  return stored - row.counted;
}

export interface RepairReport {
  sessionId: number;
  runId: number;
  abortedToolResults: number;
}

/** Repairs every session with a run left "running". */
export function repairInterruptedRuns(db: Database, now = Date.now()): RepairReport[] {
  const runs = statement(db, "SELECT id, session_id AS sessionId FROM runs WHERE status = 'running' ORDER BY id").all() as {
    id: number;
    sessionId: number;
  }[];
  const reports: RepairReport[] = [];
  for (const run of runs) {
    db.transaction(() => {
      reconcileCounters(db, run.sessionId);
      const abortedToolResults = completeDanglingToolCalls(db, run.sessionId, now);
      const lastEventAt = statement(db, "SELECT max(at) FROM events WHERE run_id = ?").pluck().get(run.id) as number | null;
      statement(db, "UPDATE runs SET status = 'interrupted', ended_at = ? WHERE id = ?").run(lastEventAt ?? now, run.id);
      reports.push({ sessionId: run.sessionId, runId: run.id, abortedToolResults });
    })();
  }
  return reports;
}
