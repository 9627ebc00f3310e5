// The loop's pure parts, one by one: argument text to arguments and back, coercion, checks on tool
// output and addedToolNames, tool activation over a transcript, the default message pipeline,
// argument bounds and validation messages.
import { Type } from "@sinclair/typebox";
import { describe, expect, it, test } from "vitest";
import type { AgentMessage, AssistantMessage, ToolCall, ToolResultMessage } from "../../../shared/agent-types.ts";
import { emptyUsage } from "../../../shared/agent-types.ts";
import { coerceArguments } from "../coercion.ts";
import { abortedAssistantMessage, defaultConvertToLlm, emptyAssistantMessage } from "../messages.ts";
import { activeToolNamesByMessage, addedToolNamesThrough } from "../tool-activation.ts";
import { argumentsForModel, parseToolArguments } from "../tool-arguments.ts";
import { boundToolCalls } from "../tool-call-bounds.ts";
import { checkAddedToolNames, toolResultProblem, withCheckedAddedToolNames } from "../tool-output.ts";
import { validateToolArguments } from "../validation.ts";
import { scriptedModelInfo } from "./scripted-model.ts";

describe("parseToolArguments and argumentsForModel", () => {
  const make = (): ToolCall => ({ type: "toolCall", id: "1", name: "bash", arguments: { partial: true } });
  test.each([
    ["", {}, undefined],
    ['{"command":"ls"}', { command: "ls" }, undefined],
    ["[1,2]", {}, /^the arguments must be a JSON object, not an array; /],
    ["null", {}, /^the arguments must be a JSON object, not null; /],
    ['"ls"', {}, /^the arguments must be a JSON object, not a string; /],
    ['{"command": "ls', {}, /^the arguments are not valid JSON \(Unterminated string in JSON at position 15.*\); send them as one complete JSON object\.$/],
    ['{"a": }', {}, /^the arguments are not valid JSON \(Unexpected token '\}'\); send/],
  ])("%j", (raw, args, error) => {
    const call = make();
    parseToolArguments(call, raw);
    expect(call.arguments).toEqual(args);
    if (error) {
      expect(call.argumentsError).toMatch(error);
      expect(call.rawArguments).toBe(raw);
    } else {
      expect(call.argumentsError).toBeUndefined();
      expect("rawArguments" in call).toBe(false);
    }
  });

  test("a later good parse clears an earlier failure", () => {
    const call = make();
    parseToolArguments(call, "{");
    parseToolArguments(call, '{"command":"ls"}');
    expect(call).toEqual({ type: "toolCall", id: "1", name: "bash", arguments: { command: "ls" } });
  });

  test("argumentsForModel wraps kept raw text in an object and passes parsed arguments through", () => {
    const call = make();
    parseToolArguments(call, '{"a": }');
    expect(argumentsForModel(call)).toEqual({ INVALID_JSON: '{"a": }' });
    parseToolArguments(call, '{"a": 1}');
    expect(argumentsForModel(call)).toBe(call.arguments);
  });
});

