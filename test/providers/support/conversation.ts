// The shared contract conversation, and its replies in each API's documented wire format:
// turn 1 thinks, says a sentence, and asks for two tool calls at once; turn 2 answers. The
// text holds multi-byte UTF-8 characters so byte-level splitting lands inside them.
import { Type } from "@sinclair/typebox";
import type { AssistantMessage, Message, Model, ToolResultMessage, UserMessage } from "../../../app/shared/agent-types.ts";
import type { LlmContext } from "../../../app/main/loop/index.ts";
import { sseData, sseEvent } from "./sse-server.ts";

export const THINKING = "The user wants files — and the date. Two commands, run together.";
export const INTRO = "Je vérifie ☕ 日本語 🚀";
export const ANSWER = "Three files; today is Sunday. Voilà ✅";
export const CALLS = [
  { name: "bash", args: { command: 'ls -la "my dir"' } },
  { name: "bash", args: { command: "date +%A" } },
];

export const tools = [{ name: "bash", description: "Run a shell command", parameters: Type.Object({ command: Type.String() }) }];

export const userMessage: UserMessage = { role: "user", content: "List the files and tell me the day.", timestamp: 1 };

export function contextFor(turn: 1 | 2, first?: AssistantMessage): LlmContext {
  const messages: Message[] = [userMessage];
  if (turn === 2 && first) {
    messages.push(first);
    const calls = first.content.filter((block) => block.type === "toolCall");
    const outputs = ["a.txt\nb.txt\nc.txt", "Sunday"];
    calls.forEach((call, i) => {
      const result: ToolResultMessage = {
        role: "toolResult",
        toolCallId: call.id,
        toolName: call.name,
        content: [{ type: "text", text: outputs[i] ?? "" }],
        isError: false,
        timestamp: 2,
      };
      messages.push(result);
    });
  }
  return { systemPrompt: "You are Lathe.", messages, tools };
}

/** What every adapter must produce, ids and signatures aside. */
export function normalize(message: AssistantMessage) {
  return {
    stopReason: message.stopReason,
    errorMessage: message.errorMessage,
    content: message.content.map((block) =>
      block.type === "toolCall"
        ? { type: block.type, name: block.name, arguments: block.arguments, argumentsError: block.argumentsError }
        : block.type === "thinking"
          ? { type: block.type, thinking: block.thinking }
          : block,
    ),
    usage: { input: message.usage.input, output: message.usage.output, cacheRead: message.usage.cacheRead },
  };
}

export const EXPECTED_TURN_1 = {
  stopReason: "toolUse",
  errorMessage: undefined,
  content: [
    { type: "thinking", thinking: THINKING },
    { type: "text", text: INTRO },
    { type: "toolCall", name: "bash", arguments: CALLS[0]!.args, argumentsError: undefined },
    { type: "toolCall", name: "bash", arguments: CALLS[1]!.args, argumentsError: undefined },
  ],
  usage: { input: 80, output: 50, cacheRead: 20 },
};

export const EXPECTED_TURN_2 = {
  stopReason: "stop",
  errorMessage: undefined,
  content: [{ type: "text", text: ANSWER }],
  usage: { input: 80, output: 12, cacheRead: 20 },
};

