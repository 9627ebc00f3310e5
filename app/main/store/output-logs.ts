// The terminal logs of one session's running tool calls, for the recorder: each call's raw output
// (tool_execution_update details with a `chunk`) goes into a bounded TerminalLog, and `write()`
// stores every log that changed since it was last stored (redacted), one statement per call, all
// in one transaction.
// A log stays in memory until its call's result message is handled and the log is stored.
// write() throws the first StoreError a retry could fix (disk full); it drops a log that can never
// be written (its session is gone).
import type { Database } from "better-sqlite3";
import { toStoreError } from "./errors.ts";
import { TerminalLog } from "./terminal-log.ts";
import { writeToolOutput } from "./tool-output.ts";

interface OutputState {
  log: TerminalLog;
  /** Version of the log last stored. */
  written: number;
  /** The call's result message was handled: once stored, the log is not needed in memory. */
  done?: boolean;
  /** Redacted head, once the head is complete (it never changes again). */
  head?: string;
}

export class OutputLogs {
  readonly #db: Database;
  readonly #sessionId: number;
  readonly #redact: (text: string) => string;
  readonly #logs = new Map<string, OutputState>();

  constructor(db: Database, sessionId: number, redact: (text: string) => string) {
    this.#db = db;
    this.#sessionId = sessionId;
    this.#redact = redact;
  }

  /** Adds a tool update's output; false when the update carries none. */
  note(toolCallId: string, details: unknown): boolean {
    const d = details as { chunk?: unknown; skippedBytes?: unknown } | null | undefined;
    if (!d || typeof d !== "object" || typeof d.chunk !== "string") return false;
    let state = this.#logs.get(toolCallId);
    if (!state) this.#logs.set(toolCallId, (state = { log: new TerminalLog(), written: 0 }));
    if (typeof d.skippedBytes === "number") state.log.skip(d.skippedBytes);
    state.log.append(d.chunk);
    return true;
  }

  has(toolCallId: string): boolean {
    return this.#logs.has(toolCallId);
  }

  get(toolCallId: string): TerminalLog | undefined {
    return this.#logs.get(toolCallId)?.log;
  }

  /** Whether every log is stored as it is now. */
  get allWritten(): boolean {
    for (const state of this.#logs.values()) if (state.written !== state.log.version) return false;
    return true;
  }

  /** The call's result is being saved: the log is dropped from memory once stored. */
  done(toolCallId: string): void {
    const state = this.#logs.get(toolCallId);
    if (!state) return;
    state.done = true;
    if (state.written === state.log.version) this.#logs.delete(toolCallId);
  }

  /**
   * Stores every log that changed, in one transaction (one commit for all the running calls, not
   * one each); returns how many were written. Throws a retryable StoreError, and then nothing of
   * this write counts as stored.
   */
  write(now = Date.now()): number {
    const changed: [string, OutputState, number][] = [];
    for (const [toolCallId, state] of this.#logs) if (state.written !== state.log.version) changed.push([toolCallId, state, state.log.version]);
    if (changed.length === 0) return 0;
    let written = 0;
    try {
      this.#db.transaction(() => {
        written = 0;
        for (const [toolCallId, state] of changed) if (this.#writeOne(toolCallId, state, now)) written++;
      })();
    } catch (err) {
      throw toStoreError(err, "saving a command's terminal output");
    }
    for (const [toolCallId, state, version] of changed) {
      state.written = version;
      if (state.done) this.#logs.delete(toolCallId);
    }
    return written;
  }

  /** Writes one log (in the caller's transaction); false when it can never be written (its session is gone). */
  #writeOne(toolCallId: string, state: OutputState, now: number): boolean {
    const log = state.log;
    if (state.head === undefined && log.headFull) state.head = this.#redact(log.head);
    const tail = log.tail;
    try {
      writeToolOutput(
        this.#db,
        this.#sessionId,
        toolCallId,
        {
          head: state.head ?? this.#redact(log.head),
          tail: this.#redact(tail),
          totalChars: log.totalChars,
          omittedChars: log.totalChars - log.head.length - tail.length,
          skippedChars: log.skippedChars,
        },
        now,
      );
      return true;
    } catch (err) {
      const error = toStoreError(err, "saving a command's terminal output");
      if (error.failure !== "not-found" && error.failure !== "invalid") throw error;
      return false;
    }
  }
}
