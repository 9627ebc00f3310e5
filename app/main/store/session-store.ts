// The store's API over one open database: projects, sessions, messages, replay, history, search,
// forks, export; plus settings, the audit log and permission rules. Synchronous (better-sqlite3):
// every call is one short transaction. Reads never throw for absent rows (they return undefined or
// empty); writes throw a StoreError with a plain message and leave nothing half-written.
import type { Database } from "better-sqlite3";
import type { AgentMessage } from "../../shared/agent-types.ts";
import { activeToolNamesByMessage } from "../loop/index.ts";
import { ToolAuditLog } from "./audit-log.ts";
import { StoreError, toStoreError } from "./errors.ts";
import { readSessionEvents } from "./event-log.ts";
import { sessionToJson, sessionToMarkdown, type SessionExport } from "./export.ts";
import { appendMessageRow, copyMessagePrefix, deleteSessionMessages, firstMessageId, readMarkedMessages, readMessage, readMessages } from "./messages.ts";
import { readPage, readTranscriptPage } from "./pages.ts";
import { copyToolCallTimes, listToolCallTimes } from "./tool-calls.ts";
import { PermissionRules } from "./permission-rules.ts";
import { SessionRecorder, type RecorderOptions } from "./recorder.ts";
import { searchMessages } from "./search.ts";
import { SearchIndexer } from "./search-indexer.ts";
import { SearchWordsFill } from "./search-words-fill.ts";
import { Checkpointer } from "./checkpointer.ts";
import type { FolderLock } from "./folder-lock.ts";
import { SettingsStore } from "./settings.ts";
import { statement } from "./sql.ts";
import { copyToolOutputs, listToolOutputs, readToolOutput, type StoredToolOutput } from "./tool-output.ts";
import type {
  ListSessionsOptions,
  MessagePage,
  NewSession,
  OpenedSession,
  PageOptions,
  ProjectInfo,
  RunInfo,
  SearchOptions,
  SearchResult,
  SessionInfo,
  SessionPage,
  TranscriptPage,
} from "./store-types.ts";

const SESSION_COLUMNS = `id, project_id AS projectId, title, created_at AS createdAt, updated_at AS updatedAt, model,
  base_tool_names AS baseToolNames, parent_session_id AS parentSessionId, fork_position AS forkPosition,
  message_count AS messageCount, tokens, cost, archived_at AS archivedAt`;

const PROJECT_COLUMNS = "id, folder, name, created_at AS createdAt, last_opened_at AS lastOpenedAt";

type SessionRow = Omit<SessionInfo, "baseToolNames"> & { baseToolNames: string };

function toSession(row: SessionRow): SessionInfo {
  return { ...row, baseToolNames: JSON.parse(row.baseToolNames) as string[] };
}

export class SessionStore {
  /** The connection; for the recorder and tests. Other code goes through the methods. */
  readonly db: Database;
  readonly path: string;
  readonly settings: SettingsStore;
  readonly audit: ToolAuditLog;
  readonly permissionRules: PermissionRules;
  /** Opened without the folder's lock: nothing may be written (the services refuse every change). */
  readonly readOnly: boolean;
  readonly #indexer: SearchIndexer;
  readonly #wordsFill: SearchWordsFill;
  readonly #checkpointer: Checkpointer | null;
  #workersExited: Promise<void> = Promise.resolve();
  readonly #lock: FolderLock | undefined;
  /** Recorders made here: their sessions' counters may lag their messages by a few milliseconds (recorder-counters.ts). */
  readonly #recorders = new Set<SessionRecorder>();

  constructor(db: Database, path: string, options: { readOnly?: boolean; lock?: FolderLock } = {}) {
    this.db = db;
    this.path = path;
    this.readOnly = options.readOnly ?? false;
    this.#lock = options.lock;
    this.settings = new SettingsStore(db);
    this.audit = new ToolAuditLog(db);
    this.permissionRules = new PermissionRules(db);
    this.#indexer = new SearchIndexer(db);
    const indexer = this.#indexer;
    this.#wordsFill = new SearchWordsFill(db, { file: path, indexed: () => indexer.batches });
    // Read-only: the holder indexes and checkpoints; this connection only reads.
    this.#checkpointer = this.readOnly ? null : new Checkpointer(db, path);
    if (!this.readOnly) this.#indexer.schedule();
  }

  /** Brings every session row's counters up to its committed messages; first thing of every other read or write. */
  #syncCounters(): void {
    for (const recorder of this.#recorders) recorder.syncCounters();
  }

