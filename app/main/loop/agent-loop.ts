// The agent loop: outer loop (follow-ups) around an inner loop (turns: steering, one streamed
// assistant message, its tool batch). Contract (docs/agent-loop.md): every event is
// awaited before the loop goes on; a response ending in error or abort ends the run with
// turn_end then agent_end; an aborted run ends with an aborted assistant message; no tool call
// is left without a result; tool-call arguments over the bounds of tool-call-bounds.ts are replaced by
// an argumentsError before any event carries them. The pipeline callbacks and the stream
// function must not throw; the loop does not guard them.
import type { AgentMessage, AssistantMessage, ToolResultMessage } from "../../shared/agent-types.ts";
import { abortedAssistantMessage, toolCallsOf } from "./messages.ts";
import { boundStreamingToolCall, boundToolCallArguments, boundToolCalls } from "./tool-call-bounds.ts";
import { executeToolCalls } from "./tool-execution.ts";
import type { AgentContext, AgentEventSink, AgentLoopConfig, LlmContext, StreamFn } from "./types.ts";

/** Starts a run with new prompt messages; resolves with every message the run added. */
export function runAgentLoop(
  prompts: AgentMessage[],
  context: AgentContext,
  config: AgentLoopConfig,
  emit: AgentEventSink,
  signal: AbortSignal | undefined,
  streamFn: StreamFn,
): Promise<AgentMessage[]> {
  return startRun(prompts, context, config, emit, signal, streamFn);
}

/**
 * Continues from the context as it is (a resumed session, a retry): the last message must be one
 * the model answers (a user or tool-result message), or a failed answer to retry. The
 * `transformContext` / `convertToLlm` pipeline decides what of a failed answer the model sees.
 */
export async function runAgentLoopContinue(
  context: AgentContext,
  config: AgentLoopConfig,
  emit: AgentEventSink,
  signal: AbortSignal | undefined,
  streamFn: StreamFn,
): Promise<AgentMessage[]> {
  const last = context.messages.at(-1);
  if (!last) throw new Error("Cannot continue: the session has no messages.");
  if (last.role === "assistant" && last.stopReason !== "error" && last.stopReason !== "aborted") {
    throw new Error("Cannot continue from a completed assistant message: send a new prompt.");
  }
  return startRun([], context, config, emit, signal, streamFn);
}

async function startRun(
  prompts: AgentMessage[],
  context: AgentContext,
  config: AgentLoopConfig,
  emit: AgentEventSink,
  signal: AbortSignal | undefined,
  streamFn: StreamFn,
): Promise<AgentMessage[]> {
  const newMessages: AgentMessage[] = [];
  const current: AgentContext = { ...context, messages: [...context.messages] };
  await emit({ type: "agent_start" });
  await emit({ type: "turn_start" });
  for (const prompt of prompts) {
    await emit({ type: "message_start", message: prompt });
    await emit({ type: "message_end", message: prompt });
    current.messages.push(prompt);
    newMessages.push(prompt);
  }
  await runLoop(current, newMessages, config, emit, signal, streamFn);
  return newMessages;
}

async function runLoop(
  current: AgentContext,
  newMessages: AgentMessage[],
  config: AgentLoopConfig,
  emit: AgentEventSink,
  signal: AbortSignal | undefined,
  streamFn: StreamFn,
): Promise<void> {
  const append = (message: AgentMessage): void => {
    current.messages.push(message);
    newMessages.push(message);
  };
  // The first turn's turn_start was emitted by startRun, before the prompts.
  let firstTurn = true;
  let pending: AgentMessage[] = (await config.getSteeringMessages?.()) ?? [];
  for (;;) {
    let hasMoreToolCalls = true;
    while (hasMoreToolCalls || pending.length > 0) {
      if (firstTurn) firstTurn = false;
      else await emit({ type: "turn_start" });
      for (const message of pending) {
        await emit({ type: "message_start", message });
        await emit({ type: "message_end", message });
        append(message);
      }
      if (config.getActiveTools) current.tools = config.getActiveTools();

      const message = await streamAssistantResponse(current, config, emit, signal, streamFn);
      newMessages.push(message);
      if (message.stopReason === "error" || message.stopReason === "aborted") {
        const toolResults = await closeUnrunToolCalls(message, emit);
        for (const result of toolResults) append(result);
        await emit({ type: "turn_end", message, toolResults });
        await emit({ type: "agent_end", messages: newMessages });
        return;
      }

      let toolResults: ToolResultMessage[] = [];
      hasMoreToolCalls = toolCallsOf(message).length > 0;
      if (hasMoreToolCalls) {
        const batch = await executeToolCalls(current, message, config, signal, emit);
        toolResults = batch.messages;
        for (const result of toolResults) append(result);
        hasMoreToolCalls = !batch.terminate;
      }
      await emit({ type: "turn_end", message, toolResults });

      if (config.shouldStopAfterTurn && (await config.shouldStopAfterTurn({ message, toolResults, context: current }))) {
        await emit({ type: "agent_end", messages: newMessages });
        return;
      }
      pending = (await config.getSteeringMessages?.()) ?? [];
    }
    const followUps = (await config.getFollowUpMessages?.()) ?? [];
    if (followUps.length === 0) break;
    pending = followUps;
  }
  await emit({ type: "agent_end", messages: newMessages });
}

