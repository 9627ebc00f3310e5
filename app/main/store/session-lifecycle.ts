// Projects and sessions over their life: a project opened by its folder; a session created,
// listed (newest activity first, by cursor), renamed, moved to another project, given a model,
// archived, deleted (at once, or with undo: soft delete, restore, purge) and forked. Owns the
// projects and sessions tables' rows (a session's messages are messages.ts's; a fork copies them
// with its tool outputs and call times). Used by SessionStore (session-store.ts), whose
// StoreUpkeep runs every write here: a write throws a StoreError (not-found and invalid ones
// named here, read-only and SQLite failures by StoreUpkeep.write) and commits nothing then. Reads
// never throw for absent rows: they return undefined or an empty page.
import type { Database } from "better-sqlite3";
import { StoreError } from "./errors.ts";
import { copyMessagePrefix, deleteSessionMessages, firstMessageId, readMessage, readMessages } from "./messages.ts";
import { statement } from "./sql.ts";
import type { StoreUpkeep } from "./store-upkeep.ts";
import type { ListSessionsOptions, NewSession, ProjectInfo, SessionInfo, SessionPage } from "./store-types.ts";
import { copyToolCallTimes } from "./tool-calls.ts";
import { copyToolOutputs } from "./tool-output.ts";

const SESSION_COLUMNS = `id, project_id AS projectId, title, created_at AS createdAt, updated_at AS updatedAt, model,
  base_tool_names AS baseToolNames, parent_session_id AS parentSessionId, fork_position AS forkPosition,
  message_count AS messageCount, tokens, cost, archived_at AS archivedAt`;

const PROJECT_COLUMNS = "id, folder, name, created_at AS createdAt, last_opened_at AS lastOpenedAt";

type SessionRow = Omit<SessionInfo, "baseToolNames"> & { baseToolNames: string };

function toSession(row: SessionRow): SessionInfo {
  return { ...row, baseToolNames: JSON.parse(row.baseToolNames) as string[] };
}

export class SessionLifecycle {
  readonly #db: Database;
  readonly #upkeep: StoreUpkeep;

  constructor(db: Database, upkeep: StoreUpkeep) {
    this.#db = db;
    this.#upkeep = upkeep;
  }

  // Projects

