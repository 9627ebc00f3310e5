// Tool-call arguments over the bounds: replaced by {} and an argumentsError, raw text over the
// bound dropped.
import { describe, expect, it } from "vitest";
import type { ToolCall } from "../../../shared/agent-types.ts";
import { boundStreamingToolCall, boundToolCallArguments } from "../tool-call-bounds.ts";

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

describe("boundStreamingToolCall", () => {
  /** Arguments whose values count how often they are read (the measuring walk reads each). */
  const counted = (n: number) => {
    const reads = { count: 0 };
    const args: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) Object.defineProperty(args, `k${i}`, { enumerable: true, get: () => (reads.count++, i) });
    return { args, reads };
  };

  it("measures an arguments object once while the call streams, a new one again, and bounds it like boundToolCallArguments", () => {
    const first = counted(100);
    const call: ToolCall = { type: "toolCall", id: "1", name: "write", arguments: first.args };
    for (let piece = 0; piece < 50; piece++) boundStreamingToolCall(call);
    expect(first.reads.count).toBe(100);
    const second = counted(100);
    call.arguments = second.args; // the provider parsed the arguments again
    for (let piece = 0; piece < 50; piece++) boundStreamingToolCall(call);
    expect(second.reads.count).toBe(100);
    // The end of the call is measured in full.
    boundToolCallArguments(call);
    expect(second.reads.count).toBe(200);
    const deep: ToolCall = { type: "toolCall", id: "2", name: "write", arguments: nest(100) as Record<string, unknown> };
    boundStreamingToolCall(deep);
    expect(deep).toMatchObject({ arguments: {}, argumentsError: "the arguments were refused: they are nested deeper than 64 levels." });
  });
});
