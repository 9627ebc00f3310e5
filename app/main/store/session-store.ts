// The store's API over one open database: projects, sessions, messages, replay, history, search,
// forks, export; plus settings, the audit log and permission rules. Synchronous (better-sqlite3):
// every call is one short transaction. Reads never throw for absent rows (they return undefined or
// empty); writes throw a StoreError with a plain message and leave nothing half-written.
// A façade, each part delegated to a module of its own: projects and sessions over their life,
// forks included, to session-lifecycle.ts; messages written and read (whole, by page, exported,
// searched) to transcripts.ts; the write path, the background work (search index, word list,
// checkpoints), the recorders and closing to store-upkeep.ts.
import type { Database } from "better-sqlite3";
import type { AgentMessage } from "../../shared/agent-types.ts";
import { ToolAuditLog } from "./audit-log.ts";
import type { SessionExport } from "./export.ts";
import type { FolderLock } from "./folder-lock.ts";
import { PermissionRules } from "./permission-rules.ts";
import type { RecorderOptions, SessionRecorder } from "./recorder.ts";
import { SessionLifecycle } from "./session-lifecycle.ts";
import { SettingsStore } from "./settings.ts";
import { StoreUpkeep } from "./store-upkeep.ts";
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
import type { StoredToolOutput } from "./tool-output.ts";
import { Transcripts } from "./transcripts.ts";

export class SessionStore {
  /** The connection; for the recorder and tests. Other code goes through the methods. */
  readonly db: Database;
  readonly path: string;
  readonly settings: SettingsStore;
  readonly audit: ToolAuditLog;
  readonly permissionRules: PermissionRules;
  /** Opened without the folder's lock: nothing may be written (the services refuse every change). */
  readonly readOnly: boolean;
  readonly #upkeep: StoreUpkeep;
  readonly #sessions: SessionLifecycle;
  readonly #transcripts: Transcripts;

  constructor(db: Database, path: string, options: { readOnly?: boolean; lock?: FolderLock } = {}) {
    this.db = db;
    this.path = path;
    this.readOnly = options.readOnly ?? false;
    this.settings = new SettingsStore(db);
    this.audit = new ToolAuditLog(db);
    this.permissionRules = new PermissionRules(db);
    this.#upkeep = new StoreUpkeep(db, path, { readOnly: this.readOnly, lock: options.lock });
    this.#sessions = new SessionLifecycle(db, this.#upkeep);
    this.#transcripts = new Transcripts(db, { readOnly: this.readOnly, upkeep: this.#upkeep, sessions: this.#sessions });
  }

  /** Indexes every message still waiting for the search index (search does this itself). */
  flushSearchIndex(): number {
    return this.#upkeep.flushSearchIndex();
  }

  /**
   * Starts filling the search's word list in the background when an upgrade left it to fill
   * (search-words-fill.ts); call once the first window is served. A no-op read-only or when complete.
   */
  startSearchWordsFill(): void {
    this.#upkeep.startSearchWordsFill();
  }

  /** Whether the search's word list is complete (search uses prefix queries for typed words until it is). */
  searchWordsComplete(): boolean {
    return this.#upkeep.searchWordsComplete;
  }

  /** Messages saved but not yet in the search index. */
  pendingSearchIndex(): number {
    return this.#upkeep.pendingSearchIndex();
  }

  /**
   * Checkpoints and truncates the WAL now, blocking (waiting up to `waitMs` for a background
   * checkpoint in progress): for idle moments and after bulk imports, when writes outpace the
   * background checkpoint. Returns false if it could not complete (e.g. a reader kept it busy).
   */
  checkpoint(waitMs = 5000): boolean {
    return this.#upkeep.checkpoint(waitMs);
  }

  // Projects

  /** Adds the project for `folder` if new and marks it opened now. */
  openProject(folder: string, name?: string): ProjectInfo {
    return this.#sessions.openProject(folder, name);
  }

  getProject(id: number): ProjectInfo | undefined {
    return this.#sessions.getProject(id);
  }

  /** Most recently opened first. */
  listProjects(): ProjectInfo[] {
    return this.#sessions.listProjects();
  }

  // Sessions

  createSession(input: NewSession): SessionInfo {
    return this.#sessions.createSession(input);
  }

  /** Whether a session is stored, deleted ones waiting to be purged included. */
  sessionStored(id: number): boolean {
    return this.#sessions.sessionStored(id);
  }

  /** The session, unless it does not exist or is deleted (waiting to be purged). */
  getSession(id: number): SessionInfo | undefined {
    return this.#sessions.getSession(id);
  }

  /** Newest activity first, paged by cursor; message counts come from a counter column. */
  listSessions(options: ListSessionsOptions = {}): SessionPage {
    return this.#sessions.listSessions(options);
  }

