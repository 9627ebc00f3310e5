// Conformance through the Agent (docs/agent-loop.md): addedToolNames, steering and follow-up, shouldStopAfterTurn,
// abort, stream errors.
import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { Agent, type AnyAgentTool } from "../index.ts";
import type { AgentEvent, AgentMessage, AssistantMessage, ToolResultMessage } from "../../../shared/agent-types.ts";
import { testTool, types, type ExecutionRecord } from "./loop-harness.ts";
import { createScriptedModel, type ScriptStep } from "./scripted-model.ts";

function agentWith(steps: ScriptStep[], tools: AnyAgentTool[], extra: Partial<ConstructorParameters<typeof Agent>[0]> = {}) {
  const scripted = createScriptedModel(steps);
  const agent = new Agent({ model: scripted.model, streamFn: scripted.streamFn, tools, ...extra });
  const events: AgentEvent[] = [];
  agent.subscribe((e) => void events.push(e));
  return { agent, scripted, events };
}

const toolNames = (request: { context: { tools?: { name: string }[] } }) => (request.context.tools ?? []).map((t) => t.name).sort();
const roles = (messages: AgentMessage[]) => messages.map((m) => m.role);

describe("addedToolNames", () => {
  const loader = testTool("load_skill", { result: { addedToolNames: ["deploy"] } });
  const plain = testTool("plain");
  const deploy = testTool("deploy");

  it("is on the tool-result message only when non-empty", async () => {
    const empty = testTool("empty", { result: { addedToolNames: [] } });
    const { agent } = agentWith([{ toolCalls: [{ name: "load_skill" }, { name: "empty" }, { name: "plain" }] }, { text: "ok" }], [loader, empty, plain, deploy], {
      baseToolNames: ["load_skill", "empty", "plain"],
    });
    await agent.prompt("go");
    const results = agent.messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
    expect(results.map((r) => "addedToolNames" in r)).toEqual([true, false, false]);
    expect(results[0]!.addedToolNames).toEqual(["deploy"]);
  });

  it("tools are callable from the next turn, not before; the rebuilt set at every index equals the live one", async () => {
    const log: ExecutionRecord[] = [];
    const deployLogged = testTool("deploy", { log });
    const { agent, scripted, events } = agentWith(
      [
        {
          toolCalls: [
            { name: "load_skill", id: "l" },
            { name: "deploy", id: "too-early" },
          ],
        },
        { toolCalls: [{ name: "deploy", id: "now" }] },
        { text: "deployed" },
      ],
      [loader, plain, deployLogged],
      { baseToolNames: ["load_skill", "plain"] },
    );
    // Record the live active set each time a message is committed.
    const live: string[][] = [];
    agent.subscribe((e) => {
      if (e.type === "message_end") live.push(agent.activeToolNames.sort());
    });
    await agent.prompt("deploy it");
    const early = agent.messages.find((m): m is ToolResultMessage => m.role === "toolResult" && m.toolCallId === "too-early")!;
    expect(early.isError).toBe(true);
    expect(early.content[0]).toEqual({ type: "text", text: "Tool deploy not found" });
    expect(log.map((l) => l.id)).toEqual(["now"]);
    expect(toolNames(scripted.requests[0]!)).toEqual(["load_skill", "plain"]);
    expect(toolNames(scripted.requests[1]!)).toEqual(["deploy", "load_skill", "plain"]);
    expect(live).toHaveLength(agent.messages.length);
    agent.messages.forEach((_m, i) => expect(agent.activeToolNamesAt(i).sort()).toEqual(live[i]));
    expect(events.filter((e) => e.type === "agent_end")).toHaveLength(1);
    // A new Agent over the stored transcript has the same active set.
    const reopened = new Agent({
      model: scripted.model,
      streamFn: scripted.streamFn,
      tools: [loader, plain, deploy],
      baseToolNames: ["load_skill", "plain"],
      messages: agent.messages,
    });
    expect(reopened.activeToolNames.sort()).toEqual(live.at(-1));
  });
});

