// The OpenAI Responses API adapter, for OpenAI's own models (official SDK, its retries off).
// Maps the documented stream events (response.output_item.added/done, output_text.delta,
// reasoning_summary_text.delta, function_call_arguments.delta/done, response.completed,
// response.incomplete, response.failed) onto the builder. Never throws.
import type { ResponseStreamEvent } from "openai/resources/responses/responses";
import type { Model } from "../../shared/agent-types.ts";
import type { AssistantMessageEventStream, LlmContext } from "../loop/index.ts";
import { isContextOverflowText, streamErrorEvent } from "./errors.ts";
import { openaiClient } from "./openai-client.ts";
import { buildResponsesParams } from "./openai-responses-request.ts";
import { jsonRequestBody, sendAsJson } from "./request-body.ts";
import { missingKeyMessage, resolveEndpoint } from "./resolve.ts";
import { ReportedError, runProviderStream, StreamEndedEarlyError, type AttemptContext } from "./stream-runner.ts";
import type { ProviderStreamOptions } from "./types.ts";

export function streamOpenAIResponses(model: Model, context: LlmContext, options: ProviderStreamOptions = {}): AssistantMessageEventStream {
  return runProviderStream(model, options, () => {
    const endpoint = resolveEndpoint(model, options, options.settings ?? {}, options.env ?? process.env);
    const missing = missingKeyMessage(endpoint);
    if (missing) throw new Error(missing);
    const params = buildResponsesParams(model, context, options);
    // Sent as text serialized item by item (request-body.ts), not re-serialized whole by the SDK.
    const body = jsonRequestBody(params, "input");
    return {
      provider: endpoint.label,
      attempt: async (ctx) => {
        const events = await (await openaiClient(endpoint, ctx, options.headers)).responses.create(params, { signal: ctx.signal, ...sendAsJson(body) });
        return consume(events, ctx);
      },
    };
  });
}

function joinCallId(callId: string, itemId: string | undefined): string {
  return itemId ? `${callId}|${itemId}` : callId;
}

type Usage = { input_tokens?: number; output_tokens?: number; input_tokens_details?: { cached_tokens?: number } | null } | null | undefined;

async function consume(events: AsyncIterable<ResponseStreamEvent>, { builder }: AttemptContext): Promise<"stop" | "length" | "toolUse"> {
  const indexOf = new Map<number, number>();
  const summaryParts = new Map<number, number>();
  const setUsage = (usage: Usage) => {
    if (!usage) return;
    const cached = usage.input_tokens_details?.cached_tokens ?? 0;
    builder.setUsage({ input: (usage.input_tokens ?? 0) - cached, output: usage.output_tokens ?? 0, cacheRead: cached, cacheWrite: 0 });
  };

  for await (const event of events) {
    switch (event.type) {
      case "response.output_item.added": {
        const item = event.item;
        if (item.type === "reasoning") indexOf.set(event.output_index, builder.thinkingStart());
        else if (item.type === "message") indexOf.set(event.output_index, builder.textStart());
        else if (item.type === "function_call") {
          const index = builder.toolCallStart(joinCallId(item.call_id, item.id), item.name);
          if (item.arguments) builder.toolCallDelta(index, item.arguments);
          indexOf.set(event.output_index, index);
        }
        break;
      }
      case "response.reasoning_summary_part.added": {
        const index = indexOf.get(event.output_index);
        const parts = (summaryParts.get(event.output_index) ?? 0) + 1;
        summaryParts.set(event.output_index, parts);
        if (index !== undefined && parts > 1) builder.thinkingDelta(index, "\n\n");
        break;
      }
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta": {
        const index = indexOf.get(event.output_index);
        if (index !== undefined) builder.thinkingDelta(index, event.delta);
        break;
      }
      case "response.output_text.delta":
      case "response.refusal.delta": {
        const index = indexOf.get(event.output_index);
        if (index !== undefined) builder.textDelta(index, event.delta);
        break;
      }
      case "response.function_call_arguments.delta": {
        const index = indexOf.get(event.output_index);
        if (index !== undefined) builder.toolCallDelta(index, event.delta);
        break;
      }
      case "response.output_item.done": {
        const index = indexOf.get(event.output_index);
        if (index === undefined) break;
        const item = event.item;
        const block = builder.message.content[index];
        if (item.type === "reasoning" && block?.type === "thinking") {
          if (block.thinking === "") builder.thinkingDelta(index, item.summary.map((part) => part.text).join("\n\n"));
          builder.setThinkingSignature(index, JSON.stringify(item));
          builder.endBlock(index);
        } else if (item.type === "message" && block?.type === "text") {
          if (block.text === "") builder.textDelta(index, item.content.map((part) => (part.type === "output_text" ? part.text : part.refusal)).join(""));
          builder.endBlock(index);
        } else if (item.type === "function_call") {
          builder.patchToolCall(index, { id: joinCallId(item.call_id, item.id), name: item.name });
          builder.endBlock(index, item.arguments || builder.rawToolArguments(index));
        }
        break;
      }
      case "response.completed":
        setUsage(event.response.usage);
        return builder.hasToolCalls ? "toolUse" : "stop";
      case "response.incomplete": {
        setUsage(event.response.usage);
        const reason = event.response.incomplete_details?.reason;
        if (reason === "content_filter") throw new ReportedError("OpenAI stopped the response: content filter.");
        return "length";
      }
      case "response.failed": {
        setUsage(event.response.usage);
        const error = event.response.error;
        const message = error?.message ?? "the response failed";
        if (isContextOverflowText(`${error?.code ?? ""} ${message}`))
          throw new ReportedError(`OpenAI: the conversation is longer than the model's context window (${message})`, true);
        throw streamErrorEvent(message, error?.code ?? undefined);
      }
    }
  }
  throw new StreamEndedEarlyError();
}
