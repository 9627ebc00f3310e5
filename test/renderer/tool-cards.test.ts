// Tool card states from the loop's events and the session's tool_call_phase: the wait before
// execute is not run time, denied and stopped calls keep their state and reason through the events
// and results that follow, stored pages time their calls from start to end; thinking times and the
// usage of answers ended during the turn.
import { describe, expect, test } from "vitest";
import type { AssistantMessage, ToolResultMessage } from "../../app/shared/agent-types.ts";
import type { WireAgentEvent } from "../../app/shared/ipc/agent-schemas.ts";
import type { LiveTool } from "../../app/shared/ipc/contract.ts";
import { applyEvents, emptyModel, visibleItems } from "../../app/renderer/src/state/session-model.ts";
import { modelFromStored } from "../../app/renderer/src/state/stored-model.ts";
import { cardFromLive, newCard } from "../../app/renderer/src/state/tool-cards.ts";
import { formatCost, plural } from "../../app/renderer/src/state/format.ts";

const usage = (totalTokens = 0, total = 0) => ({
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total },
});
const calls: AssistantMessage = {
  role: "assistant",
  content: [
    { type: "toolCall", id: "a", name: "bash", arguments: { command: "rm -rf build" } },
    { type: "toolCall", id: "b", name: "read", arguments: { path: "x.ts" } },
  ],
  api: "openai-completions",
  provider: "local",
  model: "m",
  usage: usage(500, 0.02),
  stopReason: "toolUse",
  timestamp: 2,
};
const start = (id: string, name: string): WireAgentEvent => ({ type: "tool_execution_start", toolCallId: id, toolName: name, args: {} });
const phase = (id: string, p: "executing" | "denied" | "stopped", reason?: string): WireAgentEvent => ({
  type: "tool_call_phase",
  toolCallId: id,
  phase: p,
  ...(reason ? { reason } : {}),
});
const end = (id: string, name: string, text: string, isError: boolean): WireAgentEvent => ({
  type: "tool_execution_end",
  toolCallId: id,
  toolName: name,
  result: { content: [{ type: "text", text }], details: {} },
  isError,
});
const result = (id: string, name: string, text: string, isError: boolean): ToolResultMessage => ({
  role: "toolResult",
  toolCallId: id,
  toolName: name,
  content: [{ type: "text", text }],
  isError,
  timestamp: 3,
});

describe("tool card states", () => {
  test("queued while it waits, running from execute: the timer counts the run, not the wait", () => {
    let m = applyEvents(emptyModel(), [{ type: "agent_start" }, { type: "message_end", message: calls }], 0);
    m = applyEvents(m, [start("a", "bash"), start("b", "read")], 1000);
    expect(m.tools.get("b")).toMatchObject({ status: "queued", queuedAt: 1000, startedAt: null });
    // b needs no answer but waits for the batch; it executes 26 s later, takes 20 ms.
    m = applyEvents(m, [phase("b", "executing")], 27_000);
    expect(m.tools.get("b")).toMatchObject({ status: "running", queuedAt: 1000, startedAt: 27_000 });
    m = applyEvents(m, [end("b", "read", "ok", false)], 27_020);
    const b = m.tools.get("b")!;
    expect(b.status).toBe("done");
    expect(b.endedAt! - b.startedAt!).toBe(20);
  });

  test("a denied call stays denied with its reason, whatever the end and the result say", () => {
    let m = applyEvents(emptyModel(), [{ type: "message_end", message: calls }, start("a", "bash")], 10);
    m = applyEvents(m, [phase("a", "denied", "Denied by the user: not now")], 20);
    m = applyEvents(m, [end("a", "bash", "Denied by the user: not now", true), { type: "message_end", message: result("a", "bash", "Denied by the user: not now", true) }], 30);
    expect(m.tools.get("a")).toMatchObject({ status: "denied", outcomeReason: "Denied by the user: not now", startedAt: null, endedAt: 20 });
  });

  test("a stopped call is stopped, not failed", () => {
    let m = applyEvents(emptyModel(), [{ type: "message_end", message: calls }, start("a", "bash"), phase("a", "executing")], 10);
    m = applyEvents(m, [phase("a", "stopped", "The run was stopped."), end("a", "bash", "aborted", true)], 50);
    m = applyEvents(m, [{ type: "message_end", message: result("a", "bash", "aborted", true) }], 51);
    expect(m.tools.get("a")).toMatchObject({ status: "stopped", outcomeReason: "The run was stopped.", startedAt: 10, endedAt: 50 });
  });

  test("a stored page times its calls from their stored start, execute start and end", () => {
    const stored = modelFromStored({
      first: 0,
      messages: [calls, result("b", "read", "ok", false)],
      toolCalls: [
        { toolCallId: "a", startedAt: 90, executingAt: null, endedAt: null, isError: null, outcome: null, reason: null },
        { toolCallId: "b", startedAt: 100, executingAt: 140, endedAt: 180, isError: false, outcome: "done", reason: null },
      ],
      outputs: [],
    });
    // Waiting 100..140, running 140..180: as the live card showed it.
    expect(stored.tools.get("b")).toMatchObject({ status: "done", queuedAt: 100, startedAt: 140, endedAt: 180 });
    // A call that never ended in a run that is over was cut off.
    expect(stored.tools.get("a")?.status).toBe("error");
  });

  test("a snapshot's call that waits is queued; one that executes runs from its execute time", () => {
    const live = (over: Partial<LiveTool>): LiveTool => ({
      toolCallId: "a",
      toolName: "bash",
      args: {},
      status: "running",
      startedAt: 100,
      executingAt: null,
      endedAt: null,
      output: "",
      skippedBytes: 0,
      progress: null,
      waitingForInput: false,
      result: null,
      ...over,
    });
    expect(cardFromLive(newCard("a", "bash", {}, 0), live({}))).toMatchObject({ status: "queued", queuedAt: 100, startedAt: null });
    expect(cardFromLive(newCard("a", "bash", {}, 0), live({ executingAt: 400, output: "hi" }))).toMatchObject({ status: "running", startedAt: 400, chunks: ["hi"], chunkCount: 1 });
    expect(cardFromLive(newCard("a", "bash", {}, 0), live({ status: "error", endedAt: 300, phase: { outcome: "denied", reason: "no" } }))).toMatchObject({
      status: "denied",
      outcomeReason: "no",
    });
  });
});