  renameSession(id: number, title: string): void {
    this.#sessions.renameSession(id, title);
  }

  /** Moves a session to another project (a fork whose files went to a new worktree). */
  setSessionProject(id: number, projectId: number): void {
    this.#sessions.setSessionProject(id, projectId);
  }

  setSessionModel(id: number, model: string | null): void {
    this.#sessions.setSessionModel(id, model);
  }

  /** Archived sessions leave the default list and search; `false` brings one back. */
  archiveSession(id: number, archived = true): void {
    this.#sessions.archiveSession(id, archived);
  }

  /** Deletes the session now, with its messages, runs, events and terminal logs. Forks keep their copied history. */
  deleteSession(id: number): void {
    this.#sessions.deleteSession(id);
  }

  /**
   * "Delete with undo": marks the session deleted, committed at once, so a quit in the undo window
   * keeps the delete; it leaves the list, search and open. restoreSession undoes it until
   * purgeDeletedSessions removes it for good.
   */
  softDeleteSession(id: number, now = Date.now()): void {
    this.#sessions.softDeleteSession(id, now);
  }

  restoreSession(id: number): void {
    this.#sessions.restoreSession(id);
  }

  /** Removes for good the sessions deleted before `deletedBefore`; returns how many. */
  purgeDeletedSessions(deletedBefore: number): number {
    return this.#sessions.purgeDeletedSessions(deletedBefore);
  }

  /**
   * A new session with the same history through `throughPosition` and a link back. When that
   * message is an assistant message with tool calls, its tool results come along too, so the
   * fork's transcript is valid for a provider.
   */
  forkSession(id: number, throughPosition: number): SessionInfo {
    return this.#sessions.forkSession(id, throughPosition);
  }

  // Messages

  /** Commits one message at the session's next position (durable when this returns); returns the position. */
  appendMessage(sessionId: number, message: AgentMessage): number {
    return this.#transcripts.appendMessage(sessionId, message);
  }

  /** Commits several messages in one transaction (all or none); returns their positions. */
  appendMessages(sessionId: number, messages: readonly AgentMessage[]): number[] {
    return this.#transcripts.appendMessages(sessionId, messages);
  }

  /** Messages at positions [from, to). */
  readMessages(sessionId: number, from?: number, to?: number): AgentMessage[] {
    return this.#transcripts.readMessages(sessionId, from, to);
  }

  listRuns(sessionId: number): RunInfo[] {
    return this.#transcripts.listRuns(sessionId);
  }

  /**
   * The whole session, read in full (exports, tests); undefined if it does not exist. Its cost
   * grows with the session: the view opens a page instead (openPage).
   */
  openSession(id: number): OpenedSession | undefined {
    return this.#transcripts.openSession(id);
  }

  /**
   * The session for the view: its newest page (or the page around `options.around`), its length,
   * the tools active at its end and its compaction entries; undefined if it does not exist. Reads
   * one page and the marked messages (pages.ts), however long the session is; one transaction,
   * so the parts agree.
   */
  openPage(id: number, options: PageOptions = {}): TranscriptPage | undefined {
    return this.#transcripts.openPage(id, options);
  }

  /** Messages [max(0, before - limit), before) of a session (scrolling up), or [from, from + limit) (down). */
  readPage(id: number, range: { before: number; limit?: number } | { from: number; limit?: number }): MessagePage {
    return this.#transcripts.readPage(id, range);
  }

  /** The session's compaction entries and tool results adding tools, by position (see message_marks). */
  markedMessages(id: number): { position: number; message: AgentMessage }[] {
    return this.#transcripts.markedMessages(id);
  }

  /** A tool call's stored terminal log (head, marker, tail), if it has one. */
  toolOutput(sessionId: number, toolCallId: string): StoredToolOutput | undefined {
    return this.#transcripts.toolOutput(sessionId, toolCallId);
  }

  // History

  search(query: string, options: SearchOptions = {}): SearchResult {
    return this.#transcripts.search(query, options);
  }

  exportJson(id: number): SessionExport {
    return this.#transcripts.exportJson(id);
  }

  exportMarkdown(id: number): string {
    return this.#transcripts.exportMarkdown(id);
  }

  /** A recorder that writes one session's runs from the loop's events. */
  recorder(sessionId: number, options?: RecorderOptions): SessionRecorder {
    this.#sessions.requireSession(sessionId);
    return this.#upkeep.recorder(sessionId, options);
  }

  /**
   * Closes the database. Its worker threads close their own connections a moment later: `closed()`
   * resolves once they have exited (only then may the data folder be removed or copied).
   */
  close(): void {
    this.#upkeep.close();
  }

  /** After close(): resolves once no thread of the store has the database open any more. */
  closed(): Promise<void> {
    return this.#upkeep.closed();
  }
}
