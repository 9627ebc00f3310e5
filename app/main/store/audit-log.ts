// The permission and tool audit log: one row per tool call that reached a permission decision,
// with who decided, how long the call ran and how it ended. Rows outlive their session (the
// session id is cleared when the session is deleted), because an audit trail must not vanish.
import type { Database } from "better-sqlite3";
import { toStoreError } from "./errors.ts";
import { statement } from "./sql.ts";

export interface ToolAuditEntry {
  sessionId: number | null;
  toolCallId: string | null;
  toolName: string;
  args: unknown;
  decision: "allow" | "deny";
  /** Who decided: "user", "rule", "policy", "default", … */
  decidedBy: string;
  durationMs: number | null;
  /** How the call ended: "ok", "error", "blocked", "aborted", … (null while unknown). */
  outcome: string | null;
  /** Default: now. */
  at?: number;
}

export interface StoredToolAuditEntry extends ToolAuditEntry {
  id: number;
  at: number;
}

export interface ListAuditOptions {
  sessionId?: number;
  /** Entries with a smaller id (paging backwards). */
  beforeId?: number;
  /** Default 100, at most 1000. */
  limit?: number;
}

interface AuditRow {
  id: number;
  at: number;
  sessionId: number | null;
  toolCallId: string | null;
  toolName: string;
  args: string;
  decision: "allow" | "deny";
  decidedBy: string;
  durationMs: number | null;
  outcome: string | null;
}

export class ToolAuditLog {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  /** Returns the entry's id (use it to fill in duration and outcome once the call ends). */
  record(entry: ToolAuditEntry): number {
    try {
      const result = statement(
        this.#db,
        `INSERT INTO tool_audit (at, session_id, tool_call_id, tool_name, args, decision, decided_by, duration_ms, outcome)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        entry.at ?? Date.now(),
        entry.sessionId,
        entry.toolCallId,
        entry.toolName,
        JSON.stringify(entry.args ?? null),
        entry.decision,
        entry.decidedBy,
        entry.durationMs,
        entry.outcome,
      );
      return Number(result.lastInsertRowid);
    } catch (err) {
      throw toStoreError(err, `recording the audit entry for ${entry.toolName}`);
    }
  }

  finish(id: number, durationMs: number, outcome: string): void {
    try {
      statement(this.#db, "UPDATE tool_audit SET duration_ms = ?, outcome = ? WHERE id = ?").run(durationMs, outcome, id);
    } catch (err) {
      throw toStoreError(err, "updating the audit entry");
    }
  }

  /** Newest first. */
  list(options: ListAuditOptions = {}): StoredToolAuditEntry[] {
    const limit = Math.max(1, Math.min(options.limit ?? 100, 1000));
    const rows = statement(
      this.#db,
      `SELECT id, at, session_id AS sessionId, tool_call_id AS toolCallId, tool_name AS toolName, args, decision,
              decided_by AS decidedBy, duration_ms AS durationMs, outcome
         FROM tool_audit
        WHERE (@sessionId IS NULL OR session_id = @sessionId) AND (@beforeId IS NULL OR id < @beforeId)
        ORDER BY id DESC LIMIT @limit`,
    ).all({ sessionId: options.sessionId ?? null, beforeId: options.beforeId ?? null, limit }) as AuditRow[];
    return rows.map((row) => ({ ...row, args: JSON.parse(row.args) as unknown }));
  }
}