describe("progress in the model", () => {
  const thinkingMessage = (text: string, withAnswer = false): AssistantMessage => ({
    ...calls,
    content: [{ type: "thinking", thinking: text }, ...(withAnswer ? [{ type: "text" as const, text: "done" }] : [])],
    stopReason: "stop",
    timestamp: 7,
  });

  test("thinking blocks get their start and end times as they stream", () => {
    let m = applyEvents(emptyModel(), [{ type: "agent_start" }, { type: "message_start", message: thinkingMessage("") }], 0);
    m = applyEvents(
      m,
      [
        { type: "message_update", assistantMessageEvent: { type: "thinking_start", contentIndex: 0 } },
        { type: "message_update", assistantMessageEvent: { type: "thinking_delta", contentIndex: 0, delta: "hm" } },
      ],
      1000,
    );
    let live = visibleItems(m).find((i) => i.kind === "assistant");
    expect(live).toMatchObject({ streaming: true, thinking: [{ startedAt: 1000, endedAt: null }] });
    m = applyEvents(
      m,
      [
        { type: "message_update", assistantMessageEvent: { type: "thinking_delta", contentIndex: 0, delta: "m" } },
        { type: "message_update", assistantMessageEvent: { type: "thinking_end", contentIndex: 0 } },
      ],
      13_000,
    );
    m = applyEvents(m, [{ type: "message_end", message: thinkingMessage("hmm", true) }], 14_000);
    live = visibleItems(m).find((i) => i.kind === "assistant");
    expect(live).toMatchObject({ streaming: false, thinking: [{ startedAt: 1000, endedAt: 13_000 }, undefined] });
  });

  test("answers ended during the turn add their tokens and cost", () => {
    const m = applyEvents(emptyModel(), [{ type: "agent_start" }, { type: "message_end", message: calls }, { type: "message_end", message: { ...calls, timestamp: 9 } }], 0);
    expect(m.liveUsage).toEqual({ tokens: 1000, cost: 0.04 });
  });

  test("one cost format and counted nouns", () => {
    expect([formatCost(0), formatCost(0.0053), formatCost(0.0049), formatCost(0.426), formatCost(12.3)]).toEqual(["$0.00", "$0.01", "<$0.01", "$0.43", "$12.30"]);
    expect([plural(1, "model"), plural(3, "model"), plural(0, "model"), plural(1200, "token")]).toEqual(["1 model", "3 models", "0 models", "1,200 tokens"]);
  });
});

describe("terminal output", () => {
  test("a final line break is held back until more output comes", async () => {
    const { holdFinalBreak } = await import("../../app/renderer/src/session/terminal-text.ts");
    expect(holdFinalBreak("", "done-4\r\n")).toEqual({ write: "done-4", held: "\r\n" });
    expect(holdFinalBreak("\r\n", "next\n")).toEqual({ write: "\r\nnext", held: "\n" });
    expect(holdFinalBreak("\r\n", "\r\n")).toEqual({ write: "\r\n", held: "\r\n" });
    expect(holdFinalBreak("", "Name? ")).toEqual({ write: "Name? ", held: "" });
    expect(holdFinalBreak("\n", "")).toEqual({ write: "", held: "\n" });
  });
});
