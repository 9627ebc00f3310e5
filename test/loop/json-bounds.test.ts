// The bounds walk: depth and size measured without recursion, on values that would overflow the
// stack of JSON.stringify, including cycles and throwing getters; never throws.
import { describe, expect, it } from "vitest";
import { boundToolCallArguments, exceedsBounds } from "../../app/main/loop/json-bounds.ts";
import type { ToolCall } from "../../app/shared/agent-types.ts";

const nest = (levels: number, leaf: unknown = 1): unknown => {
  let value = leaf;
  for (let i = 0; i < levels; i++) value = i % 2 ? [value] : { a: value };
  return value;
};

describe("exceedsBounds", () => {
  const bounds = { maxDepth: 64, maxChars: 10_000 };

  it("accepts values within the bounds, up to exactly the depth", () => {
    expect(exceedsBounds({ path: "a.txt", edits: [{ oldText: "a", newText: "b" }] }, bounds)).toBeNull();
    expect(exceedsBounds(nest(64), bounds)).toBeNull();
    expect(exceedsBounds("x".repeat(9_000), bounds)).toBeNull();
    expect(exceedsBounds(undefined, bounds)).toBeNull();
  });

  it("refuses one level too deep, and 100,000 levels without overflowing", () => {
    expect(exceedsBounds(nest(65), bounds)).toBe("nested deeper than 64 levels");
    expect(exceedsBounds(nest(100_000), { maxDepth: 64, maxChars: 1e9 })).toBe("nested deeper than 64 levels");
  });

  it("refuses too large a value, including one huge array, before walking it", () => {
    expect(exceedsBounds({ text: "x".repeat(20_000) }, bounds)).toMatch(/larger than 10,000 characters/);
    expect(exceedsBounds(new Array(1e8), bounds)).toMatch(/larger than/);
    expect(exceedsBounds(Array.from({ length: 5000 }, () => ({ k: 1 })), bounds)).toMatch(/larger than/);
  });

  it("stops on cycles and survives getters that throw", () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    cycle.again = cycle;
    expect(exceedsBounds(cycle, bounds)).toMatch(/deeper than 64|larger than/);
    const hostile = Object.defineProperty({}, "boom", { enumerable: true, get: () => { throw new Error("no"); } });
    expect(exceedsBounds(hostile, bounds)).toBe("not readable as plain data");
  });
});

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
    expect(call).toEqual({ type: "toolCall", id: "1", name: "write", arguments: {}, argumentsError: "the arguments were refused: they are larger than 100 characters (and not valid JSON)." });
    const small: ToolCall = { type: "toolCall", id: "2", name: "write", arguments: {}, argumentsError: "e", rawArguments: "{" };
    boundToolCallArguments(small, { maxDepth: 64, maxChars: 100 });
    expect(small.rawArguments).toBe("{");
  });
});
