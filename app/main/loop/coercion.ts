// Argument coercion, guided by a tool's TypeBox schema, before validation: models often write
// `"count": "3"` for a number, `"all": "true"` for a boolean, or one path where a list is asked.
// Only unambiguous cases are converted:
// - a string holding exactly a JSON number, for a number (finite) or an integer (whole and exact);
// - "true" or "false", for a boolean;
// - a single value, for an array (then converted as an item), except a string that looks like a
//   JSON list ("[…]", which the model meant as the list itself).
// Everything else is left as it is for validation to refuse, with a note saying why it was not
// converted. Unions, records and other kinds are never converted (which member was meant is a
// guess). The input is never changed: converted containers are copies. Never throws.
import { Kind, type TSchema } from "@sinclair/typebox";
import type { ValueNote } from "../../shared/schema-check.ts";

export interface Conversion {
  /** JSON-pointer-like path of the value, "" for the arguments themselves, "/a/0" below. */
  path: string;
  from: unknown;
  to: unknown;
}

/** A value left as it was, and why. */
export type Refusal = ValueNote;

export interface CoercionOutcome {
  value: unknown;
  converted: Conversion[];
  refused: Refusal[];
}

const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

export function coerceArguments(schema: TSchema, value: unknown): CoercionOutcome {
  const outcome: CoercionOutcome = { value, converted: [], refused: [] };
  outcome.value = coerce(schema, value, "", outcome);
  return outcome;
}

function coerce(schema: TSchema, value: unknown, path: string, out: CoercionOutcome): unknown {
  switch (schema[Kind]) {
    case "Object":
      return coerceObject(schema, value, path, out);
    case "Array":
      return coerceArray(schema, value, path, out);
    case "Number":
    case "Integer":
      return typeof value === "string" ? coerceNumber(value, schema[Kind] === "Integer", path, out) : value;
    case "Boolean":
      return typeof value === "string" ? coerceBoolean(value, path, out) : value;
    default:
      return value;
  }
}

function coerceObject(schema: TSchema, value: unknown, path: string, out: CoercionOutcome): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const properties = (schema.properties ?? {}) as Record<string, TSchema>;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(properties)) {
    if (!Object.hasOwn(value, key)) continue;
    const before = (value as Record<string, unknown>)[key];
    const after = coerce(properties[key]!, before, `${path}/${key}`, out);
    if (after === before) continue;
    copy ??= { ...(value as Record<string, unknown>) };
    Object.defineProperty(copy, key, { value: after, enumerable: true, writable: true, configurable: true });
  }
  return copy ?? value;
}

function coerceArray(schema: TSchema, value: unknown, path: string, out: CoercionOutcome): unknown {
  const items = schema.items as TSchema | undefined;
  if (Array.isArray(value)) {
    if (!items) return value;
    let copy: unknown[] | undefined;
    value.forEach((item, i) => {
      const after = coerce(items, item, `${path}/${i}`, out);
      if (after === item) return;
      copy ??= [...value];
      copy[i] = after;
    });
    return copy ?? value;
  }
  if (value === undefined || value === null) return value;
  if (typeof value === "string" && value.trimStart().startsWith("[")) {
    out.refused.push({ path, reason: "it looks like a JSON list written as text; send a JSON array" });
    return value;
  }
  // The item is converted quietly: the conversion noted is the whole step, value to list.
  const inner: CoercionOutcome = { value, converted: [], refused: [] };
  const item = items ? coerce(items, value, `${path}/0`, inner) : value;
  out.refused.push(...inner.refused);
  out.converted.push({ path, from: value, to: [item] });
  return [item];
}

function coerceNumber(text: string, integer: boolean, path: string, out: CoercionOutcome): unknown {
  if (!JSON_NUMBER.test(text)) {
    out.refused.push({ path, reason: "not a plain number" });
    return text;
  }
  const number = Number(text);
  if (!Number.isFinite(number)) {
    out.refused.push({ path, reason: "too large" });
    return text;
  }
  if (integer && !Number.isInteger(number)) {
    out.refused.push({ path, reason: "not a whole number" });
    return text;
  }
  if (integer && !Number.isSafeInteger(number)) {
    out.refused.push({ path, reason: "too large to convert exactly" });
    return text;
  }
  out.converted.push({ path, from: text, to: number });
  return number;
}

function coerceBoolean(text: string, path: string, out: CoercionOutcome): unknown {
  if (text === "true" || text === "false") {
    out.converted.push({ path, from: text, to: text === "true" });
    return text === "true";
  }
  out.refused.push({ path, reason: 'only "true" and "false" are' });
  return text;
}
