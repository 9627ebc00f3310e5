// The recorder's timers, failures and bookkeeping, driven directly (app/main/store/recorder.ts):
// its defaults, the counters timer, the retry timer, a failed counters or terminal-log write,
// the backlog's size, a hostile event, and close(). Time is Vitest's fake clock; write failures
// are a disk-full error thrown on demand by a SQL function that temporary triggers call, so any
// one table's writes can fail while the others go through.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { AgentEvent } from "../../app/shared/agent-types.ts";
import type { SessionStore, StoreError } from "../../app/main/store/index.ts";
import { SessionRecorder } from "../../app/main/store/recorder.ts";
import { encodeEvent } from "../../app/main/store/event-log.ts";
import { user } from "./helpers.ts";
import { freshStoreForEachTest } from "./support/fresh-store.ts";

let store: SessionStore;
let sessionId: number;
freshStoreForEachTest((opened) => {
  store = opened;
  sessionId = store.createSession({ projectId: store.openProject("/repo").id }).id;
});
beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/**
 * Writes by "<operation> <table>": those in `full` fail with a disk-full error (retried), those in
 * `refused` with a constraint error (never retried); `attempts` counts every attempt.
 */
function failingWrites(): { full: Set<string>; refused: Set<string>; attempts: Map<string, number> } {
  const writes = { full: new Set<string>(), refused: new Set<string>(), attempts: new Map<string, number>() };
  store.db.function("lathe_test_write", (what: string) => {
    writes.attempts.set(what, (writes.attempts.get(what) ?? 0) + 1);
    if (writes.full.has(what)) throw Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
    if (writes.refused.has(what)) throw Object.assign(new Error("refused by a test trigger"), { code: "SQLITE_CONSTRAINT_TRIGGER" });
    return 0;
  });
  for (const what of ["INSERT runs", "UPDATE runs", "INSERT events", "INSERT messages", "INSERT tool_calls", "INSERT tool_output", "UPDATE sessions"]) {
    const [operation, table] = what.split(" ");
    store.db.exec(`CREATE TEMP TRIGGER "fail ${what}" BEFORE ${operation} ON main.${table} BEGIN SELECT lathe_test_write('${what}'); END`);
  }
  return writes;
}

const count = (table: string) => store.db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
const messageCount = () => store.db.prepare("SELECT message_count FROM sessions WHERE id = ?").pluck().get(sessionId) as number;
const retryEvent = (attempt: number): AgentEvent => ({ type: "provider_retry", retry: { attempt, maxAttempts: 3, delayMs: 10, error: "overloaded" } });
const output = (toolCallId: string, chunk: string): AgentEvent => ({
  type: "tool_execution_update",
  toolCallId,
  toolName: "bash",
  args: {},
  partialResult: { content: [], details: { phase: "running", chunk } },
});
const storedOutput = (toolCallId: string) => store.db.prepare("SELECT head FROM tool_output WHERE tool_call_id = ?").pluck().get(toolCallId);

