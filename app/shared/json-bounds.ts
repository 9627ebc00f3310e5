// How deep and how big a JSON-like value is, measured without recursion, so a hostile value
// (a request frame, a model's tool arguments, an MCP server's schema) can be refused before
// anything that does recurse (JSON.stringify, structuredClone, String(array), schema checks) sees
// it and overflows the stack. Must not throw, whatever the value: cycles, getters that throw,
// exotic objects. The walk stops as soon as a limit is passed, so its cost is bounded by the
// limits, not by the value.

export interface JsonBounds {
  /** Containers (objects, arrays) nested inside each other; the value itself is level 1. */
  maxDepth: number;
  /** The value's size as JSON text, in characters, counted from below (strings and keys in full, one
   *  character for a number or a literal), so a value within a byte limit as JSON text is within it. */
  maxChars: number;
  /** Values (containers, strings, numbers, literals; keys not counted), when bounded. */
  maxValues?: number;
}

/** Why a value is out of bounds ("nested deeper than 64 levels"); null when it is within. */
export function exceedsBounds(value: unknown, bounds: JsonBounds): string | null {
  try {
    return walk(value, bounds);
  } catch {
    return "not readable as plain data";
  }
}

function walk(root: unknown, { maxDepth, maxChars, maxValues = Infinity }: JsonBounds): string | null {
  // Containers still to visit, with their depths (two stacks: no object per entry). Strings,
  // numbers and literals are counted where they are found, never queued: a call of millions of
  // small values (a model's hostile arguments) allocated an entry per value, and the collections
  // that followed held the main thread for about half a second (bench:huge-answer, tool-args).
  const containers: object[] = [];
  const depths: number[] = [];
  let chars = 0;
  let values = 0;
  /** Counts a leaf, or queues a container one level below `depth`. */
  const visit = (value: unknown, depth: number): void => {
    // Past the limit the walk stops as it does past maxChars (`chars` makes every loop end).
    if (++values > maxValues) chars = Infinity;
    else if (typeof value === "string") chars += value.length + 2;
    else if (value === null || typeof value !== "object") chars += 1;
    else {
      containers.push(value);
      depths.push(depth);
    }
  };
  visit(root, 1);
  while (containers.length > 0 && chars <= maxChars) {
    const value = containers.pop()!;
    const depth = depths.pop()!;
    if (depth > maxDepth) return `nested deeper than ${maxDepth} levels`;
    const keys = Array.isArray(value) ? null : Object.keys(value);
    // Counted before the children are read, so a huge container stops the walk at once.
    chars += 2 + (keys ? keys.length * 4 : (value as unknown[]).length);
    if (keys) {
      for (let i = 0; i < keys.length && chars <= maxChars; i++) {
        chars += keys[i]!.length;
        visit((value as Record<string, unknown>)[keys[i]!], depth + 1);
      }
    } else {
      const items = value as unknown[];
      for (let i = 0; i < items.length && chars <= maxChars; i++) visit(items[i], depth + 1);
    }
  }
  if (values > maxValues) return tooMany(maxValues);
  return chars > maxChars ? tooLarge(maxChars) : null;
}

/** "made of more than 250,000 values". */
export function tooMany(maxValues: number): string {
  return `made of more than ${maxValues.toLocaleString("en-US")} values`;
}

/**
 * Why JSON text would parse into a value out of bounds (nested deeper than `maxDepth`, more than
 * `maxValues` values, counted as containers and commas: the values there are plus the empty
 * containers, so never fewer than the walk of the parsed value counts and at most twice as many,
 * and `[[[…],[…]]]` cannot hide millions of values behind a few commas), or null: read before JSON.parse, so text
 * that would build millions of values or a deep value is refused in one linear pass, without the
 * parse (seconds for 32 MB of `{}` or `[`). Text that is not JSON is left to the parser to name.
 * Strings are skipped by indexOf, so large ones (pasted images) cost little.
 */
export function jsonTextExceeds(text: string, { maxDepth, maxValues = Infinity }: Pick<JsonBounds, "maxDepth" | "maxValues">): string | null {
  let depth = 0;
  let values = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // To the closing quote: the first one not escaped (an even run of backslashes before it).
      let end = i;
      for (;;) {
        end = text.indexOf('"', end + 1);
        if (end === -1) return null;
        let backslashes = 0;
        while (text.charCodeAt(end - 1 - backslashes) === 0x5c) backslashes++;
        if (backslashes % 2 === 0) break;
      }
      i = end;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return `nested deeper than ${maxDepth} levels`;
      // The container is a value, and may be the first of its list (no comma before it).
      if (++values > maxValues) return tooMany(maxValues);
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    } else if (c === 0x2c && ++values > maxValues) {
      return tooMany(maxValues);
    }
  }
  return null;
}

/** "larger than 4 million characters", "larger than 10,000 characters". */
export function tooLarge(maxChars: number): string {
  const shown = maxChars >= 1_000_000 ? `${maxChars / 1_000_000} million` : maxChars.toLocaleString("en-US");
  return `larger than ${shown} characters`;
}
