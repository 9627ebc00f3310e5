// Tool-call arguments over the bounds: replaced by {} and an argumentsError, raw text over the
// bound dropped.
import { describe, expect, it } from "vitest";
import type { ToolCall } from "../../../shared/agent-types.ts";
import { boundToolCallArguments } from "../tool-call-bounds.ts";

const nest = (levels: number, leaf: unknown = 1): unknown => {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = i % 2 ? [value] : { a: value };
  return value;
};

describe("boundToolCallArguments", () => {
  it("replaces arguments over the bound by {} and a sentence, and leaves others alone", () => {
    const deep: ToolCall = { type: "toolCall", id: "1", name: "write", arguments: nest(5000) as Record<string, unknown> };
    boundToolCallArguments(deep);
    expect(deep.arguments).toEqual({});
    expect(deep.argumentsError).toBe("the arguments were refused: they are nested deeper than 64 levels.");
    expect(() => JSON.stringify(deep)).not.toThrow();
    const fine: ToolCall = { type: "toolCall", id: "2", name: "read", arguments: { path: "a" } };
    boundToolCallArguments(fine);
    expect(fine).toEqual({ type: "toolCall", id: "2", name: "read", arguments: { path: "a" } });
  });
});

describe("boundToolCallArguments and kept raw text", () => {
  it("drops a raw text over the bound and says so", () => {
    const call: ToolCall = { type: "toolCall", id: "1", name: "write", arguments: {}, argumentsError: "the arguments are not valid JSON (x)", rawArguments: "{" + "x".repeat(200) };
    boundToolCallArguments(call, { maxDepth: 64, maxChars: 100 });
    expect(call).toEqual({
      type: "toolCall",
      id: "1",
      name: "write",
      arguments: {},
      argumentsError: "the arguments were refused: they are larger than 100 characters (and not valid JSON).",
    });
    const atTheBound: ToolCall = { type: "toolCall", id: "3", name: "write", arguments: {}, argumentsError: "e", rawArguments: "x".repeat(100) };
    boundToolCallArguments(atTheBound, { maxDepth: 64, maxChars: 100 });
    expect(atTheBound).toMatchObject({ argumentsError: "e", rawArguments: "x".repeat(100) });
    const small: ToolCall = { type: "toolCall", id: "2", name: "write", arguments: {}, argumentsError: "e", rawArguments: "{" };
    boundToolCallArguments(small, { maxDepth: 64, maxChars: 100 });
    expect(small.rawArguments).toBe("{");
  });
});
