// The run's edges that the conformance suites pass over (docs/agent-loop.md, "The run", "One
// response", "A response that fails"): the exact events of later turns and of pending messages,
// the results of calls a failed response asked for, the API key's fallback, retry notices without
// an onRetry, the copy message_start carries, streams that bend the rules (events before start or
// after done, a call's arguments grown at its end, a block that is not there, no start at all), and
// how often a streaming call's arguments are measured.
import { describe, expect, it } from "vitest";
import type { AgentEvent, AgentMessage, AssistantMessage, AssistantMessageEvent, ToolCall, ToolResultMessage, Usage } from "../../../shared/agent-types.ts";
import { AssistantEventStream, runAgentLoop, runAgentLoopContinue, type AgentLoopConfig, type AssistantMessageEventStream, type StreamFn } from "../index.ts";
import { defaultConvertToLlm, emptyAssistantMessage } from "../messages.ts";
import { runScript, testTool, types } from "./loop-harness.ts";
import { createScriptedModel, scriptedModelInfo } from "./scripted-model.ts";

const user = (content: string): AgentMessage => ({ role: "user", content, timestamp: 0 });
const config: AgentLoopConfig = { model: scriptedModelInfo, convertToLlm: defaultConvertToLlm };
const context = () => ({ systemPrompt: "", messages: [] as AgentMessage[], tools: [] });
/** Event types, with the role of a message event's message: "message_end:user". */
const labelled = (events: AgentEvent[]) =>
  events.filter((e) => e.type !== "message_update").map((e) => (e.type === "message_start" || e.type === "message_end" ? `${e.type}:${e.message.role}` : e.type));

/** A stream that hands out the given events as they are (whatever the StreamFn contract says), then `final`. */
/** The events of a run up to its first answer's end. */
const PROMPT_AND_ANSWER = ["agent_start", "turn_start", "message_start:user", "message_end:user", "message_start:assistant", "message_end:assistant"];
/** The events of a run whose one turn is a prompt and an answer without tool calls. */
const ONE_ANSWER = [...PROMPT_AND_ANSWER, "turn_end", "agent_end"];

function handMadeStream(events: AssistantMessageEvent[], final: AssistantMessage): AssistantMessageEventStream {
  return {
    async *[Symbol.asyncIterator]() {
      yield* events;
    },
    result: async () => final,
  };
}

/** `n` enumerable properties that count how often they are read (the bounds' walk reads each once). */
function countedArguments(n: number): { args: Record<string, unknown>; reads: { count: number } } {
  const reads = { count: 0 };
  const args: Record<string, unknown> = {};
  for (let i = 0; i < n; i++) Object.defineProperty(args, `k${i}`, { enumerable: true, get: () => (reads.count++, i) });
  return { args, reads };
}

function nested(levels: number): Record<string, unknown> {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value as Record<string, unknown>;
}