describe("coerceArguments", () => {
  const schema = Type.Object({
    n: Type.Optional(Type.Number()),
    i: Type.Optional(Type.Integer()),
    b: Type.Optional(Type.Boolean()),
    list: Type.Optional(Type.Array(Type.Integer())),
    loose: Type.Optional(Type.Array(Type.Unknown())),
    inner: Type.Optional(Type.Object({ flag: Type.Boolean() })),
    either: Type.Optional(Type.Union([Type.Number(), Type.String()])),
  });

  it("converts numbers, integers and booleans, and says so, path by path", () => {
    const out = coerceArguments(schema, { n: "1.5", i: "-2", b: "true", inner: { flag: "false" } });
    expect(out.value).toEqual({ n: 1.5, i: -2, b: true, inner: { flag: false } });
    expect(out.converted).toEqual([
      { path: "/n", from: "1.5", to: 1.5 },
      { path: "/i", from: "-2", to: -2 },
      { path: "/b", from: "true", to: true },
      { path: "/inner/flag", from: "false", to: false },
    ]);
    expect(out.refused).toEqual([]);
  });

  it("never changes its input, and hands back the same objects when nothing is converted", () => {
    const input = { n: 1, list: [1, 2], inner: { flag: true }, other: "x" };
    const out = coerceArguments(schema, input);
    expect(out.value).toBe(input);
    const withString = { list: [1, "2", 3], other: "x" };
    const converted = coerceArguments(schema, withString);
    expect(converted.value).toEqual({ list: [1, 2, 3], other: "x" });
    expect(withString.list).toEqual([1, "2", 3]);
    expect(converted.converted).toEqual([{ path: "/list/1", from: "2", to: 2 }]);
  });

  it("wraps a single value for a list, converting it as an item; refusals inside are kept", () => {
    expect(coerceArguments(schema, { list: "4" })).toEqual({ value: { list: [4] }, converted: [{ path: "/list", from: "4", to: [4] }], refused: [] });
    expect(coerceArguments(schema, { list: "4.5" })).toEqual({
      value: { list: ["4.5"] },
      converted: [{ path: "/list", from: "4.5", to: ["4.5"] }],
      refused: [{ path: "/list/0", reason: "not a whole number" }],
    });
    expect(coerceArguments(schema, { loose: { a: 1 } }).value).toEqual({ loose: [{ a: 1 }] });
    expect(coerceArguments(schema, { list: "  [1, 2]" }).refused).toEqual([{ path: "/list", reason: "it looks like a JSON list written as text; send a JSON array" }]);
    expect(coerceArguments(schema, { list: "1, 2]" }).refused).toEqual([{ path: "/list/0", reason: "not a plain number" }]);
  });

  it("leaves null, missing, non-string and union values, inherited properties and non-objects alone", () => {
    for (const value of [{ list: null }, { list: undefined }, { n: 3, b: false }, { either: "3" }, null, "text", [1], 7]) {
      const out = coerceArguments(schema, value);
      expect(out.value).toBe(value);
      expect(out.converted).toEqual([]);
      expect(out.refused).toEqual([]);
    }
    const inherited = Object.create({ n: "5" }) as Record<string, unknown>;
    expect(coerceArguments(schema, inherited).value).toBe(inherited);
  });

  it("refuses booleans that are not exactly true or false", () => {
    expect(coerceArguments(schema, { b: "True" }).refused).toEqual([{ path: "/b", reason: 'only "true" and "false" are' }]);
  });

  it("converted properties are plain, enumerable data", () => {
    const out = coerceArguments(schema, { n: "2" }).value as Record<string, unknown>;
    expect(Object.getOwnPropertyDescriptor(out, "n")).toEqual({ value: 2, enumerable: true, writable: true, configurable: true });
    expect(JSON.stringify(out)).toBe('{"n":2}');
  });
});

describe("validateToolArguments", () => {
  const schema = Type.Object({ count: Type.Integer(), tags: Type.Optional(Type.Array(Type.String())) });

  it("passes valid arguments through as they are and coerced ones as converted", () => {
    const args = { count: 1 };
    expect(validateToolArguments("t", schema, args)).toEqual({ ok: true, value: args });
    expect(validateToolArguments("t", schema, { count: "2", tags: "a" })).toEqual({ ok: true, value: { count: 2, tags: ["a"] } });
  });

  it("writes the whole message, with the converted line only when something was converted", () => {
    expect(validateToolArguments("t", schema, { count: "x" })).toEqual({
      ok: false,
      message: 'Invalid arguments for tool "t":\n- count: Expected integer; received string "x" (not converted: not a plain number)\nFix these fields and call the tool again.',
    });
    expect(validateToolArguments("t", schema, { count: "x", tags: "a" })).toEqual({
      ok: false,
      message:
        'Invalid arguments for tool "t":\n- count: Expected integer; received string "x" (not converted: not a plain number)\n' +
        'Converted before checking: tags from string "a" to ["a"].\nFix these fields and call the tool again.',
    });
  });
});

describe("tool output checks", () => {
  it.each([
    [[], "it returned an array instead of { content, details }"],
    [5, "it returned a number instead of { content, details }"],
    [{ content: null, details: {} }, "its content is null, not a list"],
    [{ content: [null], details: {} }, "its content[0] is neither text nor an image"],
    [{ content: [3], details: {} }, "its content[0] is neither text nor an image"],
    [{ content: [{ type: "text" }], details: {} }, "its content[0] is neither text nor an image"],
    [{ content: [{ type: "image", data: "x" }], details: {} }, "its content[0] is neither text nor an image"],
    [{ content: [{ type: "image", mimeType: "image/png" }], details: {} }, "its content[0] is neither text nor an image"],
    [{ content: [], details: {}, addedToolNames: ["a", 2] }, "its addedToolNames is not a list of tool names"],
  ])("%j: %s", (value, problem) => {
    expect(toolResultProblem(value)).toBe(problem);
  });

  it("accepts text, images and names", () => {
    expect(
      toolResultProblem({
        content: [
          { type: "text", text: "" },
          { type: "image", data: "x", mimeType: "image/png" },
        ],
        details: undefined,
        addedToolNames: ["a"],
      }),
    ).toBeNull();
  });

  it("addedToolNames: refused names are reported (odd ones quoted), repeats dropped, the rest kept", () => {
    expect(checkAddedToolNames(["a", "b", "a"], undefined)).toEqual({ added: ["a", "b"], notice: null });
    expect(checkAddedToolNames(["a", "x y", "mcp__s.t:1-2"], (n) => n === "a")).toEqual({
      added: ["a"],
      notice: { type: "text", text: 'Not added: "x y", mcp__s.t:1-2 (no such tool).' },
    });
    const result = { content: [{ type: "text" as const, text: "ok" }], details: { d: 1 }, addedToolNames: ["a", "zz"] };
    expect(withCheckedAddedToolNames(result, (n) => n === "a")).toEqual({
      content: [
        { type: "text", text: "ok" },
        { type: "text", text: "Not added: zz (no such tool)." },
      ],
      details: { d: 1 },
      addedToolNames: ["a"],
    });
    const none = { content: [], details: {}, addedToolNames: [] };
    expect(withCheckedAddedToolNames(none, () => false)).toBe(none);
    const plain = { content: [], details: {} };
    expect(withCheckedAddedToolNames(plain, () => false)).toBe(plain);
  });
});

