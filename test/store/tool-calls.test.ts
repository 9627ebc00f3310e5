// The tool_calls table's times and outcomes (app/main/store/tool-calls.ts), written and read
// directly: what a reopened session's cards and timeline are built from.
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../../app/shared/agent-types.ts";
import type { SessionStore } from "../../app/main/store/index.ts";
import { copyToolCallTimes, listToolCallTimes, readToolCallTimes, recordToolEnd, recordToolPhase, recordToolStart, toolCallIdsOf } from "../../app/main/store/tool-calls.ts";
import { assistant, call, result, user } from "./helpers.ts";
import { freshStoreForEachTest } from "./support/fresh-store.ts";

let store: SessionStore;
let a: number;
let b: number;

freshStoreForEachTest((opened) => {
  store = opened;
  const project = store.openProject("/work/app");
  a = store.createSession({ projectId: project.id, baseToolNames: ["bash"], model: "anthropic/claude-test" }).id;
  b = store.createSession({ projectId: project.id, baseToolNames: ["bash"], model: "anthropic/claude-test" }).id;
});

const none = { startedAt: null, executingAt: null, endedAt: null, isError: null, outcome: null, reason: null };

describe("tool call times", () => {
  it("keeps the start, the execute start and the end of a call that ran, and its outcome", () => {
    recordToolStart(store.db, a, "ok", 100);
    expect(readToolCallTimes(store.db, a, ["ok"])).toEqual([{ ...none, toolCallId: "ok", startedAt: 100 }]);
    recordToolPhase(store.db, a, "ok", "executing", null, 150);
    recordToolEnd(store.db, a, "ok", 400, false);
    recordToolStart(store.db, a, "bad", 200);
    recordToolEnd(store.db, a, "bad", 300, true);
    expect(readToolCallTimes(store.db, a, ["ok", "bad"])).toEqual([
      { toolCallId: "ok", startedAt: 100, executingAt: 150, endedAt: 400, isError: false, outcome: "done", reason: null },
      { ...none, toolCallId: "bad", startedAt: 200, endedAt: 300, isError: true, outcome: "failed" },
    ]);
  });

  it("a denial or a stop decides the outcome, before or after the end, with its reason", () => {
    recordToolStart(store.db, a, "denied", 100);
    recordToolPhase(store.db, a, "denied", "denied", "The user denied this call.", 110);
    recordToolEnd(store.db, a, "denied", 120, true);
    recordToolStart(store.db, a, "stopped", 100);
    recordToolEnd(store.db, a, "stopped", 130, true);
    recordToolPhase(store.db, a, "stopped", "stopped", "The run was aborted.", 140);
    // Only a phase: no start, no end.
    recordToolPhase(store.db, a, "phase-only", "denied", null, 150);
    expect(readToolCallTimes(store.db, a, ["denied", "stopped", "phase-only"])).toEqual([
      { ...none, toolCallId: "denied", startedAt: 100, endedAt: 120, isError: true, outcome: "denied", reason: "The user denied this call." },
      { ...none, toolCallId: "stopped", startedAt: 100, endedAt: 130, isError: true, outcome: "stopped", reason: "The run was aborted." },
      { ...none, toolCallId: "phase-only", outcome: "denied" },
    ]);
  });

  it("a call whose end alone was recorded has no start; a start recorded again replaces the first", () => {
    recordToolEnd(store.db, a, "late", 500, false);
    recordToolPhase(store.db, a, "twice", "executing", null, 10);
    recordToolPhase(store.db, a, "twice", "executing", null, 20);
    recordToolStart(store.db, a, "twice", 5);
    recordToolStart(store.db, a, "twice", 6);
    expect(readToolCallTimes(store.db, a, ["late", "twice"])).toEqual([
      { ...none, toolCallId: "late", endedAt: 500, isError: false, outcome: "done" },
      { ...none, toolCallId: "twice", startedAt: 6, executingAt: 20 },
    ]);
  });

  it("reads the given calls of one session in the given order, skipping calls without times", () => {
    recordToolStart(store.db, a, "c1", 1);
    recordToolStart(store.db, a, "c2", 2);
    recordToolStart(store.db, b, "c3", 3);
    expect(readToolCallTimes(store.db, a, ["c2", "missing", "c1", "c3"]).map((t) => t.toolCallId)).toEqual(["c2", "c1"]);
    expect(readToolCallTimes(store.db, a, [])).toEqual([]);
  });

  it("lists every call of a session by start time, then id", () => {
    recordToolStart(store.db, a, "z", 1);
    recordToolStart(store.db, a, "y", 2);
    recordToolStart(store.db, a, "x", 2);
    recordToolStart(store.db, b, "other", 0);
    expect(listToolCallTimes(store.db, a).map((t) => t.toolCallId)).toEqual(["z", "x", "y"]);
    expect(listToolCallTimes(store.db, a)[0]).toEqual({ ...none, toolCallId: "z", startedAt: 1 });
  });

  it("copies the given calls' times to another session, keeping what that session has", () => {
    recordToolStart(store.db, a, "c1", 1);
    recordToolPhase(store.db, a, "c1", "executing", null, 2);
    recordToolEnd(store.db, a, "c1", 3, false);
    recordToolStart(store.db, a, "c2", 4);
    recordToolPhase(store.db, a, "c2", "denied", "no", 5);
    recordToolStart(store.db, a, "c3", 6);
    recordToolStart(store.db, b, "c2", 99);
    copyToolCallTimes(store.db, a, b, ["c1", "c2"]);
    expect(listToolCallTimes(store.db, b)).toEqual([
      { toolCallId: "c1", startedAt: 1, executingAt: 2, endedAt: 3, isError: false, outcome: "done", reason: null },
      { ...none, toolCallId: "c2", startedAt: 99 },
    ]);
    expect(listToolCallTimes(store.db, a)).toHaveLength(3);
  });
});

describe("toolCallIdsOf", () => {
  it("names the calls of assistant messages and of results, once each, in the messages' order", () => {
    const messages: AgentMessage[] = [
      user("go"),
      assistant("two calls", [call("c1", "read"), call("c2", "bash")]),
      result("c1", "read", "body"),
      result("c2", "bash", "out"),
      result("c0", "read", "a result whose call is on an earlier page"),
      { role: "custom", customType: "note", content: [{ type: "text", text: "x" }], display: true, timestamp: 1 } as unknown as AgentMessage,
    ];
    expect(toolCallIdsOf(messages)).toEqual(["c1", "c2", "c0"]);
    expect(toolCallIdsOf([user("no calls"), assistant("none")])).toEqual([]);
    // A call the run never answered (stopped mid-turn) is named by its assistant message alone.
    expect(toolCallIdsOf([assistant("one call", [call("c9", "bash")]), user("stop")])).toEqual(["c9"]);
  });
});

describe("an outcome this version does not know", () => {
  it("reads as null (a newer Lathe may have written it), the rest of the row as stored", () => {
    store.db.pragma("ignore_check_constraints = ON");
    store.db.prepare("INSERT INTO tool_calls (session_id, tool_call_id, started_at, outcome) VALUES (?, 'c1', 5, 'postponed')").run(a);
    store.db.pragma("ignore_check_constraints = OFF");
    expect(readToolCallTimes(store.db, a, ["c1"])).toEqual([{ ...none, toolCallId: "c1", startedAt: 5 }]);
  });
});
