// executeToolCalls: the three-phase tool pipeline (prepare, execute, finalize) of one batch.
// Contract (docs/agent-loop.md): never throws for anything a tool or a hook does; the
// returned tool-result messages are in source order; tool_execution_end events come in
// completion order in parallel mode; every tool_execution_update of a call is delivered before
// its tool_execution_end; a hook that is not configured costs nothing.
// Lathe's addition: the loop stops waiting for a tool that ignores the abort signal. Once the
// run is aborted, a tool that has not settled within `config.abortGraceMs` is abandoned: its call
// ends as an aborted error result (so no call is left without one, and the run ends with its
// aborted message as the contract requires), afterToolCall still runs on that result, and the tool's
// late result or late updates are dropped.
// Further additions: arguments are coerced (coercion.ts) before validation; a result that is not
// { content, details } becomes an error result (tool-output.ts); addedToolNames that
// `config.canActivateTool` refuses are left out and reported in the result; the `args` of
// tool_execution_start and tool_execution_update are always the model's arguments.
import type { AgentToolResult, AssistantMessage, ToolCall, ToolResultMessage } from "../../shared/agent-types.ts";
import { errorText } from "../../shared/error-text.ts";
import { errorToolResult, toolCallsOf } from "./messages.ts";
import { toolResultProblem, withCheckedAddedToolNames } from "./tool-output.ts";
import type { AgentContext, AgentEventSink, AgentLoopConfig, AnyAgentTool, ToolBatchResult } from "./types.ts";
import { validateToolArguments } from "./validation.ts";

/** How long a tool may take to stop after an abort before the loop abandons it. */
export const DEFAULT_ABORT_GRACE_MS = 1_500;

/** The reason an abandoned call's result gives. */
export class AbandonedToolError extends Error {
  constructor(toolName: string, graceMs: number) {
    super(`Aborted: ${toolName} did not stop within ${graceMs} ms of the abort, so the call was abandoned; anything it returns later is discarded.`);
    this.name = "AbandonedToolError";
  }
}

interface PreparedCall {
  kind: "prepared";
  toolCall: ToolCall;
  tool: AnyAgentTool;
  args: unknown;
}

interface FinalizedCall {
  toolCall: ToolCall;
  result: AgentToolResult;
  isError: boolean;
}

interface ImmediateCall extends FinalizedCall {
  kind: "immediate";
}

type Preparation = PreparedCall | ImmediateCall;

export async function executeToolCalls(
  context: AgentContext,
  assistantMessage: AssistantMessage,
  config: AgentLoopConfig,
  signal: AbortSignal | undefined,
  emit: AgentEventSink,
): Promise<ToolBatchResult> {
  const toolCalls = toolCallsOf(assistantMessage);
  const tools = new Map<string, AnyAgentTool>();
  for (const tool of context.tools) tools.set(tool.name, tool);
  const sequential = config.toolExecution === "sequential" || toolCalls.some((call) => tools.get(call.name)?.executionMode === "sequential");
  const scope: BatchScope = { context, assistantMessage, config, signal, emit, tools };
  const finalized: FinalizedCall[] = [];
  const messages: ToolResultMessage[] = [];
  if (sequential) {
    // Each call goes through all three phases and emits its result message before the next starts.
    for (const toolCall of toolCalls) {
      const call = await runOneCall(scope, toolCall);
      finalized.push(call);
      messages.push(await emitResultMessage(emit, call));
    }
  } else {
    finalized.push(...(await executeParallel(scope, toolCalls)));
    for (const call of finalized) messages.push(await emitResultMessage(emit, call));
  }
  return { messages, terminate: finalized.length > 0 && finalized.every((c) => c.result.terminate === true) };
}

async function emitResultMessage(emit: AgentEventSink, call: FinalizedCall): Promise<ToolResultMessage> {
  const message = createToolResultMessage(call);
  await emit({ type: "message_start", message });
  await emit({ type: "message_end", message });
  return message;
}

