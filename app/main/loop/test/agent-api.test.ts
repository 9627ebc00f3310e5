// The Agent's and the loop functions' own API beyond the conformance suites: model and tool
// changes, app entries, idleness, a loop that throws, subscribers that throw, prompts of every
// shape, continue's refusals, provider retry notices, abort reasons, and streams that bend the
// rules (no start event, oversized arguments while streaming).
import { describe, expect, it } from "vitest";
import type { AgentEvent, AgentMessage, AssistantMessage, ToolCall } from "../../../shared/agent-types.ts";
import { Agent, AssistantEventStream, runAgentLoop, runAgentLoopContinue, type StreamFn } from "../index.ts";
import { defaultConvertToLlm, emptyAssistantMessage } from "../messages.ts";
import { testTool } from "./loop-harness.ts";
import { createScriptedModel, scriptedModelInfo } from "./scripted-model.ts";

const user = (content: string): AgentMessage => ({ role: "user", content, timestamp: 0 });
const texts = (messages: AgentMessage[]) =>
  messages.map((m) => (m.role === "user" ? `user:${typeof m.content === "string" ? m.content : m.content.map((c) => (c.type === "text" ? c.text : c.type)).join("+")}` : m.role));

function agentWith(steps: Parameters<typeof createScriptedModel>[0], extra: Partial<ConstructorParameters<typeof Agent>[0]> = {}) {
  const scripted = createScriptedModel(steps);
  const agent = new Agent({ model: scripted.model, streamFn: scripted.streamFn, tools: [], ...extra });
  const events: AgentEvent[] = [];
  agent.subscribe((e) => void events.push(e));
  return { agent, scripted, events };
}

describe("Agent", () => {
  it("prompts of every shape, images included, and an empty system prompt by default", async () => {
    const { agent, scripted } = agentWith([{ text: "1" }, { text: "2" }, { text: "3" }]);
    await agent.prompt("plain");
    await agent.prompt(user("as a message"));
    await agent.prompt("with a picture", [{ type: "image", data: "AAAA", mimeType: "image/png" }]);
    expect(texts(agent.messages)).toEqual(["user:plain", "assistant", "user:as a message", "assistant", "user:with a picture+image", "assistant"]);
    expect(scripted.requests[0]!.context.systemPrompt).toBe("");
    const { agent: two } = agentWith([{ text: "ok" }]);
    await two.prompt([user("a"), user("b")]);
    expect(texts(two.messages)).toEqual(["user:a", "user:b", "assistant"]);
  });

  it("is running while a run goes, and waitForIdle waits for its end", async () => {
    const { agent } = agentWith([{ text: "slow", delayMs: 30 }]);
    expect(agent.isRunning).toBe(false);
    await agent.waitForIdle();
    const run = agent.prompt("go");
    expect(agent.isRunning).toBe(true);
    await expect(agent.continue()).rejects.toThrow(/already running/);
    await agent.waitForIdle();
    expect(agent.isRunning).toBe(false);
    await run;
  });

  it("setModel and setTools apply from the next run; setTools keeps what the transcript added", async () => {
    const other = { ...scriptedModelInfo, id: "other" };
    const { agent, scripted } = agentWith([{ toolCalls: [{ name: "load" }] }, { text: "a" }, { text: "b" }], {
      tools: [testTool("load", { result: { addedToolNames: ["extra"] } }), testTool("extra")],
      baseToolNames: ["load"],
    });
    await agent.prompt("one");
    agent.setModel(other);
    agent.setTools([testTool("load"), testTool("extra"), testTool("fresh")]);
    expect(agent.activeToolNames.sort()).toEqual(["extra", "fresh", "load"]);
    agent.setTools([testTool("load"), testTool("extra")], ["load"]);
    expect(agent.activeToolNames.sort()).toEqual(["extra", "load"]);
    await agent.prompt("two");
    expect(scripted.requests.at(-1)!.model.id).toBe("other");
    expect(
      scripted.requests
        .at(-1)!
        .context.tools!.map((t) => t.name)
        .sort(),
    ).toEqual(["extra", "load"]);
  });

  it("appendEntry adds an app message with its events; it is not sent to the model", async () => {
    const { agent, scripted, events } = agentWith([{ text: "ok" }]);
    const note: AgentMessage = { role: "custom", customType: "note", content: "remember", display: true, timestamp: 0 };
    await agent.appendEntry(note);
    expect(agent.messages).toEqual([note]);
    expect(events.map((e) => e.type)).toEqual(["message_start", "message_end"]);
    await agent.prompt("go");
    expect(scripted.requests[0]!.context.messages.map((m) => m.role)).toEqual(["user"]);
  });

  it("a loop that throws is recorded as an error entry and an agent_end, and the agent is idle again", async () => {
    const { agent, events } = agentWith([{ text: "never" }], {
      convertToLlm: () => {
        throw new Error("converter broke");
      },
    });
    await agent.prompt("go");
    const last = agent.messages.at(-1)!;
    expect(last).toMatchObject({ role: "custom", customType: "error", content: "The agent stopped unexpectedly: converter broke", display: true });
    expect(events.at(-1)).toEqual({ type: "agent_end", messages: [last] });
    expect(agent.isRunning).toBe(false);
  });

  it("a throwing subscriber is reported and skipped; the others and the unsubscribed get what they should", async () => {
    const reported: [unknown, string][] = [];
    const { agent, events } = agentWith([{ text: "ok" }], { onSubscriberError: (error, event) => reported.push([error, event.type]) });
    agent.subscribe((e) => {
      if (e.type === "agent_start") throw new Error("bad listener");
    });
    const late: AgentEvent[] = [];
    const unsubscribe = agent.subscribe((e) => void late.push(e));
    unsubscribe();
    await agent.prompt("go");
    expect(reported).toEqual([[new Error("bad listener"), "agent_start"]]);
    expect(events.at(-1)!.type).toBe("agent_end");
    expect(late).toEqual([]);
  });

  it("steer and followUp take messages as well as text", async () => {
    const { agent } = agentWith([{ text: "a" }, { text: "b" }]);
    const run = agent.prompt("go");
    // Queued before the run's first poll: the steering goes in before the first request.
    agent.steer(user("steered"));
    agent.followUp(user("followed"));
    await run;
    expect(texts(agent.messages)).toEqual(["user:go", "user:steered", "assistant", "user:followed", "assistant"]);
  });
});

