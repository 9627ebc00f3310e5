// Conformance (docs/agent-loop.md): execute, finalize (afterToolCall), sequential and parallel batches, terminate.
import { describe, expect, it } from "vitest";
import type { AgentEvent, ToolResultMessage } from "../../../shared/agent-types.ts";
import { runScript, testTool, toolEvents, types, type ExecutionRecord } from "./loop-harness.ts";

const results = (messages: { role: string }[]) => messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
const textOf = (m: ToolResultMessage) => m.content.map((c) => (c.type === "text" ? c.text : "")).join("");

describe("execute", () => {
  it("a throwing tool gives an error result carrying the message", async () => {
    const { messages } = await runScript({
      tools: [testTool("boom", { fail: "disk on fire" })],
      steps: [{ toolCalls: [{ name: "boom", id: "x" }] }, { text: "ok" }],
    });
    const [r] = results(messages);
    expect(r!.isError).toBe(true);
    expect(textOf(r!)).toBe("disk on fire");
  });

  it("a thrown error's details are kept for the UI", async () => {
    const tool = testTool("cmd");
    tool.execute = async () => {
      throw Object.assign(new Error("Command exited with code 2"), { details: { exitCode: 2 } });
    };
    const { messages } = await runScript({ tools: [tool], steps: [{ toolCalls: [{ name: "cmd" }] }, { text: "ok" }] });
    const [r] = results(messages);
    expect(r).toMatchObject({ isError: true, details: { exitCode: 2 } });
    expect(textOf(r!)).toBe("Command exited with code 2");
  });

  it("every onUpdate becomes a tool_execution_update, all delivered before that call's end, with a slow subscriber", async () => {
    const { events } = await runScript({
      slowSubscriberMs: 3,
      tools: [testTool("chatty", { updates: 5 }), testTool("quiet", { updates: 2, delayMs: 1 })],
      steps: [
        {
          toolCalls: [
            { name: "chatty", id: "c" },
            { name: "quiet", id: "q" },
          ],
        },
        { text: "ok" },
      ],
    });
    for (const id of ["c", "q"]) {
      const mine = toolEvents(events).filter((e) => e.endsWith(`:${id}`));
      const expected = id === "c" ? 5 : 2;
      expect(mine[0]).toBe(`tool_execution_start:${id}`);
      expect(mine.at(-1)).toBe(`tool_execution_end:${id}`);
      expect(mine.filter((e) => e.startsWith("tool_execution_update"))).toHaveLength(expected);
      const updates = events.filter((e): e is Extract<AgentEvent, { type: "tool_execution_update" }> => e.type === "tool_execution_update" && e.toolCallId === id);
      expect(updates.map((u) => (u.partialResult.details as { i: number }).i)).toEqual([...Array(expected).keys()]);
    }
  });
});

describe("afterToolCall overrides field by field", () => {
  const run = (after: Parameters<typeof runScript>[0]["config"]) =>
    runScript({
      tools: [testTool("t", { result: { details: { original: true } } })],
      config: after,
      steps: [{ toolCalls: [{ name: "t", id: "x", args: { value: "v" } }] }, { text: "ok" }],
    });

  it("undefined keeps everything", async () => {
    const { messages } = await run({ afterToolCall: async () => undefined });
    const [r] = results(messages);
    expect(r!.isError).toBe(false);
    expect(textOf(r!)).toBe('t done with {"value":"v"}');
    expect(r!.details).toEqual({ original: true });
  });

  it("content alone", async () => {
    const { messages } = await run({ afterToolCall: async () => ({ content: [{ type: "text", text: "[redacted]" }] }) });
    const [r] = results(messages);
    expect(textOf(r!)).toBe("[redacted]");
    expect(r!.details).toEqual({ original: true });
    expect(r!.isError).toBe(false);
  });

  it("details alone", async () => {
    const { messages } = await run({ afterToolCall: async () => ({ details: { audited: 1 } }) });
    const [r] = results(messages);
    expect(r!.details).toEqual({ audited: 1 });
    expect(textOf(r!)).toBe('t done with {"value":"v"}');
  });

  it("isError alone, both ways", async () => {
    const asError = await run({ afterToolCall: async () => ({ isError: true }) });
    expect(results(asError.messages)[0]!.isError).toBe(true);
    expect(textOf(results(asError.messages)[0]!)).toBe('t done with {"value":"v"}');
    const failing = await runScript({
      tools: [testTool("grep", { fail: "no matches" })],
      config: { afterToolCall: async ({ isError }) => (isError ? { isError: false } : undefined) },
      steps: [{ toolCalls: [{ name: "grep", id: "g" }] }, { text: "ok" }],
    });
    const [r] = results(failing.messages);
    expect(r!.isError).toBe(false);
    expect(textOf(r!)).toBe("no matches");
  });

  it("terminate alone ends the run after the batch", async () => {
    const { messages, model } = await run({ afterToolCall: async () => ({ terminate: true }) });
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult"]);
    expect(model.remaining()).toBe(1);
    expect(results(messages)[0]!.details).toEqual({ original: true });
  });

  it("the hook sees the executed result and the validated args", async () => {
    let seen: unknown;
    await run({ afterToolCall: async (ctx) => void (seen = { args: ctx.args, isError: ctx.isError, text: ctx.result.content }) });
    expect(seen).toEqual({ args: { value: "v" }, isError: false, text: [{ type: "text", text: 't done with {"value":"v"}' }] });
  });

  it("a throwing afterToolCall gives an error result without the tool's output, and the loop goes on", async () => {
    const { messages, events } = await run({
      afterToolCall: async () => {
        throw new Error("audit db gone");
      },
    });
    const [r] = results(messages);
    expect(r!.isError).toBe(true);
    expect(textOf(r!)).toBe("afterToolCall failed: audit db gone");
    expect(messages.at(-1)!.role).toBe("assistant");
    expect(types(events).at(-1)).toBe("agent_end");
  });
});

