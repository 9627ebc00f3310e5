// Conformance (docs/agent-loop.md): event sequences, serial prepare in parallel batches, immediate results.
import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import type { AgentEvent, AgentMessage, ToolResultMessage } from "../../../shared/agent-types.ts";
import { runScript, testTool, toolEvents, types, type ExecutionRecord } from "./loop-harness.ts";

const resultIds = (messages: { role: string }[]) => messages.filter((m): m is ToolResultMessage => m.role === "toolResult").map((m) => m.toolCallId);

describe("event sequences", () => {
  it("a text-only run", async () => {
    const { events, messages } = await runScript({ steps: [{ text: "Hello there, how are you?" }] });
    const seq = types(events).filter((t) => t !== "message_update");
    expect(seq).toEqual([
      "agent_start",
      "turn_start",
      "message_start",
      "message_end", // the prompt
      "message_start",
      "message_end", // the answer
      "turn_end",
      "agent_end",
    ]);
    expect(types(events).filter((t) => t === "message_update").length).toBeGreaterThan(1);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    const end = events.at(-1) as Extract<AgentEvent, { type: "agent_end" }>;
    expect(end.messages).toEqual(messages);
  });

  it("two parallel tools of different durations: ends in completion order, results in source order", async () => {
    const log: ExecutionRecord[] = [];
    const { events, messages } = await runScript({
      tools: [testTool("slow", { delayMs: 80, log }), testTool("fast", { delayMs: 5, log })],
      steps: [
        {
          toolCalls: [
            { name: "slow", id: "a" },
            { name: "fast", id: "b" },
          ],
        },
        { text: "done" },
      ],
    });
    expect(toolEvents(events, "tool_execution_start")).toEqual(["tool_execution_start:a", "tool_execution_start:b"]);
    expect(toolEvents(events, "tool_execution_end")).toEqual(["tool_execution_end:b", "tool_execution_end:a"]);
    expect(resultIds(messages)).toEqual(["a", "b"]);
    const turnEnd = events.find((e) => e.type === "turn_end" && e.toolResults.length > 0) as Extract<AgentEvent, { type: "turn_end" }>;
    expect(turnEnd.toolResults.map((r) => r.toolCallId)).toEqual(["a", "b"]);
    // Tool-result message events come after both ends, in source order.
    const resultEvents = events.filter((e) => e.type === "message_end" && e.message.role === "toolResult").map((e) => (e as { message: ToolResultMessage }).message.toolCallId);
    expect(resultEvents).toEqual(["a", "b"]);
    const lastEnd = events.findLastIndex((e) => e.type === "tool_execution_end");
    const firstResult = events.findIndex((e) => e.type === "message_start" && e.message.role === "toolResult");
    expect(firstResult).toBeGreaterThan(lastEnd);
    // They really overlapped.
    expect(log[1]!.start).toBeLessThan(log[0]!.end);
  });

  it("a sequential run emits each call's end and result message before the next call starts", async () => {
    const { events, messages } = await runScript({
      config: { toolExecution: "sequential" },
      tools: [testTool("slow", { delayMs: 30 }), testTool("fast")],
      steps: [
        {
          toolCalls: [
            { name: "slow", id: "a" },
            { name: "fast", id: "b" },
          ],
        },
        { text: "done" },
      ],
    });
    const seq = events
      .filter((e) => e.type.startsWith("tool_execution") || (e.type === "message_end" && e.message.role === "toolResult"))
      .map((e) => (e.type === "message_end" ? `result:${(e.message as ToolResultMessage).toolCallId}` : `${e.type}:${(e as { toolCallId: string }).toolCallId}`));
    expect(seq).toEqual(["tool_execution_start:a", "tool_execution_end:a", "result:a", "tool_execution_start:b", "tool_execution_end:b", "result:b"]);
    expect(resultIds(messages)).toEqual(["a", "b"]);
  });
});

describe("prepare is serial", () => {
  it("beforeToolCall sees calls in source order even when executions finish in reverse", async () => {
    const seen: string[] = [];
    const { events } = await runScript({
      tools: [testTool("t1", { delayMs: 60 }), testTool("t2", { delayMs: 30 }), testTool("t3", { delayMs: 1 })],
      config: {
        beforeToolCall: async ({ toolCall }) => {
          seen.push(`begin:${toolCall.id}`);
          await new Promise((r) => setTimeout(r, 5));
          seen.push(`end:${toolCall.id}`);
          return undefined;
        },
      },
      steps: [
        {
          toolCalls: [
            { name: "t1", id: "1" },
            { name: "t2", id: "2" },
            { name: "t3", id: "3" },
          ],
        },
        { text: "ok" },
      ],
    });
    expect(seen).toEqual(["begin:1", "end:1", "begin:2", "end:2", "begin:3", "end:3"]);
    expect(toolEvents(events, "tool_execution_end")).toEqual(["tool_execution_end:3", "tool_execution_end:2", "tool_execution_end:1"]);
  });

  it("tool_execution_start precedes validation, so a call that fails to prepare is still shown", async () => {
    const { events } = await runScript({
      tools: [testTool("strict", { parameters: Type.Object({ n: Type.Number() }) })],
      steps: [{ toolCalls: [{ name: "strict", id: "x", args: { n: "nope" } }] }, { text: "ok" }],
    });
    expect(toolEvents(events)).toEqual(["tool_execution_start:x", "tool_execution_end:x"]);
  });
});

