// SessionRecorder: the sessions service feeds it every AgentEvent of a session's runs, in order.
//
// Durability: a message is committed synchronously, in its own small transaction, when its
// `message_end` arrives (together with the events logged before it). In WAL mode with
// synchronous=NORMAL a commit has reached the OS when it returns, so once a listener has seen
// message_end, the message survives a kill -9; only the message still streaming is lost. Per-message
// commits cost tens of microseconds (see bench/store.bench.ts), well under the 1 ms budget.
// Other logged events are batched in memory and committed by a short timer (at most
// `maxEventsPerFlush` per transaction, the rest on the next macrotask), so a crash loses at most
// the last few milliseconds of lifecycle events, never a message. What is logged: event-log.ts.
//
// handle() never throws: write failures (disk full, read-only folder) go to `onError` as a
// StoreError with a plain message, and the failed message is not written at all (no half message).
import type { Database } from "better-sqlite3";
import type { AgentEvent, AgentMessage } from "../../shared/agent-types.ts";
import { toStoreError, type StoreError } from "./errors.ts";
import { encodeEvent, insertEvents, type PendingEvent } from "./event-log.ts";
import { appendMessageRow } from "./messages.ts";
import { statement } from "./sql.ts";

type MessageEndEvent = Extract<AgentEvent, { type: "message_end" }>;

export interface RecorderOptions {
  /** Called with every write failure; default logs to stderr. */
  onError?: (error: StoreError) => void;
  /** Delay before batched events are committed; default 10 ms. */
  flushDelayMs?: number;
  /** Events per transaction, to keep each write short; default 256. */
  maxEventsPerFlush?: number;
  /** Called after each successful commit, with the session (the store schedules indexing and checkpoints). */
  onCommit?: (sessionId: number) => void;
}

export class SessionRecorder {
  readonly sessionId: number;
  /** The last write failure, if any. */
  lastError: StoreError | undefined;
  readonly #db: Database;
  readonly #onError: (error: StoreError) => void;
  readonly #flushDelayMs: number;
  readonly #maxEventsPerFlush: number;
  readonly #onCommit: (sessionId: number) => void;
  #runId: number | null = null;
  #seq = 0;
  #pending: PendingEvent[] = [];
  #timer: ReturnType<typeof setTimeout> | null = null;
  readonly #positions = new WeakMap<AgentMessage, number>();
  /** The message between its message_start and message_end, and the position it will take. */
  #streaming: { role: AgentMessage["role"]; position: number } | null = null;
  /** Built once: wrapping a function in a transaction costs more than a small commit's statements. */
  readonly #commitMessage: (pending: PendingEvent[], event: MessageEndEvent, runId: number, seq: number, at: number) => void;

  constructor(db: Database, sessionId: number, options: RecorderOptions = {}) {
    this.#db = db;
    this.sessionId = sessionId;
    this.#onError = options.onError ?? ((error) => console.error(`[store] ${error.message}`));
    this.#flushDelayMs = options.flushDelayMs ?? 10;
    this.#maxEventsPerFlush = Math.max(1, options.maxEventsPerFlush ?? 256);
    this.#onCommit = options.onCommit ?? (() => {});
    this.#commitMessage = db.transaction((pending: PendingEvent[], event: MessageEndEvent, runId: number, seq: number, at: number) => {
      insertEvents(db, pending);
      const position = appendMessageRow(db, this.sessionId, event.message, at);
      this.#positions.set(event.message, position);
      const encoded = encodeEvent(event, this.#ref)!;
      insertEvents(db, [{ runId, seq, at, type: encoded.type, data: encoded.data }]);
    });
  }

  /** The run being recorded, or null between runs. */
  get runId(): number | null {
    return this.#runId;
  }

  /** Position of a message this recorder committed (by identity). */
  positionOf(message: AgentMessage): number | undefined {
    return this.#positions.get(message);
  }

  handle(event: AgentEvent): void {
    try {
      this.#handle(event);
    } catch (err) {
      this.#fail(err, event.type === "message_end" ? `saving the ${event.message.role} message` : `logging ${event.type}`);
    }
  }

  /** Commits the batched events now. Never throws. */
  flush(): void {
    this.#clearTimer();
    if (this.#pending.length === 0) return;
    const batch = this.#pending.splice(0, this.#maxEventsPerFlush);
    try {
      this.#db.transaction(() => insertEvents(this.#db, batch))();
      this.#onCommit(this.sessionId);
    } catch (err) {
      this.#fail(err, `logging ${batch.length} run events`);
    }
    if (this.#pending.length > 0) setImmediate(() => this.flush());
  }

  /** Flushes everything; the recorder can still be used afterwards. */
  close(): void {
    while (this.#pending.length > 0) this.flush();
  }

  #handle(event: AgentEvent): void {
    if (event.type === "agent_start" || this.#runId === null) this.#startRun();
    const at = Date.now();
    const runId = this.#runId!;
    if (event.type === "message_start") {
      this.#streaming = { role: event.message.role, position: this.#messageCount() };
    }
    if (event.type === "message_end") {
      this.#commitMessage(this.#takePending(), event, runId, this.#seq++, at);
      this.#streaming = null;
      this.#onCommit(this.sessionId);
      return;
    }
    const encoded = encodeEvent(event, this.#ref);
    if (!encoded) return;
    this.#pending.push({ runId, seq: this.#seq++, at, type: encoded.type, data: encoded.data });
    if (event.type === "agent_end") {
      const pending = this.#takePending();
      this.#db.transaction(() => {
        insertEvents(this.#db, pending);
        statement(this.#db, "UPDATE runs SET status = 'completed', ended_at = ? WHERE id = ?").run(at, runId);
      })();
      this.#runId = null;
      this.#onCommit(this.sessionId);
      return;
    }
    this.#schedule();
  }

  readonly #ref = (message: AgentMessage): number | undefined => {
    const known = this.#positions.get(message);
    if (known !== undefined) return known;
    return this.#streaming && this.#streaming.role === message.role ? this.#streaming.position : undefined;
  };

  #startRun(): void {
    if (this.#runId !== null) {
      // A new agent_start without agent_end: the previous run ended without saying so.
      this.flush();
      statement(this.#db, "UPDATE runs SET status = 'interrupted', ended_at = ? WHERE id = ?").run(Date.now(), this.#runId);
    }
    this.#runId = statement(this.#db, "INSERT INTO runs (session_id, started_at, status) VALUES (?, ?, 'running') RETURNING id")
      .pluck()
      .get(this.sessionId, Date.now()) as number;
    this.#seq = 0;
  }

  #messageCount(): number {
    return statement(this.#db, "SELECT message_count FROM sessions WHERE id = ?").pluck().get(this.sessionId) as number;
  }

  #takePending(): PendingEvent[] {
    this.#clearTimer();
    return this.#pending.splice(0);
  }

  #schedule(): void {
    if (this.#timer !== null) return;
    this.#timer = setTimeout(() => this.flush(), this.#flushDelayMs);
    this.#timer.unref?.();
  }

  #clearTimer(): void {
    if (this.#timer === null) return;
    clearTimeout(this.#timer);
    this.#timer = null;
  }

  #fail(err: unknown, action: string): void {
    const error = toStoreError(err, action);
    this.lastError = error;
    try {
      this.#onError(error);
    } catch {
      // A failing error handler must not break the loop that feeds us.
    }
  }
}
