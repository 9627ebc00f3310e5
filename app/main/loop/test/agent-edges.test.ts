// The Agent's edges that agent.test.ts and agent-api.test.ts pass over (docs/agent-loop.md, "The
// Agent"): the active set when names have no tool or the catalogue changes, what an app entry can
// and cannot activate, the follow-up queue's copy, abort while idle, a failed loop's events and
// subscribers that throw without onSubscriberError.
import { describe, expect, it } from "vitest";
import type { AgentEvent, AgentMessage, ToolResultMessage } from "../../../shared/agent-types.ts";
import { Agent, userMessage } from "../index.ts";
import { testTool } from "./loop-harness.ts";
import { createScriptedModel } from "./scripted-model.ts";

const addedBy = (names: string[]): ToolResultMessage => ({
  role: "toolResult",
  toolCallId: "c",
  toolName: "load",
  content: [{ type: "text", text: "loaded" }],
  details: {},
  isError: false,
  timestamp: 0,
  addedToolNames: names,
});

function agentWith(options: Partial<ConstructorParameters<typeof Agent>[0]> = {}) {
  const scripted = createScriptedModel([{ text: "ok" }]);
  return new Agent({ model: scripted.model, streamFn: scripted.streamFn, tools: [], ...options });
}

describe("the Agent's active tools", () => {
  it("leave out a base name no tool answers to", () => {
    const agent = agentWith({ tools: [testTool("a")], baseToolNames: ["a", "missing"] });
    expect(agent.activeTools.map((t) => t.name)).toEqual(["a"]);
    expect(agent.activeToolNames).toEqual(["a"]);
  });

  it("setTools forgets tools no longer given, even those the transcript added", () => {
    const agent = agentWith({ tools: [testTool("a"), testTool("b")], baseToolNames: ["a"], messages: [addedBy(["b"])] });
    expect(agent.activeToolNames).toEqual(["a", "b"]);
    agent.setTools([testTool("a")]);
    expect(agent.activeToolNames).toEqual(["a"]);
    expect(agent.activeTools.map((t) => t.name)).toEqual(["a"]);
  });

  it("setTools with a new base set leaves the old base names out", () => {
    const agent = agentWith({ tools: [testTool("a"), testTool("b")] });
    expect(agent.activeToolNames).toEqual(["a", "b"]);
    agent.setTools([testTool("a"), testTool("b")], ["b"]);
    expect(agent.activeToolNames).toEqual(["b"]);
  });

  it("an app entry that carries addedToolNames activates nothing, as the set rebuilt from the transcript says", async () => {
    const agent = agentWith({ tools: [testTool("a"), testTool("b")], baseToolNames: ["a"] });
    const entry = { role: "custom", customType: "note", content: "x", display: true, timestamp: 0, addedToolNames: ["b"] } as unknown as AgentMessage;
    await agent.appendEntry(entry);
    expect(agent.activeToolNames).toEqual(["a"]);
    expect(agent.activeToolNamesAt(agent.messages.length - 1)).toEqual(["a"]);
    // A tool result does.
    await agent.appendEntry(addedBy(["b"]));
    expect(agent.activeToolNames).toEqual(["a", "b"]);
  });
});

describe("the Agent's queues, abort and failures", () => {
  it("queued hands out the follow-ups waiting", () => {
    const agent = agentWith();
    agent.followUp("later");
    agent.steer("now");
    const { steering, followUp } = agent.queued;
    expect(followUp).toEqual([{ ...userMessage("later"), timestamp: expect.any(Number) }]);
    expect(steering).toEqual([{ ...userMessage("now"), timestamp: expect.any(Number) }]);
  });

  it("abort while idle does nothing", () => {
    const agent = agentWith();
    expect(() => agent.abort()).not.toThrow();
    expect(agent.isRunning).toBe(false);
  });

  it("a loop that throws: the error entry comes with its start and end, then agent_end", async () => {
    const agent = agentWith({
      convertToLlm: () => {
        throw new Error("broken pipeline");
      },
    });
    const events: AgentEvent[] = [];
    agent.subscribe((e) => void events.push(e));
    await agent.prompt("go");
    const tail = events.slice(-3);
    expect(tail.map((e) => e.type)).toEqual(["message_start", "message_end", "agent_end"]);
    const entry = (tail[0] as Extract<AgentEvent, { type: "message_start" }>).message;
    expect(entry).toMatchObject({ role: "custom", customType: "error", content: "The agent stopped unexpectedly: broken pipeline" });
    expect((tail[1] as Extract<AgentEvent, { type: "message_end" }>).message).toBe(entry);
  });

  it("a subscriber that throws is skipped without onSubscriberError, and the run goes on", async () => {
    const agent = agentWith();
    const seen: string[] = [];
    agent.subscribe(() => {
      throw new Error("subscriber bug");
    });
    agent.subscribe((e) => void seen.push(e.type));
    await agent.prompt("go");
    expect(seen.at(0)).toBe("agent_start");
    expect(seen.at(-1)).toBe("agent_end");
    expect(agent.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
  });
});
