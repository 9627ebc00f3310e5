// Conformance (docs/agent-loop.md): the sharp edges of issue 20: bad tool output, thrown non-Errors, argument
// coercion, the args of tool events, queue copies, unknown addedToolNames, late updates, and
// arguments that are not JSON.
import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import { Agent, type AgentTool, type AnyAgentTool } from "../index.ts";
import type { AgentEvent, AgentMessage, ToolResultMessage } from "../../../shared/agent-types.ts";
import { runScript, testTool, type ExecutionRecord } from "./loop-harness.ts";
import { createScriptedModel } from "./scripted-model.ts";

const results = (messages: AgentMessage[]) => messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
const textOf = (m: ToolResultMessage) => m.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");

function toolReturning(name: string, value: unknown): AnyAgentTool {
  const tool = testTool(name);
  tool.execute = async () => value as never;
  return tool;
}

function toolThrowing(name: string, thrown: unknown): AnyAgentTool {
  const tool = testTool(name);
  tool.execute = async () => {
    throw thrown;
  };
  return tool;
}

describe("bad tool output becomes an error result", () => {
  it.each([
    ["undefined", undefined, /returned nothing \(undefined\)/],
    ["null", null, /returned null/],
    ["a string", "done", /returned a string/],
    ["no content list", { details: {} }, /content is missing/],
    ["content that is not a list", { content: "hi", details: {} }, /content is a string, not a list/],
    ["a content item that is neither text nor image", { content: [{ type: "video" }], details: {} }, /content\[0\] is neither text nor an image/],
    ["addedToolNames that are not names", { content: [], details: {}, addedToolNames: "deploy" }, /addedToolNames is not a list of tool names/],
  ])("execute resolving %s", async (_what, value, expected) => {
    const { messages, events } = await runScript({
      tools: [toolReturning("bad", value)],
      steps: [{ toolCalls: [{ name: "bad", id: "b" }] }, { text: "ok" }],
    });
    const [r] = results(messages);
    expect(r!.isError).toBe(true);
    expect(textOf(r!)).toMatch(/^Tool bad gave an unusable result: /);
    expect(textOf(r!)).toMatch(expected);
    expect(r!.content).toHaveLength(1);
    expect(messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "stop" });
    expect(events.at(-1)!.type).toBe("agent_end");
    const end = events.find((e) => e.type === "tool_execution_end") as Extract<AgentEvent, { type: "tool_execution_end" }>;
    expect(end.isError).toBe(true);
  });

  it("afterToolCall sees the error result, not the bad value", async () => {
    let seen: unknown;
    await runScript({
      tools: [toolReturning("bad", undefined)],
      config: { afterToolCall: async (ctx) => void (seen = { isError: ctx.isError, content: ctx.result.content.length }) },
      steps: [{ toolCalls: [{ name: "bad" }] }, { text: "ok" }],
    });
    expect(seen).toEqual({ isError: true, content: 1 });
  });
});