/** Splits a string into n roughly equal pieces (for deltas). */
export function pieces(text: string, n: number): string[] {
  const size = Math.ceil(text.length / n);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

// ---- Anthropic Messages API ----

export function anthropicTurn1(): string {
  const usage = { input_tokens: 80, cache_read_input_tokens: 20, cache_creation_input_tokens: 0, output_tokens: 1 };
  let out = sseEvent("message_start", {
    type: "message_start",
    message: { id: "msg_1", type: "message", role: "assistant", model: "claude-sonnet-5-5", content: [], stop_reason: null, stop_sequence: null, usage },
  });
  out += sseEvent("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } });
  for (const piece of pieces(THINKING, 3)) out += sseEvent("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "thinking_delta", thinking: piece } });
  out += sseEvent("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: "EqQBsig==" } });
  out += sseEvent("content_block_stop", { type: "content_block_stop", index: 0 });
  out += sseEvent("ping", { type: "ping" });
  out += sseEvent("content_block_start", { type: "content_block_start", index: 1, content_block: { type: "text", text: "" } });
  for (const piece of pieces(INTRO, 3)) out += sseEvent("content_block_delta", { type: "content_block_delta", index: 1, delta: { type: "text_delta", text: piece } });
  out += sseEvent("content_block_stop", { type: "content_block_stop", index: 1 });
  CALLS.forEach((call, i) => {
    const index = 2 + i;
    out += sseEvent("content_block_start", { type: "content_block_start", index, content_block: { type: "tool_use", id: `toolu_0${i + 1}`, name: call.name, input: {} } });
    for (const piece of pieces(JSON.stringify(call.args), 4))
      out += sseEvent("content_block_delta", { type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece } });
    out += sseEvent("content_block_stop", { type: "content_block_stop", index });
  });
  out += sseEvent("message_delta", { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 50 } });
  out += sseEvent("message_stop", { type: "message_stop" });
  return out;
}

export function anthropicText(text: string, usage = { input: 80, cacheRead: 20, output: 12 }, stop = "end_turn"): string {
  let out = sseEvent("message_start", {
    type: "message_start",
    message: {
      id: "msg_2",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-5-5",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: usage.input, cache_read_input_tokens: usage.cacheRead, cache_creation_input_tokens: 0, output_tokens: 1 },
    },
  });
  out += sseEvent("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
  for (const piece of pieces(text, 3)) out += sseEvent("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: piece } });
  out += sseEvent("content_block_stop", { type: "content_block_stop", index: 0 });
  out += sseEvent("message_delta", { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.output } });
  out += sseEvent("message_stop", { type: "message_stop" });
  return out;
}

export const anthropicModel: Model = {
  id: "claude-sonnet-5-5",
  name: "Claude Sonnet 5.5",
  api: "anthropic-messages",
  provider: "anthropic",
  contextWindow: 1_000_000,
  maxTokens: 128_000,
  input: ["text", "image"],
  reasoning: true,
  cost: { input: 2, output: 10, cacheRead: 0.1, cacheWrite: 2.5 },
};
export const responsesModel: Model = {
  id: "gpt-6.2-sol",
  name: "GPT-6.2 Sol",
  api: "openai-responses",
  provider: "openai",
  contextWindow: 1_050_000,
  maxTokens: 128_000,
  input: ["text", "image"],
  reasoning: true,
  cost: { input: 2, output: 10, cacheRead: 0.1, cacheWrite: 0 },
};
export const completionsModel: Model = {
  id: "qwen3-coder",
  name: "Qwen3 Coder",
  api: "openai-completions",
  provider: "local",
  contextWindow: 32_768,
  maxTokens: 8192,
  input: ["text", "image"],
  reasoning: true,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
};

// ---- OpenAI Responses API ----

function responseObject(status: string, usage?: { input: number; cached: number; output: number }, extra: Record<string, unknown> = {}) {
  return {
    id: "resp_1",
    object: "response",
    created_at: 1,
    status,
    model: "gpt-6.2-sol",
    output: [],
    ...(usage
      ? {
          usage: {
            input_tokens: usage.input,
            input_tokens_details: { cached_tokens: usage.cached },
            output_tokens: usage.output,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: usage.input + usage.output,
          },
        }
      : {}),
    ...extra,
  };
}

export class ResponsesScript {
  private seq = 0;
  out = "";
  private output = 0;
  event(type: string, data: Record<string, unknown>): this {
    this.out += sseEvent(type, { type, sequence_number: this.seq++, ...data });
    return this;
  }
  created(): this {
    return this.event("response.created", { response: responseObject("in_progress") }).event("response.in_progress", { response: responseObject("in_progress") });
  }
  reasoning(summary: string, encrypted = "gAAAAenc"): this {
    const output_index = this.output++;
    const item_id = `rs_${output_index}`;
    this.event("response.output_item.added", { output_index, item: { id: item_id, type: "reasoning", summary: [] } });
    this.event("response.reasoning_summary_part.added", { item_id, output_index, summary_index: 0, part: { type: "summary_text", text: "" } });
    for (const delta of pieces(summary, 3)) this.event("response.reasoning_summary_text.delta", { item_id, output_index, summary_index: 0, delta });
    this.event("response.reasoning_summary_text.done", { item_id, output_index, summary_index: 0, text: summary });
    this.event("response.reasoning_summary_part.done", { item_id, output_index, summary_index: 0, part: { type: "summary_text", text: summary } });
    return this.event("response.output_item.done", {
      output_index,
      item: { id: item_id, type: "reasoning", summary: [{ type: "summary_text", text: summary }], encrypted_content: encrypted },
    });
  }
  text(text: string): this {
    const output_index = this.output++;
    const item_id = `msg_${output_index}`;
    this.event("response.output_item.added", { output_index, item: { id: item_id, type: "message", status: "in_progress", role: "assistant", content: [] } });
    this.event("response.content_part.added", { item_id, output_index, content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
    for (const delta of pieces(text, 3)) this.event("response.output_text.delta", { item_id, output_index, content_index: 0, delta, logprobs: [] });
    this.event("response.output_text.done", { item_id, output_index, content_index: 0, text, logprobs: [] });
    this.event("response.content_part.done", { item_id, output_index, content_index: 0, part: { type: "output_text", text, annotations: [] } });
    return this.event("response.output_item.done", {
      output_index,
      item: { id: item_id, type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] },
    });
  }
  call(callId: string, name: string, args: string, itemId = `fc_${this.output}`): this {
    const output_index = this.output++;
    this.event("response.output_item.added", { output_index, item: { id: itemId, type: "function_call", status: "in_progress", arguments: "", call_id: callId, name } });
    for (const delta of pieces(args, 4)) this.event("response.function_call_arguments.delta", { item_id: itemId, output_index, delta });
    this.event("response.function_call_arguments.done", { item_id: itemId, output_index, arguments: args });
    return this.event("response.output_item.done", { output_index, item: { id: itemId, type: "function_call", status: "completed", arguments: args, call_id: callId, name } });
  }
  completed(usage: { input: number; cached: number; output: number }): string {
    return this.event("response.completed", { response: responseObject("completed", usage) }).out;
  }
  end(type: "response.incomplete" | "response.failed", extra: Record<string, unknown>): string {
    return this.event(type, { response: responseObject(type === "response.failed" ? "failed" : "incomplete", { input: 10, cached: 0, output: 1 }, extra) }).out;
  }
}

export function responsesTurn1(): string {
  const script = new ResponsesScript().created().reasoning(THINKING).text(INTRO);
  CALLS.forEach((call, i) => script.call(`call_${i + 1}`, call.name, JSON.stringify(call.args)));
  return script.completed({ input: 100, cached: 20, output: 50 });
}

export function responsesText(text: string): string {
  return new ResponsesScript().created().text(text).completed({ input: 100, cached: 20, output: 12 });
}

// ---- Chat Completions ----

export function chunk(delta: Record<string, unknown>, finish: string | null = null): string {
  return sseData({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "qwen3-coder", choices: [{ index: 0, delta, finish_reason: finish }] });
}

export function usageChunk(prompt: number, cached: number, completion: number): string {
  return sseData({
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    created: 1,
    model: "qwen3-coder",
    choices: [],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion, prompt_tokens_details: { cached_tokens: cached } },
  });
}

export function completionsTurn1(): string {
  let out = chunk({ role: "assistant", content: "" });
  for (const piece of pieces(THINKING, 3)) out += chunk({ reasoning_content: piece });
  for (const piece of pieces(INTRO, 3)) out += chunk({ content: piece });
  CALLS.forEach((call, i) => {
    out += chunk({ tool_calls: [{ index: i, id: `call_${i + 1}`, type: "function", function: { name: call.name, arguments: "" } }] });
    for (const piece of pieces(JSON.stringify(call.args), 4)) out += chunk({ tool_calls: [{ index: i, function: { arguments: piece } }] });
  });
  out += chunk({}, "tool_calls");
  out += usageChunk(100, 20, 50);
  return out + sseData("[DONE]");
}

export function completionsText(text: string, finish = "stop"): string {
  let out = chunk({ role: "assistant", content: "" });
  for (const piece of pieces(text, 3)) out += chunk({ content: piece });
  out += chunk({}, finish);
  out += usageChunk(100, 20, 12);
  return out + sseData("[DONE]");
}
