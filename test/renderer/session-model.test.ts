// The session view model: source-order transcript, completion-order card states, live terminal
// chunks, stored sessions, and the argument summaries shown on cards.
import { describe, expect, test } from "vitest";
import type { AgentMessage, AssistantMessage, ToolResultMessage, UserMessage } from "../../app/shared/agent-types.ts";
import type { WireAgentEvent } from "../../app/shared/ipc/agent-schemas.ts";
import { applyEvents, atEnd, emptyModel, itemIndexOfPosition, visibleItems } from "../../app/renderer/src/state/session-model.ts";
import { modelFromStored } from "../../app/renderer/src/state/stored-model.ts";
import { appendPage, prependPage } from "../../app/renderer/src/state/session-pages.ts";
import { formatElapsed, summarizeArgs } from "../../app/renderer/src/state/format.ts";

const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
const user: UserMessage = { role: "user", content: "go", timestamp: 1 };
const calls: AssistantMessage = {
  role: "assistant",
  content: [
    { type: "text", text: "Running two commands." },
    { type: "toolCall", id: "a", name: "bash", arguments: { command: "sleep 2" } },
    { type: "toolCall", id: "b", name: "read", arguments: { path: "x.ts" } },
  ],
  api: "openai-completions",
  provider: "local",
  model: "m",
  usage,
  stopReason: "toolUse",
  timestamp: 2,
};
const result = (id: string, name: string, text: string, isError = false): ToolResultMessage => ({
  role: "toolResult",
  toolCallId: id,
  toolName: name,
  content: [{ type: "text", text }],
  isError,
  timestamp: 3,
});
const ev = (e: WireAgentEvent) => e;

function runToBatch() {
  let m = emptyModel();
  m = applyEvents(m, [ev({ type: "agent_start" }), ev({ type: "turn_start" }), ev({ type: "message_start", message: user }), ev({ type: "message_end", message: user })], 0);
  m = applyEvents(m, [ev({ type: "message_start", message: { ...calls, content: calls.content.slice(0, 2) } })], 5);
  return m;
}

