// Lathe's context → the body of a Chat Completions request, for OpenAI-compatible servers
// (Ollama, LM Studio, llama.cpp, vLLM, OpenRouter) and OpenAI models used that way. Thinking is
// not sent back (the API has no field for it). Tool messages carry text only: Chat Completions
// has no images in tool results, so a tool's images follow in one user message after the batch.
// Converted incrementally (loop/incremental-conversion.ts): each request converts what is new.
import type { ChatCompletionContentPart, ChatCompletionCreateParamsStreaming, ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { ImageContent, Message, Model, TextContent } from "../../shared/agent-types.ts";
import { argumentsForModel, incrementalConversion, type LlmContext } from "../loop/index.ts";
import { dataUrl, imagesAllowed, omittedImageText } from "./content.ts";
import { openaiMinimumEffort } from "./models.ts";
import { conversionKey, prepareMessages, sanitizeToolCallId, splitsPrepared } from "./transform-messages.ts";
import type { ProviderStreamOptions } from "./types.ts";

/** Chat Completions ids: OpenAI caps them at 40 characters; Responses ids keep their call part. */
function normalizeId(id: string): string {
  return sanitizeToolCallId(id.split("|")[0] ?? id, 40);
}

function userContent(content: string | (TextContent | ImageContent)[], model: Model): string | ChatCompletionContentPart[] {
  if (typeof content === "string") return content;
  if (content.every((block) => block.type === "text")) return content.map((block) => (block as TextContent).text).join("\n");
  return content.map((block): ChatCompletionContentPart => {
    if (block.type === "text") return { type: "text", text: block.text };
    if (!imagesAllowed(model)) return { type: "text", text: omittedImageText(model) };
    return { type: "image_url", image_url: { url: dataUrl(block) } };
  });
}

function convertRun(messages: readonly Message[], model: Model): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  let pendingImages: ChatCompletionContentPart[] = [];
  const flushImages = () => {
    if (pendingImages.length === 0) return;
    out.push({ role: "user", content: [{ type: "text", text: "Images returned by the tool calls above:" }, ...pendingImages] });
    pendingImages = [];
  };
  for (const message of prepareMessages(messages, normalizeId)) {
    if (message.role !== "toolResult") flushImages();
    if (message.role === "user") {
      out.push({ role: "user", content: userContent(message.content, model) });
    } else if (message.role === "assistant") {
      const text = message.content.flatMap((block) => (block.type === "text" ? [block.text] : [])).join("");
      const calls = message.content.flatMap((block) =>
        block.type === "toolCall" ? [{ id: block.id, type: "function" as const, function: { name: block.name, arguments: JSON.stringify(argumentsForModel(block)) } }] : [],
      );
      if (text === "" && calls.length === 0) continue;
      out.push({ role: "assistant", content: text === "" ? null : text, ...(calls.length ? { tool_calls: calls } : {}) });
    } else {
      const texts = message.content.flatMap((block) => (block.type === "text" ? [block.text] : []));
      const images = message.content.filter((block): block is ImageContent => block.type === "image");
      if (images.length && imagesAllowed(model)) {
        texts.push(`(${images.length} image${images.length > 1 ? "s" : ""} attached in the next user message)`);
        pendingImages.push(...images.map((image): ChatCompletionContentPart => ({ type: "image_url", image_url: { url: dataUrl(image) } })));
      } else if (images.length) {
        texts.push(omittedImageText(model));
      }
      out.push({ role: "tool", tool_call_id: message.toolCallId, content: texts.join("\n") || "(no output)" });
    }
  }
  flushImages();
  return out;
}

const convertIncrementally = incrementalConversion<Message, ChatCompletionMessageParam, Model>({ convert: convertRun, splitsBefore: splitsPrepared });

// The system message of the last request, reused while the prompt is the same: the request body's
// text is kept per list by its first item (request-body.ts).
let lastSystemMessage: { role: "system"; content: string } | undefined;

function systemMessage(prompt: string): ChatCompletionMessageParam {
  if (lastSystemMessage?.content !== prompt) lastSystemMessage = { role: "system", content: prompt };
  return lastSystemMessage;
}

/** The system prompt, then the messages: only what is new since the last request is converted. */
export function convertMessages(context: LlmContext, model: Model): ChatCompletionMessageParam[] {
  const head: ChatCompletionMessageParam[] = context.systemPrompt ? [systemMessage(context.systemPrompt)] : [];
  return convertIncrementally(context.messages, conversionKey(model), model, head);
}

export function buildCompletionsParams(model: Model, context: LlmContext, options: ProviderStreamOptions): ChatCompletionCreateParamsStreaming {
  const params: ChatCompletionCreateParamsStreaming = {
    model: model.id,
    messages: convertMessages(context, model),
    stream: true,
    stream_options: { include_usage: true },
  };
  const maxTokens = options.maxTokens ?? model.maxTokens;
  // OpenAI itself deprecated max_tokens; compatible servers mostly know only max_tokens.
  if (model.provider === "openai") params.max_completion_tokens = maxTokens;
  else params.max_tokens = maxTokens;
  if (context.tools?.length) {
    params.tools = context.tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.parameters as unknown as Record<string, unknown> },
    }));
  }
  const openaiReasoning = model.provider === "openai" && model.reasoning;
  if (openaiReasoning && options.reasoning) {
    const floor = openaiMinimumEffort(model.id);
    const level = options.reasoning;
    params.reasoning_effort = level === "off" ? floor : level === "minimal" && floor === "low" ? "low" : level;
  }
  if (options.temperature !== undefined && !openaiReasoning) params.temperature = options.temperature;
  return params;
}