describe("runAgentLoopContinue", () => {
  const context = (messages: AgentMessage[]) => ({ systemPrompt: "", messages, tools: [] });
  const config = { model: scriptedModelInfo, convertToLlm: defaultConvertToLlm };

  it("refuses an empty transcript and one ending in a completed answer, before any event", async () => {
    const events: AgentEvent[] = [];
    const { streamFn } = createScriptedModel([]);
    await expect(runAgentLoopContinue(context([]), config, (e) => void events.push(e), undefined, streamFn)).rejects.toThrow("Cannot continue: the session has no messages.");
    const done: AssistantMessage = { ...emptyAssistantMessage(scriptedModelInfo), stopReason: "stop" };
    await expect(runAgentLoopContinue(context([user("q"), done]), config, (e) => void events.push(e), undefined, streamFn)).rejects.toThrow(/completed assistant message/);
    expect(events).toEqual([]);
  });

  it("continues from a user message, and from an aborted answer, without adding a prompt", async () => {
    for (const last of [user("q"), { ...emptyAssistantMessage(scriptedModelInfo), stopReason: "aborted" as const }]) {
      const { streamFn } = createScriptedModel([{ text: "answer" }]);
      const added = await runAgentLoopContinue(context([user("q"), last]), config, () => {}, undefined, streamFn);
      expect(added.map((m) => m.role)).toEqual(["assistant"]);
    }
  });
});

