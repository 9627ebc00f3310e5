// A server's `tools/list` entries as Lathe's tool definitions. Everything here comes from the
// server and is treated as hostile: names, descriptions and schemas are bounded; each input
// schema is checked against its JSON Schema meta-schema and compiled with TypeBox 1.x's JSON
// Schema module (the loop's TypeBox 0.34 compiles only its own Kind-tagged types). A server's
// schema is compiled without code generation (no eval of server text; only TypeBox's own
// meta-schemas are compiled to code, once) and without the schema's regular
// expressions (`pattern`, `patternProperties`: a hostile one could hang the main process on the
// model's arguments; the server checks them itself). A tool that cannot be used is kept with its
// `error`, so settings and tool_search can say why. Checking a call's arguments has a work budget
// (argument-check-budget.ts): a check past it fails closed with an error for the model. Never throws.
import { createHash } from "node:crypto";
import Schema from "typebox/schema";
import { Settings } from "typebox/system";
import { exceedsBounds } from "../../shared/json-bounds.ts";
import { argumentCheckLimit, budgetProblem, meteredSchema, runMetered, type MeteredSchema } from "./argument-check-budget.ts";
import { schemaExpansionError } from "./schema-expansion.ts";

Settings.Set({ useAcceleration: false });

export interface McpToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface McpToolDefinition {
  server: string;
  /** The tool's name on its server. */
  name: string;
  /** The name the model calls: `mcp__SERVER__TOOL`, provider-safe, stable for the same server and tool. */
  modelName: string;
  title?: string;
  /** For the model, bounded. */
  description: string;
  /** One line, for search results and settings. */
  summary: string;
  /** The input schema as the model is shown it. */
  inputSchema: Record<string, unknown>;
  annotations: McpToolAnnotations;
  /** Null when the arguments fit the schema, else one line per problem. */
  checkArguments: (args: unknown) => string[] | null;
  /** Why the tool cannot be used (its schema, its name); the model is not offered it. */
  error?: string;
}

export const MAX_TOOLS_PER_SERVER = 1000;
const MAX_NAME = 128;
const MAX_DESCRIPTION = 8_000;
const MAX_SUMMARY = 160;
const SCHEMA_BOUNDS = { maxDepth: 32, maxChars: 256_000 };
const MODEL_NAME_MAX = 64;

type Validator = ReturnType<typeof Schema.Compile>;
const metaValidators = new Map<string, Validator>();
const DEFAULT_DIALECT = "https://json-schema.org/draft/2020-12/schema";

function metaValidator(dialect: unknown): Validator {
  const metas = Schema.Meta as Record<string, unknown>;
  // "$schema" with or without the trailing "#"; an unknown or missing dialect is 2020-12 (MCP's default).
  const candidates = typeof dialect === "string" ? [dialect, dialect.endsWith("#") ? dialect.slice(0, -1) : `${dialect}#`] : [];
  const key = candidates.find((k) => Object.hasOwn(metas, k)) ?? DEFAULT_DIALECT;
  let validator = metaValidators.get(key);
  if (!validator) {
    // TypeBox's own meta-schemas are trusted: compiled to code, they check a schema in microseconds.
    Settings.Set({ useAcceleration: true });
    try {
      validator = Schema.Compile(metas[key] as never);
    } finally {
      Settings.Set({ useAcceleration: false });
    }
    metaValidators.set(key, validator);
  }
  return validator;
}

