// Lathe's context → the body of an OpenAI Responses request (stateless: store false). Reasoning
// comes back as encrypted reasoning items, kept as a thinking block's signature (the item's JSON).
// The API pairs a reasoning item with the item that followed it, and we keep no id for text, so a
// reasoning item is replayed only when a function call (whose item id we keep) directly follows it;
// otherwise it is dropped, with the ids of that message's calls, and the model simply re-reasons.
import type { ResponseCreateParamsStreaming, ResponseInputItem, ResponseInputContent, ResponseFunctionCallOutputItemList } from "openai/resources/responses/responses";
import type { AssistantMessage, ImageContent, Message, Model, TextContent } from "../../shared/agent-types.ts";
import { argumentsForModel, incrementalConversion, type LlmContext } from "../loop/index.ts";
import { dataUrl, imagesAllowed, omittedImageText } from "./content.ts";
import { openaiMinimumEffort } from "./models.ts";
import { conversionKey, prepareMessages, sanitizeToolCallId, splitsPrepared } from "./transform-messages.ts";
import type { ProviderStreamOptions } from "./types.ts";

/** Our tool-call id for the Responses API is "call_id|item_id"; foreign ids are sanitized. */
export function splitCallId(id: string): { callId: string; itemId?: string } {
  const [callId = id, itemId] = id.split("|");
  return { callId, itemId: itemId?.startsWith("fc") ? itemId : undefined };
}

function normalizeId(id: string): string {
  const { callId, itemId } = splitCallId(id);
  const clean = sanitizeToolCallId(callId);
  return itemId ? `${clean}|${sanitizeToolCallId(itemId)}` : clean;
}

function inputContent(content: string | (TextContent | ImageContent)[], model: Model): ResponseInputContent[] {
  if (typeof content === "string") return [{ type: "input_text", text: content }];
  return content.map((block): ResponseInputContent => {
    if (block.type === "text") return { type: "input_text", text: block.text };
    if (!imagesAllowed(model)) return { type: "input_text", text: omittedImageText(model) };
    return { type: "input_image", image_url: dataUrl(block), detail: "auto" };
  });
}

function assistantItems(message: AssistantMessage, model: Model): ResponseInputItem[] {
  const sameModel = message.provider === model.provider && message.model === model.id && message.api === model.api;
  const items: ResponseInputItem[] = [];
  const blocks = message.content;
  let keepIds = false;
  blocks.forEach((block, i) => {
    if (block.type === "thinking") {
      const next = blocks[i + 1];
      if (sameModel && block.thinkingSignature && next?.type === "toolCall" && splitCallId(next.id).itemId) {
        try {
          items.push(JSON.parse(block.thinkingSignature) as ResponseInputItem);
          keepIds = true;
        } catch {
          // Not a reasoning item of ours: drop it.
        }
      }
    } else if (block.type === "text") {
      if (block.text !== "") items.push({ role: "assistant", content: block.text });
    } else {
      const { callId, itemId } = splitCallId(block.id);
      items.push({ type: "function_call", call_id: callId, name: block.name, arguments: JSON.stringify(argumentsForModel(block)), ...(keepIds && itemId ? { id: itemId } : {}) });
    }
  });
  return items;
}

function convertRun(messages: readonly Message[], model: Model): ResponseInputItem[] {
  const items: ResponseInputItem[] = [];
  for (const message of prepareMessages(messages, normalizeId)) {
    if (message.role === "user") items.push({ role: "user", content: inputContent(message.content, model) });
    else if (message.role === "assistant") items.push(...assistantItems(message, model));
    else {
      const onlyText = message.content.every((block) => block.type === "text");
      const output = onlyText
        ? message.content.map((block) => (block.type === "text" ? block.text : "")).join("\n")
        : (inputContent(message.content, model) as ResponseFunctionCallOutputItemList);
      items.push({ type: "function_call_output", call_id: splitCallId(message.toolCallId).callId, output });
    }
  }
  return items;
}

const convertIncrementally = incrementalConversion<Message, ResponseInputItem, Model>({ convert: convertRun, splitsBefore: splitsPrepared });

/** The request's input items: only what is new since the last request is converted. */
export function convertInput(messages: readonly Message[], model: Model): ResponseInputItem[] {
  return convertIncrementally(messages, conversionKey(model), model);
}

export function buildResponsesParams(model: Model, context: LlmContext, options: ProviderStreamOptions): ResponseCreateParamsStreaming {
  const params: ResponseCreateParamsStreaming = {
    model: model.id,
    input: convertInput(context.messages, model),
    stream: true,
    store: false,
    max_output_tokens: options.maxTokens ?? model.maxTokens,
  };
  if (context.systemPrompt) params.instructions = context.systemPrompt;
  if (context.tools?.length) {
    params.tools = context.tools.map((tool) => ({
      type: "function",
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters as unknown as Record<string, unknown>,
      strict: false,
    }));
  }
  if (model.reasoning) {
    const floor = openaiMinimumEffort(model.id);
    const level = options.reasoning ?? "medium";
    const effort = level === "off" ? floor : level === "minimal" && floor === "low" ? "low" : level;
    params.reasoning = { effort, summary: "auto" };
    params.include = ["reasoning.encrypted_content"];
    if (effort === "none" && options.temperature !== undefined) params.temperature = options.temperature;
  } else if (options.temperature !== undefined) {
    params.temperature = options.temperature;
  }
  return params;
}