describe("immediate results keep their source position while others run", () => {
  const errorOf = (messages: AgentMessage[], id: string) => {
    const m = messages.find((x): x is ToolResultMessage => x.role === "toolResult" && x.toolCallId === id)!;
    return { isError: m.isError, text: m.content.map((c) => (c.type === "text" ? c.text : "")).join("") };
  };

  it("unknown tool, invalid arguments, blocked with and without reason, throwing hook", async () => {
    const log: ExecutionRecord[] = [];
    const strict = testTool("strict", {
      log,
      parameters: Type.Object({ path: Type.String(), count: Type.Integer({ minimum: 1 }) }),
    });
    const runner = testTool("runner", { delayMs: 40, log });
    const hookSaw: string[] = [];
    const { events, messages } = await runScript({
      tools: [strict, runner],
      config: {
        beforeToolCall: async ({ toolCall }) => {
          hookSaw.push(toolCall.id);
          if (toolCall.id === "b1") return { block: true, reason: "Denied: not in this folder" };
          if (toolCall.id === "b2") return { block: true };
          if (toolCall.id === "b3") throw new Error("policy store unavailable");
          return undefined;
        },
      },
      steps: [
        {
          toolCalls: [
            { name: "runner", id: "r1" },
            { name: "nosuch", id: "u" },
            { name: "strict", id: "v", args: { path: 42 } },
            { name: "strict", id: "b1", args: { path: "a", count: 1 } },
            { name: "strict", id: "b2", args: { path: "a", count: 1 } },
            { name: "strict", id: "b3", args: { path: "a", count: 1 } },
            { name: "runner", id: "r2" },
          ],
        },
        { text: "ok" },
      ],
    });
    expect(resultIds(messages)).toEqual(["r1", "u", "v", "b1", "b2", "b3", "r2"]);
    expect(errorOf(messages, "u")).toEqual({ isError: true, text: "Tool nosuch not found" });
    const invalid = errorOf(messages, "v");
    expect(invalid.isError).toBe(true);
    expect(invalid.text).toMatch(/path: Expected string; received number 42/);
    expect(invalid.text).toMatch(/count: missing; expected an integer \(minimum 1\)/);
    expect(errorOf(messages, "b1")).toEqual({ isError: true, text: "Denied: not in this folder" });
    expect(errorOf(messages, "b2").text).toMatch(/blocked/);
    expect(errorOf(messages, "b3")).toEqual({ isError: true, text: "policy store unavailable" });
    expect(errorOf(messages, "r1").isError).toBe(false);
    // Only the runners executed; the immediate results ended before the slow runners did.
    expect(log.map((l) => l.id)).toEqual(["r1", "r2"]);
    // The hook saw every call that got past validation, in source order, and none that did not.
    expect(hookSaw).toEqual(["r1", "b1", "b2", "b3", "r2"]);
    const ends = toolEvents(events, "tool_execution_end");
    expect(ends.slice(0, 5)).toEqual(["u", "v", "b1", "b2", "b3"].map((id) => `tool_execution_end:${id}`));
  });

  it("prepareArguments is applied before validation", async () => {
    const tool = testTool("edit", {
      parameters: Type.Object({ edits: Type.Array(Type.Object({ oldText: Type.String(), newText: Type.String() })) }),
      prepareArguments: (raw) => {
        const a = raw as { oldText?: string; newText?: string; edits?: unknown };
        return a.edits ? a : { edits: [{ oldText: a.oldText, newText: a.newText }] };
      },
    });
    const { messages } = await runScript({
      tools: [tool],
      steps: [{ toolCalls: [{ name: "edit", id: "e", args: { oldText: "a", newText: "b" } }] }, { text: "ok" }],
    });
    const result = errorOf(messages, "e");
    expect(result.isError).toBe(false);
    expect(result.text).toContain('"edits":[{"oldText":"a","newText":"b"}]');
  });

  it("malformed argument JSON from the model is reported to the model, never run", async () => {
    const log: ExecutionRecord[] = [];
    const { messages } = await runScript({
      tools: [testTool("t", { log })],
      steps: [{ toolCalls: [{ name: "t", id: "m", rawArgs: '{"value": "unterminated' }] }, { text: "ok" }],
    });
    expect(errorOf(messages, "m").text).toMatch(/not valid JSON/);
    expect(log).toHaveLength(0);
  });
});