describe("SessionRecorder's defaults", () => {
  it("commits events after 10 ms, terminal logs every 200 ms, retries every 2 s, and logs a failure to stderr", () => {
    const failing = failingWrites().full;
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const recorder = new SessionRecorder(store.db, sessionId);
    recorder.handle({ type: "agent_start" });
    recorder.handle(retryEvent(1));
    vi.advanceTimersByTime(9);
    expect(count("events")).toBe(0);
    vi.advanceTimersByTime(1);
    expect(count("events")).toBe(1);

    // The counters follow a committed message by the same delay.
    recorder.handle({ type: "message_end", message: user("first") });
    expect(count("messages")).toBe(1);
    vi.advanceTimersByTime(9);
    expect(messageCount()).toBe(0);
    vi.advanceTimersByTime(1);
    expect(messageCount()).toBe(1);

    // Terminal output, unredacted by default.
    recorder.handle(output("c1", "hello\n"));
    vi.advanceTimersByTime(199);
    expect(storedOutput("c1")).toBeUndefined();
    vi.advanceTimersByTime(1);
    expect(storedOutput("c1")).toBe("hello\n");
    expect(recorder.outputOf("c1")?.text()).toBe("hello\n");
    expect(recorder.outputOf("c2")).toBeUndefined();
    expect(recorder.lastError).toBeUndefined();
    expect(logged).not.toHaveBeenCalled();

    failing.add("INSERT messages");
    recorder.handle({ type: "message_end", message: user("second") });
    expect(logged.mock.calls).toEqual([["[store] The disk is full: saving the user message failed and nothing of it was written."]]);
    failing.clear();
    vi.advanceTimersByTime(1999);
    expect(count("messages")).toBe(1);
    vi.advanceTimersByTime(1);
    expect(count("messages")).toBe(2);
    expect(recorder.failing).toBe(false);
    recorder.close();
  });

  it("tells the store of every commit, the counters' included", () => {
    const commits: number[] = [];
    const recorder = new SessionRecorder(store.db, sessionId, { flushDelayMs: 60_000, onCommit: (id) => commits.push(id) });
    recorder.handle({ type: "agent_start" });
    expect(commits).toEqual([sessionId]);
    recorder.handle({ type: "message_end", message: user("hello") });
    expect(commits).toEqual([sessionId, sessionId]);
    recorder.syncCounters();
    expect(messageCount()).toBe(1);
    expect(commits).toEqual([sessionId, sessionId, sessionId]);
    // Nothing to write: no commit to tell of.
    recorder.syncCounters();
    recorder.flush();
    expect(recorder.retry()).toBe(true);
    expect(commits).toHaveLength(3);
    // A terminal log written.
    recorder.handle(output("c1", "out\n"));
    recorder.close();
    expect(storedOutput("c1")).toBe("out\n");
    expect(commits).toHaveLength(4);
  });
});

describe("SessionRecorder's counters timer", () => {
  it("writes the counters one delay after the first message not yet counted, and a sync in between starts over", () => {
    const recorder = new SessionRecorder(store.db, sessionId, { flushDelayMs: 10 });
    recorder.handle({ type: "agent_start" });
    recorder.handle({ type: "message_end", message: user("one") });
    vi.advanceTimersByTime(1);
    recorder.handle({ type: "message_end", message: user("two") });
    vi.advanceTimersByTime(4);
    recorder.syncCounters();
    expect(messageCount()).toBe(2);
    vi.advanceTimersByTime(1);
    recorder.handle({ type: "message_end", message: user("three") });
    // The timer of the first message was cancelled by the sync: nothing fires at 10 ms.
    vi.advanceTimersByTime(6);
    expect(messageCount()).toBe(2);
    vi.advanceTimersByTime(4);
    expect(messageCount()).toBe(3);
    recorder.close();
  });

  it("reports a failed counters write, retries it, and recovers", () => {
    const failing = failingWrites().full;
    const errors: StoreError[] = [];
    let recovered = 0;
    const recorder = new SessionRecorder(store.db, sessionId, { flushDelayMs: 60_000, retryMs: 100, onError: (e) => errors.push(e), onRecovered: () => recovered++ });
    recorder.handle({ type: "agent_start" });
    recorder.handle({ type: "message_end", message: user("hello") });
    failing.add("UPDATE sessions");
    recorder.syncCounters();
    expect(errors.map((e) => e.message)).toEqual(["The disk is full: saving the session's message count failed and nothing of it was written."]);
    expect(recorder.failing).toBe(true);
    expect(messageCount()).toBe(0);
    // A call without terminal output ends meanwhile: nothing of it is written yet, nothing recovered.
    recorder.handle({ type: "tool_execution_end", toolCallId: "c9", toolName: "read", result: { content: [], details: {} }, isError: false });
    expect(recovered).toBe(0);
    expect(recorder.failing).toBe(true);
    failing.clear();
    vi.advanceTimersByTime(100);
    expect(messageCount()).toBe(1);
    expect(recorder.failing).toBe(false);
    expect(recovered).toBe(1);
    recorder.close();
  });
});