describe("steering, follow-up, shouldStopAfterTurn", () => {
  it("steering is injected after the current batch, before the next request", async () => {
    const { agent, scripted } = agentWith([{ toolCalls: [{ name: "slow", id: "s" }] }, { text: "took the steer into account" }], [testTool("slow", { delayMs: 40 })]);
    agent.subscribe((e) => {
      if (e.type === "tool_execution_start") agent.steer("use tabs, not spaces");
    });
    await agent.prompt("format the file");
    expect(roles(agent.messages)).toEqual(["user", "assistant", "toolResult", "user", "assistant"]);
    expect(agent.messages[3]).toMatchObject({ role: "user", content: "use tabs, not spaces" });
    const second = scripted.requests[1]!.context.messages;
    expect(roles(second)).toEqual(["user", "assistant", "toolResult", "user"]);
  });

  it("a follow-up waits until the agent would stop", async () => {
    const { agent, scripted, events } = agentWith([{ toolCalls: [{ name: "t" }] }, { text: "first task done" }, { text: "second task done" }], [testTool("t", { delayMs: 10 })]);
    agent.subscribe((e) => {
      if (e.type === "tool_execution_start") agent.followUp("then write the changelog");
    });
    await agent.prompt("fix the bug");
    expect(roles(agent.messages)).toEqual(["user", "assistant", "toolResult", "assistant", "user", "assistant"]);
    expect(scripted.requests).toHaveLength(3);
    expect(types(events).filter((t) => t === "agent_start" || t === "agent_end")).toEqual(["agent_start", "agent_end"]);
  });

  it("queues hand out one message at a time by default, all at once in 'all' mode", async () => {
    for (const mode of ["one-at-a-time", "all"] as const) {
      const { agent, scripted } = agentWith([{ text: "a" }, { text: "b" }, { text: "c" }], [], { followUpMode: mode });
      agent.followUp("one");
      agent.followUp("two");
      await agent.prompt("start");
      expect(scripted.requests).toHaveLength(mode === "all" ? 2 : 3);
    }
  });

  it("shouldStopAfterTurn ends the run gracefully after the current turn", async () => {
    const { agent, scripted, events } = agentWith([{ toolCalls: [{ name: "t" }] }, { text: "never requested" }], [testTool("t")], {
      shouldStopAfterTurn: ({ toolResults }) => toolResults.length > 0,
    });
    await agent.prompt("go");
    expect(scripted.requests).toHaveLength(1);
    expect(roles(agent.messages)).toEqual(["user", "assistant", "toolResult"]);
    expect(types(events).slice(-2)).toEqual(["turn_end", "agent_end"]);
  });

  it("rejects a second prompt while running", async () => {
    const { agent } = agentWith([{ text: "slow", delayMs: 30 }], []);
    const first = agent.prompt("one");
    await expect(agent.prompt("two")).rejects.toThrow(/already running/);
    await first;
  });
});

describe("abort", () => {
  const lastAssistant = (messages: AgentMessage[]) => messages.filter((m): m is AssistantMessage => m.role === "assistant").at(-1)!;

  it("while streaming: ends with an aborted assistant message keeping what arrived, and no unanswered tool call", async () => {
    const { agent, events } = agentWith([{ text: "a long answer that streams slowly", toolCalls: [{ name: "t", id: "late" }], chunkSize: 4, deltaDelayMs: 5 }], [testTool("t")]);
    let updates = 0;
    agent.subscribe((e) => {
      if (e.type === "message_update" && ++updates === 3) agent.abort();
    });
    await agent.prompt("go");
    const last = lastAssistant(agent.messages);
    expect(last.stopReason).toBe("aborted");
    expect(last.content[0]).toMatchObject({ type: "text" });
    expect((last.content[0] as { text: string }).text.length).toBeGreaterThan(0);
    expect(types(events).slice(-2)).toEqual(["turn_end", "agent_end"]);
    expect(events.some((e) => e.type === "tool_execution_start")).toBe(false);
  });

  it("while tools run: tools and hooks get the signal, the run ends aborted, every call has a result", async () => {
    const log: ExecutionRecord[] = [];
    const hookSignals: (AbortSignal | undefined)[] = [];
    const { agent, scripted } = agentWith(
      [
        {
          toolCalls: [
            { name: "hang", id: "h1" },
            { name: "hang", id: "h2" },
          ],
        },
        { text: "never" },
      ],
      [testTool("hang", { hangUntilAborted: true, log })],
      {
        beforeToolCall: async (_ctx, signal) => void hookSignals.push(signal),
        afterToolCall: async (_ctx, signal) => void hookSignals.push(signal),
      },
    );
    agent.subscribe((e) => {
      if (e.type === "tool_execution_start" && e.toolCallId === "h2") setTimeout(() => agent.abort(), 10);
    });
    await agent.prompt("go");
    expect(log).toHaveLength(2);
    expect(log.every((l) => l.signal?.aborted)).toBe(true);
    expect(hookSignals).toHaveLength(4);
    expect(hookSignals.every((s) => s?.aborted)).toBe(true);
    const results = agent.messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
    expect(results.map((r) => [r.toolCallId, r.isError])).toEqual([
      ["h1", true],
      ["h2", true],
    ]);
    expect(lastAssistant(agent.messages).stopReason).toBe("aborted");
    expect(scripted.requests).toHaveLength(1);
    expect(agent.isRunning).toBe(false);
  });

  it("stops waiting for a tool that ignores abort: its call ends aborted, its late result is dropped", async () => {
    let finishLate: (() => void) | undefined;
    const stubborn: AnyAgentTool = {
      name: "stubborn",
      label: "stubborn",
      description: "ignores its abort signal",
      parameters: Type.Object({}),
      execute: (_id, _args, _signal, onUpdate) =>
        new Promise((resolve) => {
          finishLate = () => {
            onUpdate?.({ content: [{ type: "text", text: "late update" }], details: {} });
            resolve({ content: [{ type: "text", text: "late result" }], details: {} });
          };
        }),
    };
    const { agent, events } = agentWith(
      [
        {
          toolCalls: [
            { name: "stubborn", id: "s1" },
            { name: "hang", id: "h1" },
          ],
        },
        { text: "never" },
      ],
      [stubborn, testTool("hang", { hangUntilAborted: true })],
      { abortGraceMs: 50 },
    );
    agent.subscribe((e) => {
      if (e.type === "tool_execution_start" && e.toolCallId === "h1") setTimeout(() => agent.abort(), 10);
    });
    await agent.prompt("go");
    const results = agent.messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
    expect(results.map((r) => [r.toolCallId, r.isError])).toEqual([
      ["s1", true],
      ["h1", true],
    ]);
    expect((results[0]!.content[0] as { text: string }).text).toMatch(/^Aborted: stubborn did not stop within 50 ms of the abort/);
    expect(lastAssistant(agent.messages).stopReason).toBe("aborted");
    expect(agent.isRunning).toBe(false);
    const seen = events.length;
    finishLate!();
    await new Promise((r) => setTimeout(r, 20));
    expect(events.length).toBe(seen);
    expect(JSON.stringify(agent.messages)).not.toContain("late result");
  });

  it("tool calls that streamed before an abort get 'not run' results", async () => {
    const { agent } = agentWith(
      [
        {
          toolCalls: [
            { name: "t", id: "a" },
            { name: "t", id: "b" },
          ],
          chunkSize: 2,
          deltaDelayMs: 3,
        },
      ],
      [testTool("t")],
    );
    agent.subscribe((e) => {
      if (e.type === "message_update" && e.assistantMessageEvent.type === "toolcall_start" && e.assistantMessageEvent.contentIndex === 1) agent.abort();
    });
    await agent.prompt("go");
    const results = agent.messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
    expect(results.map((r) => r.toolCallId)).toEqual(["a", "b"]);
    expect(results.every((r) => r.isError && /aborted/.test((r.content[0] as { text: string }).text))).toBe(true);
  });
});