describe("the run's events", () => {
  it("every turn after the first starts with turn_start, and its pending messages come with their start and end", async () => {
    const steer = user("steer");
    let polls = 0;
    const { events, messages } = await runScript({
      steps: [{ toolCalls: [{ name: "t", id: "a" }] }, { text: "done" }],
      tools: [testTool("t")],
      config: { getSteeringMessages: async () => (++polls === 2 ? [steer] : []) },
    });
    expect(labelled(events)).toEqual([
      ...PROMPT_AND_ANSWER,
      "tool_execution_start",
      "tool_execution_end",
      "message_start:toolResult",
      "message_end:toolResult",
      "turn_end",
      "turn_start",
      "message_start:user",
      "message_end:user",
      "message_start:assistant",
      "message_end:assistant",
      "turn_end",
      "agent_end",
    ]);
    const steerEvents = events.filter((e) => (e.type === "message_start" || e.type === "message_end") && e.message === steer);
    expect(steerEvents.map((e) => e.type)).toEqual(["message_start", "message_end"]);
    // A turn without tool calls ends with no tool results at all.
    const turnEnds = events.filter((e): e is Extract<AgentEvent, { type: "turn_end" }> => e.type === "turn_end");
    expect(turnEnds.map((e) => e.toolResults.map((r) => r.toolCallId))).toEqual([["a"], []]);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "user", "assistant"]);
  });

  it("a response that ends in an error: each call gets its 'not run' result, in the run's messages, turn_end and agent_end", async () => {
    const { events, messages } = await runScript({
      steps: [
        {
          text: "partial",
          toolCalls: [
            { name: "t", id: "a" },
            { name: "t", id: "b" },
          ],
          error: "connection reset",
        },
      ],
      tools: [testTool("t")],
    });
    expect(labelled(events)).toEqual([
      ...PROMPT_AND_ANSWER,
      "message_start:toolResult",
      "message_end:toolResult",
      "message_start:toolResult",
      "message_end:toolResult",
      "turn_end",
      "agent_end",
    ]);
    // The error event is no update: every update carries the streaming message.
    expect(events.filter((e) => e.type === "message_update").every((e) => e.message.role === "assistant")).toBe(true);
    const results = messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "toolResult"]);
    for (const [i, result] of results.entries()) {
      expect(result).toEqual({
        role: "toolResult",
        toolCallId: ["a", "b"][i],
        toolName: "t",
        content: [{ type: "text", text: "Not run: the response ended in an error before this tool call could run." }],
        details: {},
        isError: true,
        timestamp: expect.any(Number),
      });
    }
    const turnEnd = events.find((e): e is Extract<AgentEvent, { type: "turn_end" }> => e.type === "turn_end")!;
    expect(turnEnd.toolResults).toEqual(results);
    const agentEnd = events.at(-1) as Extract<AgentEvent, { type: "agent_end" }>;
    expect(agentEnd.messages).toEqual(messages);
  });

  it("continues from an answer that ended in an error (a retry)", async () => {
    const failed: AssistantMessage = { ...emptyAssistantMessage(scriptedModelInfo), stopReason: "error", errorMessage: "overloaded" };
    const { streamFn, requests } = createScriptedModel([{ text: "answer" }]);
    const added = await runAgentLoopContinue({ ...context(), messages: [user("q"), failed] }, config, () => {}, undefined, streamFn);
    expect(added.map((m) => m.role)).toEqual(["assistant"]);
    expect(requests).toHaveLength(1);
  });
});

