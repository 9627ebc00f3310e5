// How much work evaluating a server's JSON Schema can be, measured before TypeBox sees it. A
// schema of a kilobyte can make `$ref` + `allOf` double at every level (d0 = allOf[d1, d1], d1 =
// allOf[d2, d2], ...): within every size and depth bound, yet 2^N subschemas to evaluate on the
// main thread for every check. This counts the subschemas an evaluation reaches, following
// `$ref` (and `$dynamicRef`, `$recursiveRef`) into their targets, with each target's count
// memoized so the counting itself stays linear. A reference back into a schema being counted
// (recursion, as in a tree of nodes) counts once: its cost is paid per level of the arguments,
// which are bounded. Pure; never throws (returns why the schema is refused, or undefined).

export const MAX_SCHEMA_EXPANSION = 10_000;

// Keywords whose value is data or names, not subschemas.
const NOT_SCHEMAS = new Set([
  "enum",
  "const",
  "default",
  "examples",
  "required",
  "$id",
  "$anchor",
  "$dynamicAnchor",
  "$schema",
  "$comment",
  "type",
  "format",
  "pattern",
  "title",
  "description",
]);
// Keywords whose value maps names to subschemas.
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"]);
const REF_KEYWORDS = ["$ref", "$dynamicRef", "$recursiveRef"] as const;
// Definitions are reached through references, not evaluated where they stand.
const DEFINITION_MAPS = new Set(["$defs", "definitions"]);

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

class TooComplex extends Error {}

/** Why the schema is refused for its expansion, or undefined when its evaluation stays within `budget` subschemas. */
export function schemaExpansionError(root: Json, budget = MAX_SCHEMA_EXPANSION): string | undefined {
  const ids = new Map<string, Json>();
  const anchors = new Map<string, Json>();
  indexSchema(root, ids, anchors);
  const memo = new Map<object, number>();
  const onStack = new Set<object>();

  const resolve = (ref: string): Json | undefined => {
    const hash = ref.indexOf("#");
    const base = hash < 0 ? ref : ref.slice(0, hash);
    const fragment = hash < 0 ? "" : ref.slice(hash + 1);
    const doc = base === "" ? root : (ids.get(base) ?? ids.get(base.slice(base.lastIndexOf("/") + 1)));
    if (!doc) return undefined;
    if (fragment === "") return doc;
    if (!fragment.startsWith("/")) return anchors.get(fragment);
    let current: unknown = doc;
    for (const raw of fragment.slice(1).split("/")) {
      const part = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
      if (current === null || typeof current !== "object" || !Object.hasOwn(current, part)) return undefined;
      current = (current as Json)[part];
    }
    return isRecord(current) ? current : undefined;
  };

  const count = (node: unknown): number => {
    if (Array.isArray(node)) return node.reduce((sum: number, item) => sum + count(item), 0);
    if (!isRecord(node)) return 0;
    const known = memo.get(node);
    if (known !== undefined) return known;
    onStack.add(node);
    let total = 1;
    for (const [key, value] of Object.entries(node)) {
      if (NOT_SCHEMAS.has(key) || DEFINITION_MAPS.has(key)) continue;
      if ((REF_KEYWORDS as readonly string[]).includes(key)) {
        if (typeof value !== "string") continue;
        const target = resolve(value);
        if (!target) throw new Error(`it has a ${key} Lathe cannot resolve: ${JSON.stringify(value).slice(0, 80)}`);
        total += onStack.has(target) ? 1 : count(target);
      } else if (SCHEMA_MAPS.has(key)) {
        if (isRecord(value)) for (const sub of Object.values(value)) total += count(sub);
      } else {
        total += count(value);
      }
      if (total > budget) throw new TooComplex();
    }
    onStack.delete(node);
    memo.set(node, total);
    return total;
  };

  try {
    count(root);
    return undefined;
  } catch (error) {
    if (error instanceof TooComplex)
      return `Its input schema is too complex: evaluating it reaches more than ${budget.toLocaleString("en-US")} subschemas (through $ref, allOf, anyOf, oneOf).`;
    if (error instanceof RangeError) return "Its input schema is too complex: its references nest too deeply.";
    return `Its input schema is not usable: ${(error as Error).message}.`;
  }
}

/** `$id` (whole and last path segment) and `$anchor`/`$dynamicAnchor` of every subschema. */
function indexSchema(node: unknown, ids: Map<string, Json>, anchors: Map<string, Json>, depth = 0): void {
  if (depth > 64) return;
  if (Array.isArray(node)) {
    for (const item of node) indexSchema(item, ids, anchors, depth + 1);
    return;
  }
  if (!isRecord(node)) return;
  if (typeof node.$id === "string") {
    const id = node.$id.replace(/#$/, "");
    ids.set(id, node);
    ids.set(id.slice(id.lastIndexOf("/") + 1), node);
  }
  for (const key of ["$anchor", "$dynamicAnchor"]) if (typeof node[key] === "string") anchors.set(node[key] as string, node);
  for (const [key, value] of Object.entries(node)) {
    if (SCHEMA_MAPS.has(key) && isRecord(value)) for (const sub of Object.values(value)) indexSchema(sub, ids, anchors, depth + 1);
    else if (!NOT_SCHEMAS.has(key)) indexSchema(value, ids, anchors, depth + 1);
  }
}