interface BatchScope {
  context: AgentContext;
  assistantMessage: AssistantMessage;
  config: AgentLoopConfig;
  signal: AbortSignal | undefined;
  emit: AgentEventSink;
  tools: Map<string, AnyAgentTool>;
}

async function runOneCall(scope: BatchScope, toolCall: ToolCall): Promise<FinalizedCall> {
  await emitStart(scope, toolCall);
  const preparation = await prepareToolCall(scope, toolCall);
  const call = preparation.kind === "immediate" ? preparation : await executeAndFinalize(scope, preparation);
  await emitEnd(scope, call);
  return call;
}

async function executeParallel(scope: BatchScope, toolCalls: ToolCall[]): Promise<FinalizedCall[]> {
  // Prepare serially in source order: hooks see a deterministic order, dialogs come one at a time.
  const entries: Preparation[] = [];
  for (const toolCall of toolCalls) {
    await emitStart(scope, toolCall);
    const preparation = await prepareToolCall(scope, toolCall);
    if (preparation.kind === "immediate") await emitEnd(scope, preparation);
    entries.push(preparation);
  }
  // Execute and finalize concurrently; each call's end event goes out as soon as it settles.
  return Promise.all(
    entries.map(async (entry) => {
      if (entry.kind !== "prepared") return entry;
      const call = await executeAndFinalize(scope, entry);
      await emitEnd(scope, call);
      return call;
    }),
  );
}

function emitStart(scope: BatchScope, toolCall: ToolCall): Promise<void> | void {
  return scope.emit({
    type: "tool_execution_start",
    toolCallId: toolCall.id,
    toolName: toolCall.name,
    args: toolCall.arguments,
  });
}

function emitEnd(scope: BatchScope, call: FinalizedCall): Promise<void> | void {
  return scope.emit({
    type: "tool_execution_end",
    toolCallId: call.toolCall.id,
    toolName: call.toolCall.name,
    result: call.result,
    isError: call.isError,
  });
}

function immediate(toolCall: ToolCall, text: string): ImmediateCall {
  return { kind: "immediate", toolCall, result: errorToolResult(text), isError: true };
}

async function prepareToolCall(scope: BatchScope, toolCall: ToolCall): Promise<Preparation> {
  const tool = scope.tools.get(toolCall.name);
  if (!tool) return immediate(toolCall, `Tool ${toolCall.name} not found`);
  if (toolCall.argumentsError !== undefined) {
    return immediate(toolCall, `Tool ${toolCall.name} was not run: ${toolCall.argumentsError}`);
  }
  try {
    const raw = tool.prepareArguments ? tool.prepareArguments(toolCall.arguments) : toolCall.arguments;
    const validation = validateToolArguments(tool.name, tool.parameters, raw);
    if (!validation.ok) return immediate(toolCall, validation.message);
    const { beforeToolCall } = scope.config;
    if (beforeToolCall) {
      const decision = await beforeToolCall({ assistantMessage: scope.assistantMessage, toolCall, args: validation.value, context: scope.context }, scope.signal);
      if (decision?.block) return immediate(toolCall, decision.reason || `Tool call ${toolCall.name} was blocked.`);
    }
    return { kind: "prepared", toolCall, tool, args: validation.value };
  } catch (error) {
    return immediate(toolCall, errorText(error));
  }
}

async function executeAndFinalize(scope: BatchScope, prepared: PreparedCall): Promise<FinalizedCall> {
  const executed = await executePrepared(scope, prepared);
  return finalizeExecuted(scope, prepared, executed);
}