describe("message pipeline", () => {
  it("transformContext runs before every request, then convertToLlm; custom messages never reach the model", async () => {
    const seen: number[] = [];
    const { agent, scripted } = agentWith([{ toolCalls: [{ name: "t" }] }, { text: "done" }], [testTool("t")], {
      transformContext: async (messages) => {
        seen.push(messages.length);
        return messages.filter((m) => !(m.role === "user" && m.content === "drop me"));
      },
    });
    agent.messages.push({ role: "custom", customType: "note", content: "an app notice", display: true, timestamp: 1 }, { role: "user", content: "drop me", timestamp: 1 });
    await agent.prompt("go");
    expect(seen).toEqual([3, 5]);
    for (const request of scripted.requests) {
      expect(request.context.messages.some((m) => (m as { role: string }).role === "custom")).toBe(false);
      expect(JSON.stringify(request.context.messages)).not.toContain("drop me");
    }
    expect(roles(agent.messages)).toEqual(["custom", "user", "user", "assistant", "toolResult", "assistant"]);
  });
});

describe("stream errors", () => {
  it("end the run with turn_end and agent_end; no tool runs", async () => {
    const log: ExecutionRecord[] = [];
    const { agent, events } = agentWith(
      [{ text: "partial answer", toolCalls: [{ name: "t", id: "x" }], error: "connection reset by peer" }, { text: "unused" }],
      [testTool("t", { log })],
    );
    await agent.prompt("go");
    expect(log).toHaveLength(0);
    const last = agent.messages.filter((m): m is AssistantMessage => m.role === "assistant").at(-1)!;
    expect(last.stopReason).toBe("error");
    expect(last.errorMessage).toBe("connection reset by peer");
    expect((last.content[0] as { text: string }).text).toBe("partial answer");
    expect(types(events).slice(-2)).toEqual(["turn_end", "agent_end"]);
    expect(events.some((e) => e.type.startsWith("tool_execution"))).toBe(false);
    const result = agent.messages.find((m): m is ToolResultMessage => m.role === "toolResult")!;
    expect(result).toMatchObject({ toolCallId: "x", isError: true });
  });

  it("a run can be continued after an error", async () => {
    const { agent, scripted } = agentWith([{ error: "overloaded" }, { text: "recovered" }], []);
    await agent.prompt("hi");
    agent.messages.pop(); // drop the failed answer, as a retry would
    await agent.continue();
    expect(scripted.requests).toHaveLength(2);
    expect((agent.messages.at(-1) as AssistantMessage).stopReason).toBe("stop");
  });
});
