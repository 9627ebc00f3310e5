// A scripted model: a StreamFn that plays a queue of assistant responses as streamed deltas, the
// way a provider adapter would, honouring abort and recording every request it receives. It keeps
// the StreamFn contract: never throws; failures end with stopReason "error" or "aborted".
import type { AssistantMessage, Model, ToolCall, Usage } from "../../../shared/agent-types.ts";
import { emptyUsage } from "../../../shared/agent-types.ts";
import { AssistantEventStream, parseToolArguments, type LlmContext, type StreamFn, type StreamOptions } from "../index.ts";

export interface ScriptedToolCall {
  name: string;
  args?: Record<string, unknown>;
  /** Sent as the argument text instead of JSON.stringify(args): lets a test send malformed JSON. */
  rawArgs?: string;
  id?: string;
}

export interface ScriptedResponse {
  thinking?: string;
  text?: string;
  toolCalls?: ScriptedToolCall[];
  /** Ends the response with stopReason "error" and this text, after streaming what came before. */
  error?: string;
  /** With `error`: the provider recognised it as a context-window overflow. */
  contextOverflow?: boolean;
  /** Waits this long before the first event, and again between deltas when `deltaDelayMs` is set. */
  delayMs?: number;
  deltaDelayMs?: number;
  /** Characters per delta (default 8); `Infinity` sends each block whole. */
  chunkSize?: number;
  usage?: Partial<Usage>;
}

export type ScriptStep = ScriptedResponse | ((context: LlmContext, options: StreamOptions) => ScriptedResponse);

export const scriptedModelInfo: Model = {
  id: "scripted",
  name: "Scripted model",
  api: "openai-completions",
  provider: "scripted",
  contextWindow: 200_000,
  maxTokens: 8_192,
  input: ["text", "image"],
  reasoning: true,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
};

export interface ScriptedModel {
  streamFn: StreamFn;
  model: Model;
  /** Every request received, in order (a structured copy at the time of the call). */
  requests: { context: LlmContext; options: StreamOptions; model: Model }[];
  push(...steps: ScriptStep[]): void;
  remaining(): number;
}

export interface ScriptedModelOptions {
  /** Keep a structured copy of every request (default true; benchmarks turn it off). */
  recordRequests?: boolean;
}

export function createScriptedModel(steps: ScriptStep[] = [], model: Model = scriptedModelInfo, { recordRequests = true }: ScriptedModelOptions = {}): ScriptedModel {
  const queue = [...steps];
  const requests: ScriptedModel["requests"] = [];
  let callCounter = 0;
  const streamFn: StreamFn = (m, context, options) => {
    if (recordRequests) requests.push({ context: snapshot(context), options, model: m });
    const stream = new AssistantEventStream();
    const step = queue.shift();
    const response: ScriptedResponse = !step ? { error: "Scripted model: no response left in the script." } : typeof step === "function" ? step(context, options) : step;
    void play(stream, m, response, options.signal, () => `call_${++callCounter}`);
    return stream;
  };
  return { streamFn, model, requests, push: (...s) => queue.push(...s), remaining: () => queue.length };
}

function snapshot(context: LlmContext): LlmContext {
  return { systemPrompt: context.systemPrompt, messages: structuredClone(context.messages), tools: context.tools };
}

function chunks(text: string, size: number): string[] {
  if (!Number.isFinite(size) || text.length <= size) return [text];
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (ms <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

async function play(stream: AssistantEventStream, model: Model, response: ScriptedResponse, signal: AbortSignal | undefined, nextId: () => string): Promise<void> {
  const message: AssistantMessage = {
    role: "assistant",
    content: [],
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: { ...emptyUsage(), ...response.usage },
    stopReason: "stop",
    timestamp: Date.now(),
  };
  const size = response.chunkSize ?? 8;
  const pause = (): Promise<void> => sleep(response.deltaDelayMs ?? 0, signal);
  const aborted = (): boolean => {
    if (!signal?.aborted) return false;
    message.stopReason = "aborted";
    message.errorMessage = "Request was aborted.";
    stream.push({ type: "error", reason: "aborted", error: message });
    return true;
  };

  await sleep(response.delayMs ?? 0, signal);
  if (aborted()) return;
  stream.push({ type: "start", partial: message });

  if (response.thinking !== undefined) {
    const index = message.content.push({ type: "thinking", thinking: "", thinkingSignature: "sig" }) - 1;
    const block = message.content[index] as { thinking: string };
    stream.push({ type: "thinking_start", contentIndex: index, partial: message });
    for (const delta of chunks(response.thinking, size)) {
      await pause();
      if (aborted()) return;
      block.thinking += delta;
      stream.push({ type: "thinking_delta", contentIndex: index, delta, partial: message });
    }
    stream.push({ type: "thinking_end", contentIndex: index, content: block.thinking, partial: message });
  }

  if (response.text !== undefined) {
    const index = message.content.push({ type: "text", text: "" }) - 1;
    const block = message.content[index] as { text: string };
    stream.push({ type: "text_start", contentIndex: index, partial: message });
    for (const delta of chunks(response.text, size)) {
      await pause();
      if (aborted()) return;
      block.text += delta;
      stream.push({ type: "text_delta", contentIndex: index, delta, partial: message });
    }
    stream.push({ type: "text_end", contentIndex: index, content: block.text, partial: message });
  }

  for (const call of response.toolCalls ?? []) {
    const toolCall: ToolCall = { type: "toolCall", id: call.id ?? nextId(), name: call.name, arguments: {} };
    const index = message.content.push(toolCall) - 1;
    stream.push({ type: "toolcall_start", contentIndex: index, partial: message });
    const json = call.rawArgs ?? JSON.stringify(call.args ?? {});
    for (const delta of chunks(json, Number.isFinite(size) ? size * 4 : size)) {
      await pause();
      if (aborted()) return;
      stream.push({ type: "toolcall_delta", contentIndex: index, delta, partial: message });
    }
    parseToolArguments(toolCall, json);
    stream.push({ type: "toolcall_end", contentIndex: index, toolCall, partial: message });
  }

  if (response.error !== undefined) {
    message.stopReason = "error";
    message.errorMessage = response.error;
    if (response.contextOverflow) message.contextOverflow = true;
    stream.push({ type: "error", reason: "error", error: message });
    return;
  }
  message.stopReason = response.toolCalls?.length ? "toolUse" : "stop";
  stream.push({ type: "done", reason: message.stopReason as "stop" | "toolUse", message });
}