describe("SessionRecorder's counters, failing while other writes go through", () => {
  it("says nothing is recovered while the counters still fail, whatever else is written meanwhile", () => {
    const failing = failingWrites().full;
    const errors: StoreError[] = [];
    let recovered = 0;
    const recorder = new SessionRecorder(store.db, sessionId, {
      flushDelayMs: 60_000,
      outputFlushMs: 5,
      retryMs: 100,
      onError: (e) => errors.push(e),
      onRecovered: () => recovered++,
    });
    recorder.handle({ type: "agent_start" });
    recorder.handle({ type: "message_end", message: user("hello") });
    failing.add("UPDATE sessions");
    recorder.syncCounters();
    expect(recorder.failing).toBe(true);
    // A command's terminal output is written, and its call ends (its log written at once).
    recorder.handle(output("c1", "building\n"));
    vi.advanceTimersByTime(5);
    recorder.handle({ type: "tool_execution_end", toolCallId: "c1", toolName: "bash", result: { content: [], details: {} }, isError: false });
    expect(storedOutput("c1")).toContain("building");
    // Retries while the counters still fail: one error, never a recovery in between.
    vi.advanceTimersByTime(350);
    expect(recovered).toBe(0);
    expect(recorder.failing).toBe(true);
    expect(errors).toHaveLength(1);
    failing.clear();
    vi.advanceTimersByTime(100);
    expect(messageCount()).toBe(1);
    expect(recovered).toBe(1);
    expect(recorder.failing).toBe(false);
    recorder.close();
  });
});

describe("SessionRecorder's retry timer", () => {
  it("is cancelled by a recovery, so that the next outage waits a full delay", () => {
    const failing = failingWrites().full;
    let recovered = 0;
    const recorder = new SessionRecorder(store.db, sessionId, { retryMs: 1000, onError: () => {}, onRecovered: () => recovered++ });
    recorder.handle({ type: "agent_start" });
    failing.add("INSERT messages");
    recorder.handle({ type: "message_end", message: user("one") });
    vi.advanceTimersByTime(100);
    failing.clear();
    expect(recorder.retry()).toBe(true);
    expect(recovered).toBe(1);
    vi.advanceTimersByTime(400);
    failing.add("INSERT messages");
    recorder.handle({ type: "message_end", message: user("two") });
    vi.advanceTimersByTime(100);
    failing.clear();
    // 1,100 ms after the first failure, 600 ms after the second: no retry yet.
    vi.advanceTimersByTime(500);
    expect(count("messages")).toBe(1);
    vi.advanceTimersByTime(400);
    expect(count("messages")).toBe(2);
    expect(recovered).toBe(2);
    recorder.close();
  });

  it("retries a failed terminal-log write and recovers once it is written", () => {
    const failing = failingWrites().full;
    const errors: StoreError[] = [];
    let recovered = 0;
    const recorder = new SessionRecorder(store.db, sessionId, { outputFlushMs: 5, retryMs: 100, onError: (e) => errors.push(e), onRecovered: () => recovered++ });
    recorder.handle({ type: "agent_start" });
    failing.add("INSERT tool_output");
    recorder.handle(output("c1", "out\n"));
    vi.advanceTimersByTime(5);
    expect(errors.map((e) => e.message)).toEqual(["The disk is full: saving a command's terminal output failed and nothing of it was written."]);
    expect(recorder.failing).toBe(true);
    failing.clear();
    vi.advanceTimersByTime(100);
    expect(storedOutput("c1")).toBe("out\n");
    expect(recorder.failing).toBe(false);
    expect(recovered).toBe(1);
    recorder.close();
  });
});

