// How deep and how big a JSON-like value is, measured without recursion, so a hostile value
// (a request frame, a model's tool arguments) can be refused before anything that does recurse
// (JSON.stringify, structuredClone, String(array), schema checks) sees it and overflows the stack.
// Must not throw, whatever the value: cycles, getters that throw, exotic objects. The walk stops
// as soon as a limit is passed, so its cost is bounded by the limits, not by the value.
import type { AssistantMessage, ToolCall } from "../../shared/agent-types.ts";

export interface JsonBounds {
  /** Containers (objects, arrays) nested inside each other; the value itself is level 1. */
  maxDepth: number;
  /** The value's size as JSON text, in characters, counted from below (strings and keys in full, one
   *  character for a number or a literal), so a value within a byte limit as JSON text is within it. */
  maxChars: number;
}

/** The bound of a model's tool-call arguments: enough for any real call (a whole file to write). */
export const TOOL_ARGUMENT_BOUNDS: JsonBounds = { maxDepth: 64, maxChars: 4_000_000 };

/** Why a value is out of bounds ("nested deeper than 64 levels"); null when it is within. */
export function exceedsBounds(value: unknown, bounds: JsonBounds): string | null {
  try {
    return walk(value, bounds);
  } catch {
    return "not readable as plain data";
  }
}

/**
 * Makes a tool call whose arguments are out of bounds storable and harmless: `arguments` becomes
 * {} and `argumentsError` says why, so the loop answers it with an error result; a kept
 * `rawArguments` text longer than the bound is dropped. In place: the call is the provider's
 * streaming block, which later events and the final message share.
 */
export function boundToolCallArguments(call: ToolCall, bounds: JsonBounds = TOOL_ARGUMENT_BOUNDS): void {
  if (typeof call.rawArguments === "string" && call.rawArguments.length > bounds.maxChars) {
    delete call.rawArguments;
    call.arguments = {};
    call.argumentsError = `the arguments were refused: they are ${tooLarge(bounds.maxChars)} (and not valid JSON).`;
    return;
  }
  const reason = exceedsBounds(call.arguments, bounds);
  if (reason === null) return;
  call.arguments = {};
  call.argumentsError = `the arguments were refused: they are ${reason}.`;
}

/** Bounds every tool call of an assistant message (see boundToolCallArguments). */
export function boundToolCalls(message: AssistantMessage): void {
  for (const block of message.content) if (block.type === "toolCall") boundToolCallArguments(block);
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

function tooLarge(maxChars: number): string {
  const shown = maxChars >= 1_000_000 ? `${maxChars / 1_000_000} million` : maxChars.toLocaleString("en-US");
  return `larger than ${shown} characters`;
}
