// Crash repair (app/main/store/repair.ts), run directly on a database a "crashed" writer left: a
// run still marked running, tool calls without results, counters behind the stored rows.
// (crash.test.ts kills a real writer; this checks each rule at a size where every case shows.)
import { describe, expect, it } from "vitest";
import type { SessionStore } from "../../app/main/store/index.ts";
import { abortedToolResult, ABORTED_RESULT_TEXT, completeDanglingToolCalls, reconcileCounters, repairInterruptedRuns } from "../../app/main/store/repair.ts";
import { assistant, call, result, user } from "./helpers.ts";
import { freshStoreForEachTest } from "./support/fresh-store.ts";

let store: SessionStore;
let projectId: number;

freshStoreForEachTest((opened) => {
  store = opened;
  projectId = store.openProject("/p").id;
});

const newSession = () => store.createSession({ projectId }).id;
const startRun = (sessionId: number, status = "running") =>
  Number(store.db.prepare("INSERT INTO runs (session_id, started_at, status) VALUES (?, 1, ?)").run(sessionId, status).lastInsertRowid);

describe("crash repair", () => {
  it("an aborted result says why, is an error, and keeps the call's id and name", () => {
    expect(abortedToolResult("c9", "bash", 77)).toEqual({
      role: "toolResult",
      toolCallId: "c9",
      toolName: "bash",
      content: [{ type: "text", text: ABORTED_RESULT_TEXT }],
      details: { aborted: true },
      isError: true,
      timestamp: 77,
    });
  });

  it("answers the last assistant message's calls that have no result, in source order", () => {
    const s = newSession();
    store.appendMessages(s, [
      user("go"),
      assistant("early", [call("old", "read")]),
      assistant("three calls", [call("a", "read"), call("b", "bash"), call("c", "grep")]),
      result("b", "bash", "done"),
    ]);
    expect(completeDanglingToolCalls(store.db, s, 500)).toBe(2);
    const messages = store.readMessages(s);
    expect(messages.slice(4)).toEqual([abortedToolResult("a", "read", 500), abortedToolResult("c", "grep", 500)]);
    expect(completeDanglingToolCalls(store.db, s, 600)).toBe(0);
  });

  it("leaves a session alone whose last assistant message has no calls, or that has no assistant message", () => {
    const s = newSession();
    store.appendMessages(s, [user("go"), assistant("calls", [call("x", "read")]), assistant("no calls")]);
    expect(completeDanglingToolCalls(store.db, s, 1)).toBe(0);
    const t = newSession();
    store.appendMessage(t, user("only a prompt"));
    expect(completeDanglingToolCalls(store.db, t, 1)).toBe(0);
    expect(store.readMessages(s)).toHaveLength(3);
  });

  it("brings counters up to the stored rows: count, tokens, cost and last activity", () => {
    const s = newSession();
    store.appendMessages(s, [user("one"), assistant("two", [], 100), assistant("three", [], 50)]);
    store.db.prepare("UPDATE sessions SET message_count = 1, tokens = 0, cost = 0, updated_at = 0 WHERE id = ?").run(s);
    expect(reconcileCounters(store.db, s)).toBe(2);
    const row = store.db.prepare("SELECT message_count AS n, tokens, cost, updated_at AS at FROM sessions WHERE id = ?").get(s) as {
      n: number;
      tokens: number;
      cost: number;
      at: number;
    };
    expect(row).toMatchObject({ n: 3, tokens: 150 });
    expect(row.cost).toBeCloseTo(0.00015);
    expect(row.at).toBeGreaterThan(0);
    expect(reconcileCounters(store.db, s)).toBe(0);
    expect(reconcileCounters(store.db, newSession())).toBe(0);
    expect(reconcileCounters(store.db, 9999)).toBe(0);
  });

  it("never lowers counters that are ahead of the stored rows", () => {
    const s = newSession();
    store.appendMessages(s, [user("one"), assistant("two", [], 100)]);
    store.db.prepare("UPDATE sessions SET message_count = 5, tokens = 7 WHERE id = ?").run(s);
    expect(reconcileCounters(store.db, s)).toBe(0);
    expect(store.db.prepare("SELECT message_count AS n, tokens FROM sessions WHERE id = ?").get(s)).toEqual({ n: 5, tokens: 7 });
  });

  it("marks every running run interrupted at its last event, or now, and reports what it did", () => {
    const s = newSession();
    store.appendMessages(s, [user("go"), assistant("calls", [call("a", "read")])]);
    const run = startRun(s);
    store.db.prepare("INSERT INTO events (run_id, seq, at, type, data) VALUES (?, 0, 40, 'provider_retry', '{}'), (?, 1, 42, 'provider_retry', '{}')").run(run, run);
    const t = newSession();
    const quiet = startRun(t);
    const finished = startRun(t, "completed");
    expect(repairInterruptedRuns(store.db, 1000)).toEqual([
      { sessionId: s, runId: run, abortedToolResults: 1 },
      { sessionId: t, runId: quiet, abortedToolResults: 0 },
    ]);
    const runs = store.db.prepare("SELECT id, status, ended_at AS endedAt FROM runs ORDER BY id").all();
    expect(runs).toEqual([
      { id: run, status: "interrupted", endedAt: 42 },
      { id: quiet, status: "interrupted", endedAt: 1000 },
      { id: finished, status: "completed", endedAt: null },
    ]);
    expect(store.getSession(s)!.messageCount).toBe(3);
    expect(repairInterruptedRuns(store.db)).toEqual([]);
  });
});