/**
 * Tool calls in a response that ended in error or abort never run; each gets an error result so
 * the transcript stays valid for a provider (every tool call answered).
 */
async function closeUnrunToolCalls(message: AssistantMessage, emit: AgentEventSink): Promise<ToolResultMessage[]> {
  const why = message.stopReason === "aborted" ? "the run was aborted" : "the response ended in an error";
  const results: ToolResultMessage[] = [];
  for (const call of toolCallsOf(message)) {
    const result: ToolResultMessage = {
      role: "toolResult",
      toolCallId: call.id,
      toolName: call.name,
      content: [{ type: "text", text: `Not run: ${why} before this tool call could run.` }],
      details: {},
      isError: true,
      timestamp: Date.now(),
    };
    await emit({ type: "message_start", message: result });
    await emit({ type: "message_end", message: result });
    results.push(result);
  }
  return results;
}

async function streamAssistantResponse(
  current: AgentContext,
  config: AgentLoopConfig,
  emit: AgentEventSink,
  signal: AbortSignal | undefined,
  streamFn: StreamFn,
): Promise<AssistantMessage> {
  if (signal?.aborted) {
    // A reason given as text (e.g. "Lathe could not save…") says why; anything else is the user's stop.
    const reason = typeof signal.reason === "string" ? signal.reason : undefined;
    return emitWhole(current, abortedAssistantMessage(config.model, reason), emit);
  }

  const messages = config.transformContext ? await config.transformContext(current.messages, signal) : current.messages;
  const llmContext: LlmContext = {
    systemPrompt: current.systemPrompt,
    messages: await config.convertToLlm(messages),
    tools: current.tools,
  };
  const apiKey = (config.getApiKey ? await config.getApiKey(config.model.provider) : undefined) ?? config.apiKey;
  // Retry notices arrive through a plain callback; chain them so each is awaited in order.
  let retries: Promise<void> = Promise.resolve();
  const stream = streamFn(config.model, llmContext, {
    signal,
    apiKey,
    maxTokens: config.maxTokens,
    temperature: config.temperature,
    reasoning: config.reasoning,
    onRetry: (retry) => {
      retries = retries.then(() => emit({ type: "provider_retry", retry }));
      config.onRetry?.(retry);
    },
  });

  let partial: AssistantMessage | undefined;
  for await (const event of stream) {
    await retries;
    if (event.type === "start") {
      partial = event.partial;
      current.messages.push(partial);
      // The message as the start event had it: no blocks yet (StreamFn contract), whatever the
      // provider has added since (it changes the message in place, ahead of the events this loop
      // has taken). Every block then comes with its *_start update, so a listener that builds the
      // message from the updates (the renderer) sees each block once.
      await emit({ type: "message_start", message: { ...partial, content: [], usage: { ...partial.usage, cost: { ...partial.usage.cost } } } });
    } else if (event.type === "done" || event.type === "error") {
      break;
    } else if (partial) {
      partial = event.partial;
      // Tool arguments arrive from the model: bound them before any event, store or UI sees them.
      if (event.type === "toolcall_delta" || event.type === "toolcall_end") {
        const block = partial.content[event.contentIndex];
        if (block?.type === "toolCall") (event.type === "toolcall_delta" ? boundStreamingToolCall : boundToolCallArguments)(block);
      }
      current.messages[current.messages.length - 1] = partial;
      await emit({ type: "message_update", message: partial, assistantMessageEvent: event });
    }
  }
  await retries;
  const final = await stream.result();
  boundToolCalls(final);
  if (partial) {
    current.messages[current.messages.length - 1] = final;
    await emit({ type: "message_end", message: final });
    return final;
  }
  return emitWhole(current, final, emit);
}

async function emitWhole(current: AgentContext, message: AssistantMessage, emit: AgentEventSink): Promise<AssistantMessage> {
  current.messages.push(message);
  await emit({ type: "message_start", message });
  await emit({ type: "message_end", message });
  return message;
}
