// The Chat Completions adapter, for any OpenAI-compatible server at any base URL. Reads the
// documented chunks (choices[0].delta with content, reasoning_content or reasoning, tool_calls
// pieces keyed by index; finish_reason; usage in the last chunk with include_usage) and ends on
// [DONE]. Reasoning written inline as `<think>…</think>` at the start of `content` becomes thinking
// too (think-tags.ts). A keyless local server is fine. Never throws.
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import type { Model } from "../../shared/agent-types.ts";
import type { AssistantMessageEventStream, LlmContext } from "../loop/index.ts";
import { openaiClient } from "./openai-client.ts";
import { buildCompletionsParams } from "./openai-completions-request.ts";
import { jsonRequestBody, sendAsJson } from "./request-body.ts";
import { missingKeyMessage, resolveEndpoint } from "./resolve.ts";
import { ReportedError, runProviderStream, StreamEndedEarlyError, type AttemptContext } from "./stream-runner.ts";
import { ThinkTagSplitter, type ContentPiece } from "./think-tags.ts";
import type { ProviderStreamOptions } from "./types.ts";

export function streamOpenAICompletions(model: Model, context: LlmContext, options: ProviderStreamOptions = {}): AssistantMessageEventStream {
  return runProviderStream(model, options, () => {
    const endpoint = resolveEndpoint(model, options, options.settings ?? {}, options.env ?? process.env);
    if (!endpoint.baseUrl) throw new Error(`No base URL for ${endpoint.label.name}. Add the server's URL in Settings → Providers.`);
    const missing = missingKeyMessage(endpoint);
    if (missing) throw new Error(missing);
    const params = buildCompletionsParams(model, context, options);
    // Sent as text serialized item by item (request-body.ts), not re-serialized whole by the SDK.
    const body = jsonRequestBody(params, "messages");
    return {
      provider: endpoint.label,
      attempt: async (ctx) => {
        const chunks = await (await openaiClient(endpoint, ctx, options.headers)).chat.completions.create(params, { signal: ctx.signal, ...sendAsJson(body) });
        return consume(chunks, ctx);
      },
    };
  });
}

type Delta = ChatCompletionChunk.Choice.Delta & { reasoning_content?: string | null; reasoning?: string | null };

async function consume(chunks: AsyncIterable<ChatCompletionChunk>, { builder }: AttemptContext): Promise<"stop" | "length" | "toolUse"> {
  let thinking: number | undefined;
  let text: number | undefined;
  const calls = new Map<number, number>();
  let finish: string | null | undefined;

  const splitter = new ThinkTagSplitter();

  const closeProse = () => {
    if (thinking !== undefined) builder.endBlock(thinking);
    if (text !== undefined) builder.endBlock(text);
    thinking = text = undefined;
  };
  const addThinking = (delta: string) => {
    if (text !== undefined) closeProse();
    thinking ??= builder.thinkingStart();
    builder.thinkingDelta(thinking, delta);
  };
  const addText = (delta: string) => {
    if (thinking !== undefined) {
      builder.endBlock(thinking);
      thinking = undefined;
    }
    text ??= builder.textStart();
    builder.textDelta(text, delta);
  };
  const add = (pieces: ContentPiece[]) => {
    for (const piece of pieces) (piece.kind === "thinking" ? addThinking : addText)(piece.text);
  };

  try {
    for await (const chunk of chunks) {
      if (chunk.usage) {
        const cached = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0;
        builder.setUsage({ input: (chunk.usage.prompt_tokens ?? 0) - cached, output: chunk.usage.completion_tokens ?? 0, cacheRead: cached, cacheWrite: 0 });
      }
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      const delta = (choice.delta ?? {}) as Delta;
      const reasoning = delta.reasoning_content ?? delta.reasoning;
      if (typeof reasoning === "string" && reasoning !== "") addThinking(reasoning);
      if (typeof delta.content === "string" && delta.content !== "") add(splitter.push(delta.content));
      delta.tool_calls?.forEach((piece, position) => {
        const key = piece.index ?? position;
        let index = calls.get(key);
        if (index === undefined) {
          // Servers stream calls one after another: a new index means the previous calls are complete.
          add(splitter.flush());
          closeProse();
          for (const previous of calls.values()) builder.endBlock(previous);
          index = builder.toolCallStart(piece.id || `call_${key}`, piece.function?.name ?? "");
          calls.set(key, index);
        } else {
          builder.patchToolCall(index, { id: piece.id ?? undefined, name: piece.function?.name ?? undefined });
        }
        if (piece.function?.arguments) builder.toolCallDelta(index, piece.function.arguments);
      });
      if (choice.finish_reason) finish = choice.finish_reason;
    }
  } finally {
    // Whatever the tag splitter still holds is kept, even when the stream broke off.
    add(splitter.flush());
  }

  if (!finish) throw new StreamEndedEarlyError();
  switch (finish) {
    case "length":
      return "length";
    case "content_filter":
      throw new ReportedError("The server stopped the response: content filter.");
    default:
      return builder.hasToolCalls ? "toolUse" : "stop";
  }
}
