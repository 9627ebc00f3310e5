// Lathe's context → the body of an Anthropic Messages request. Thinking blocks of the same model
// are sent back with their signatures (redacted ones as redacted_thinking); other models' thinking
// is dropped, since signatures are bound to the model that made them. Tool results of one turn go
// in one user message, images included. Prompt caching marks the system prompt and the last block.
// Converted incrementally (loop/incremental-conversion.ts): each request converts what is new.
import type {
  MessageCreateParamsStreaming,
  MessageParam,
  ContentBlockParam,
  TextBlockParam,
  ImageBlockParam,
  ToolResultBlockParam,
} from "@anthropic-ai/sdk/resources/messages/messages";
import type { ImageContent, Message, Model, TextContent } from "../../shared/agent-types.ts";
import { argumentsForModel, incrementalConversion, type LlmContext } from "../loop/index.ts";
import { anthropicThinkingStyle } from "./models.ts";
import { imagesAllowed, omittedImageText } from "./content.ts";
import { conversionKey, prepareMessages, sanitizeToolCallId, splitsPrepared } from "./transform-messages.ts";
import type { ProviderStreamOptions } from "./types.ts";

const CACHE = { type: "ephemeral" } as const;
const THINKING_BUDGET = { minimal: 1024, low: 4096, medium: 10_000, high: 32_000 } as const;

function userBlocks(content: string | (TextContent | ImageContent)[], model: Model): (TextBlockParam | ImageBlockParam)[] {
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  return content.flatMap((block): (TextBlockParam | ImageBlockParam)[] => {
    if (block.type === "text") return block.text === "" ? [] : [{ type: "text", text: block.text }];
    if (!imagesAllowed(model)) return [{ type: "text", text: omittedImageText(model) }];
    return [{ type: "image", source: { type: "base64", media_type: block.mimeType as "image/png", data: block.data } }];
  });
}

function assistantBlocks(message: Extract<Message, { role: "assistant" }>, model: Model): ContentBlockParam[] {
  const sameModel = message.provider === model.provider && message.model === model.id && message.api === model.api;
  return message.content.flatMap((block): ContentBlockParam[] => {
    if (block.type === "text") return block.text.trim() === "" ? [] : [{ type: "text", text: block.text }];
    if (block.type === "toolCall") return [{ type: "tool_use", id: block.id, name: block.name, input: argumentsForModel(block) }];
    if (!sameModel || !block.thinkingSignature) return [];
    if (block.redacted) return [{ type: "redacted_thinking", data: block.thinkingSignature }];
    return [{ type: "thinking", thinking: block.thinking, signature: block.thinkingSignature }];
  });
}

function toolResultBlock(message: Extract<Message, { role: "toolResult" }>, model: Model): ToolResultBlockParam {
  const content = userBlocks(message.content, model);
  return { type: "tool_result", tool_use_id: message.toolCallId, content: content.length ? content : [{ type: "text", text: "(no output)" }], is_error: message.isError };
}

/** Converts a run of messages; consecutive messages of one role are merged (see joinSameRole). */
function convertRun(messages: readonly Message[], model: Model): MessageParam[] {
  const out: MessageParam[] = [];
  const append = (role: "user" | "assistant", blocks: ContentBlockParam[]) => {
    if (blocks.length === 0) return;
    const last = out[out.length - 1];
    // Consecutive messages of one role are merged: all results of a parallel batch share one user turn.
    if (last && last.role === role && Array.isArray(last.content)) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const message of prepareMessages(messages, (id) => sanitizeToolCallId(id))) {
    if (message.role === "user") append("user", userBlocks(message.content, model));
    else if (message.role === "assistant") append("assistant", assistantBlocks(message, model));
    else append("user", [toolResultBlock(message, model)]);
  }
  return out;
}

function joinSameRole(last: MessageParam, next: MessageParam): MessageParam | undefined {
  if (last.role !== next.role || !Array.isArray(last.content) || !Array.isArray(next.content)) return undefined;
  return { role: last.role, content: [...last.content, ...next.content] } as MessageParam;
}

const convertIncrementally = incrementalConversion<Message, MessageParam, Model>({ convert: convertRun, splitsBefore: splitsPrepared, join: joinSameRole });

/** The request's messages: only what is new since the last request is converted; the rest is reused, never changed. */
export function convertMessages(messages: readonly Message[], model: Model): MessageParam[] {
  const out = convertIncrementally(messages, conversionKey(model), model);
  const last = out[out.length - 1];
  const blocks = last?.content;
  const lastBlock = Array.isArray(blocks) ? blocks[blocks.length - 1] : undefined;
  if (last && lastBlock && (lastBlock.type === "text" || lastBlock.type === "image" || lastBlock.type === "tool_result")) {
    // A copy: the converted messages are shared with later requests, where this block is not the last.
    out[out.length - 1] = { ...last, content: [...(blocks as ContentBlockParam[]).slice(0, -1), { ...lastBlock, cache_control: CACHE }] } as MessageParam;
  }
  return out;
}

export function buildAnthropicParams(model: Model, context: LlmContext, options: ProviderStreamOptions): MessageCreateParamsStreaming {
  let maxTokens = options.maxTokens ?? model.maxTokens;
  const params: MessageCreateParamsStreaming = { model: model.id, max_tokens: maxTokens, messages: convertMessages(context.messages, model), stream: true };
  if (context.systemPrompt) params.system = [{ type: "text", text: context.systemPrompt, cache_control: CACHE }];
  if (context.tools?.length) {
    params.tools = context.tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.parameters as unknown as { type: "object" } }));
  }
  // The current Messages API takes no sampling parameters, so options.temperature is not sent.
  const level = options.reasoning;
  if (!model.reasoning || level === "off") return params;
  if (anthropicThinkingStyle(model.id) === "adaptive") {
    params.thinking = { type: "adaptive", display: "summarized" };
    if (level) params.output_config = { effort: level === "minimal" ? "low" : level };
  } else {
    const wanted = THINKING_BUDGET[level ?? "medium"];
    maxTokens = Math.min(Math.max(maxTokens, wanted + 4096), model.maxTokens);
    params.max_tokens = maxTokens;
    params.thinking = { type: "enabled", budget_tokens: Math.max(1024, Math.min(wanted, maxTokens - 1024)) };
  }
  return params;
}