describe("SessionRecorder's backlog", () => {
  it("counts every byte waiting behind a failed write, and names what failed", () => {
    const failing = failingWrites().full;
    const errors: StoreError[] = [];
    const recorder = new SessionRecorder(store.db, sessionId, { flushDelayMs: 60_000, onError: (e) => errors.push(e) });
    failing.add("INSERT runs");
    recorder.handle({ type: "agent_start" });
    expect(errors.map((e) => e.message)).toEqual(["The disk is full: saving the start of a run failed and nothing of it was written."]);
    const first = retryEvent(1);
    recorder.handle(first);
    recorder.handle({ type: "tool_execution_start", toolCallId: "c1", toolName: "bash", args: {} });
    recorder.handle({ type: "tool_call_phase", toolCallId: "c1", phase: "denied", reason: "no" });
    recorder.handle({ type: "tool_call_phase", toolCallId: "c22", phase: "stopped" });
    const message = user("héllo");
    recorder.handle({ type: "message_end", message });
    const second = retryEvent(2);
    recorder.handle(second);
    // The run's start (no size), the message with the four rows before it, and one row not yet batched.
    const eventBytes = (event: AgentEvent) => encodeEvent(event)!.data.length + 64;
    expect(recorder.backlogBytes()).toBe(Buffer.byteLength(JSON.stringify(message)) + eventBytes(first) + (2 + 64) + (2 + 2 + 64) + (3 + 64) + eventBytes(second));
    expect(recorder.unsavedMessages()).toEqual([message]);
    failing.clear();
    expect(recorder.retry()).toBe(true);
    expect(recorder.backlogBytes()).toBe(0);
    expect(count("events")).toBe(2);
    expect(errors).toHaveLength(1);
    recorder.close();
  });

  it("names a failed batch of events and a failed run end", () => {
    const failing = failingWrites().full;
    const errors: StoreError[] = [];
    const recorder = new SessionRecorder(store.db, sessionId, { flushDelayMs: 60_000, retryMs: 100, onError: (e) => errors.push(e) });
    recorder.handle({ type: "agent_start" });
    recorder.handle(retryEvent(1));
    recorder.handle(retryEvent(2));
    failing.add("INSERT events");
    recorder.flush();
    failing.clear();
    expect(recorder.retry()).toBe(true);
    failing.add("UPDATE runs");
    recorder.handle({ type: "agent_end", messages: [] });
    failing.clear();
    expect(recorder.retry()).toBe(true);
    expect(errors.map((e) => e.message)).toEqual([
      "The disk is full: logging 2 run events failed and nothing of it was written.",
      "The disk is full: saving the end of a run failed and nothing of it was written.",
    ]);
    expect(store.db.prepare("SELECT status FROM runs").pluck().all()).toEqual(["completed"]);
    recorder.close();
  });
});

describe("SessionRecorder's batches", () => {
  it("commits at most maxEventsPerFlush events per transaction and the rest on the next macrotask", async () => {
    vi.useRealTimers();
    const recorder = new SessionRecorder(store.db, sessionId, { flushDelayMs: 60_000, maxEventsPerFlush: 1 });
    recorder.handle({ type: "agent_start" });
    for (const attempt of [1, 2, 3]) recorder.handle(retryEvent(attempt));
    // One batch written, two still waiting: not everything is written yet.
    expect(recorder.retry()).toBe(false);
    expect(count("events")).toBe(1);
    await expect.poll(() => count("events")).toBe(3);
    expect(recorder.retry()).toBe(true);
    recorder.close();
  });

  it("reports a hostile event it cannot record instead of throwing", () => {
    const errors: StoreError[] = [];
    const recorder = new SessionRecorder(store.db, sessionId, { onError: (e) => errors.push(e) });
    const hostile = { type: "tool_execution_update", toolCallId: "c1", toolName: "bash", args: {} } as unknown as AgentEvent;
    expect(() => recorder.handle(hostile)).not.toThrow();
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toMatch(/^recording tool_execution_update failed: /);
    recorder.close();
  });
});

describe("SessionRecorder.close", () => {
  it("writes every batched event and terminal log, and stops its timers; the recorder goes on with new ones", () => {
    const recorder = new SessionRecorder(store.db, sessionId, { flushDelayMs: 100, outputFlushMs: 100, maxEventsPerFlush: 1 });
    recorder.handle({ type: "agent_start" });
    for (const attempt of [1, 2, 3]) recorder.handle(retryEvent(attempt));
    recorder.handle(output("c1", "first\n"));
    recorder.handle({ type: "message_end", message: user("counted at close") });
    vi.advanceTimersByTime(10);
    recorder.close();
    expect(messageCount()).toBe(1);
    expect(count("events")).toBe(3);
    expect(storedOutput("c1")).toBe("first\n");
    vi.advanceTimersByTime(40);
    recorder.handle(retryEvent(4));
    recorder.handle(output("c1", "second\n"));
    // The timers started before close() would have fired at 100 ms; the new ones fire at 150.
    vi.advanceTimersByTime(70);
    expect(count("events")).toBe(3);
    expect(storedOutput("c1")).toBe("first\n");
    vi.advanceTimersByTime(30);
    expect(count("events")).toBe(4);
    expect(storedOutput("c1")).toBe("first\nsecond\n");
    recorder.close();
  });

  it("stops retrying: what still fails waits for the next write or retry()", () => {
    const failing = failingWrites().full;
    const errors: StoreError[] = [];
    const recorder = new SessionRecorder(store.db, sessionId, { retryMs: 100, onError: (e) => errors.push(e) });
    recorder.handle({ type: "agent_start" });
    recorder.handle(retryEvent(1));
    failing.add("INSERT events");
    recorder.close();
    expect(errors.map((e) => e.message)).toEqual(["The disk is full: logging 1 run events failed and nothing of it was written."]);
    failing.clear();
    vi.advanceTimersByTime(1000);
    expect(count("events")).toBe(0);
    expect(recorder.failing).toBe(true);
    expect(recorder.retry()).toBe(true);
    expect(count("events")).toBe(1);
    recorder.close();
  });
});