describe("the stream, as the loop takes it", () => {
  const context = { systemPrompt: "", messages: [], tools: [] };

  it("retry notices become provider_retry events, in order, before what follows, and reach onRetry", async () => {
    const seen: number[] = [];
    const streamFn: StreamFn = (model, _ctx, options) => {
      const stream = new AssistantEventStream();
      const message = emptyAssistantMessage(model);
      void (async () => {
        options.onRetry?.({ attempt: 1, maxAttempts: 3, delayMs: 10, error: "overloaded" });
        options.onRetry?.({ attempt: 2, maxAttempts: 3, delayMs: 20, error: "overloaded" });
        stream.push({ type: "start", partial: message });
        stream.push({ type: "done", reason: "stop", message });
      })();
      return stream;
    };
    const events: AgentEvent[] = [];
    await runAgentLoop(
      [user("q")],
      context,
      { model: scriptedModelInfo, convertToLlm: defaultConvertToLlm, onRetry: (r) => seen.push(r.attempt) },
      (e) => void events.push(e),
      undefined,
      streamFn,
    );
    const types = events.map((e) => (e.type === "provider_retry" ? `retry${e.retry.attempt}` : e.type));
    expect(types.slice(types.indexOf("retry1"), types.indexOf("retry1") + 3)).toEqual(["retry1", "retry2", "message_start"]);
    expect(seen).toEqual([1, 2]);
  });

  it("a stream that ends without a start event still gives message_start and message_end", async () => {
    const streamFn: StreamFn = (model) => {
      const stream = new AssistantEventStream();
      const message: AssistantMessage = { ...emptyAssistantMessage(model), content: [{ type: "text", text: "whole" }] };
      stream.push({ type: "done", reason: "stop", message });
      return stream;
    };
    const events: AgentEvent[] = [];
    const added = await runAgentLoop([user("q")], context, { model: scriptedModelInfo, convertToLlm: defaultConvertToLlm }, (e) => void events.push(e), undefined, streamFn);
    expect(added.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(events.filter((e) => e.type === "message_end").map((e) => (e as { message: AgentMessage }).message.role)).toEqual(["user", "assistant"]);
  });

  it("message_start of a streamed answer carries the message without blocks, even when the provider is ahead", async () => {
    const streamFn: StreamFn = (model) => {
      const stream = new AssistantEventStream();
      const message: AssistantMessage = { ...emptyAssistantMessage(model), content: [] };
      // Everything pushed at once: by the time the loop takes `start`, the message has its text.
      stream.push({ type: "start", partial: message });
      message.content.push({ type: "text", text: "" });
      stream.push({ type: "text_start", contentIndex: 0, partial: message });
      (message.content[0] as { text: string }).text = "hello";
      stream.push({ type: "text_delta", contentIndex: 0, delta: "hello", partial: message });
      message.usage.input = 5;
      stream.push({ type: "done", reason: "stop", message });
      return stream;
    };
    const events: AgentEvent[] = [];
    await runAgentLoop([user("q")], context, { model: scriptedModelInfo, convertToLlm: defaultConvertToLlm }, (e) => void events.push(e), undefined, streamFn);
    const start = events.filter((e) => e.type === "message_start").at(-1) as Extract<AgentEvent, { type: "message_start" }>;
    expect(start.message).toMatchObject({ role: "assistant", content: [] });
    const updates = events.filter((e): e is Extract<AgentEvent, { type: "message_update" }> => e.type === "message_update");
    expect(updates.map((e) => e.assistantMessageEvent.type)).toEqual(["text_start", "text_delta"]);
    const end = events.find((e) => e.type === "message_end" && e.message.role === "assistant") as Extract<AgentEvent, { type: "message_end" }>;
    expect(end.message).toMatchObject({ content: [{ type: "text", text: "hello" }], usage: { input: 5 } });
  });

  it("tool-call arguments over the bounds are replaced while streaming, before any event carries them", async () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100; i++) deep = { a: deep };
    const streamFn: StreamFn = (model) => {
      const stream = new AssistantEventStream();
      const call: ToolCall = { type: "toolCall", id: "c", name: "t", arguments: {} };
      const message: AssistantMessage = { ...emptyAssistantMessage(model), content: [{ type: "text", text: "" }, call], stopReason: "toolUse" };
      stream.push({ type: "start", partial: message });
      stream.push({ type: "text_delta", contentIndex: 0, delta: "", partial: message });
      call.arguments = deep as Record<string, unknown>;
      stream.push({ type: "toolcall_delta", contentIndex: 1, delta: "{", partial: message });
      stream.push({ type: "done", reason: "toolUse", message });
      return stream;
    };
    const depths: boolean[] = [];
    await runAgentLoop(
      [user("q")],
      { ...context, tools: [testTool("t")] },
      { model: scriptedModelInfo, convertToLlm: defaultConvertToLlm, shouldStopAfterTurn: () => true },
      (e) => {
        if (e.type === "message_update" && e.assistantMessageEvent.type === "toolcall_delta") {
          const block = e.message.content[1] as ToolCall;
          depths.push(block.argumentsError !== undefined && Object.keys(block.arguments).length === 0);
        }
      },
      undefined,
      streamFn,
    );
    expect(depths).toEqual([true]);
  });

  it("an abort before a request: the reason when it is text, else the user's stop", async () => {
    for (const [reason, said] of [
      ["Lathe could not save", "Lathe could not save"],
      [new Error("x"), "Aborted by the user."],
    ] as const) {
      const controller = new AbortController();
      controller.abort(reason);
      const { streamFn, requests } = createScriptedModel([{ text: "never" }]);
      const added = await runAgentLoop([user("q")], context, { model: scriptedModelInfo, convertToLlm: defaultConvertToLlm }, () => {}, controller.signal, streamFn);
      expect(added.at(-1)).toMatchObject({ role: "assistant", stopReason: "aborted", errorMessage: said });
      expect(requests).toHaveLength(0);
    }
  });
});
