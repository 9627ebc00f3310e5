// The lifecycle event log: what of a run's AgentEvents is stored beyond the messages.
//
// Only what the messages table does not already say is logged (so the log stays a few rows per
// run, and opening a session never needs it):
// - message_start/update/end, turn_start/end, agent_start/end are not logged: their payloads are
//   the stored messages, and a run's start and end are in the runs table;
// - tool_execution_start/end are kept as times per call (tool-calls.ts), not as rows here; their
//   arguments and results are in the assistant and tool-result messages; tool_execution_update
//   (streaming progress) goes to the call's terminal log (output-logs.ts); the session's
//   tool_call_phase (execute start, denial, stop) is kept with the call's times too;
// - everything else (provider_retry, and any event type this version does not know) is logged
//   with its payload, in emission order, with the time the recorder received it.
// Databases from before version 6 (7 for tool_call_phase) had the other rows too; the upgrade removed them.
// Encoding never throws.
import type { Database } from "better-sqlite3";
import type { SessionEvent } from "../../shared/agent-types.ts";
import type { StoredEvent } from "./store-types.ts";
import { statement } from "./sql.ts";

export interface EncodedEvent {
  type: SessionEvent["type"];
  data: string;
}

const NOT_LOGGED = new Set<string>([
  "agent_start",
  "agent_end",
  "turn_start",
  "turn_end",
  "message_start",
  "message_update",
  "message_end",
  "tool_execution_start",
  "tool_execution_update",
  "tool_execution_end",
  "tool_call_phase",
]);

/** Null for events that are not logged (see the header). */
export function encodeEvent(event: SessionEvent): EncodedEvent | null {
  if (NOT_LOGGED.has(event.type)) return null;
  const { type, ...payload } = event;
  return { type, data: JSON.stringify(payload) };
}

interface EventRow {
  runId: number;
  seq: number;
  at: number;
  type: string;
  data: string;
}

/** The logged events of a session's runs, oldest run first (for exports). */
export function readSessionEvents(db: Database, sessionId: number): StoredEvent[] {
  const rows = statement(
    db,
    `SELECT e.run_id AS runId, e.seq, e.at, e.type, e.data FROM runs r JOIN events e ON e.run_id = r.id
      WHERE r.session_id = ? ORDER BY r.id, e.seq`,
  ).all(sessionId) as EventRow[];
  const events: StoredEvent[] = [];
  for (const row of rows) {
    let payload: unknown;
    try {
      payload = JSON.parse(row.data);
    } catch {
      continue;
    }
    if (payload && typeof payload === "object") events.push({ runId: row.runId, seq: row.seq, at: row.at, event: { ...payload, type: row.type } as SessionEvent });
  }
  return events;
}
