// The agent loop, as a package of its own: this file is its only entry. Everything outside
// app/main/loop imports from here, never from a file inside; the loop itself imports nothing of
// the project but app/shared (both enforced by `npm run lint`). Its contract: docs/agent-loop.md.
// Its conformance tests and test kit (the scripted model, the loop harness) are in ./test.

// Running: the loop functions, and the Agent that owns a transcript, its tools and its queues.
export { runAgentLoop, runAgentLoopContinue } from "./agent-loop.ts";
export { executeToolCalls, AbandonedToolError, DEFAULT_ABORT_GRACE_MS } from "./tool-execution.ts";
export { Agent, userMessage, type AgentListener, type AgentOptions, type QueueMode } from "./agent.ts";

// For providers: the stream a StreamFn returns, and how tool-call arguments are read and sent back.
export { AssistantEventStream } from "./event-stream.ts";
export { parseToolArguments, argumentsForModel } from "./tool-arguments.ts";
export { TOOL_ARGUMENT_BOUNDS } from "./tool-call-bounds.ts";
export { defaultConvertToLlm, emptyAssistantMessage, toolCallsOf } from "./messages.ts";
export { incrementalConversion, type IncrementalConversionSpec } from "./incremental-conversion.ts";

// For tools and whoever rebuilds a session: argument validation, message-anchored tool loading.
export { validateToolArguments, type ValidationOutcome } from "./validation.ts";
export { activeToolNamesByMessage, addedToolNamesThrough } from "./tool-activation.ts";

export type * from "./types.ts";
