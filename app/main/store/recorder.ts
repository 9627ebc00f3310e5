// SessionRecorder: the sessions service feeds it every AgentEvent of a session's runs, in order.
//
// Durability: a message is committed synchronously, in its own small transaction, when its
// `message_end` arrives (together with the writes batched before it). In WAL mode with
// synchronous=NORMAL a commit has reached the OS when it returns, so once a listener has seen
// message_end, the message survives a kill -9 (not a power cut: the OS may still lose the last
// commits then, never corrupting the file); only the message still streaming is lost. A commit
// writes the message row alone: the session's counters follow a few milliseconds later
// (recorder-counters.ts; see bench/store.bench.ts: appendCpuUs). Tool call times and outcomes (tool-calls.ts) and the few logged events
// (event-log.ts) are batched in memory and committed by a short timer (at most
// `maxEventsPerFlush` per transaction, the rest on the next macrotask) or with the next message,
// so a crash loses at most the last few milliseconds of them, never a message.
// Terminal output (tool_execution_update details with a raw `chunk`) goes to a bounded log per
// call (output-logs.ts), written every `outputFlushMs` while the call runs and at its end.
//
// Order and failures: everything is written strictly in the order it happened, as a queue of
// units (a run's start, a batch of events, one message with its events, a run's end). When a
// write fails (disk full, I/O error) the unit stays at the head of the queue and everything after
// it waits behind it, in memory: nothing is written out of order (a tool result is never stored
// without the assistant message before it), and nothing is half-written. The queue is retried on
// every new unit and every `retryMs`; once it is written, `onRecovered` is called. A failure that
// retrying cannot fix (the session was deleted) drops that unit. `isStored(message)` says whether a
// message is committed: the sessions layer runs a tool call only when its assistant message is.
//
// handle() never throws: the first failure of an outage goes to `onError` as a StoreError with a
// plain message (later ones of the same outage only update `lastError`).
import type { Database } from "better-sqlite3";
import type { AgentMessage, SessionEvent } from "../../shared/agent-types.ts";
import { StoreError, toStoreError } from "./errors.ts";
import { encodeEvent } from "./event-log.ts";
import { RecorderCounters } from "./recorder-counters.ts";
import { recordToolEnd, recordToolPhase, recordToolStart } from "./tool-calls.ts";
import { statement } from "./sql.ts";
import { OutputLogs } from "./output-logs.ts";
import type { TerminalLog } from "./terminal-log.ts";

export interface RecorderOptions {
  /** Called with the first write failure of an outage; default logs to stderr. */
  onError?: (error: StoreError) => void;
  /** Called when everything held back by failed writes has been written. */
  onRecovered?: () => void;
  /** Delay before batched events are committed; default 10 ms. */
  flushDelayMs?: number;
  /** Events per transaction, to keep each write short; default 256. */
  maxEventsPerFlush?: number;
  /** Called after each successful commit, with the session (the store schedules indexing and checkpoints). */
  onCommit?: (sessionId: number) => void;
  /** Applied to terminal logs before they are written (secret redaction). Must not throw. */
  redact?: (text: string) => string;
  /** How often a running call's terminal log is written; default 200 ms. */
  outputFlushMs?: number;
  /** How often writes held back by a failure are retried; default 2 s. */
  retryMs?: number;
}

interface RunHandle {
  id: number | null;
}

/** A batched write: a logged event, or a tool call's start or end time. */
type EventRow =
  | { kind: "event"; seq: number; at: number; type: string; data: string }
  | { kind: "tool-start"; toolCallId: string; at: number }
  | { kind: "tool-end"; toolCallId: string; at: number; isError: boolean }
  | { kind: "tool-phase"; toolCallId: string; at: number; phase: "executing" | "denied" | "stopped"; reason: string | null };

type Unit =
  | { kind: "run-start"; run: RunHandle; at: number }
  | { kind: "events"; run: RunHandle; rows: EventRow[] }
  | { kind: "message"; run: RunHandle; rows: EventRow[]; message: AgentMessage; at: number }
  | { kind: "run-end"; run: RunHandle; rows: EventRow[]; at: number; status: "completed" | "interrupted" };

const PERMANENT = new Set(["not-found", "invalid"]);