  /** Runs `fn` in a transaction; `sessionOf` names the session it added messages to, if any. */
  #write<T>(action: string, fn: () => T, sessionOf?: (result: T) => number): T {
    if (this.readOnly) throw new StoreError("read-only", `This Lathe opened the data folder read-only: ${action} is not possible.`);
    this.#syncCounters();
    let result: T;
    try {
      result = this.db.transaction(fn)();
    } catch (err) {
      throw toStoreError(err, action);
    }
    this.#afterCommit(sessionOf?.(result));
    return result;
  }

  readonly #afterCommit = (sessionWithNewMessages?: number): void => {
    if (sessionWithNewMessages !== undefined) this.#indexer.noteSession(sessionWithNewMessages);
    this.#indexer.schedule();
    this.#checkpointer?.noteWrite();
  };

  /** Indexes every message still waiting for the search index (search does this itself). */
  flushSearchIndex(): number {
    this.#syncCounters();
    return this.#indexer.flushAll();
  }

  /**
   * Starts filling the search's word list in the background when an upgrade left it to fill
   * (search-words-fill.ts); call once the first window is served. A no-op read-only or when complete.
   */
  startSearchWordsFill(): void {
    if (!this.readOnly) this.#wordsFill.start();
  }

  /** Whether the search's word list is complete (search uses prefix queries for typed words until it is). */
  searchWordsComplete(): boolean {
    return this.#wordsFill.complete;
  }

  /** Messages saved but not yet in the search index. */
  pendingSearchIndex(): number {
    this.#syncCounters();
    return this.#indexer.pendingCount();
  }

  /**
   * Checkpoints and truncates the WAL now, blocking (waiting up to `waitMs` for a background
   * checkpoint in progress): for idle moments and after bulk imports, when writes outpace the
   * background checkpoint. Returns false if it could not complete (e.g. a reader kept it busy).
   */
  checkpoint(waitMs = 5000): boolean {
    return this.#checkpointer?.checkpointNow(waitMs) ?? false;
  }

  // Projects

  /** Adds the project for `folder` if new and marks it opened now. */
  openProject(folder: string, name?: string): ProjectInfo {
    const now = Date.now();
    const displayName = name ?? (folder.split(/[\\/]/).filter(Boolean).pop() || folder);
    return this.#write(`opening the project ${folder}`, () =>
      statement(
        this.db,
        `INSERT INTO projects (folder, name, created_at, last_opened_at) VALUES (?, ?, ?, ?)
         ON CONFLICT(folder) DO UPDATE SET last_opened_at = excluded.last_opened_at RETURNING ${PROJECT_COLUMNS}`,
      ).get(folder, displayName, now, now),
    ) as ProjectInfo;
  }

  getProject(id: number): ProjectInfo | undefined {
    return statement(this.db, `SELECT ${PROJECT_COLUMNS} FROM projects WHERE id = ?`).get(id) as ProjectInfo | undefined;
  }

  /** Most recently opened first. */
  listProjects(): ProjectInfo[] {
    return statement(this.db, `SELECT ${PROJECT_COLUMNS} FROM projects ORDER BY last_opened_at DESC, id DESC`).all() as ProjectInfo[];
  }

  // Sessions

  createSession(input: NewSession): SessionInfo {
    const now = Date.now();
    return this.#write("creating a session", () => {
      const row = statement(
        this.db,
        `INSERT INTO sessions (project_id, title, created_at, updated_at, model, base_tool_names)
         VALUES (?, ?, ?, ?, ?, ?) RETURNING ${SESSION_COLUMNS}`,
      ).get(input.projectId, input.title ?? null, now, now, input.model ?? null, JSON.stringify(input.baseToolNames ?? []));
      return toSession(row as SessionRow);
    });
  }

  /** Whether a session is stored, deleted ones waiting to be purged included. */
  sessionStored(id: number): boolean {
    return statement(this.db, "SELECT 1 FROM sessions WHERE id = ?").pluck().get(id) !== undefined;
  }

  /** The session, unless it does not exist or is deleted (waiting to be purged). */
  getSession(id: number): SessionInfo | undefined {
    this.#syncCounters();
    return this.#readSession(id);
  }

  /** The session row as it is (inside a transaction: no counter sync, which writes). */
  #readSession(id: number): SessionInfo | undefined {
    const row = statement(this.db, `SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = ? AND deleted_at IS NULL`).get(id) as SessionRow | undefined;
    return row && toSession(row);
  }

  #requireSession(id: number): SessionInfo {
    const session = this.getSession(id);
    if (!session) throw new StoreError("not-found", `Session ${id} does not exist.`);
    return session;
  }

  /** Newest activity first, paged by cursor; message counts come from a counter column. */
  listSessions(options: ListSessionsOptions = {}): SessionPage {
    this.#syncCounters();
    const limit = Math.max(1, Math.min(options.limit ?? 50, 500));
    const where = [options.archived ? "archived_at IS NOT NULL" : "archived_at IS NULL", "deleted_at IS NULL"];
    if (options.projectId !== undefined) where.push("project_id = @projectId");
    if (options.cursor) where.push("(updated_at < @updatedAt OR (updated_at = @updatedAt AND id < @id))");
    const rows = statement(
      this.db,
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
    this.#write("renaming the session", () => {
      if (statement(this.db, "UPDATE sessions SET title = ? WHERE id = ?").run(trimmed, id).changes === 0) throw new StoreError("not-found", `Session ${id} does not exist.`);
    });
  }

  /** Moves a session to another project (a fork whose files went to a new worktree). */
  setSessionProject(id: number, projectId: number): void {
    this.#write("moving the session to another project", () => {
      if (statement(this.db, "UPDATE sessions SET project_id = ? WHERE id = ?").run(projectId, id).changes === 0)
        throw new StoreError("not-found", `Session ${id} does not exist.`);
    });
  }

  setSessionModel(id: number, model: string | null): void {
    this.#write("saving the session's model", () => statement(this.db, "UPDATE sessions SET model = ? WHERE id = ?").run(model, id));
  }

  /** Archived sessions leave the default list and search; `false` brings one back. */
  archiveSession(id: number, archived = true): void {
    this.#write("archiving the session", () => {
      const changed = statement(this.db, "UPDATE sessions SET archived_at = ? WHERE id = ?").run(archived ? Date.now() : null, id);
      if (changed.changes === 0) throw new StoreError("not-found", `Session ${id} does not exist.`);
    });
  }

  /** Deletes the session now, with its messages, runs, events and terminal logs. Forks keep their copied history. */
  deleteSession(id: number): void {
    this.#write("deleting the session", () => {
      deleteSessionMessages(this.db, id);
      statement(this.db, "DELETE FROM sessions WHERE id = ?").run(id);
    });
  }

  /**
   * "Delete with undo": marks the session deleted, committed at once, so a quit in the undo window
   * keeps the delete; it leaves the list, search and open. restoreSession undoes it until
   * purgeDeletedSessions removes it for good.
   */
  softDeleteSession(id: number, now = Date.now()): void {
    this.#write("deleting the session", () => {
      if (statement(this.db, "UPDATE sessions SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL").run(now, id).changes === 0)
        throw new StoreError("not-found", `Session ${id} does not exist.`);
    });
  }

  restoreSession(id: number): void {
    this.#write("restoring the session", () => {
      if (statement(this.db, "UPDATE sessions SET deleted_at = NULL WHERE id = ? AND deleted_at IS NOT NULL").run(id).changes === 0)
        throw new StoreError("not-found", `Session ${id} is not deleted (or was already removed for good).`);
    });
  }

  /** Removes for good the sessions deleted before `deletedBefore`; returns how many. */
  purgeDeletedSessions(deletedBefore: number): number {
    const ids = statement(this.db, "SELECT id FROM sessions WHERE deleted_at IS NOT NULL AND deleted_at < ?").pluck().all(deletedBefore) as number[];
    for (const id of ids) this.deleteSession(id);
    return ids.length;
  }

  /**
   * A new session with the same history through `throughPosition` and a link back. When that
   * message is an assistant message with tool calls, its tool results come along too, so the
   * fork's transcript is valid for a provider.
   */
  forkSession(id: number, throughPosition: number): SessionInfo {
    return this.#write(
      "forking the session",
      () => {
        const source = this.#requireSession(id);
        if (!Number.isInteger(throughPosition) || throughPosition < 0 || throughPosition >= source.messageCount)
          throw new StoreError("invalid", `Session ${id} has no message at position ${throughPosition}.`);
        let through = throughPosition;
        if (readMessage(this.db, id, through)?.role === "assistant") {
          while (through + 1 < source.messageCount && readMessage(this.db, id, through + 1)?.role === "toolResult") through++;
        }
        const first = firstMessageId(id);
        const created = statement(
          this.db,
          `INSERT INTO sessions (project_id, title, created_at, updated_at, model, base_tool_names, parent_session_id, fork_position,
                               message_count, tokens, cost)
         SELECT project_id, title, @now, @now, model, base_tool_names, id, @through, @through + 1,
                (SELECT coalesce(sum(tokens), 0) FROM messages WHERE id BETWEEN @first AND @first + @through),
                (SELECT coalesce(sum(cost), 0) FROM messages WHERE id BETWEEN @first AND @first + @through)
           FROM sessions WHERE id = @id RETURNING id`,
        )
          .pluck()
          .get({ now: Date.now(), through, first, id }) as number;
        copyMessagePrefix(this.db, id, created, through);
        const calls = readMessages(this.db, created).flatMap((m) => (m.role === "toolResult" ? [m.toolCallId] : []));
        copyToolOutputs(this.db, id, created, calls);
        copyToolCallTimes(this.db, id, created, calls);
        return this.#requireSession(created);
      },
      (fork) => fork.id,
    );
  }

  // Messages

  /** Commits one message at the session's next position (durable when this returns); returns the position. */
  appendMessage(sessionId: number, message: AgentMessage): number {
    return this.#write(
      `saving the ${message.role} message`,
      () => appendMessageRow(this.db, sessionId, message, Date.now()),
      () => sessionId,
    );
  }

  /** Commits several messages in one transaction (all or none); returns their positions. */
  appendMessages(sessionId: number, messages: readonly AgentMessage[]): number[] {
    const now = Date.now();
    return this.#write(
      `saving ${messages.length} messages`,
      () => messages.map((m) => appendMessageRow(this.db, sessionId, m, now)),
      () => sessionId,
    );
  }

  /** Messages at positions [from, to). */
  readMessages(sessionId: number, from?: number, to?: number): AgentMessage[] {
    return readMessages(this.db, sessionId, from, to);
  }

  listRuns(sessionId: number): RunInfo[] {
    return statement(this.db, "SELECT id, session_id AS sessionId, started_at AS startedAt, ended_at AS endedAt, status FROM runs WHERE session_id = ? ORDER BY id").all(
      sessionId,
    ) as RunInfo[];
  }

  /**
   * The whole session, read in full (exports, tests); undefined if it does not exist. Its cost
   * grows with the session: the view opens a page instead (openPage).
   */
  openSession(id: number): OpenedSession | undefined {
    const session = this.getSession(id);
    if (!session) return undefined;
    const messages = readMessages(this.db, id);
    return {
      session,
      messages,
      activeToolNames: activeToolNamesByMessage(session.baseToolNames, messages),
      runs: this.listRuns(id),
      events: readSessionEvents(this.db, id),
      toolCalls: listToolCallTimes(this.db, id),
      outputs: listToolOutputs(this.db, id),
    };
  }

  /**
   * The session for the view: its newest page (or the page around `options.around`), its length,
   * the tools active at its end and its compaction entries; undefined if it does not exist. Reads
   * one page and the marked messages (pages.ts), however long the session is; one transaction,
   * so the parts agree.
   */
  openPage(id: number, options: PageOptions = {}): TranscriptPage | undefined {
    this.#syncCounters();
    return this.db.transaction(() => {
      const session = this.#readSession(id);
      return session && readTranscriptPage(this.db, session, options);
    })();
  }

  /** Messages [max(0, before - limit), before) of a session (scrolling up), or [from, from + limit) (down). */
  readPage(id: number, range: { before: number; limit?: number } | { from: number; limit?: number }): MessagePage {
    return readPage(this.db, id, range);
  }

  /** The session's compaction entries and tool results adding tools, by position (see message_marks). */
  markedMessages(id: number): { position: number; message: AgentMessage }[] {
    return readMarkedMessages(this.db, id);
  }

  /** A tool call's stored terminal log (head, marker, tail), if it has one. */
  toolOutput(sessionId: number, toolCallId: string): StoredToolOutput | undefined {
    return readToolOutput(this.db, sessionId, toolCallId);
  }

  // History

  search(query: string, options: SearchOptions = {}): SearchResult {
    // Read-only: what the holder has indexed (it indexes within milliseconds of a commit).
    if (!this.readOnly) this.flushSearchIndex();
    return searchMessages(this.db, query, options, this.#wordsFill.complete);
  }

  exportJson(id: number): SessionExport {
    const opened = this.openSession(id);
    if (!opened) throw new StoreError("not-found", `Session ${id} does not exist.`);
    return sessionToJson(opened, this.getProject(opened.session.projectId));
  }

  exportMarkdown(id: number): string {
    const opened = this.openSession(id);
    if (!opened) throw new StoreError("not-found", `Session ${id} does not exist.`);
    return sessionToMarkdown(opened, this.getProject(opened.session.projectId));
  }

  /** A recorder that writes one session's runs from the loop's events. */
  recorder(sessionId: number, options?: RecorderOptions): SessionRecorder {
    this.#requireSession(sessionId);
    const recorder = new SessionRecorder(this.db, sessionId, { ...options, onCommit: this.#afterCommit });
    this.#recorders.add(recorder);
    return recorder;
  }

  /**
   * Closes the database. Its worker threads close their own connections a moment later: `closed()`
   * resolves once they have exited (only then may the data folder be removed or copied).
   */
  close(): void {
    if (!this.db.open) return;
    this.#syncCounters();
    this.#indexer.close();
    this.#wordsFill.close();
    this.#workersExited = Promise.all([this.#wordsFill.exited(), this.#checkpointer?.close()]).then(() => undefined);
    try {
      if (!this.readOnly) this.db.pragma("wal_checkpoint(TRUNCATE)");
    } finally {
      this.db.close();
      this.#lock?.release();
    }
  }

  /** After close(): resolves once no thread of the store has the database open any more. */
  closed(): Promise<void> {
    return this.#workersExited;
  }
}