describe("session model", () => {
  test("a streaming message shows with its tool calls so far, and keeps its keys when it ends", () => {
    const m = runToBatch();
    const live = visibleItems(m);
    expect(live.map((i) => i.key)).toEqual(["m0", "m1", "ta"]);
    expect(live[1]).toMatchObject({ kind: "assistant", streaming: true });
    expect(m.tools.get("a")?.status).toBe("pending");
    const ended = applyEvents(m, [ev({ type: "message_end", message: calls })], 10);
    expect(visibleItems(ended).map((i) => i.key)).toEqual(["m0", "m1", "ta", "tb", "tl1"]);
    expect(ended.streaming).toBeNull();
  });

  test("cards change state in completion order; the transcript keeps source order", () => {
    let m = applyEvents(runToBatch(), [ev({ type: "message_end", message: calls })], 10);
    m = applyEvents(
      m,
      [
        ev({ type: "tool_execution_start", toolCallId: "a", toolName: "bash", args: { command: "sleep 2" } }),
        ev({ type: "tool_execution_start", toolCallId: "b", toolName: "read", args: { path: "x.ts" } }),
      ],
      90,
    );
    m = applyEvents(m, [ev({ type: "tool_call_phase", toolCallId: "a", phase: "executing" }), ev({ type: "tool_call_phase", toolCallId: "b", phase: "executing" })], 100);
    const order = () => visibleItems(m).map((i) => i.key);
    const before = order();
    m = applyEvents(
      m,
      [ev({ type: "tool_execution_end", toolCallId: "b", toolName: "read", result: { content: [{ type: "text", text: "1\tx" }], details: {} }, isError: false })],
      150,
    );
    expect(m.tools.get("b")).toMatchObject({ status: "done", startedAt: 100, endedAt: 150 });
    expect(m.tools.get("a")?.status).toBe("running");
    m = applyEvents(
      m,
      [ev({ type: "tool_execution_end", toolCallId: "a", toolName: "bash", result: { content: [{ type: "text", text: "boom" }], details: {} }, isError: true })],
      2100,
    );
    expect(m.tools.get("a")).toMatchObject({ status: "error", endedAt: 2100 });
    // The result messages arrive in source order and do not add transcript rows.
    m = applyEvents(m, [ev({ type: "message_end", message: result("a", "bash", "boom", true) }), ev({ type: "message_end", message: result("b", "read", "1\tx") })], 2101);
    expect(order()).toEqual(before);
    expect(m.messages).toHaveLength(4);
    expect(m.tools.get("a")?.result?.isError).toBe(true);
  });

  test("bash updates append terminal chunks; an older version keeps its own snapshot", () => {
    let m = applyEvents(runToBatch(), [ev({ type: "tool_execution_start", toolCallId: "a", toolName: "bash", args: {} })], 1);
    const update = (chunk: string, waiting = false) =>
      ev({
        type: "tool_execution_update",
        toolCallId: "a",
        toolName: "bash",
        args: {},
        partialResult: { content: [], details: { phase: "running", chunk, skippedBytes: 0, waitingForInput: waiting } },
      });
    m = applyEvents(m, [update("\u001b[32mone\u001b[0m\r\n"), update("two ")], 2);
    const older = m.tools.get("a")!;
    m = applyEvents(m, [update("Password: ", true)], 3);
    const newer = m.tools.get("a")!;
    expect(newer.chunks.slice(0, newer.chunkCount)).toEqual(["\u001b[32mone\u001b[0m\r\n", "two ", "Password: "]);
    expect(newer.waitingForInput).toBe(true);
    expect(older.chunkCount).toBe(2);
    // Appending to a stale version must not corrupt the newer one.
    const branched = applyEvents({ ...m, tools: new Map([["a", older]]) }, [update("other")], 4).tools.get("a")!;
    expect(branched.chunks.slice(0, branched.chunkCount)).toEqual(["\u001b[32mone\u001b[0m\r\n", "two ", "other"]);
    expect(newer.chunks.slice(0, newer.chunkCount)).toEqual(["\u001b[32mone\u001b[0m\r\n", "two ", "Password: "]);
  });

  test("a stored session takes its timings from the stored call times and folds results into cards", () => {
    const toolCalls = [
      { toolCallId: "a", startedAt: 1000, executingAt: 1000, endedAt: null, isError: null, outcome: null, reason: null },
      { toolCallId: "b", startedAt: 1001, executingAt: 1001, endedAt: 1200, isError: false, outcome: "done" as const, reason: null },
    ];
    const page = (messages: AgentMessage[]) => ({ first: 0, messages, toolCalls, outputs: [] });
    const m = modelFromStored(page([user, calls, result("b", "read", "ok")]));
    expect(m.items.map((i) => i.key)).toEqual(["m0", "m1", "ta", "tb", "tl1"]);
    expect(m.tools.get("b")).toMatchObject({ status: "done", startedAt: 1001, endedAt: 1200, toolName: "read" });
    // "a" never finished in a run that is over: shown as cut off, not as running forever.
    expect(m.tools.get("a")?.status).toBe("error");
    expect(modelFromStored(page([user, calls]), true).tools.get("a")?.status).toBe("running");
  });

  test("a window of a longer session: positions from its first message, older pages in front, results waiting for their call", () => {
    const all: AgentMessage[] = [user, calls, result("a", "bash", "x"), result("b", "read", "y"), { ...user, content: "again", timestamp: 9 }];
    const times = [{ toolCallId: "a", startedAt: 10, executingAt: 10, endedAt: 20, isError: false, outcome: "done" as const, reason: null }];
    // The newest page starts at the results: their call is on the page before, so they have no row yet.
    let m = modelFromStored({ first: 2, messages: all.slice(2), toolCalls: times, outputs: [{ toolCallId: "a" }], total: 5, compactions: [] });
    expect(m.items.map((i) => i.key)).toEqual(["m4"]);
    expect(atEnd(m)).toBe(true);
    m = prependPage(m, { first: 0, messages: all.slice(0, 2), toolCalls: [], outputs: [] });
    expect(m.first).toBe(0);
    expect(m.items.map((i) => [i.key, i.position])).toEqual([
      ["m0", 0],
      ["m1", 1],
      ["ta", 1],
      ["tb", 1],
      ["tl1", 1],
      ["m4", 4],
    ]);
    expect(m.tools.get("a")).toMatchObject({ status: "done", startedAt: 10, endedAt: 20, storedOutput: true, toolName: "bash" });
    expect(m.tools.get("b")).toMatchObject({ status: "done", result: { isError: false } });
    // A page that does not join the window is ignored.
    expect(prependPage(m, { first: 0, messages: all.slice(0, 1), toolCalls: [], outputs: [] })).toBe(m);
    // Live messages go to the end of a window that reaches it, and only count for one that does not.
    const live = applyEvents(m, [ev({ type: "message_end", message: user })], 1);
    expect([live.total, live.messages.length, live.items.at(-1)?.key]).toEqual([6, 6, "m5"]);
    const around = modelFromStored({ first: 0, messages: all.slice(0, 2), toolCalls: [], outputs: [], total: 5, compactions: [] }, true);
    const counted = applyEvents(around, [ev({ type: "message_end", message: user })], 1);
    expect([counted.total, counted.messages.length, atEnd(counted)]).toEqual([6, 2, false]);
    // Paging down is cut at what this view counts: later messages come as events.
    const down = appendPage(counted, { first: 2, messages: [...all.slice(2), user, user], toolCalls: [], outputs: [] });
    expect([down.messages.length, atEnd(down)]).toEqual([6, true]);
  });

  test("search hits jump to the first row of their message", () => {
    const m = modelFromStored({
      first: 0,
      messages: [user, calls, result("a", "bash", "x"), result("b", "read", "y"), { ...user, content: "again", timestamp: 9 }],
      toolCalls: [],
      outputs: [],
    });
    expect(itemIndexOfPosition(m.items, 0)).toBe(0);
    expect(itemIndexOfPosition(m.items, 1)).toBe(1);
    expect(m.items[itemIndexOfPosition(m.items, 4)]).toMatchObject({ kind: "user", position: 4 });
  });
});

describe("card summaries", () => {
  test("say what a call does in one line", () => {
    expect(summarizeArgs("bash", { command: "npm test\nnpm run lint" })).toBe("npm test …");
    expect(summarizeArgs("read", { path: "src/a.ts", offset: 10, limit: 5 })).toBe("src/a.ts:10-14");
    expect(summarizeArgs("edit", { path: "a.ts", edits: [{}, {}] })).toBe("a.ts (2 edits)");
    expect(summarizeArgs("grep", { pattern: "TODO", path: "src" })).toBe("TODO in src");
    expect(formatElapsed(65_000)).toBe("1 m 05 s");
    expect(formatElapsed(1234)).toBe("1.2 s");
  });
});
