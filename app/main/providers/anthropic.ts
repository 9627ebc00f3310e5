// The Anthropic Messages API adapter (official SDK, SDK retries off: stream-runner retries).
// Maps the documented stream events (message_start, content_block_start/delta/stop with text,
// thinking, signature and input_json deltas, message_delta, message_stop) onto the builder.
// A StreamFn: never throws; failures end the message with stopReason "error" or "aborted".
import type { RawMessageStreamEvent } from "@anthropic-ai/sdk/resources/messages/messages";
import type { Model } from "../../shared/agent-types.ts";
import type { AssistantMessageEventStream, LlmContext } from "../loop/index.ts";
import { anthropicClient } from "./anthropic-client.ts";
import { buildAnthropicParams } from "./anthropic-request.ts";
import { jsonRequestBody, sendAsJson } from "./request-body.ts";
import { missingKeyMessage, resolveEndpoint } from "./resolve.ts";
import { ReportedError, runProviderStream, StreamEndedEarlyError, type AttemptContext } from "./stream-runner.ts";
import type { ProviderStreamOptions } from "./types.ts";

type Counts = { input: number; output: number; cacheRead: number; cacheWrite: number };

export function streamAnthropic(model: Model, context: LlmContext, options: ProviderStreamOptions = {}): AssistantMessageEventStream {
  return runProviderStream(model, options, () => {
    const endpoint = resolveEndpoint(model, options, options.settings ?? {}, options.env ?? process.env);
    const missing = missingKeyMessage(endpoint);
    if (missing) throw new Error(missing);
    const params = buildAnthropicParams(model, context, options);
    // Sent as text serialized item by item (request-body.ts), not re-serialized whole by the SDK.
    const body = jsonRequestBody(params, "messages");
    return {
      provider: endpoint.label,
      attempt: async (ctx) => {
        const client = await anthropicClient(endpoint, { fetch: ctx.fetch, defaultHeaders: options.headers });
        const events = await client.messages.create(params, { signal: ctx.signal, timeout: 24 * 3600 * 1000, ...sendAsJson(body) });
        return consume(events, ctx);
      },
    };
  });
}

async function consume(events: AsyncIterable<RawMessageStreamEvent>, { builder }: AttemptContext): Promise<"stop" | "length" | "toolUse"> {
  const indexOf = new Map<number, number>();
  const counts: Counts = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  let stopReason: string | null | undefined;
  let stopDetail: string | undefined;
  let complete = false;

  for await (const event of events) {
    switch (event.type) {
      case "message_start": {
        const usage = event.message.usage;
        counts.input = usage.input_tokens ?? 0;
        counts.output = usage.output_tokens ?? 0;
        counts.cacheRead = usage.cache_read_input_tokens ?? 0;
        counts.cacheWrite = usage.cache_creation_input_tokens ?? 0;
        builder.setUsage(counts);
        break;
      }
      case "content_block_start": {
        const block = event.content_block;
        if (block.type === "text") {
          const index = builder.textStart();
          builder.textDelta(index, block.text);
          indexOf.set(event.index, index);
        } else if (block.type === "thinking") {
          const index = builder.thinkingStart(block.signature ? { thinkingSignature: block.signature } : {});
          builder.thinkingDelta(index, block.thinking);
          indexOf.set(event.index, index);
        } else if (block.type === "redacted_thinking") {
          indexOf.set(event.index, builder.thinkingStart({ redacted: true, thinkingSignature: block.data }));
        } else if (block.type === "tool_use") {
          const index = builder.toolCallStart(block.id, block.name);
          const initial = block.input && typeof block.input === "object" && Object.keys(block.input).length ? JSON.stringify(block.input) : "";
          if (initial) builder.toolCallDelta(index, initial);
          indexOf.set(event.index, index);
        }
        break;
      }
      case "content_block_delta": {
        const index = indexOf.get(event.index);
        if (index === undefined) break;
        const delta = event.delta;
        if (delta.type === "text_delta") builder.textDelta(index, delta.text);
        else if (delta.type === "thinking_delta") builder.thinkingDelta(index, delta.thinking);
        else if (delta.type === "signature_delta") builder.setThinkingSignature(index, delta.signature, true);
        else if (delta.type === "input_json_delta") builder.toolCallDelta(index, delta.partial_json);
        break;
      }
      case "content_block_stop": {
        const index = indexOf.get(event.index);
        if (index !== undefined) builder.endBlock(index);
        break;
      }
      case "message_delta": {
        stopReason = event.delta.stop_reason ?? stopReason;
        const details = (event.delta as { stop_details?: { explanation?: string } | null }).stop_details;
        stopDetail = details?.explanation ?? stopDetail;
        const usage = event.usage;
        if (usage.output_tokens != null) counts.output = usage.output_tokens;
        if (usage.input_tokens != null) counts.input = usage.input_tokens;
        if (usage.cache_read_input_tokens != null) counts.cacheRead = usage.cache_read_input_tokens;
        if (usage.cache_creation_input_tokens != null) counts.cacheWrite = usage.cache_creation_input_tokens;
        builder.setUsage(counts);
        break;
      }
      case "message_stop":
        complete = true;
        break;
    }
  }
  if (!complete) throw new StreamEndedEarlyError();
  switch (stopReason) {
    case "tool_use":
      return builder.hasToolCalls ? "toolUse" : "stop";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "refusal":
      throw new ReportedError(`The model declined to continue (refusal)${stopDetail ? `: ${stopDetail}` : ""}.`);
    default:
      return builder.hasToolCalls ? "toolUse" : "stop";
  }
}
