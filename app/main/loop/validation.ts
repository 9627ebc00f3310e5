// Tool-argument validation against a tool's TypeBox schema, after the unambiguous coercions of
// coercion.ts. Never throws: the result is either the arguments to run with (coerced, or the same
// object when nothing needed converting) or an error text written for the model, naming each
// failing field, what was expected and what came (and why a value was not converted), plus what
// was converted, so it can correct the call on the next turn.
import type { TSchema } from "@sinclair/typebox";
import { checkerFor, describeValue, fieldName, schemaErrorLines } from "../../shared/schema-check.ts";
import { coerceArguments, type Conversion } from "./coercion.ts";

export type ValidationOutcome = { ok: true; value: unknown } | { ok: false; message: string };

/** Coerces, then validates `args`. */
export function validateToolArguments(toolName: string, schema: TSchema, args: unknown): ValidationOutcome {
  const check = checkerFor(schema);
  if (check.Check(args)) return { ok: true, value: args };
  const coerced = coerceArguments(schema, args);
  if (coerced.converted.length > 0 && check.Check(coerced.value)) return { ok: true, value: coerced.value };
  const lines = schemaErrorLines(check, coerced.value, coerced.refused);
  if (coerced.converted.length > 0) lines.push(`Converted before checking: ${coerced.converted.map(describeConversion).join("; ")}.`);
  return {
    ok: false,
    message: `Invalid arguments for tool "${toolName}":\n${lines.join("\n")}\nFix these fields and call the tool again.`,
  };
}

function describeConversion({ path, from, to }: Conversion): string {
  let shown: string;
  try {
    shown = JSON.stringify(to);
  } catch {
    shown = String(to);
  }
  return `${fieldName(path)} from ${describeValue(from)} to ${shown}`;
}