export class SessionRecorder {
  readonly sessionId: number;
  /** The last write failure, if any. */
  lastError: StoreError | undefined;
  readonly #db: Database;
  readonly #onError: (error: StoreError) => void;
  readonly #onRecovered: () => void;
  readonly #flushDelayMs: number;
  readonly #maxEventsPerFlush: number;
  readonly #onCommit: (sessionId: number) => void;
  readonly #outputFlushMs: number;
  readonly #retryMs: number;
  #run: RunHandle | null = null;
  #seq = 0;
  #pending: EventRow[] = [];
  readonly #queue: Unit[] = [];
  #failing = false;
  /** The last counters write failed (retried until they are written). */
  #countersFailed = false;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #outputTimer: ReturnType<typeof setTimeout> | null = null;
  #retryTimer: ReturnType<typeof setTimeout> | null = null;
  readonly #stored = new WeakSet<AgentMessage>();
  readonly #outputs: OutputLogs;
  readonly #counters: RecorderCounters;
  #countersTimer: ReturnType<typeof setTimeout> | null = null;
  /** Set by #write: what to apply in memory once its transaction has committed. */
  #onCommitted: (() => void) | null = null;

  constructor(db: Database, sessionId: number, options: RecorderOptions = {}) {
    this.#db = db;
    this.sessionId = sessionId;
    this.#onError = options.onError ?? ((error) => console.error(`[store] ${error.message}`));
    this.#onRecovered = options.onRecovered ?? (() => {});
    this.#flushDelayMs = options.flushDelayMs ?? 10;
    this.#maxEventsPerFlush = Math.max(1, options.maxEventsPerFlush ?? 256);
    this.#onCommit = options.onCommit ?? (() => {});
    this.#outputs = new OutputLogs(db, sessionId, options.redact ?? ((text) => text));
    this.#outputFlushMs = options.outputFlushMs ?? 200;
    this.#retryMs = options.retryMs ?? 2000;
    this.#counters = new RecorderCounters(db, sessionId);
  }

  /**
   * Writes the session row's counters for the messages committed so far (the store calls this
   * before serving anything else, so no reader sees them behind). Never throws: a failure is
   * reported like any other write and retried.
   */
  syncCounters(): void {
    if (this.#countersTimer !== null) clearTimeout(this.#countersTimer);
    this.#countersTimer = null;
    if (!this.#counters.lagging || !this.#db.open) return this.#recoverIfSaved();
    try {
      this.#db.transaction(() => {
        this.#onCommitted = this.#counters.write();
      })();
      this.#applyCommitted();
      this.#countersFailed = false;
      this.#onCommit(this.sessionId);
    } catch (err) {
      this.#onCommitted = null;
      this.#countersFailed = true;
      this.#report(toStoreError(err, "saving the session's message count"));
      this.#scheduleRetry();
      return;
    }
    this.#recoverIfSaved();
  }