/** `mcp__SERVER__TOOL`; a tool name that is not provider-safe as it is gets a short hash of itself. */
export function modelToolName(server: string, tool: string): string {
  const prefix = `mcp__${server}__`;
  const safe = tool.replace(/[^A-Za-z0-9_-]/g, "_");
  const exact = safe === tool && prefix.length + safe.length <= MODEL_NAME_MAX;
  if (exact) return prefix + safe;
  const hash = createHash("sha256").update(tool).digest("hex").slice(0, 8);
  return `${prefix}${safe.slice(0, Math.max(1, MODEL_NAME_MAX - prefix.length - hash.length - 1))}_${hash}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function oneLine(text: string, max: number): string {
  const line = text.trim().split(/\n\s*\n|\n/)[0] ?? "";
  const clean = line.replace(/\s+/g, " ").trim();
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/** Reads one listing; at most MAX_TOOLS_PER_SERVER tools, names unique. */
export function readToolList(server: string, rawTools: readonly unknown[]): McpToolDefinition[] {
  const out: McpToolDefinition[] = [];
  const seen = new Set<string>();
  const budget = { remainingChars: MAX_SCHEMA_CHARS_PER_SERVER };
  for (const raw of rawTools.slice(0, MAX_TOOLS_PER_SERVER)) {
    const name = isRecord(raw) && typeof raw.name === "string" ? raw.name : "";
    if (!name || name.length > MAX_NAME || seen.has(name)) continue;
    seen.add(name);
    const nameError = toolNameError(name);
    if (nameError) {
      // Kept (settings say why), never offered: a control character in a name could split the
      // permission rule that "Always allow" saves for it into rules for other servers' tools.
      out.push({ ...readToolDefinition(server, name, { name }), inputSchema: { type: "object" }, checkArguments: () => [`- (the tool): ${nameError}`], error: nameError });
      continue;
    }
    out.push(readToolDefinition(server, name, raw as Record<string, unknown>, budget));
  }
  return out;
}

// C0 and C1 controls, DEL, and the Unicode line and paragraph separators.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** Why a server's tool name cannot be used, or undefined. */
export function toolNameError(name: string): string | undefined {
  const bad = CONTROL_CHARACTER.exec(name);
  if (!bad) return undefined;
  const code = bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
  return `Its name ${JSON.stringify(name).slice(0, 80)} contains a control character (U+${code}); Lathe does not use tools whose names contain control characters.`;
}

/** `budget`: what is left of the server's total for input schemas (JSON characters), spent by this tool's. */
export function readToolDefinition(server: string, name: string, raw: Record<string, unknown>, budget?: { remainingChars: number }): McpToolDefinition {
  const annotations = readAnnotations(raw.annotations);
  const title = typeof raw.title === "string" ? oneLine(raw.title, 100) : annotations.title;
  const rawDescription = typeof raw.description === "string" ? raw.description : "";
  const description = rawDescription.length > MAX_DESCRIPTION ? `${rawDescription.slice(0, MAX_DESCRIPTION)}… (description cut by Lathe)` : rawDescription;
  const base = {
    server,
    name,
    modelName: modelToolName(server, name),
    ...(title ? { title } : {}),
    description: description || `Tool ${name} of the MCP server ${server}.`,
    summary: oneLine(rawDescription, MAX_SUMMARY) || title || "(no description)",
    annotations,
  };
  const schema = readInputSchema(raw.inputSchema, budget);
  if (typeof schema === "string") {
    return { ...base, inputSchema: { type: "object" }, checkArguments: () => [`- (the tool): ${schema}`], error: schema };
  }
  // Compiled on the first call (listing a thousand tools must stay fast); a failure then makes
  // the tool unusable from that moment, with the reason.
  let validator: Validator | undefined;
  let metered: MeteredSchema | undefined;
  const definition: McpToolDefinition = {
    ...base,
    inputSchema: schema.forModel,
    checkArguments: (args) => {
      if (definition.error) return [`- (the tool): ${definition.error}`];
      try {
        metered ??= meteredSchema(schema.checked);
        validator ??= Schema.Compile(metered.schema as never);
      } catch (error) {
        definition.error = `Lathe cannot compile its input schema: ${String((error as Error)?.message ?? error).slice(0, 300)}`;
        return [`- (the tool): ${definition.error}`];
      }
      return checkWith(validator, args, argumentCheckLimit(metered.objects, args));
    },
  };
  return definition;
}

function readAnnotations(raw: unknown): McpToolAnnotations {
  if (!isRecord(raw)) return {};
  const out: McpToolAnnotations = {};
  if (typeof raw.title === "string") out.title = oneLine(raw.title, 100);
  for (const key of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const) {
    if (typeof raw[key] === "boolean") out[key] = raw[key];
  }
  return out;
}

/** The schema as the model sees it and as Lathe checks it (without regular expressions), or why it cannot be used. */
function readInputSchema(raw: unknown, budget?: { remainingChars: number }): ReadSchema {
  if (!isRecord(raw)) return "Its input schema is missing or not an object.";
  const bounds = exceedsBounds(raw, SCHEMA_BOUNDS);
  if (bounds) return `Its input schema is ${bounds}.`;
  // Within the bounds above, so JSON.stringify cannot overflow; the text is the cache's key and the schema's size.
  const text = JSON.stringify(raw);
  if (budget) {
    budget.remainingChars -= text.length;
    if (budget.remainingChars < 0) {
      return `The server's input schemas exceed ${MAX_SCHEMA_CHARS_PER_SERVER / 1_000_000} MB in total, and this tool's is past that: Lathe does not read more of one server's schemas.`;
    }
  }
  // Servers repeat schemas across tools and across listings (each tools/list_changed): each distinct one is checked once.
  const key = createHash("sha256").update(text).digest("base64");
  const cached = checkedSchemas.get(key);
  if (cached !== undefined) return cached;
  const read = checkInputSchema(raw);
  if (checkedSchemas.size >= CHECKED_SCHEMA_CACHE) checkedSchemas.delete(checkedSchemas.keys().next().value!);
  checkedSchemas.set(key, read);
  return read;
}

