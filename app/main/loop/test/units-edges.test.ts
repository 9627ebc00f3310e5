// The loop's pure parts at the edges units.test.ts and incremental-conversion.test.ts pass over:
// coercion of values that are not what the schema's kind holds (it never throws), validation's
// list of conversions, tool output blocks that are not blocks, refused names that are long, bounds
// of arguments that are not objects or were out of bounds before, and the incremental
// conversion's seams (joins, heads, skipped messages, a list cut back to its converted prefix).
import { Kind, Type, type TSchema } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import type { AgentMessage, ToolCall } from "../../../shared/agent-types.ts";
import { coerceArguments } from "../coercion.ts";
import { incrementalConversion } from "../incremental-conversion.ts";
import { defaultConvertToLlm } from "../messages.ts";
import { boundStreamingToolCall } from "../tool-call-bounds.ts";
import { checkAddedToolNames, toolResultProblem, withCheckedAddedToolNames } from "../tool-output.ts";
import { validateToolArguments } from "../validation.ts";

describe("coercion of values the schema's kind does not hold", () => {
  const schema = Type.Object({ options: Type.Optional(Type.Object({ "0": Type.Number() })) });

  it("leaves a missing or primitive value for an object as it is, and never throws", () => {
    for (const value of [undefined, 5, true]) expect(coerceArguments(schema, value)).toEqual({ value, converted: [], refused: [] });
  });

  it("never reads a string as an object of its characters", () => {
    // Object.hasOwn("7", "0") is true: a string has its characters as own properties.
    expect(coerceArguments(schema, { options: "7" })).toEqual({ value: { options: "7" }, converted: [], refused: [] });
    expect(validateToolArguments("t", schema, { options: "7" })).toMatchObject({ ok: false });
  });

  it("a list kind without items (a hand-made schema) takes a list or a single value without converting items", () => {
    const bare = { [Kind]: "Array", type: "array" } as unknown as TSchema;
    const list = ["3", 4];
    expect(coerceArguments(bare, list)).toEqual({ value: list, converted: [], refused: [] });
    expect(coerceArguments(bare, list).value).toBe(list);
    expect(coerceArguments(bare, "3")).toEqual({ value: ["3"], converted: [{ path: "", from: "3", to: ["3"] }], refused: [] });
  });
});

describe("validateToolArguments' conversions", () => {
  it("lists every conversion, separated by semicolons", () => {
    const schema = Type.Object({ a: Type.Integer(), b: Type.Boolean(), c: Type.String() });
    expect(validateToolArguments("t", schema, { a: "1", b: "true", c: 3 })).toEqual({
      ok: false,
      message:
        'Invalid arguments for tool "t":\n- c: Expected string; received number 3\n' +
        'Converted before checking: a from string "1" to 1; b from string "true" to true.\nFix these fields and call the tool again.',
    });
  });

  it("shows a converted value that JSON cannot write as text (a BigInt a shim handed over)", () => {
    const schema = Type.Object({ ids: Type.Array(Type.String()) });
    const outcome = validateToolArguments("t", schema, { ids: 10n });
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.message).toContain("Converted before checking: ids from bigint 10 to 10.");
  });
});

describe("tool output checks at their edges", () => {
  it("an undefined or primitive block is no block, and the check does not throw", () => {
    for (const block of [undefined, "text", 7]) expect(toolResultProblem({ content: [block], details: {} })).toBe("its content[0] is neither text nor an image");
  });

  it("a block of another type is no block, whatever fields it has", () => {
    expect(toolResultProblem({ content: [{ type: "audio", data: "x", mimeType: "audio/wav" }], details: {} })).toBe("its content[0] is neither text nor an image");
  });

  it("a long refused name is shown quoted and cut at 200 characters", () => {
    const name = "x ".repeat(150);
    expect(checkAddedToolNames([name], () => false).notice).toEqual({ type: "text", text: `Not added: ${JSON.stringify(name.slice(0, 200))} (no such tool).` });
  });

  it("a result whose names are all refused keeps no addedToolNames field", () => {
    const checked = withCheckedAddedToolNames({ content: [], details: {}, addedToolNames: ["nope"] }, () => false);
    expect(checked).toEqual({ content: [{ type: "text", text: "Not added: nope (no such tool)." }], details: {} });
    expect("addedToolNames" in checked).toBe(false);
  });
});

