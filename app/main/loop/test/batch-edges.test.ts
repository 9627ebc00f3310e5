// Edges of a tool batch and of the loop's small helpers that the conformance tests did not pin
// (each found by mutation testing, docs/mutation-testing.md): a sequential batch answers an
// unknown tool without running anything and terminates like a parallel one; an empty batch does
// not terminate; a call that settles after an abort, or throws, leaves no timer and no listener
// behind; only tool results add tools; whitespace-only argument text is `{}`.
import { getEventListeners } from "node:events";
import { Type } from "@sinclair/typebox";
import { setTimeout as delay } from "node:timers/promises";
import { describe, expect, it, vi } from "vitest";
import type { AgentMessage, AssistantMessage, ToolCall, ToolResultMessage } from "../../../shared/agent-types.ts";
import { AbandonedToolError, defaultConvertToLlm, emptyAssistantMessage, executeToolCalls, type AgentTool } from "../index.ts";
import { activeToolNamesByMessage, addedToolNamesThrough } from "../tool-activation.ts";
import { parseToolArguments } from "../tool-arguments.ts";
import { recorder, runScript, testTool } from "./loop-harness.ts";
import { scriptedModelInfo } from "./scripted-model.ts";

const results = (messages: readonly AgentMessage[]) => messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
const textOf = (m: ToolResultMessage) => m.content.map((c) => (c.type === "text" ? c.text : "")).join("");

describe("a sequential batch", () => {
  it("answers an unknown tool with its own error and runs the next call", async () => {
    const { messages } = await runScript({
      tools: [testTool("known")],
      config: { toolExecution: "sequential" },
      steps: [
        {
          toolCalls: [
            { name: "nope", id: "c1" },
            { name: "known", id: "c2" },
          ],
        },
        { text: "ok" },
      ],
    });
    const [unknown, known] = results(messages);
    expect(textOf(unknown!)).toBe("Tool nope not found");
    expect(unknown!.isError).toBe(true);
    expect(textOf(known!)).toBe("known done with {}");
  });

  it("ends the run after the batch when every call says terminate", async () => {
    const { messages, model } = await runScript({
      tools: [testTool("stop", { result: { terminate: true } })],
      config: { toolExecution: "sequential" },
      steps: [{ toolCalls: [{ name: "stop" }, { name: "stop" }] }, { text: "never asked" }],
    });
    expect(model.requests).toHaveLength(1);
    expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "toolResult"]);
  });
});

describe("executeToolCalls", () => {
  it("with no tool call in the message: no result and no terminate", async () => {
    const message: AssistantMessage = { ...emptyAssistantMessage(scriptedModelInfo), content: [{ type: "text", text: "just text" }] };
    const rec = recorder();
    const batch = await executeToolCalls(
      { systemPrompt: "", messages: [], tools: [] },
      message,
      { model: scriptedModelInfo, convertToLlm: defaultConvertToLlm },
      undefined,
      rec.sink,
    );
    expect(batch).toEqual({ messages: [], terminate: false });
    expect(rec.events).toEqual([]);
  });
});

describe("after an abort", () => {
  /** Aborts the run, then settles `stopMs` later: resolving, or rejecting with `throws`. */
  const stopping = (controller: AbortController, stopMs: number, throws?: string): AgentTool => ({
    name: "stopping",
    label: "stopping",
    description: "stops after the abort",
    parameters: Type.Object({}),
    async execute() {
      controller.abort();
      await delay(stopMs);
      if (throws) throw new Error(throws);
      return { content: [{ type: "text", text: "stopped" }], details: {} };
    },
  });

  it.each([
    ["stops in time", undefined, "stopped"],
    ["throws in time", "interrupted", "interrupted"],
  ])("a call that %s leaves no grace timer running", async (_label, throws, text) => {
    const controller = new AbortController();
    const set = vi.spyOn(globalThis, "setTimeout");
    const clear = vi.spyOn(globalThis, "clearTimeout");
    try {
      const { messages } = await runScript({
        steps: [{ toolCalls: [{ name: "stopping", id: "c1" }] }, { text: "never" }],
        tools: [stopping(controller, 10, throws)],
        // A grace no other timer of the run uses, so the grace timer is the one set with it.
        config: { abortGraceMs: 600_000 },
        signal: controller.signal,
      });
      expect(textOf(results(messages)[0]!)).toBe(text);
      const graceTimers = set.mock.calls.flatMap(([, ms], i) => (ms === 600_000 ? [set.mock.results[i]!.value as unknown] : []));
      expect(graceTimers).toHaveLength(1);
      expect(clear.mock.calls.map(([timer]) => timer)).toContain(graceTimers[0]);
    } finally {
      set.mockRestore();
      clear.mockRestore();
    }
  });

  it("a call that throws without an abort leaves no abort listener on the caller's signal", async () => {
    const controller = new AbortController();
    const before = getEventListeners(controller.signal, "abort").length;
    const { messages } = await runScript({
      steps: [{ toolCalls: [{ name: "fails", id: "c1" }] }, { text: "ok" }],
      tools: [testTool("fails", { delayMs: 5, fail: "broken" })],
      signal: controller.signal,
    });
    expect(textOf(results(messages)[0]!)).toBe("broken");
    expect(getEventListeners(controller.signal, "abort").length).toBe(before);
  });

  it("an abandoned call's error is named AbandonedToolError", () => {
    const error = new AbandonedToolError("slow", 20);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("AbandonedToolError");
  });
});

describe("tool activation", () => {
  const call: ToolCall = { type: "toolCall", id: "c1", name: "load", arguments: {} };
  // A stored message of another kind carrying the field (old or hostile data) adds nothing.
  const messages = [
    { role: "user", content: "hi", timestamp: 1, addedToolNames: ["from_user"] },
    { ...emptyAssistantMessage(scriptedModelInfo), content: [call], addedToolNames: ["from_assistant"] },
    { role: "toolResult", toolCallId: "c1", toolName: "load", content: [], isError: false, timestamp: 2, addedToolNames: ["web"] },
  ] as AgentMessage[];

  it("only tool results add tools", () => {
    expect(activeToolNamesByMessage(["read"], messages)).toEqual([["read"], ["read"], ["read", "web"]]);
    expect(addedToolNamesThrough(messages, 1)).toEqual([]);
    expect(addedToolNamesThrough(messages, 2)).toEqual(["web"]);
  });
});

describe("small helpers", () => {
  it("defaultConvertToLlm of an empty transcript is empty", () => {
    expect(defaultConvertToLlm([])).toEqual([]);
  });

  it("argument text of only white space is an empty object, not an error", () => {
    const call: ToolCall = { type: "toolCall", id: "1", name: "bash", arguments: { partial: true } };
    parseToolArguments(call, " \n\t ");
    expect(call).toEqual({ type: "toolCall", id: "1", name: "bash", arguments: {} });
  });

  it("a JSON value V8 names without a position keeps its quoted text once", () => {
    const call: ToolCall = { type: "toolCall", id: "1", name: "bash", arguments: {} };
    parseToolArguments(call, "undefined");
    expect(call.argumentsError).toBe('the arguments are not valid JSON ("undefined"); send them as one complete JSON object.');
  });
});