describe("a thrown non-Error says what it is", () => {
  it.each([
    ["an object with a message", { message: "permission denied", code: 13 }, "permission denied"],
    ["a string", "disk full", "disk full"],
    ["an object without a message", { code: "EACCES", path: "/x" }, '{"code":"EACCES","path":"/x"}'],
    ["a number", 42, "42"],
    ["undefined", undefined, "undefined (thrown without an error value)"],
    ["an Error without a message", new TypeError(""), "TypeError"],
  ])("%s", async (_what, thrown, text) => {
    const { messages } = await runScript({
      tools: [toolThrowing("t", thrown)],
      steps: [{ toolCalls: [{ name: "t" }] }, { text: "ok" }],
    });
    expect(textOf(results(messages)[0]!)).toBe(text);
  });

  it("a cyclic object, a BigInt and a throwing getter do not break the loop", async () => {
    const cyclic: Record<string, unknown> = { code: 1 };
    cyclic.self = cyclic;
    const hostile = Object.defineProperty({}, "message", {
      get: () => {
        throw new Error("gotcha");
      },
    });
    const cases: [unknown, string][] = [
      [cyclic, "[object Object]"],
      [{ n: 1n }, "[object Object]"],
      [hostile, "an error value that cannot be shown"],
    ];
    for (const [thrown, text] of cases) {
      const { messages } = await runScript({
        tools: [toolThrowing("t", thrown)],
        steps: [{ toolCalls: [{ name: "t" }] }, { text: "ok" }],
      });
      const [r] = results(messages);
      expect(r!.isError).toBe(true);
      expect(textOf(r!)).toBe(text);
    }
  });

  it("a long JSON text is shortened", async () => {
    const { messages } = await runScript({
      tools: [toolThrowing("t", { data: "x".repeat(10_000) })],
      steps: [{ toolCalls: [{ name: "t" }] }, { text: "ok" }],
    });
    const text = textOf(results(messages)[0]!);
    expect(text.length).toBeLessThan(1_100);
    expect(text.endsWith("…")).toBe(true);
  });

  it("beforeToolCall throwing an object uses its message too", async () => {
    const { messages } = await runScript({
      tools: [testTool("t")],
      config: {
        beforeToolCall: async () => {
          throw { message: "policy store locked" };
        },
      },
      steps: [{ toolCalls: [{ name: "t" }] }, { text: "ok" }],
    });
    expect(textOf(results(messages)[0]!)).toBe("policy store locked");
  });
});

describe("argument coercion before validation", () => {
  const schema = Type.Object({
    count: Type.Integer({ minimum: 1 }),
    ratio: Type.Optional(Type.Number()),
    all: Type.Optional(Type.Boolean()),
    paths: Type.Optional(Type.Array(Type.String())),
    sizes: Type.Optional(Type.Array(Type.Number())),
    nested: Type.Optional(Type.Object({ depth: Type.Integer() })),
    label: Type.Optional(Type.String()),
  });

  async function call(args: Record<string, unknown>) {
    const log: ExecutionRecord[] = [];
    let executedWith: unknown;
    const tool = testTool("t", { parameters: schema, log });
    const execute = tool.execute;
    tool.execute = (id, params, signal, onUpdate) => {
      executedWith = params;
      return execute(id, params, signal, onUpdate);
    };
    let hookArgs: unknown;
    const { messages, events } = await runScript({
      tools: [tool],
      config: { beforeToolCall: async (ctx) => void (hookArgs = ctx.args) },
      steps: [{ toolCalls: [{ name: "t", id: "c", args }] }, { text: "ok" }],
    });
    const r = results(messages)[0]!;
    const start = events.find((e) => e.type === "tool_execution_start") as Extract<AgentEvent, { type: "tool_execution_start" }>;
    return { r, text: textOf(r), executedWith, hookArgs, startArgs: start.args, ran: log.length === 1 };
  }

  it("converts numeric and boolean strings and a single value for a list, and runs", async () => {
    const raw = { count: "3", ratio: "-0.5e1", all: "false", paths: "src/a.ts", sizes: "7", nested: { depth: "2" }, label: "12" };
    const { r, executedWith, hookArgs, startArgs, ran } = await call(raw);
    expect(r.isError).toBe(false);
    expect(ran).toBe(true);
    const converted = { count: 3, ratio: -5, all: false, paths: ["src/a.ts"], sizes: [7], nested: { depth: 2 }, label: "12" };
    expect(executedWith).toEqual(converted);
    expect(hookArgs).toEqual(converted);
    // The event shows what the model wrote.
    expect(startArgs).toEqual(raw);
  });

  it("leaves valid arguments untouched (the same object)", async () => {
    const { executedWith } = await call({ count: 2, paths: ["a"] });
    expect(executedWith).toEqual({ count: 2, paths: ["a"] });
  });

  it("refuses ambiguous strings and says what was converted and what was refused", async () => {
    const { r, text, ran } = await call({ count: "3.5", ratio: "1,5", all: "yes", paths: '["a", "b"]', sizes: "10" });
    expect(r.isError).toBe(true);
    expect(ran).toBe(false);
    expect(text).toMatch(/- count: .*received string "3\.5" \(not converted: not a whole number\)/);
    expect(text).toMatch(/- ratio: .*received string "1,5" \(not converted: not a plain number\)/);
    expect(text).toMatch(/- all: .*received string "yes" \(not converted: only "true" and "false" are\)/);
    expect(text).toMatch(/- paths: .*\(not converted: it looks like a JSON list written as text; send a JSON array\)/);
    expect(text).toMatch(/Converted before checking: sizes from string "10" to \[10\]\./);
  });

  it.each([
    ["", "not a plain number"],
    [" 3", "not a plain number"],
    ["0x10", "not a plain number"],
    ["Infinity", "not a plain number"],
    ["1e400", "too large"],
    ["12345678901234567890", "too large to convert exactly"],
  ])("refuses %j for an integer", async (value, why) => {
    const { text } = await call({ count: value });
    expect(text).toContain(`(not converted: ${why}`);
  });

  it("a missing required field names its expected type", async () => {
    const { text } = await call({});
    expect(text).toMatch(/- count: missing; expected an integer \(minimum 1\)/);
  });

  it("describes other expected types when missing", async () => {
    const tool = testTool("m", {
      parameters: Type.Object({
        path: Type.String(),
        mode: Type.Union([Type.Literal("fast"), Type.Literal("slow")]),
        tags: Type.Array(Type.String()),
        flag: Type.Boolean(),
        edits: Type.Array(Type.Object({ oldText: Type.String() })),
      }),
    });
    const { messages } = await runScript({ tools: [tool], steps: [{ toolCalls: [{ name: "m" }] }, { text: "ok" }] });
    const text = textOf(results(messages)[0]!);
    expect(text).toContain("- path: missing; expected a string");
    expect(text).toContain('- mode: missing; expected "fast" or "slow"');
    expect(text).toContain("- tags: missing; expected an array of strings");
    expect(text).toContain("- flag: missing; expected a boolean");
    expect(text).toContain("- edits: missing; expected an array of objects");
  });
});