  #applyCommitted(): void {
    const apply = this.#onCommitted;
    this.#onCommitted = null;
    apply?.();
  }

  #scheduleCounters(): void {
    if (this.#countersTimer !== null) return;
    this.#countersTimer = setTimeout(() => this.syncCounters(), this.#flushDelayMs);
    this.#countersTimer.unref?.();
  }

  /** The run being recorded (committed), or null between runs. */
  get runId(): number | null {
    return this.#run?.id ?? null;
  }

  /** Whether the message is committed to the database. */
  isStored(message: AgentMessage): boolean {
    return this.#stored.has(message);
  }

  /** Whether writes are failing: units are waiting behind a failed one. */
  get failing(): boolean {
    return this.#failing;
  }

  /** Messages handled but not yet written (held back by a failure), in order. */
  unsavedMessages(): AgentMessage[] {
    return this.#queue.flatMap((u) => (u.kind === "message" ? [u.message] : []));
  }

  /** Size in bytes of what is waiting to be written (for "free N MB"). */
  backlogBytes(): number {
    let bytes = 0;
    for (const unit of this.#queue) {
      if (unit.kind === "message") bytes += Buffer.byteLength(JSON.stringify(unit.message));
      if (unit.kind !== "run-start") for (const row of unit.rows) bytes += rowBytes(row);
    }
    for (const row of this.#pending) bytes += rowBytes(row);
    return bytes;
  }

  /** The terminal log kept for a call (raw, unredacted: what the live view showed). */
  outputOf(toolCallId: string): TerminalLog | undefined {
    return this.#outputs.get(toolCallId);
  }

  handle(event: SessionEvent, at = Date.now()): void {
    try {
      this.#handle(event, at);
    } catch (err) {
      this.#report(toStoreError(err, `recording ${event.type}`));
    }
  }

  /** Commits the batched events (and writes held back) now. Never throws. */
  flush(): void {
    this.#clearTimer();
    if (this.#pending.length > 0 && this.#run) {
      this.#queue.push({ kind: "events", run: this.#run, rows: this.#pending.splice(0, this.#maxEventsPerFlush) });
    }
    this.#drain();
    if (this.#pending.length > 0) setImmediate(() => this.flush());
  }

  /** Tries the writes held back by a failure again now; true when nothing is left waiting. */
  retry(): boolean {
    this.flush();
    this.#flushOutputs();
    this.syncCounters();
    return this.#queue.length === 0 && this.#pending.length === 0;
  }

  /** Writes everything it can now; the recorder can still be used afterwards. */
  close(): void {
    while (this.#pending.length > 0 && this.#run) {
      this.#queue.push({ kind: "events", run: this.#run, rows: this.#pending.splice(0, this.#maxEventsPerFlush) });
    }
    this.#clearTimer();
    this.#drain();
    this.#flushOutputs();
    this.syncCounters();
    if (this.#outputTimer !== null) clearTimeout(this.#outputTimer);
    this.#outputTimer = null;
    if (this.#retryTimer !== null) clearTimeout(this.#retryTimer);
    this.#retryTimer = null;
  }

  #handle(event: SessionEvent, at: number): void {
    if (event.type === "agent_start" || this.#run === null) this.#startRun();
    const run = this.#run!;
    switch (event.type) {
      case "message_end": {
        this.#queue.push({ kind: "message", run, rows: this.#takePending(), message: event.message, at });
        if (event.message.role === "toolResult") this.#outputs.done(event.message.toolCallId);
        this.#drain();
        return;
      }
      case "agent_end": {
        this.#queue.push({ kind: "run-end", run, rows: this.#takePending(), at, status: "completed" });
        this.#run = null;
        this.#drain();
        return;
      }
      case "tool_execution_update":
        if (this.#outputs.note(event.toolCallId, event.partialResult.details)) this.#scheduleOutputs();
        return;
      case "tool_execution_start":
        this.#add({ kind: "tool-start", toolCallId: event.toolCallId, at });
        return;
      case "tool_execution_end":
        if (this.#outputs.has(event.toolCallId)) this.#flushOutputs();
        this.#add({ kind: "tool-end", toolCallId: event.toolCallId, at, isError: event.isError });
        return;
      case "tool_call_phase":
        this.#add({ kind: "tool-phase", toolCallId: event.toolCallId, at, phase: event.phase, reason: event.reason ?? null });
        return;
    }
    const encoded = encodeEvent(event);
    if (encoded) this.#add({ kind: "event", seq: this.#seq++, at, type: encoded.type, data: encoded.data });
  }

  #add(row: EventRow): void {
    this.#pending.push(row);
    this.#schedule();
  }

  #startRun(): void {
    const previous = this.#run;
    if (previous) {
      // A new agent_start without agent_end: the previous run ended without saying so.
      this.#queue.push({ kind: "run-end", run: previous, rows: this.#takePending(), at: Date.now(), status: "interrupted" });
    }
    this.#run = { id: null };
    this.#seq = 0;
    this.#queue.push({ kind: "run-start", run: this.#run, at: Date.now() });
    this.#drain();
  }

  /** Built once: wrapping a function in a transaction costs more than a small commit's statements. */
  readonly #commit = (unit: Unit): void => {
    this.#commitTransaction ??= this.#db.transaction((u: Unit) => this.#write(u));
    this.#commitTransaction(unit);
  };
  #commitTransaction: ((unit: Unit) => void) | undefined;

  #write(unit: Unit): void {
    const db = this.#db;
    if (unit.kind === "run-start") {
      unit.run.id = statement(db, "INSERT INTO runs (session_id, started_at, status) VALUES (?, ?, 'running') RETURNING id").pluck().get(this.sessionId, unit.at) as number;
      return;
    }
    const runId = unit.run.id!;
    for (const row of unit.rows) {
      if (row.kind === "event") statement(db, "INSERT INTO events (run_id, seq, at, type, data) VALUES (?, ?, ?, ?, ?)").run(runId, row.seq, row.at, row.type, row.data);
      else if (row.kind === "tool-start") recordToolStart(db, this.sessionId, row.toolCallId, row.at);
      else if (row.kind === "tool-phase") recordToolPhase(db, this.sessionId, row.toolCallId, row.phase, row.reason, row.at);
      else recordToolEnd(db, this.sessionId, row.toolCallId, row.at, row.isError);
    }
    if (unit.kind === "message") {
      this.#onCommitted = this.#counters.insert(unit.message, unit.at);
    } else if (unit.kind === "run-end") {
      this.#onCommitted = this.#counters.write();
      statement(db, "UPDATE runs SET status = ?, ended_at = ? WHERE id = ?").run(unit.status, unit.at, runId);
    }
  }

  /** Writes the queue in order, stopping at the first failure. */
  #drain(): void {
    while (this.#queue.length > 0) {
      const unit = this.#queue[0]!;
      try {
        if (unit.kind !== "run-start" && unit.run.id === null) throw new StoreError("not-found", "the run it belongs to was never saved");
        this.#onCommitted = null;
        if (unit.kind === "message" && unit.rows.length === 0 && this.#counters.single(unit.message)) {
          this.#onCommitted = this.#counters.insert(unit.message, unit.at); // one statement: its own transaction
        } else this.#commit(unit);
        this.#applyCommitted();
      } catch (err) {
        this.#onCommitted = null;
        const error = toStoreError(err, describe(unit));
        if (!PERMANENT.has(error.failure)) {
          this.#report(error);
          this.#scheduleRetry();
          return;
        }
        this.#report(error);
      }
      this.#queue.shift();
      if (unit.kind === "message") {
        this.#stored.add(unit.message);
        this.#scheduleCounters();
      }
      this.#onCommit(this.sessionId);
    }
    this.#recoverIfSaved();
  }

  /** Says the store works again once everything failed is written: the queue, the terminal logs and the counters. */
  #recoverIfSaved(): void {
    if (!this.#failing || this.#queue.length > 0 || !this.#outputs.allWritten) return;
    // A failed counters write still stands until they are written (by a sync or by a run's end).
    if (this.#countersFailed && this.#counters.lagging) return;
    this.#countersFailed = false;
    this.#recovered();
  }

  #report(error: StoreError): void {
    this.lastError = error;
    if (this.#failing) return;
    this.#failing = true;
    try {
      this.#onError(error);
    } catch {
      // A failing error handler must not break the loop that feeds us.
    }
  }

  #recovered(): void {
    this.#failing = false;
    if (this.#retryTimer !== null) clearTimeout(this.#retryTimer);
    this.#retryTimer = null;
    try {
      this.#onRecovered();
    } catch {
      // as above
    }
  }

  #scheduleRetry(): void {
    if (this.#retryTimer !== null) return;
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = null;
      this.retry();
      if (this.#failing) this.#scheduleRetry();
    }, this.#retryMs);
    this.#retryTimer.unref?.();
  }

  // Terminal logs

  #scheduleOutputs(): void {
    if (this.#outputTimer !== null) return;
    this.#outputTimer = setTimeout(() => {
      this.#outputTimer = null;
      this.#flushOutputs();
    }, this.#outputFlushMs);
    this.#outputTimer.unref?.();
  }

  /** Writes every log that changed since it was last written. */
  #flushOutputs(): void {
    try {
      if (this.#outputs.write() > 0) this.#onCommit(this.sessionId);
    } catch (err) {
      this.#report(err as StoreError);
      this.#scheduleRetry();
      return;
    }
    this.#recoverIfSaved();
  }

  #takePending(): EventRow[] {
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
}

function rowBytes(row: EventRow): number {
  return (row.kind === "event" ? row.data.length : row.toolCallId.length + (row.kind === "tool-phase" ? (row.reason?.length ?? 0) : 0)) + 64;
}

function describe(unit: Unit): string {
  switch (unit.kind) {
    case "run-start":
      return "saving the start of a run";
    case "events":
      return `logging ${unit.rows.length} run events`;
    case "message":
      return `saving the ${unit.message.role} message`;
    case "run-end":
      return "saving the end of a run";
  }
}
