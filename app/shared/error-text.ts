// The text of anything thrown, for an error result or an error answer: JavaScript lets code throw
// any value, and "[object Object]" tells nobody anything.

const MAX_THROWN_JSON = 1_000;

/**
 * What a thrown value says, for an error result: an Error's message (its name when empty), a
 * string as is, an object's string `message`, else the value as JSON (shortened), else String().
 * Never throws, whatever was thrown (cycles, BigInts, getters that throw, proxies).
 */
export function errorText(error: unknown): string {
  try {
    if (error instanceof Error) return error.message || error.name;
    if (typeof error === "string") return error;
    if (error === undefined) return "undefined (thrown without an error value)";
    if (error !== null && typeof error === "object") {
      const message = (error as { message?: unknown }).message;
      if (typeof message === "string" && message !== "") return message;
      const json = jsonOrUndefined(error);
      if (json !== undefined) return json.length > MAX_THROWN_JSON ? `${json.slice(0, MAX_THROWN_JSON)}…` : json;
    }
    return String(error);
  } catch {
    return "an error value that cannot be shown";
  }
}

function jsonOrUndefined(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined; // a cycle or a BigInt
  }
}