describe("the args of tool_execution_* events", () => {
  it("start and update both carry the arguments as the model wrote them", async () => {
    const tool: AgentTool = {
      ...testTool("edit", { updates: 2, parameters: Type.Object({ edits: Type.Array(Type.String()) }) }),
      prepareArguments: (raw) => ({ edits: [(raw as { oldText: string }).oldText] }),
    };
    const { events } = await runScript({
      tools: [tool],
      steps: [{ toolCalls: [{ name: "edit", id: "e", args: { oldText: "a" } }] }, { text: "ok" }],
    });
    const withArgs = events.filter((e) => e.type === "tool_execution_start" || e.type === "tool_execution_update") as { args: unknown }[];
    expect(withArgs).toHaveLength(3);
    for (const e of withArgs) expect(e.args).toEqual({ oldText: "a" });
  });
});

describe("Agent.queued", () => {
  it("returns copies: pushing into them queues nothing", async () => {
    const scripted = createScriptedModel([{ text: "one" }]);
    const agent = new Agent({ model: scripted.model, streamFn: scripted.streamFn, tools: [] });
    agent.steer("real");
    const queued = agent.queued;
    (queued.steering as AgentMessage[]).push({ role: "user", content: "injected", timestamp: 0 });
    (queued.followUp as AgentMessage[]).push({ role: "user", content: "injected too", timestamp: 0 });
    expect(agent.queued.steering).toHaveLength(1);
    expect(agent.queued.followUp).toHaveLength(0);
    await agent.prompt("go");
    expect(agent.messages.some((m) => m.role === "user" && m.content === "injected")).toBe(false);
    expect(agent.messages.some((m) => m.role === "user" && m.content === "injected too")).toBe(false);
  });
});