type ReadSchema = { forModel: Record<string, unknown>; checked: unknown } | string;
const MAX_SCHEMA_CHARS_PER_SERVER = 4_000_000;
const CHECKED_SCHEMA_CACHE = 2_000;
const checkedSchemas = new Map<string, ReadSchema>();

function checkInputSchema(raw: Record<string, unknown>): ReadSchema {
  if (raw.type !== "object") return `Its input schema must describe an object ("type": "object"), not ${JSON.stringify(raw.type ?? null).slice(0, 40)}.`;
  // Before any TypeBox check or compile: evaluating a small schema can still take exponential time.
  const expansion = schemaExpansionError(raw);
  if (expansion) return expansion;
  // Shared by every tool with the same schema: nothing changes it after this (the JSON came from the server's answer).
  const forModel = raw;
  try {
    const meta = metaValidator(raw.$schema);
    if (!meta.Check(raw)) {
      const [, errors] = meta.Errors(raw);
      const lines = errors
        .filter((e) => e.keyword !== "boolean")
        .slice(0, 3)
        .map((e) => `${pointerToField(e.instancePath, "(the schema)")}: ${e.message}`);
      return `Its input schema is not valid JSON Schema: ${lines.join("; ")}.`;
    }
    const checked = withoutRegexes(raw);
    // Evaluating it once finds what TypeBox cannot evaluate (a dialect or keyword it refuses).
    Schema.Check(checked as never, {});
    return { forModel, checked };
  } catch (error) {
    return `Lathe cannot compile its input schema: ${String((error as Error)?.message ?? error).slice(0, 300)}`;
  }
}

/** Drops `pattern` and `patternProperties` (with the `additionalProperties` beside them, which they qualify). */
function withoutRegexes(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutRegexes);
  if (!isRecord(schema)) return schema;
  const out: Record<string, unknown> = {};
  const hasPatternProperties = "patternProperties" in schema;
  for (const [key, value] of Object.entries(schema)) {
    if (key === "pattern" && typeof value === "string") continue;
    if (key === "patternProperties" || (hasPatternProperties && key === "additionalProperties")) continue;
    // Inside these, keys are names of the value's properties, not keywords.
    if (key === "properties" || key === "$defs" || key === "definitions" || key === "dependentSchemas") {
      out[key] = isRecord(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutRegexes(v)])) : value;
    } else if (key === "enum" || key === "const" || key === "default" || key === "examples" || key === "required") {
      out[key] = value;
    } else {
      out[key] = withoutRegexes(value);
    }
  }
  return out;
}

function checkWith(validator: Validator, args: unknown, limit: number): string[] | null {
  try {
    const metered = runMetered(limit, () => validator.Errors(args));
    if (!metered.ok) return [budgetProblem(metered.limit)];
    const [valid, errors] = metered.value;
    if (valid) return null;
    const useful = errors.some((e) => e.keyword !== "boolean") ? errors.filter((e) => e.keyword !== "boolean") : errors;
    const lines = useful.slice(0, 10).map((e) => {
      const extra = e.keyword === "additionalProperties" ? `: ${((e.params as { additionalProperties?: string[] }).additionalProperties ?? []).join(", ")}` : "";
      return `- ${pointerToField(e.instancePath, "(the arguments object)")}: ${e.message}${extra}; received ${describeValue(valueAt(args, e.instancePath))}`;
    });
    return lines.length > 0 ? lines : ["- (the arguments object): does not match the tool's input schema"];
  } catch (error) {
    return [`- (the arguments object): the input schema could not be evaluated (${String((error as Error)?.message ?? error).slice(0, 200)})`];
  }
}

function pointerParts(pointer: string): string[] {
  return pointer === ""
    ? []
    : pointer
        .slice(1)
        .split("/")
        .map((p) => p.replaceAll("~1", "/").replaceAll("~0", "~"));
}

function pointerToField(pointer: string, root: string): string {
  const parts = pointerParts(pointer);
  return parts.length === 0 ? root : parts.join(".");
}

function valueAt(value: unknown, pointer: string): unknown {
  let current = value;
  for (const part of pointerParts(pointer)) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  const kind = value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
  let text: string;
  try {
    text = exceedsBounds(value, { maxDepth: 16, maxChars: 10_000 }) ? "…" : (JSON.stringify(value) ?? String(value));
  } catch {
    text = "…";
  }
  return `${kind} ${text.length > 80 ? `${text.slice(0, 77)}...` : text}`;
}