  openProject(folder: string, name?: string): ProjectInfo {
    const now = Date.now();
    const displayName = name ?? (folder.split(/[\\/]/).filter(Boolean).pop() || folder);
    return this.#upkeep.write(`opening the project ${folder}`, () =>
      statement(
        this.#db,
        `INSERT INTO projects (folder, name, created_at, last_opened_at) VALUES (?, ?, ?, ?)
         ON CONFLICT(folder) DO UPDATE SET last_opened_at = excluded.last_opened_at RETURNING ${PROJECT_COLUMNS}`,
      ).get(folder, displayName, now, now),
    ) as ProjectInfo;
  }

  getProject(id: number): ProjectInfo | undefined {
    return statement(this.#db, `SELECT ${PROJECT_COLUMNS} FROM projects WHERE id = ?`).get(id) as ProjectInfo | undefined;
  }

  listProjects(): ProjectInfo[] {
    return statement(this.#db, `SELECT ${PROJECT_COLUMNS} FROM projects ORDER BY last_opened_at DESC, id DESC`).all() as ProjectInfo[];
  }

  // Sessions

  createSession(input: NewSession): SessionInfo {
    const now = Date.now();
    return this.#upkeep.write("creating a session", () => {
      const row = statement(
        this.#db,
        `INSERT INTO sessions (project_id, title, created_at, updated_at, model, base_tool_names)
         VALUES (?, ?, ?, ?, ?, ?) RETURNING ${SESSION_COLUMNS}`,
      ).get(input.projectId, input.title ?? null, now, now, input.model ?? null, JSON.stringify(input.baseToolNames ?? []));
      return toSession(row as SessionRow);
    });
  }

  sessionStored(id: number): boolean {
    return statement(this.#db, "SELECT 1 FROM sessions WHERE id = ?").pluck().get(id) !== undefined;
  }

  getSession(id: number): SessionInfo | undefined {
    this.#upkeep.syncCounters();
    return this.readSession(id);
  }

  /** The session row as it is (inside a transaction: no counter sync, which writes). */
  readSession(id: number): SessionInfo | undefined {
    const row = statement(this.#db, `SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = ? AND deleted_at IS NULL`).get(id) as SessionRow | undefined;
    return row && toSession(row);
  }

  /** The session (counters synced first, as getSession); throws a not-found StoreError. */
  requireSession(id: number): SessionInfo {
    const session = this.getSession(id);
    if (!session) throw new StoreError("not-found", `Session ${id} does not exist.`);
    return session;
  }

  listSessions(options: ListSessionsOptions): SessionPage {
    this.#upkeep.syncCounters();
    const limit = Math.max(1, Math.min(options.limit ?? 50, 500));
    const where = [options.archived ? "archived_at IS NOT NULL" : "archived_at IS NULL", "deleted_at IS NULL"];
    if (options.projectId !== undefined) where.push("project_id = @projectId");
    if (options.cursor) where.push("(updated_at < @updatedAt OR (updated_at = @updatedAt AND id < @id))");
    const rows = statement(
      this.#db,
      `SELECT ${SESSION_COLUMNS} FROM sessions INDEXED BY sessions_by_updated
        WHERE ${where.join(" AND ")} ORDER BY updated_at DESC, id DESC LIMIT @limit`,
    ).all({
      limit: limit + 1,
      ...(options.projectId !== undefined ? { projectId: options.projectId } : {}),
      ...(options.cursor ? { updatedAt: options.cursor.updatedAt, id: options.cursor.id } : {}),
    }) as SessionRow[];
    const sessions = rows.slice(0, limit).map(toSession);
    const last = sessions[sessions.length - 1];
    return { sessions, nextCursor: rows.length > limit && last ? { updatedAt: last.updatedAt, id: last.id } : null };
  }

  renameSession(id: number, title: string): void {
    const trimmed = title.trim();
    if (trimmed === "") throw new StoreError("invalid", "A session title cannot be empty.");
    this.#upkeep.write("renaming the session", () => {
      if (statement(this.#db, "UPDATE sessions SET title = ? WHERE id = ?").run(trimmed, id).changes === 0) throw new StoreError("not-found", `Session ${id} does not exist.`);
    });
  }

  setSessionProject(id: number, projectId: number): void {
    this.#upkeep.write("moving the session to another project", () => {
      if (statement(this.#db, "UPDATE sessions SET project_id = ? WHERE id = ?").run(projectId, id).changes === 0)
        throw new StoreError("not-found", `Session ${id} does not exist.`);
    });
  }

  setSessionModel(id: number, model: string | null): void {
    this.#upkeep.write("saving the session's model", () => statement(this.#db, "UPDATE sessions SET model = ? WHERE id = ?").run(model, id));
  }

  archiveSession(id: number, archived: boolean): void {
    this.#upkeep.write("archiving the session", () => {
      const changed = statement(this.#db, "UPDATE sessions SET archived_at = ? WHERE id = ?").run(archived ? Date.now() : null, id);
      if (changed.changes === 0) throw new StoreError("not-found", `Session ${id} does not exist.`);
    });
  }

  deleteSession(id: number): void {
    this.#upkeep.write("deleting the session", () => {
      deleteSessionMessages(this.#db, id);
      statement(this.#db, "DELETE FROM sessions WHERE id = ?").run(id);
    });
  }

  softDeleteSession(id: number, now: number): void {
    this.#upkeep.write("deleting the session", () => {
      if (statement(this.#db, "UPDATE sessions SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL").run(now, id).changes === 0)
        throw new StoreError("not-found", `Session ${id} does not exist.`);
    });
  }

  restoreSession(id: number): void {
    this.#upkeep.write("restoring the session", () => {
      if (statement(this.#db, "UPDATE sessions SET deleted_at = NULL WHERE id = ? AND deleted_at IS NOT NULL").run(id).changes === 0)
        throw new StoreError("not-found", `Session ${id} is not deleted (or was already removed for good).`);
    });
  }

  purgeDeletedSessions(deletedBefore: number): number {
    const ids = statement(this.#db, "SELECT id FROM sessions WHERE deleted_at IS NOT NULL AND deleted_at < ?").pluck().all(deletedBefore) as number[];
    for (const id of ids) this.deleteSession(id);
    return ids.length;
  }

  /**
   * When the message at `throughPosition` is an assistant message with tool calls, the tool results
   * after it come along too (so the fork's transcript is valid for a provider), with their terminal
   * logs and call times. The source's counters are synced inside the transaction (requireSession).
   */
  forkSession(id: number, throughPosition: number): SessionInfo {
    return this.#upkeep.write(
      "forking the session",
      () => {
        const source = this.requireSession(id);
        if (!Number.isInteger(throughPosition) || throughPosition < 0 || throughPosition >= source.messageCount)
          throw new StoreError("invalid", `Session ${id} has no message at position ${throughPosition}.`);
        let through = throughPosition;
        if (readMessage(this.#db, id, through)?.role === "assistant") {
          while (through + 1 < source.messageCount && readMessage(this.#db, id, through + 1)?.role === "toolResult") through++;
        }
        const first = firstMessageId(id);
        const created = statement(
          this.#db,
          `INSERT INTO sessions (project_id, title, created_at, updated_at, model, base_tool_names, parent_session_id, fork_position,
                               message_count, tokens, cost)
         SELECT project_id, title, @now, @now, model, base_tool_names, id, @through, @through + 1,
                (SELECT coalesce(sum(tokens), 0) FROM messages WHERE id BETWEEN @first AND @first + @through),
                (SELECT coalesce(sum(cost), 0) FROM messages WHERE id BETWEEN @first AND @first + @through)
           FROM sessions WHERE id = @id RETURNING id`,
        )
          .pluck()
          .get({ now: Date.now(), through, first, id }) as number;
        copyMessagePrefix(this.#db, id, created, through);
        const calls = readMessages(this.#db, created).flatMap((m) => (m.role === "toolResult" ? [m.toolCallId] : []));
        copyToolOutputs(this.#db, id, created, calls);
        copyToolCallTimes(this.#db, id, created, calls);
        return this.requireSession(created);
      },
      (fork) => fork.id,
    );
  }
}