describe("boundStreamingToolCall at its edges", () => {
  it("never throws for arguments that are not an object (null, text, nothing), and leaves them", () => {
    for (const value of [null, "text", undefined, 3]) {
      const call = { type: "toolCall", id: "c", name: "t", arguments: value } as unknown as ToolCall;
      expect(() => boundStreamingToolCall(call)).not.toThrow();
      expect(() => boundStreamingToolCall(call)).not.toThrow();
      expect(call.arguments).toBe(value);
      expect(call.argumentsError).toBeUndefined();
    }
  });

  it("never remembers an arguments object that was out of the bounds: handed again, it is refused again", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100; i++) deep = { a: deep };
    const call: ToolCall = { type: "toolCall", id: "c", name: "t", arguments: deep as Record<string, unknown> };
    boundStreamingToolCall(call);
    expect(call.arguments).toEqual({});
    // A provider that hands the same object again (it kept its own reference).
    call.arguments = deep as Record<string, unknown>;
    delete call.argumentsError;
    boundStreamingToolCall(call);
    expect(call).toMatchObject({ arguments: {}, argumentsError: "the arguments were refused: they are nested deeper than 64 levels." });
  });
});

describe("defaultConvertToLlm's cache", () => {
  it("reads each message once over a growing transcript, however many requests follow", () => {
    let reads = 0;
    const first = { content: "q", timestamp: 0 } as AgentMessage;
    Object.defineProperty(first, "role", { enumerable: true, get: () => (reads++, "user") });
    const transcript: AgentMessage[] = [first, { role: "user", content: "a", timestamp: 0 }];
    defaultConvertToLlm(transcript);
    for (let i = 0; i < 5; i++) {
      transcript.push({ role: "user", content: `m${i}`, timestamp: 0 });
      expect(defaultConvertToLlm(transcript).length).toBe(transcript.length);
    }
    expect(reads).toBe(1);
  });
});

describe("incrementalConversion's seams", () => {
  interface Item {
    text: string;
  }
  const item = (text: string): Item => ({ text });
  const join = (a: string, b: string) => (a.endsWith("+") && b.endsWith("+") ? `${a}${b}` : undefined);
  function recorded(splitsBefore: (m: Item) => boolean, withJoin = true) {
    const seen: string[][] = [];
    const convert = (messages: readonly Item[]): string[] => (seen.push(messages.map((m) => m.text)), messages.map((m) => m.text));
    return { run: incrementalConversion<Item, string, undefined>({ convert, splitsBefore, join: withJoin ? join : undefined }), seen };
  }

  it("joins only the first item of a run to the list before it: items inside a run stay as convert made them", () => {
    const { run } = recorded((m) => m.text.startsWith("u"));
    const list = [item("u1"), item("u2"), item("x+"), item("y+")];
    expect(run(list, "k", undefined)).toEqual(["u1", "u2", "x+", "y+"]);
    expect(run(list, "k", undefined)).toEqual(["u1", "u2", "x+", "y+"]);
  });

  it("never joins the first converted item into the head", () => {
    const { run } = recorded(() => false);
    expect(run([item("a+"), item("b")], "k", undefined, ["head+"])).toEqual(["head+", "a+", "b"]);
  });

  it("with nothing to convert, returns a copy of the head", () => {
    const { run } = recorded(() => true);
    const head = ["h"];
    const result = run([], "k", undefined, head);
    expect(result).toEqual(["h"]);
    expect(result).not.toBe(head);
  });

  it("skips the first messages with no split point in the rest", () => {
    const { run, seen } = recorded(() => false);
    expect(run([item("s"), item("a"), item("b")], "k", undefined, [], 1)).toEqual(["a", "b"]);
    expect(seen).toEqual([["a", "b"]]);
  });

  it("a list cut back to exactly its converted prefix reuses it", () => {
    const { run, seen } = recorded(() => true);
    const list = [item("a"), item("b"), item("c"), item("d")];
    run(list, "k", undefined);
    seen.length = 0;
    expect(run(list.slice(0, 3), "k", undefined)).toEqual(["a", "b", "c"]);
    expect(seen).toEqual([[]]);
  });
});