describe("SessionRecorder's runs and recovery", () => {
  it("numbers a run's logged events from 0, and drops a call's terminal log from memory once its result is saved", () => {
    const recorder = new SessionRecorder(store.db, sessionId, { flushDelayMs: 60_000, outputFlushMs: 60_000 });
    recorder.handle({ type: "agent_start" });
    for (const attempt of [1, 2, 3]) recorder.handle(retryEvent(attempt));
    recorder.handle(output("c1", "out\n"));
    recorder.handle({ type: "tool_execution_end", toolCallId: "c1", toolName: "bash", result: { content: [], details: {} }, isError: false });
    expect(storedOutput("c1")).toBe("out\n");
    expect(recorder.outputOf("c1")?.text()).toBe("out\n");
    recorder.handle({ type: "message_end", message: { role: "toolResult", toolCallId: "c1", toolName: "bash", content: [], isError: false, timestamp: 1 } });
    expect(recorder.outputOf("c1")).toBeUndefined();
    expect(store.db.prepare("SELECT seq FROM events ORDER BY seq").pluck().all()).toEqual([0, 1, 2]);
    recorder.close();
  });

  it("drops what belongs to a run whose start was refused, and says why", () => {
    const writes = failingWrites();
    const errors: StoreError[] = [];
    const recorder = new SessionRecorder(store.db, sessionId, { onError: (e) => errors.push(e) });
    writes.refused.add("INSERT runs");
    recorder.handle({ type: "agent_start" });
    writes.refused.clear();
    recorder.handle({ type: "message_end", message: user("of a run never saved") });
    expect(errors.map((e) => e.failure)).toEqual(["invalid", "not-found"]);
    expect(errors[0]!.message).toBe("saving the start of a run failed: refused by a test trigger");
    expect(errors[1]!.message).toBe("the run it belongs to was never saved");
    expect(count("messages")).toBe(0);
    // Dropped, not held back: nothing waits, nothing is retried.
    expect(recorder.failing).toBe(false);
    expect(recorder.unsavedMessages()).toEqual([]);
    expect(recorder.retry()).toBe(true);
    recorder.close();
  });

  it("recovers as soon as a later write goes through", () => {
    const failing = failingWrites().full;
    let recovered = 0;
    const recorder = new SessionRecorder(store.db, sessionId, { retryMs: 60_000, onError: () => {}, onRecovered: () => recovered++ });
    recorder.handle({ type: "agent_start" });
    failing.add("INSERT messages");
    recorder.handle({ type: "message_end", message: user("one") });
    failing.clear();
    recorder.handle({ type: "message_end", message: user("two") });
    expect(count("messages")).toBe(2);
    expect(recorder.failing).toBe(false);
    expect(recovered).toBe(1);
    recorder.close();
  });

  it("retries again while writes still fail, with one timer at a time, and stops once recovered", () => {
    const writes = failingWrites();
    const recorder = new SessionRecorder(store.db, sessionId, { retryMs: 100, onError: () => {} });
    recorder.handle({ type: "agent_start" });
    writes.full.add("INSERT messages");
    const attempts = () => writes.attempts.get("INSERT messages") ?? 0;
    recorder.handle({ type: "message_end", message: user("one") });
    vi.advanceTimersByTime(50);
    recorder.handle({ type: "message_end", message: user("two") });
    expect(attempts()).toBe(2);
    vi.advanceTimersByTime(50);
    expect(attempts()).toBe(3);
    // Still failing: the next retry is one delay after the last, not sooner.
    vi.advanceTimersByTime(90);
    expect(attempts()).toBe(3);
    vi.advanceTimersByTime(10);
    expect(attempts()).toBe(4);
    writes.full.clear();
    vi.advanceTimersByTime(100);
    expect(count("messages")).toBe(2);
    expect(recorder.failing).toBe(false);
    recorder.syncCounters();
    // Recovered: no retry timer left (nor any other).
    expect(vi.getTimerCount()).toBe(0);
    recorder.close();
  });

  it("cancels the batch timer when a message or flush() takes the batch: the next event waits a full delay", () => {
    const recorder = new SessionRecorder(store.db, sessionId, { flushDelayMs: 100 });
    recorder.handle({ type: "agent_start" });
    recorder.handle(retryEvent(1));
    vi.advanceTimersByTime(10);
    recorder.handle({ type: "message_end", message: user("takes the batch") });
    expect(count("events")).toBe(1);
    vi.advanceTimersByTime(40);
    recorder.handle(retryEvent(2));
    vi.advanceTimersByTime(70);
    expect(count("events")).toBe(1);
    vi.advanceTimersByTime(30);
    expect(count("events")).toBe(2);

    recorder.handle(retryEvent(3));
    vi.advanceTimersByTime(10);
    recorder.flush();
    expect(count("events")).toBe(3);
    vi.advanceTimersByTime(40);
    recorder.handle(retryEvent(4));
    vi.advanceTimersByTime(70);
    expect(count("events")).toBe(3);
    vi.advanceTimersByTime(30);
    expect(count("events")).toBe(4);
    recorder.close();
  });
});

