// A work budget for checking one call's arguments against a server's input schema. The schema's
// size is bounded when it is listed (schema-expansion.ts), but a recursive schema whose cycle
// reads the same data twice per level (`properties: {child: {allOf: [{$ref: "#"}, {$ref: "#"}]}}`)
// costs 2^depth in the arguments' nesting, which the model chooses. TypeBox's interpreter cannot
// be given a budget, so the schema it evaluates is a metered copy: every schema object gets a
// `$id` accessor (returning its own `$id`, if any) and TypeBox reads `$id` once each time it
// enters a subschema (Stack.NextStack) and once per object it walks to resolve a `$ref`. Each read
// is one step; past the limit the read throws, which unwinds TypeBox, and the check fails closed.
//
// The limit is the schema's object count times the arguments' value count (×4, at least 20,000,
// at most 150,000 steps): a schema that reads each value a bounded number of times stays within
// it (40,000 objects of two fields in an array are 120,000 steps), a doubling one is stopped
// after at most about a second of CPU (bench:mcp, argumentCheck*). Pinned to TypeBox
// 1.4.x's reads (test/mcp/argument-budget.test.ts fails if they change). Pure, synchronous;
// `runMetered` never throws the budget error out (it returns it).

export const MIN_ARGUMENT_CHECK_STEPS = 20_000;
export const MAX_ARGUMENT_CHECK_STEPS = 150_000;
const STEPS_PER_SCHEMA_OBJECT_AND_VALUE = 4;

interface Meter {
  steps: number;
  limit: number;
}

// One check runs at a time (synchronous); reads outside a check (compiling) are not counted.
let current: Meter | undefined;

class BudgetExceeded extends Error {}

// Inside these, keys are names (of properties, definitions), not keywords: the map is not a
// schema object and gets no accessor (TypeBox lists a map's own names, `$id` would become one).
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"]);
// Data, not subschemas: copied as they are (compared with the arguments by value).
const DATA_KEYWORDS = new Set(["enum", "const", "default", "examples", "required"]);

export interface MeteredSchema {
  schema: unknown;
  /** Schema objects in it (each one carrying the meter). */
  objects: number;
}

/** A copy of `schema` whose evaluation by TypeBox is counted; `schema` is not changed. */
export function meteredSchema(schema: unknown): MeteredSchema {
  const counter = { objects: 0 };
  return { schema: copySchema(schema, counter, 0), objects: counter.objects };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

// The schema was bounded (depth 32) before it got here, so this recursion is too.
function copySchema(node: unknown, counter: { objects: number }, depth: number): unknown {
  if (Array.isArray(node)) return node.map((item) => copySchema(item, counter, depth + 1));
  if (!isRecord(node)) return node;
  const out: Record<string, unknown> = {};
  const id = node.$id;
  // Present (`"$id" in schema` must be true for TypeBox to read it), in its place, but not listed unless it was there.
  const meter = (enumerable: boolean) =>
    Object.defineProperty(out, "$id", {
      get: () => {
        if (current && ++current.steps > current.limit) throw new BudgetExceeded();
        return id;
      },
      enumerable,
    });
  for (const [key, value] of Object.entries(node)) {
    if (key === "$id") meter(true);
    else if (DATA_KEYWORDS.has(key)) out[key] = value;
    else if (SCHEMA_MAPS.has(key) && isRecord(value)) out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, copySchema(sub, counter, depth + 1)]));
    else out[key] = copySchema(value, counter, depth + 1);
  }
  if (!Object.hasOwn(node, "$id")) meter(false);
  counter.objects++;
  return out;
}

/** Values in `args` (containers and leaves), counted without recursion, stopping past `max`. */
export function countValues(args: unknown, max = Number.MAX_SAFE_INTEGER): number {
  const pending: unknown[] = [args];
  let count = 0;
  while (pending.length > 0 && count <= max) {
    const value = pending.pop();
    count++;
    if (Array.isArray(value)) for (const item of value) pending.push(item);
    else if (isRecord(value)) for (const key of Object.keys(value)) pending.push(value[key]);
  }
  return count;
}

/** The budget of steps for checking `args` against a metered schema of `objects` schema objects. */
export function argumentCheckLimit(objects: number, args: unknown): number {
  const values = countValues(args, MAX_ARGUMENT_CHECK_STEPS);
  return Math.min(MAX_ARGUMENT_CHECK_STEPS, Math.max(MIN_ARGUMENT_CHECK_STEPS, STEPS_PER_SCHEMA_OBJECT_AND_VALUE * objects * values));
}

export type MeteredResult<T> = { ok: true; value: T; steps: number } | { ok: false; steps: number; limit: number };

/** Runs `check` (a TypeBox evaluation of a metered schema) within `limit` steps. */
export function runMetered<T>(limit: number, check: () => T): MeteredResult<T> {
  const outer = current;
  const meter: Meter = { steps: 0, limit };
  current = meter;
  try {
    const value = check();
    return { ok: true, value, steps: meter.steps };
  } catch (error) {
    if (error instanceof BudgetExceeded) return { ok: false, steps: meter.steps, limit };
    throw error;
  } finally {
    current = outer;
  }
}

/** The model's error line for a check stopped by its budget. */
export function budgetProblem(limit: number): string {
  return (
    `- (the arguments object): the arguments are too deeply nested (or too large) for this tool's schema: checking them would take more than ` +
    `${limit.toLocaleString("en-US")} steps (the schema checks the same data more than once at each level of nesting). ` +
    `The tool was not run; send the data less deeply nested, or in several calls.`
  );
}
