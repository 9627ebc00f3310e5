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
  const stack: { value: unknown; depth: number }[] = [{ value: root, depth: 1 }];
  let chars = 0;
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (typeof value === "string") chars += value.length + 2;
    else if (value === null || typeof value !== "object") chars += 1;
    else {
      if (depth > maxDepth) return `nested deeper than ${maxDepth} levels`;
      const keys = Array.isArray(value) ? null : Object.keys(value);
      // Counted before the children are queued, so a huge container stops the walk at once.
      chars += 2 + (keys ? keys.length * 4 : (value as unknown[]).length);
      if (chars > maxChars) return tooLarge(maxChars);
      if (keys) {
        for (const key of keys) {
          chars += key.length;
          stack.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1 });
        }
      } else {
        for (const item of value as unknown[]) stack.push({ value: item, depth: depth + 1 });
      }
    }
    if (chars > maxChars) return tooLarge(maxChars);
  }
  return null;
}

/** "larger than 4 million characters", "larger than 10,000 characters". */
export function tooLarge(maxChars: number): string {
  const shown = maxChars >= 1_000_000 ? `${maxChars / 1_000_000} million` : maxChars.toLocaleString("en-US");
  return `larger than ${shown} characters`;
}
