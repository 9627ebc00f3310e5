// Crash repair, run when the store opens: a run still marked "running" belongs to a process that
// died (kill -9, power loss). Its session's transcript may end with an assistant message whose tool
// calls have no results; those get "aborted" results, in source order, so the transcript is valid
// for a provider again. The run is marked "interrupted". Each session is repaired in one transaction.
import type { Database } from "better-sqlite3";
import type { AgentMessage, ToolResultMessage } from "../../shared/agent-types.ts";
import { appendMessageRow, endMessageId, firstMessageId } from "./messages.ts";
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
  const last = statement(
    db,
    "SELECT id, data FROM messages WHERE id >= ? AND id < ? AND role = 'assistant' ORDER BY id DESC LIMIT 1",
  ).get(firstMessageId(sessionId), endMessageId(sessionId)) as { id: number; data: string } | undefined;
  if (!last) return 0;
  const assistant = JSON.parse(last.data) as AgentMessage;
  if (assistant.role !== "assistant") return 0;
  const calls = assistant.content.filter((block) => block.type === "toolCall");
  if (calls.length === 0) return 0;
  const answered = new Set(
    (
      statement(db, "SELECT data FROM messages WHERE id > ? AND id < ? AND role = 'toolResult'")
        .pluck()
        .all(last.id, endMessageId(sessionId)) as string[]
    ).map((data) => (JSON.parse(data) as ToolResultMessage).toolCallId),
  );
  let added = 0;
  for (const call of calls) {
    if (answered.has(call.id)) continue;
    appendMessageRow(db, sessionId, abortedToolResult(call.id, call.name, now), now);
    added++;
  }
  return added;
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
      const abortedToolResults = completeDanglingToolCalls(db, run.sessionId, now);
      const lastEventAt = statement(db, "SELECT max(at) FROM events WHERE run_id = ?").pluck().get(run.id) as number | null;
      statement(db, "UPDATE runs SET status = 'interrupted', ended_at = ? WHERE id = ?").run(lastEventAt ?? now, run.id);
      reports.push({ sessionId: run.sessionId, runId: run.id, abortedToolResults });
    })();
  }
  return reports;
}
