// A tool call's argument text as the model wrote it, made into the call's `arguments`, and back
// into what the model is sent on later turns. Providers parse with `parseToolArguments` at the end
// of each call, so every provider (and the scripted test model) words a failure the same way.
// Arguments that are not a JSON object become `arguments: {}`, `argumentsError` (a phrase the loop
// completes: "Tool read was not run: <argumentsError>") and `rawArguments`, the text itself, so
// the transcript keeps what the model wrote. Never throws.
import type { ToolCall } from "../../shared/agent-types.ts";

/**
 * The key under which text that is not a JSON object goes back to a provider, inside an object
 * (Anthropic's advice for invalid tool input; servers that parse the arguments accept it too).
 */
const INVALID_JSON_KEY = "INVALID_JSON";

/** Parses the whole argument text of `call` into it (an empty text is `{}`). */
export function parseToolArguments(call: ToolCall, raw: string): void {
  delete call.argumentsError;
  delete call.rawArguments;
  if (raw.trim() === "") {
    call.arguments = {};
    return;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    refuse(call, raw, `the arguments are not valid JSON (${parseProblem(error)}); send them as one complete JSON object.`);
    return;
  }
  if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) {
    call.arguments = parsed as Record<string, unknown>;
    return;
  }
  const got = parsed === null ? "null" : Array.isArray(parsed) ? "an array" : `a ${typeof parsed}`;
  refuse(call, raw, `the arguments must be a JSON object, not ${got}; send them as one JSON object of named fields.`);
}

/** V8's JSON.parse message without the quoted text and its "is not valid JSON" (said once, by us). */
function parseProblem(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/, ".*" is not valid JSON$/s, "").replace(/ is not valid JSON$/, "");
}

function refuse(call: ToolCall, raw: string, why: string): void {
  call.arguments = {};
  call.argumentsError = why;
  call.rawArguments = raw;
}

/** The arguments as a provider sends the call back: the parsed object, or the raw text wrapped. */
export function argumentsForModel(call: ToolCall): Record<string, unknown> {
  return call.rawArguments !== undefined ? { [INVALID_JSON_KEY]: call.rawArguments } : call.arguments;
}