async function executePrepared(scope: BatchScope, prepared: PreparedCall): Promise<FinalizedCall> {
  const { toolCall, tool, args } = prepared;
  // Updates are chained so they reach subscribers in the order the tool sent them, and all of
  // them before this call's tool_execution_end. Updates sent after execute settled are dropped.
  let updates: Promise<void> = Promise.resolve();
  let settled = false;
  const onUpdate = (partialResult: AgentToolResult): void => {
    if (settled) return;
    // `args` of tool events are always the model's arguments (see docs/agent-loop.md).
    updates = updates.then(() => scope.emit({ type: "tool_execution_update", toolCallId: toolCall.id, toolName: toolCall.name, args: toolCall.arguments, partialResult }));
  };
  let outcome: FinalizedCall;
  try {
    const execution = tool.execute(toolCall.id, args, scope.signal, onUpdate);
    const result: unknown = scope.signal ? await untilSettledOrAbandoned(execution, scope.signal, scope.config.abortGraceMs ?? DEFAULT_ABORT_GRACE_MS, tool.name) : await execution;
    const problem = toolResultProblem(result);
    outcome = problem
      ? { toolCall, result: errorToolResult(`Tool ${tool.name} gave an unusable result: ${problem}.`), isError: true }
      : { toolCall, result: result as AgentToolResult, isError: false };
  } catch (error) {
    const result = errorToolResult(errorText(error));
    const details = thrownDetails(error);
    if (details !== undefined) result.details = details;
    outcome = { toolCall, result, isError: true };
  }
  settled = true;
  await updates;
  return outcome;
}

/**
 * What a tool attached to its throw for the UI (an exit code, a log file): the thrown value's
 * `details`, whatever the value (an object, an Error, a function; a primitive has none); never throws.
 */
function thrownDetails(error: unknown): unknown {
  try {
    return (error as { details?: unknown } | null | undefined)?.details;
  } catch {
    return undefined;
  }
}

/** `work`, unless `signal` aborts and `work` has not settled `graceMs` later: then AbandonedToolError. */
function untilSettledOrAbandoned<T>(work: Promise<T>, signal: AbortSignal, graceMs: number, toolName: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => {
      timer = setTimeout(() => reject(new AbandonedToolError(toolName, graceMs)), Math.min(Math.max(0, graceMs), 2 ** 31 - 1));
    };
    const done = () => {
      signal.removeEventListener("abort", onAbort);
      if (timer !== undefined) clearTimeout(timer);
    };
    Promise.resolve(work).then(
      (value) => {
        done();
        resolve(value);
      },
      (error: unknown) => {
        done();
        reject(error);
      },
    );
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
}

async function finalizeExecuted(scope: BatchScope, prepared: PreparedCall, executed: FinalizedCall): Promise<FinalizedCall> {
  const { afterToolCall, canActivateTool } = scope.config;
  if (!afterToolCall) return { ...executed, result: withCheckedAddedToolNames(executed.result, canActivateTool) };
  let { result, isError } = executed;
  try {
    const override = await afterToolCall(
      { assistantMessage: scope.assistantMessage, toolCall: prepared.toolCall, args: prepared.args, result, isError, context: scope.context },
      scope.signal,
    );
    if (override) {
      result = {
        ...result,
        content: override.content ?? result.content,
        details: override.details !== undefined ? override.details : result.details,
        terminate: override.terminate ?? result.terminate,
      };
      isError = override.isError ?? isError;
    }
  } catch (error) {
    // The tool's own output is dropped: a failing hook may be the one that redacts it.
    result = errorToolResult(`afterToolCall failed: ${errorText(error)}`);
    isError = true;
  }
  return { toolCall: prepared.toolCall, result: withCheckedAddedToolNames(result, canActivateTool), isError };
}

export function createToolResultMessage(call: FinalizedCall): ToolResultMessage {
  const added = call.result.addedToolNames;
  return {
    role: "toolResult",
    toolCallId: call.toolCall.id,
    toolName: call.toolCall.name,
    content: call.result.content ?? [],
    details: call.result.details,
    ...(added && added.length > 0 ? { addedToolNames: added } : {}),
    isError: call.isError,
    timestamp: Date.now(),
  };
}
