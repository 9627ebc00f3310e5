// The work budget of an MCP call's argument check (argument-check-budget.ts): a recursive schema
// whose cycle reads the same data twice per level costs 2^depth steps in the arguments' nesting;
// the check stops at its budget with an error for the model instead of blocking the main process.
import Schema from "typebox/schema";
import { describe, expect, it } from "vitest";
import { argumentCheckLimit, countValues, MAX_ARGUMENT_CHECK_STEPS, meteredSchema, MIN_ARGUMENT_CHECK_STEPS, runMetered } from "../../app/main/mcp/argument-check-budget.ts";
import { readToolDefinition } from "../../app/main/mcp/tool-definitions.ts";
import { createMcpAgentTool } from "../../app/main/mcp/mcp-tool.ts";

const def = (inputSchema: unknown) => readToolDefinition("srv", "tool", { name: "tool", inputSchema });

/** `{c: {c: ... {}}}`, `depth` levels. */
function nested(depth: number, leaf: unknown = {}): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = { c: value };
  return value;
}

// Each level's `c` is checked twice against the whole schema: 2^depth evaluations.
const doublingAllOf = { type: "object", properties: { c: { allOf: [{ $ref: "#" }, { $ref: "#" }] } } };
// Two anyOf branches that each recurse into the same property.
const doublingAnyOf = {
  type: "object",
  $defs: {
    node: {
      anyOf: [
        { type: "object", properties: { c: { $ref: "#/$defs/node" } } },
        { type: "object", properties: { c: { $ref: "#/$defs/node" } } },
      ],
    },
  },
  properties: { c: { $ref: "#/$defs/node" } },
};
const tree = {
  type: "object",
  properties: { root: { $ref: "#/$defs/node" } },
  $defs: { node: { type: "object", properties: { value: { type: "number" }, children: { type: "array", items: { $ref: "#/$defs/node" } } } } },
};

/** Steps TypeBox takes to check `value` against `schema`, with no budget to speak of. */
function stepsOf(schema: unknown, value: unknown): number {
  const metered = meteredSchema(schema);
  const validator = Schema.Compile(metered.schema as never);
  const run = runMetered(Number.MAX_SAFE_INTEGER, () => validator.Check(value));
  if (!run.ok) throw new Error("unreachable");
  return run.steps;
}

describe("the meter", () => {
  it("counts TypeBox's work: doubling per level for a schema that re-reads the data, linear for a tree", () => {
    const at = (depth: number) => stepsOf(doublingAllOf, nested(depth));
    const [s6, s8, s10] = [at(6), at(8), at(10)];
    expect(s6).toBeGreaterThan(100);
    // Two more levels, four times the work (within rounding): exponential in the nesting.
    expect(s8 / s6).toBeGreaterThan(3.5);
    expect(s10 / s8).toBeGreaterThan(3.5);
    const node = (depth: number): unknown => (depth === 0 ? { value: 1, children: [] } : { value: depth, children: [node(depth - 1)] });
    const t10 = stepsOf(tree, { root: node(10) });
    const t40 = stepsOf(tree, { root: node(40) });
    expect(t40 / t10).toBeLessThan(4.5);
  });

  it("keeps the schema's meaning: $id, references by $id and data keywords work as before", () => {
    const schema = {
      type: "object",
      $defs: { n: { $id: "https://example.com/n", type: "number", enum: [1, 2] } },
      properties: { a: { $ref: "https://example.com/n" }, b: { const: { $id: "data" } } },
      required: ["a"],
    };
    const d = def(schema);
    expect(d.error).toBeUndefined();
    expect(d.checkArguments({ a: 1, b: { $id: "data" } })).toBeNull();
    expect(d.checkArguments({ a: 3 })!.join("\n")).toMatch(/a: must be equal to one of the allowed values/);
    expect(d.checkArguments({ a: 1, b: { $id: "other" } })!.join("\n")).toMatch(/b: must be equal to constant/);
    // The copy is metered; the schema the model is shown is not changed.
    expect(Object.keys(d.inputSchema)).toEqual(Object.keys(schema));
    expect(JSON.stringify(meteredSchema(schema).schema)).toBe(JSON.stringify(schema));
  });

  it("sizes the budget by the schema's objects times the arguments' values, within fixed bounds", () => {
    expect(countValues({ a: [1, 2, { b: null }], c: "x" })).toBe(7);
    expect(argumentCheckLimit(3, {})).toBe(MIN_ARGUMENT_CHECK_STEPS);
    expect(
      argumentCheckLimit(
        100,
        Array.from({ length: 100 }, () => 0),
      ),
    ).toBe(4 * 100 * 101);
    expect(
      argumentCheckLimit(
        5,
        Array.from({ length: 1_000_000 }, () => 0),
      ),
    ).toBe(MAX_ARGUMENT_CHECK_STEPS);
  });
});

describe("checking a call's arguments", () => {
  it("stops a check that would take 2^64 steps at its budget, with an error for the model (allOf and anyOf)", () => {
    for (const schema of [doublingAllOf, doublingAnyOf]) {
      const d = def(schema);
      expect(d.error).toBeUndefined();
      // Without the budget this check would not end (2^64 evaluations).
      const problems = d.checkArguments(nested(64));
      expect(problems).toHaveLength(1);
      expect(problems![0]).toMatch(
        /^- \(the arguments object\): the arguments are too deeply nested \(or too large\) for this tool's schema: checking them would take more than 20,000 steps/,
      );
      // The meter is released: a shallow call is checked as usual afterwards, errors and all.
      expect(d.checkArguments(nested(3))).toBeNull();
      expect(d.checkArguments(nested(3, 5))!.join("\n")).toMatch(/c\.c\.c: must be object; received number 5/);
    }
  });

  it("stops a check made large by padding at the fixed maximum", () => {
    const d = def({ type: "object", properties: { c: { allOf: [{ $ref: "#" }, { $ref: "#" }] }, pad: { type: "array" } } });
    const problems = d.checkArguments({ c: nested(40), pad: Array.from({ length: 50_000 }, () => 0) });
    expect(problems![0]).toMatch(/more than 150,000 steps/);
  });

  it("keeps real calls within the budget: a deep tree, a wide array of objects", () => {
    const d = def(tree);
    let node: unknown = { value: 0, children: [] };
    for (let i = 1; i <= 60; i++) node = { value: i, children: [node, { value: -i, children: [] }] };
    expect(d.checkArguments({ root: node })).toBeNull();
    const wide = def({ type: "object", properties: { xs: { type: "array", items: { type: "object", properties: { a: { type: "number" }, b: { type: "string" } } } } } });
    expect(wide.checkArguments({ xs: Array.from({ length: 40_000 }, (_, i) => ({ a: i, b: "x" })) })).toBeNull();
    expect(wide.checkArguments({ xs: [{ a: "no" }] })!.join("\n")).toMatch(/xs\.0\.a: must be number/);
  });

  it("as an AgentTool, the budget error stops the call in prepareArguments", () => {
    const tool = createMcpAgentTool(def(doublingAllOf), () => Promise.reject(new Error("must not run")));
    expect(() => tool.prepareArguments!(nested(64))).toThrow(/Invalid arguments for tool "mcp__srv__tool":\n- \(the arguments object\): the arguments are too deeply nested/);
  });
});