describe("the request", () => {
  it("takes config.apiKey without getApiKey, getApiKey's key over it, and config.apiKey when getApiKey has none", async () => {
    for (const [extra, sent] of [
      [{ apiKey: "configured" }, "configured"],
      [{ apiKey: "configured", getApiKey: () => "asked" }, "asked"],
      [{ apiKey: "configured", getApiKey: async () => undefined }, "configured"],
    ] as const) {
      const { model } = await runScript({ steps: [{ text: "ok" }], config: extra });
      expect(model.requests[0]!.options.apiKey).toBe(sent);
    }
  });

  it("retry notices need no onRetry: they become provider_retry events all the same", async () => {
    const streamFn: StreamFn = (model, _ctx, options) => {
      // Synchronously, as a stream function may report a retry before it returns its stream.
      options.onRetry?.({ attempt: 1, maxAttempts: 3, delayMs: 10, error: "overloaded" });
      const stream = new AssistantEventStream();
      const message = emptyAssistantMessage(model);
      stream.push({ type: "start", partial: message });
      stream.push({ type: "done", reason: "stop", message });
      return stream;
    };
    const events: AgentEvent[] = [];
    const added = await runAgentLoop([user("q")], context(), config, (e) => void events.push(e), undefined, streamFn);
    expect(added.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(events.filter((e) => e.type === "provider_retry")).toHaveLength(1);
  });
});

describe("the stream, as the loop takes it", () => {
  it("message_start carries a copy of the usage as it was, which later changes to the message leave alone", async () => {
    const usage: Usage = { input: 3, output: 4, cacheRead: 5, cacheWrite: 6, totalTokens: 18, cost: { input: 0.1, output: 0.2, cacheRead: 0.3, cacheWrite: 0.4, total: 1 } };
    let started!: () => void;
    const seen = new Promise<void>((resolve) => (started = resolve));
    const streamFn: StreamFn = (model) => {
      const stream = new AssistantEventStream();
      const message: AssistantMessage = { ...emptyAssistantMessage(model), usage: structuredClone(usage) };
      stream.push({ type: "start", partial: message });
      void seen.then(() => {
        message.usage.output = 40;
        message.usage.cost.total = 9;
        stream.push({ type: "done", reason: "stop", message });
      });
      return stream;
    };
    const events: AgentEvent[] = [];
    await runAgentLoop(
      [user("q")],
      context(),
      config,
      (e) => {
        events.push(e);
        if (e.type === "message_start" && e.message.role === "assistant") started();
      },
      undefined,
      streamFn,
    );
    const start = events.find((e) => e.type === "message_start" && e.message.role === "assistant") as Extract<AgentEvent, { type: "message_start" }>;
    expect((start.message as AssistantMessage).usage).toEqual(usage);
    const end = events.find((e) => e.type === "message_end" && e.message.role === "assistant") as Extract<AgentEvent, { type: "message_end" }>;
    expect((end.message as AssistantMessage).usage).toMatchObject({ output: 40, cost: { total: 9 } });
  });

  it("events before start and after done are not passed on, and the transcript keeps its prompt", async () => {
    const final: AssistantMessage = { ...emptyAssistantMessage(scriptedModelInfo), content: [{ type: "text", text: "hi" }] };
    const early: AssistantMessage = { ...emptyAssistantMessage(scriptedModelInfo), content: [{ type: "text", text: "early" }] };
    const partial: AssistantMessage = { ...emptyAssistantMessage(scriptedModelInfo), content: [] };
    const stream = handMadeStream(
      [
        { type: "text_delta", contentIndex: 0, delta: "early", partial: early },
        { type: "start", partial },
        { type: "text_start", contentIndex: 0, partial },
        { type: "done", reason: "stop", message: final },
        { type: "text_delta", contentIndex: 0, delta: "late", partial },
      ],
      final,
    );
    const events: AgentEvent[] = [];
    const seenByModel: AgentMessage[][] = [];
    const added = await runAgentLoop(
      [user("q")],
      context(),
      {
        ...config,
        // What the next request would be built from: the transcript as the loop holds it.
        shouldStopAfterTurn: ({ context }) => (seenByModel.push([...context.messages]), false),
      },
      (e) => void events.push(e),
      undefined,
      () => stream,
    );
    expect(events.filter((e) => e.type === "message_update").map((e) => e.assistantMessageEvent.type)).toEqual(["text_start"]);
    expect(labelled(events)).toEqual(ONE_ANSWER);
    expect(added).toEqual([user("q"), final]);
    expect(seenByModel).toEqual([[user("q"), final]]);
  });

  it("a call's arguments grown past the bounds at its end are replaced before toolcall_end goes out, though measured within them while streaming", async () => {
    let deltaSeen!: () => void;
    const gate = new Promise<void>((resolve) => (deltaSeen = resolve));
    const streamFn: StreamFn = (model) => {
      const stream = new AssistantEventStream();
      const args: Record<string, unknown> = { a: 1 };
      const call: ToolCall = { type: "toolCall", id: "c", name: "t", arguments: {} };
      const message: AssistantMessage = { ...emptyAssistantMessage(model), content: [call], stopReason: "toolUse" };
      stream.push({ type: "start", partial: message });
      stream.push({ type: "toolcall_start", contentIndex: 0, partial: message });
      call.arguments = args;
      stream.push({ type: "toolcall_delta", contentIndex: 0, delta: '{"a":1', partial: message });
      void gate.then(() => {
        // The same object, grown in place (measured within the bounds at the delta).
        args.a = nested(100);
        stream.push({ type: "toolcall_end", contentIndex: 0, toolCall: call, partial: message });
        stream.push({ type: "done", reason: "toolUse", message });
      });
      return stream;
    };
    const atEvents: string[] = [];
    await runAgentLoop(
      [user("q")],
      { ...context(), tools: [testTool("t")] },
      { ...config, shouldStopAfterTurn: () => true },
      (e) => {
        if (e.type !== "message_update") return;
        const block = e.message.content[0] as ToolCall | undefined;
        const kind = e.assistantMessageEvent.type;
        if (kind === "toolcall_delta" || kind === "toolcall_end") atEvents.push(`${kind}:${block?.argumentsError ?? JSON.stringify(block?.arguments)}`);
        if (kind === "toolcall_delta") deltaSeen();
      },
      undefined,
      streamFn,
    );
    expect(atEvents).toEqual(['toolcall_delta:{"a":1}', "toolcall_end:the arguments were refused: they are nested deeper than 64 levels."]);
  });

  it("measures a streaming call's arguments object once while it streams, then in full at its end and in the final message", async () => {
    const { args, reads } = countedArguments(50);
    const call: ToolCall = { type: "toolCall", id: "c", name: "t", arguments: args };
    const message: AssistantMessage = { ...emptyAssistantMessage(scriptedModelInfo), content: [call], stopReason: "toolUse" };
    const stream = handMadeStream(
      [
        { type: "start", partial: message },
        { type: "toolcall_delta", contentIndex: 0, delta: "{", partial: message },
        { type: "toolcall_delta", contentIndex: 0, delta: "x", partial: message },
        { type: "toolcall_delta", contentIndex: 0, delta: "y", partial: message },
        { type: "toolcall_end", contentIndex: 0, toolCall: call, partial: message },
        { type: "done", reason: "toolUse", message },
      ],
      message,
    );
    let readsAtEnd = -1;
    await runAgentLoop(
      [user("q")],
      context(),
      { ...config, shouldStopAfterTurn: () => true },
      (e) => {
        if (e.type === "message_end" && e.message.role === "assistant") readsAtEnd = reads.count;
      },
      undefined,
      () => stream,
    );
    // Once at the first delta, once at toolcall_end, once for the final message.
    expect(readsAtEnd).toBe(150);
  });

  it("a tool-call event whose block is not there is passed on as it is", async () => {
    const message: AssistantMessage = { ...emptyAssistantMessage(scriptedModelInfo), content: [{ type: "text", text: "x" }] };
    const stream = handMadeStream(
      [
        { type: "start", partial: message },
        { type: "toolcall_delta", contentIndex: 3, delta: "{", partial: message },
        { type: "toolcall_end", contentIndex: 0, toolCall: { type: "toolCall", id: "c", name: "t", arguments: {} }, partial: message },
        { type: "done", reason: "stop", message },
      ],
      message,
    );
    const events: AgentEvent[] = [];
    const added = await runAgentLoop(
      [user("q")],
      context(),
      config,
      (e) => void events.push(e),
      undefined,
      () => stream,
    );
    expect(events.filter((e) => e.type === "message_update").map((e) => e.assistantMessageEvent.type)).toEqual(["toolcall_delta", "toolcall_end"]);
    expect(added.at(-1)).toEqual(message);
    expect(message.content).toEqual([{ type: "text", text: "x" }]);
  });

  it("an answer that comes without a start event: its start and end, in the transcript the next request is built from, its calls bounded", async () => {
    const answers: AssistantMessage[] = [
      {
        ...emptyAssistantMessage(scriptedModelInfo),
        stopReason: "toolUse",
        content: [
          { type: "toolCall", id: "deep", name: "t", arguments: nested(100) },
          { type: "toolCall", id: "fine", name: "t", arguments: { value: "v" } },
        ],
      },
      { ...emptyAssistantMessage(scriptedModelInfo), content: [{ type: "text", text: "done" }] },
    ];
    const requests: string[][] = [];
    let call = 0;
    const streamFn: StreamFn = (_model, llm) => {
      requests.push(llm.messages.map((m) => m.role));
      const stream = new AssistantEventStream();
      const message = answers[call++]!;
      stream.push({ type: "done", reason: message.stopReason as "stop" | "toolUse", message });
      return stream;
    };
    const events: AgentEvent[] = [];
    const added = await runAgentLoop([user("q")], { ...context(), tools: [testTool("t")] }, config, (e) => void events.push(e), undefined, streamFn);
    expect(requests).toEqual([["user"], ["user", "assistant", "toolResult", "toolResult"]]);
    expect(labelled(events).slice(0, 6)).toEqual(["agent_start", "turn_start", "message_start:user", "message_end:user", "message_start:assistant", "message_end:assistant"]);
    const starts = events.filter((e): e is Extract<AgentEvent, { type: "message_start" }> => e.type === "message_start");
    expect(starts.map((e) => e.message)).toEqual([
      user("q"),
      answers[0],
      expect.objectContaining({ role: "toolResult" }),
      expect.objectContaining({ role: "toolResult" }),
      answers[1],
    ]);
    const results = added.filter((m): m is ToolResultMessage => m.role === "toolResult");
    expect(results.map((r) => [r.toolCallId, r.isError])).toEqual([
      ["deep", true],
      ["fine", false],
    ]);
    expect(results[0]!.content).toEqual([{ type: "text", text: "Tool t was not run: the arguments were refused: they are nested deeper than 64 levels." }]);
    expect(types(events).at(-1)).toBe("agent_end");
  });

  it("an abort before a request gives the aborted answer's start and end", async () => {
    const controller = new AbortController();
    controller.abort();
    const events: AgentEvent[] = [];
    const { streamFn } = createScriptedModel([]);
    await runAgentLoop([user("q")], context(), config, (e) => void events.push(e), controller.signal, streamFn);
    expect(labelled(events)).toEqual(ONE_ANSWER);
  });
});