describe("SessionRecorder's recovery, told as soon as everything is written", () => {
  it("after counters written before an outage, and again at the next outage, recovers on the write that clears it, before the counters follow", () => {
    const failing = failingWrites().full;
    let recovered = 0;
    const recorder = new SessionRecorder(store.db, sessionId, { flushDelayMs: 60_000, retryMs: 60_000, onError: () => {}, onRecovered: () => recovered++ });
    recorder.handle({ type: "agent_start" });
    recorder.handle({ type: "message_end", message: user("one") });
    // The counters written once, successfully: nothing of theirs stands in the way later.
    recorder.syncCounters();
    expect(messageCount()).toBe(1);
    for (const [round, [failed, clearing]] of [
      ["two", "three"],
      ["four", "five"],
    ].entries()) {
      failing.add("INSERT messages");
      recorder.handle({ type: "message_end", message: user(failed!) });
      expect(recorder.failing).toBe(true);
      failing.clear();
      recorder.handle({ type: "message_end", message: user(clearing!) });
      // Both messages written: recovered now, though their counters are not written yet.
      expect(count("messages")).toBe(3 + 2 * round);
      expect(messageCount()).toBe(1);
      expect(recorder.failing).toBe(false);
      expect(recovered).toBe(round + 1);
    }
    recorder.syncCounters();
    expect(messageCount()).toBe(5);
    recorder.close();
  });

  it("after a failed terminal-log write, recovers when the call's end writes the log, without waiting for the retry", () => {
    const failing = failingWrites().full;
    let recovered = 0;
    const recorder = new SessionRecorder(store.db, sessionId, { outputFlushMs: 5, retryMs: 60_000, onError: () => {}, onRecovered: () => recovered++ });
    recorder.handle({ type: "agent_start" });
    failing.add("INSERT tool_output");
    recorder.handle(output("c1", "out\n"));
    vi.advanceTimersByTime(5);
    expect(recorder.failing).toBe(true);
    failing.clear();
    recorder.handle({ type: "tool_execution_end", toolCallId: "c1", toolName: "bash", result: { content: [], details: {} }, isError: false });
    expect(storedOutput("c1")).toBe("out\n");
    expect(recorder.failing).toBe(false);
    expect(recovered).toBe(1);
    recorder.close();
  });

  it("writes no other call's terminal log when a call without one ends: that log waits for its timer", () => {
    const commits: number[] = [];
    const recorder = new SessionRecorder(store.db, sessionId, { flushDelayMs: 60_000, outputFlushMs: 200, onCommit: (id) => commits.push(id) });
    recorder.handle({ type: "agent_start" });
    recorder.handle(output("c1", "running\n"));
    vi.advanceTimersByTime(100);
    recorder.handle({ type: "tool_execution_end", toolCallId: "c2", toolName: "read", result: { content: [], details: {} }, isError: false });
    expect(storedOutput("c1")).toBeUndefined();
    expect(commits).toHaveLength(1);
    vi.advanceTimersByTime(100);
    expect(storedOutput("c1")).toBe("running\n");
    expect(commits).toHaveLength(2);
    recorder.close();
  });
});
