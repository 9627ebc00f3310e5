// Tool-call arguments from a model, bounded before any event, store or UI sees them: arguments
// nested deeper or larger than TOOL_ARGUMENT_BOUNDS (and kept raw text longer than it) are
// replaced by `arguments: {}` and an argumentsError, which the loop answers with an error result.
// Never throws.
import type { AssistantMessage, ToolCall } from "../../shared/agent-types.ts";
import { exceedsBounds, tooLarge, type JsonBounds } from "../../shared/json-bounds.ts";

/** The bound of a model's tool-call arguments: enough for any real call (a whole file to write). */
export const TOOL_ARGUMENT_BOUNDS: JsonBounds = { maxDepth: 64, maxChars: 4_000_000 };

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

/**
 * Arguments objects found within TOOL_ARGUMENT_BOUNDS while their call streams. The loop bounds a
 * streaming call at every piece, but a provider replaces the object only when it parses the
 * arguments again (MessageBuilder: at every piece while short, then at each growth by half):
 * measuring the same object at every piece made a call of many small values cost O(n²) (a walk of
 * every value per piece). The call's end and the final message are measured in full regardless.
 */
const withinBounds = new WeakSet<object>();

/** boundToolCallArguments for a call that is streaming: an arguments object is measured once. */
export function boundStreamingToolCall(call: ToolCall): void {
  const args: unknown = call.arguments;
  if (typeof args === "object" && args !== null && withinBounds.has(args)) return;
  boundToolCallArguments(call);
  // Unchanged: it was within the bounds (out of them, the call now holds a new {}).
  if (call.arguments === args && typeof args === "object" && args !== null) withinBounds.add(args);
}

/** Bounds every tool call of an assistant message (see boundToolCallArguments). */
export function boundToolCalls(message: AssistantMessage): void {
  for (const block of message.content) if (block.type === "toolCall") boundToolCallArguments(block);
}