describe("execution modes", () => {
  const overlaps = (log: ExecutionRecord[]) => log.some((a, i) => log.some((b, j) => i !== j && a.start < b.end && b.start < a.end));

  it("sequential by config: no two executions overlap", async () => {
    const log: ExecutionRecord[] = [];
    await runScript({
      config: { toolExecution: "sequential" },
      tools: [testTool("a", { delayMs: 20, log }), testTool("b", { delayMs: 5, log })],
      steps: [{ toolCalls: [{ name: "a" }, { name: "b" }, { name: "a" }] }, { text: "ok" }],
    });
    expect(log).toHaveLength(3);
    expect(overlaps(log)).toBe(false);
    expect(log.map((l) => l.name)).toEqual(["a", "b", "a"]);
  });

  it("one executionMode: sequential tool makes a mixed batch sequential", async () => {
    const log: ExecutionRecord[] = [];
    await runScript({
      tools: [testTool("par", { delayMs: 20, log }), testTool("seq", { delayMs: 5, log, executionMode: "sequential" })],
      steps: [{ toolCalls: [{ name: "par" }, { name: "par" }, { name: "seq" }, { name: "par" }] }, { text: "ok" }],
    });
    expect(log).toHaveLength(4);
    expect(overlaps(log)).toBe(false);
  });

  it("parallel by default: the same batch without the sequential tool overlaps", async () => {
    const log: ExecutionRecord[] = [];
    await runScript({
      tools: [testTool("par", { delayMs: 20, log })],
      steps: [{ toolCalls: [{ name: "par" }, { name: "par" }, { name: "par" }] }, { text: "ok" }],
    });
    expect(overlaps(log)).toBe(true);
  });
});

describe("terminate", () => {
  it("all true ends the run after the batch", async () => {
    const { messages, model } = await runScript({
      tools: [testTool("stop", { result: { terminate: true } })],
      steps: [{ toolCalls: [{ name: "stop" }, { name: "stop" }] }, { text: "never asked" }],
    });
    expect(model.requests).toHaveLength(1);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "toolResult"]);
  });

  it("one false continues", async () => {
    const { model } = await runScript({
      tools: [testTool("stop", { result: { terminate: true } }), testTool("go")],
      steps: [{ toolCalls: [{ name: "stop" }, { name: "go" }] }, { text: "asked again" }],
    });
    expect(model.requests).toHaveLength(2);
  });

  it("an immediate error result in the batch does not terminate", async () => {
    const { model } = await runScript({
      tools: [testTool("stop", { result: { terminate: true } })],
      steps: [{ toolCalls: [{ name: "stop" }, { name: "missing" }] }, { text: "asked again" }],
    });
    expect(model.requests).toHaveLength(2);
  });

  it("afterToolCall can clear it", async () => {
    const { model } = await runScript({
      tools: [testTool("stop", { result: { terminate: true } })],
      config: { afterToolCall: async () => ({ terminate: false }) },
      steps: [{ toolCalls: [{ name: "stop" }] }, { text: "asked again" }],
    });
    expect(model.requests).toHaveLength(2);
  });

  it("queued steering still runs after a terminated batch", async () => {
    let polls = 0;
    const { model, messages } = await runScript({
      tools: [testTool("stop", { result: { terminate: true } })],
      config: {
        getSteeringMessages: async () => {
          // Poll 1 is before the first turn, poll 2 after the terminated batch.
          return ++polls === 2 ? [{ role: "user", content: "one more thing", timestamp: Date.now() }] : [];
        },
      },
      steps: [{ toolCalls: [{ name: "stop" }] }, { text: "handled the steering" }],
    });
    expect(model.requests).toHaveLength(2);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "user", "assistant"]);
  });
});
