// Tool-argument validation against a tool's TypeBox schema. Never throws: the result is either the
// validated arguments or an error text written for the model, naming each failing field, what was
// expected and what came, so it can correct the call on the next turn.
import type { TSchema } from "@sinclair/typebox";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { Value } from "@sinclair/typebox/value";

export type ValidationOutcome = { ok: true; value: unknown } | { ok: false; message: string };

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

function checkerFor(schema: TSchema): TypeCheck<TSchema> {
  let check = compiled.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  return check;
}

function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    // A cycle, or nesting too deep to print (String of a deep array recurses as well).
    text = Array.isArray(value) ? "[…]" : value !== null && typeof value === "object" ? "{…}" : String(value);
  }
  const kind = value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
  if (text.length > 80) text = `${text.slice(0, 77)}...`;
  return `${kind} ${text}`;
}

/** Validates `args`; default values declared in the schema are filled in first. */
export function validateToolArguments(toolName: string, schema: TSchema, args: unknown): ValidationOutcome {
  const check = checkerFor(schema);
  if (check.Check(args)) return { ok: true, value: args };
  // Fill schema defaults on a copy, then check again: a model may leave optional-with-default out.
  let candidate: unknown = args;
  if (args !== null && typeof args === "object") {
    candidate = Value.Default(schema, structuredClone(args));
    if (check.Check(candidate)) return { ok: true, value: candidate };
  }
  const lines = schemaErrorLines(check, candidate);
  return {
    ok: false,
    message: `Invalid arguments for tool "${toolName}":\n${lines.join("\n")}\nFix these fields and call the tool again.`,
  };
}

/** "- field: what was expected; received what came", one line per failing field (at most 10). */
export function schemaErrorLines(check: TypeCheck<TSchema>, value: unknown): string[] {
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const error of check.Errors(value)) {
    if (seen.has(error.path)) continue;
    seen.add(error.path);
    const field = error.path === "" ? "(the arguments object)" : error.path.slice(1).replaceAll("/", ".");
    lines.push(`- ${field}: ${error.message}; received ${describeValue(error.value)}`);
    if (lines.length === 10) break;
  }
  return lines;
}

/** A compiled checker, cached per schema object. */
export { checkerFor };
