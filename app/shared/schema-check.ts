// Checking a value against a TypeBox schema, with errors written for whoever sent the value (a
// model's tool call, a renderer's request): one line per failing field, naming what was expected
// and what came. Compiled checkers are cached per schema object. `checkerFor` throws for a schema
// TypeBox cannot compile; everything else here never throws.
import { Kind, type TSchema } from "@sinclair/typebox";
import { TypeCompiler, ValueErrorType, type TypeCheck } from "@sinclair/typebox/compiler";
import { exceedsBounds } from "./json-bounds.ts";

/** What describeValue prints in full (it shows 80 characters: a larger value is not serialized). */
const SHOWN_BOUNDS = { maxDepth: 16, maxChars: 1_000 };

/** Why a value at `path` was left as it was (a coercion refused): shown after its error. */
export interface ValueNote {
  path: string;
  reason: string;
}

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

/** A compiled checker, cached per schema object. */
export function checkerFor(schema: TSchema): TypeCheck<TSchema> {
  let check = compiled.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  return check;
}

export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  let text: string;
  try {
    if (typeof value === "string") text = JSON.stringify(value.slice(0, 80));
    else if (value !== null && typeof value === "object" && exceedsBounds(value, SHOWN_BOUNDS))
      text = Array.isArray(value) ? `[… ${value.length.toLocaleString("en-US")} items]` : "{…}";
    else text = JSON.stringify(value) ?? String(value);
  } catch {
    // A cycle, or nesting too deep to print (String of a deep array recurses as well).
    text = Array.isArray(value) ? "[…]" : value !== null && typeof value === "object" ? "{…}" : String(value);
  }
  const kind = value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
  if (text.length > 80) text = `${text.slice(0, 77)}...`;
  return `${kind} ${text}`;
}

const ARTICLE_KINDS: Record<string, string> = {
  String: "a string",
  Number: "a number",
  Integer: "an integer",
  Boolean: "a boolean",
  Object: "an object",
  Null: "null",
};

/** What a schema asks for, in words: "an integer (minimum 1)", "an array of strings", `"a" or "b"`. */
export function describeSchema(schema: TSchema, depth = 0): string {
  const kind = schema[Kind] as string | undefined;
  if (kind === "Literal") return JSON.stringify(schema.const);
  if (kind === "Union" && depth < 3) {
    const members = (schema.anyOf as TSchema[]).slice(0, 6).map((member) => describeSchema(member, depth + 1));
    return members.join(" or ");
  }
  if (kind === "Array" && depth < 3) {
    const items = schema.items as TSchema | undefined;
    return items ? `an array of ${plural(describeSchema(items, depth + 1))}` : "an array";
  }
  const base = (kind && ARTICLE_KINDS[kind]) ?? "a value";
  const limits: string[] = [];
  for (const key of ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength"] as const) {
    if (typeof schema[key] === "number") limits.push(`${key.replace(/([A-Z])/g, " $1").toLowerCase()} ${schema[key]}`);
  }
  return limits.length > 0 && depth === 0 ? `${base} (${limits.join(", ")})` : base;
}

function plural(described: string): string {
  const match = /^an? (\w+)(.*)$/.exec(described);
  return match ? `${match[1]}s${match[2]}` : described;
}

export function fieldName(path: string): string {
  return path === "" ? "(the arguments object)" : path.slice(1).replaceAll("/", ".");
}

/**
 * "- field: what was expected; received what came", one line per failing field (at most 10). A
 * missing field says what type it expects; a value coercion refused says why.
 */
export function schemaErrorLines(check: TypeCheck<TSchema>, value: unknown, notes: readonly ValueNote[] = []): string[] {
  const lines: string[] = [];
  const seen = new Set<string>();
  const why = new Map(notes.map((r) => [r.path, r.reason]));
  for (const error of check.Errors(value)) {
    if (seen.has(error.path)) continue;
    seen.add(error.path);
    const field = fieldName(error.path);
    if (error.type === ValueErrorType.ObjectRequiredProperty) {
      lines.push(`- ${field}: missing; expected ${describeSchema(error.schema)}`);
    } else {
      const note = why.has(error.path) ? ` (not converted: ${why.get(error.path)})` : "";
      lines.push(`- ${field}: ${error.message}; received ${describeValue(error.value)}${note}`);
    }
    if (lines.length === 10) break;
  }
  return lines;
}
