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
}

/** Why a value is out of bounds ("nested deeper than 64 levels"); null when it is within. */
export function exceedsBounds(value: unknown, bounds: JsonBounds): string | null {
  try {
    return walk(value, bounds);
  } catch {
    return "not readable as plain data";
  }
}

function walk(root: unknown, { maxDepth, maxChars }: JsonBounds): string | null {
  // Containers still to visit, with their depths (two stacks: no object per entry). Strings,
  // numbers and literals are counted where they are found, never queued: a call of millions of
  // small values (a model's hostile arguments) allocated an entry per value, and the collections
  // that followed held the main thread for about half a second (bench:huge-answer, tool-args).
  const containers: object[] = [];
  const depths: number[] = [];
  let chars = 0;
  /** Counts a leaf, or queues a container one level below `depth`. */
  const visit = (value: unknown, depth: number): void => {
    if (typeof value === "string") chars += value.length + 2;
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
  return chars > maxChars ? tooLarge(maxChars) : null;
}

/** "larger than 4 million characters", "larger than 10,000 characters". */
export function tooLarge(maxChars: number): string {
  const shown = maxChars >= 1_000_000 ? `${maxChars / 1_000_000} million` : maxChars.toLocaleString("en-US");
  return `larger than ${shown} characters`;
}