describe("tool activation over a transcript", () => {
  const result = (names?: string[]): ToolResultMessage => ({
    role: "toolResult",
    toolCallId: "c",
    toolName: "t",
    content: [],
    isError: false,
    timestamp: 0,
    ...(names ? { addedToolNames: names } : {}),
  });
  const user: AgentMessage = { role: "user", content: "hi", timestamp: 0 };
  const custom: AgentMessage = { role: "custom", customType: "note", content: "x", display: true, timestamp: 0 };

  it("activeToolNamesByMessage: the base set, grown at each tool result that adds names", () => {
    expect(activeToolNamesByMessage(["a"], [user, result(["b"]), custom, result(), result(["c", "b"])])).toEqual([["a"], ["a", "b"], ["a", "b"], ["a", "b"], ["a", "b", "c"]]);
  });

  it("addedToolNamesThrough: names added at or before an index, once each", () => {
    const messages = [user, result(["b"]), result(["c", "b"]), result(["d"])];
    expect(addedToolNamesThrough(messages, 0)).toEqual([]);
    expect(addedToolNamesThrough(messages, 1)).toEqual(["b"]);
    expect(addedToolNamesThrough(messages, 2)).toEqual(["b", "c"]);
    expect(addedToolNamesThrough(messages, 99)).toEqual(["b", "c", "d"]);
  });
});

describe("messages", () => {
  const user = (content: string): AgentMessage => ({ role: "user", content, timestamp: 0 });
  const custom: AgentMessage = { role: "custom", customType: "note", content: "x", display: true, timestamp: 0 };

  it("defaultConvertToLlm drops custom messages wherever they are, and copies", () => {
    const plain = [user("a"), user("b")];
    const converted = defaultConvertToLlm(plain);
    expect(converted).toEqual(plain);
    expect(converted).not.toBe(plain);
    expect(defaultConvertToLlm([custom, user("a"), custom, user("b"), custom])).toEqual([user("a"), user("b")]);
    expect(defaultConvertToLlm([user("a"), custom])).toEqual([user("a")]);
  });

  it("an empty and an aborted assistant message", () => {
    const empty = emptyAssistantMessage(scriptedModelInfo);
    expect(empty).toMatchObject({ role: "assistant", content: [], stopReason: "stop", usage: emptyUsage(), model: "scripted", provider: "scripted" });
    expect(abortedAssistantMessage(scriptedModelInfo)).toMatchObject({ stopReason: "aborted", errorMessage: "Aborted by the user." });
  });
});

describe("boundToolCalls", () => {
  it("bounds every tool call of a message and leaves its other blocks alone", () => {
    const deep = (levels: number): unknown => (levels === 0 ? 1 : { a: deep(levels - 1) });
    const message: AssistantMessage = {
      ...emptyAssistantMessage(scriptedModelInfo),
      content: [
        { type: "text", text: "x" },
        { type: "toolCall", id: "1", name: "a", arguments: deep(100) as Record<string, unknown> },
        { type: "toolCall", id: "2", name: "b", arguments: { ok: 1 } },
        { type: "toolCall", id: "3", name: "c", arguments: deep(100) as Record<string, unknown> },
      ],
    };
    boundToolCalls(message);
    const calls = message.content.filter((c): c is ToolCall => c.type === "toolCall");
    expect(calls.map((c) => c.argumentsError !== undefined)).toEqual([true, false, true]);
    expect(message.content[0]).toEqual({ type: "text", text: "x" });
  });
});