describe("addedToolNames naming tools that do not exist", () => {
  it("are reported in the tool result and left out of the active set; known ones are added", async () => {
    const loader = testTool("load", { result: { addedToolNames: ["deploy", "deploi", "deploy"] } });
    const scripted = createScriptedModel([{ toolCalls: [{ name: "load", id: "l" }] }, { text: "ok" }]);
    const agent = new Agent({
      model: scripted.model,
      streamFn: scripted.streamFn,
      tools: [loader, testTool("deploy")],
      baseToolNames: ["load"],
    });
    await agent.prompt("go");
    const [r] = results(agent.messages);
    expect(r!.addedToolNames).toEqual(["deploy"]);
    expect(r!.isError).toBe(false);
    expect(textOf(r!)).toMatch(/Not added: deploi \(no such tool\)\.$/);
    expect(agent.activeToolNames.sort()).toEqual(["deploy", "load"]);
    expect(scripted.requests[1]!.context.tools!.map((t) => t.name).sort()).toEqual(["deploy", "load"]);
  });

  it("with none known, the field is left out", async () => {
    const loader = testTool("load", { result: { addedToolNames: ["nope", ""] } });
    const scripted = createScriptedModel([{ toolCalls: [{ name: "load" }] }, { text: "ok" }]);
    const agent = new Agent({ model: scripted.model, streamFn: scripted.streamFn, tools: [loader] });
    await agent.prompt("go");
    const [r] = results(agent.messages);
    expect("addedToolNames" in r!).toBe(false);
    expect(textOf(r!)).toMatch(/Not added: nope, "" \(no such tool\)\./);
    expect(agent.activeToolNames).toEqual(["load"]);
  });

  it("a transcript stored with an unknown name does not show it as active", () => {
    const scripted = createScriptedModel([]);
    const stored: ToolResultMessage = {
      role: "toolResult",
      toolCallId: "x",
      toolName: "load",
      content: [],
      isError: false,
      timestamp: 0,
      addedToolNames: ["ghost"],
    };
    const agent = new Agent({ model: scripted.model, streamFn: scripted.streamFn, tools: [testTool("load")], messages: [stored] });
    expect(agent.activeToolNames).toEqual(["load"]);
  });
});

describe("updates sent after execute resolved", () => {
  it("are dropped: no tool_execution_update follows the call's end", async () => {
    let late: ((r: { content: []; details: object }) => void) | undefined;
    const tool = testTool("t");
    tool.execute = async (_id, _params, _signal, onUpdate) => {
      onUpdate?.({ content: [], details: { n: 1 } });
      late = onUpdate;
      return { content: [{ type: "text", text: "done" }], details: {} };
    };
    const { events } = await runScript({ tools: [tool], steps: [{ toolCalls: [{ name: "t" }] }, { text: "ok" }] });
    late?.({ content: [], details: { n: 2 } });
    await new Promise((r) => setTimeout(r, 10));
    expect(events.filter((e) => e.type === "tool_execution_update")).toHaveLength(1);
  });
});

describe("tool-call arguments that are not JSON", () => {
  it("are reported once, never run, and the raw text is kept on the call", async () => {
    const log: ExecutionRecord[] = [];
    const raw = '{"path": "a.ts", "limit": }';
    const { messages, model } = await runScript({
      tools: [testTool("read", { log })],
      steps: [{ toolCalls: [{ name: "read", id: "m", rawArgs: raw }] }, { text: "ok" }],
    });
    const text = textOf(results(messages)[0]!);
    expect(text.match(/not valid JSON/g)).toHaveLength(1);
    expect(text.match(/read/g)).toHaveLength(1);
    expect(text).toMatch(/^Tool read was not run: the arguments are not valid JSON \(.+\); send them as one complete JSON object\.$/);
    expect(log).toHaveLength(0);
    const assistant = messages.find((m) => m.role === "assistant")!;
    const call = assistant.role === "assistant" ? assistant.content.find((c) => c.type === "toolCall") : undefined;
    expect(call).toMatchObject({ arguments: {}, rawArguments: raw });
    // The next request carries the raw text back with the call.
    const sent = model.requests[1]!.context.messages.find((m) => m.role === "assistant")!;
    expect(sent.role === "assistant" && sent.content.find((c) => c.type === "toolCall")).toMatchObject({ rawArguments: raw });
  });
});
