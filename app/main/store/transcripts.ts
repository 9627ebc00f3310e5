// Sessions' transcripts, written and read: messages appended (one or several in one transaction),
// read by range, by page for the view (the opening page in one transaction, so its parts agree),
// or whole (openSession, and the exports built on it), with the session's runs, marked messages and
// stored terminal logs; and search over every session's messages. The rows are the modules'
// named below (messages.ts, pages.ts, event-log.ts, tool-calls.ts, tool-output.ts, search.ts);
// this joins them for SessionStore (session-store.ts), through its StoreUpkeep (the write path,
// counters synced before a read of a session) and SessionLifecycle (the session rows). Appends
// throw a StoreError (not-found, a full session, read-only, SQLite failures) and commit nothing
// then; the exports throw a not-found StoreError; search throws a StoreError only when indexing
// what waits fails (search-indexer.ts); the other reads never throw for absent rows (undefined or
// empty).
import type { Database } from "better-sqlite3";
import type { AgentMessage } from "../../shared/agent-types.ts";
import { activeToolNamesByMessage } from "../loop/index.ts";
import { StoreError } from "./errors.ts";
import { readSessionEvents } from "./event-log.ts";
import { sessionToJson, sessionToMarkdown, type SessionExport } from "./export.ts";
import { appendMessageRow, readMarkedMessages, readMessages } from "./messages.ts";
import { readPage, readTranscriptPage } from "./pages.ts";
import { searchMessages } from "./search.ts";
import type { SessionLifecycle } from "./session-lifecycle.ts";
import { statement } from "./sql.ts";
import type { StoreUpkeep } from "./store-upkeep.ts";
import type { MessagePage, OpenedSession, PageOptions, RunInfo, SearchOptions, SearchResult, TranscriptPage } from "./store-types.ts";
import { listToolCallTimes } from "./tool-calls.ts";
import { listToolOutputs, readToolOutput, type StoredToolOutput } from "./tool-output.ts";

export class Transcripts {
  readonly #db: Database;
  readonly #readOnly: boolean;
  readonly #upkeep: StoreUpkeep;
  readonly #sessions: SessionLifecycle;

  constructor(db: Database, options: { readOnly: boolean; upkeep: StoreUpkeep; sessions: SessionLifecycle }) {
    this.#db = db;
    this.#readOnly = options.readOnly;
    this.#upkeep = options.upkeep;
    this.#sessions = options.sessions;
  }

  appendMessage(sessionId: number, message: AgentMessage): number {
    return this.#upkeep.write(
      `saving the ${message.role} message`,
      () => appendMessageRow(this.#db, sessionId, message, Date.now()),
      () => sessionId,
    );
  }

  appendMessages(sessionId: number, messages: readonly AgentMessage[]): number[] {
    const now = Date.now();
    return this.#upkeep.write(
      `saving ${messages.length} messages`,
      () => messages.map((m) => appendMessageRow(this.#db, sessionId, m, now)),
      () => sessionId,
    );
  }

  readMessages(sessionId: number, from?: number, to?: number): AgentMessage[] {
    return readMessages(this.#db, sessionId, from, to);
  }

  listRuns(sessionId: number): RunInfo[] {
    return statement(this.#db, "SELECT id, session_id AS sessionId, started_at AS startedAt, ended_at AS endedAt, status FROM runs WHERE session_id = ? ORDER BY id").all(
      sessionId,
    ) as RunInfo[];
  }

  openSession(id: number): OpenedSession | undefined {
    const session = this.#sessions.getSession(id);
    if (!session) return undefined;
    const messages = readMessages(this.#db, id);
    return {
      session,
      messages,
      activeToolNames: activeToolNamesByMessage(session.baseToolNames, messages),
      runs: this.listRuns(id),
      events: readSessionEvents(this.#db, id),
      toolCalls: listToolCallTimes(this.#db, id),
      outputs: listToolOutputs(this.#db, id),
    };
  }

  openPage(id: number, options: PageOptions): TranscriptPage | undefined {
    this.#upkeep.syncCounters();
    return this.#db.transaction(() => {
      const session = this.#sessions.readSession(id);
      return session && readTranscriptPage(this.#db, session, options);
    })();
  }

  readPage(id: number, range: { before: number; limit?: number } | { from: number; limit?: number }): MessagePage {
    return readPage(this.#db, id, range);
  }

  markedMessages(id: number): { position: number; message: AgentMessage }[] {
    return readMarkedMessages(this.#db, id);
  }

  toolOutput(sessionId: number, toolCallId: string): StoredToolOutput | undefined {
    return readToolOutput(this.#db, sessionId, toolCallId);
  }

  search(query: string, options: SearchOptions): SearchResult {
    // Read-only: what the holder has indexed (it indexes within milliseconds of a commit).
    if (!this.#readOnly) this.#upkeep.flushSearchIndex();
    return searchMessages(this.#db, query, options, this.#upkeep.searchWordsComplete);
  }

  exportJson(id: number): SessionExport {
    const opened = this.openSession(id);
    if (!opened) throw new StoreError("not-found", `Session ${id} does not exist.`);
    return sessionToJson(opened, this.#sessions.getProject(opened.session.projectId));
  }

  exportMarkdown(id: number): string {
    const opened = this.openSession(id);
    if (!opened) throw new StoreError("not-found", `Session ${id} does not exist.`);
    return sessionToMarkdown(opened, this.#sessions.getProject(opened.session.projectId));
  }
}
