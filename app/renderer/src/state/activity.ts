// What the agent is doing, in a few words, for the status bar: "Waiting for your approval",
// "Running 3 tools", "Thinking", "Writing", "Waiting for the model". Provider retries have their own
// notice ("retrying in 4 s"), and a silent stream its own count ("No data for N s"). Also the
// session's tokens and cost as they grow during a turn: stored answers, answers ended since, and the
// answer being written (its streamed usage where the provider sends it, else an estimate, marked).
// Pure; never throws.
import type { AssistantMessage, Model } from "../../../shared/agent-types";
import type { ToolCardState } from "./session-model";

export interface ActivityInput {
  running: boolean;
  pendingPermissions: number;
  retrying: boolean;
  tools: ReadonlyMap<string, ToolCardState>;
  streaming: AssistantMessage | null;
}

export function describeActivity(input: ActivityInput): string | null {
  if (!input.running) return null;
  if (input.pendingPermissions > 0) return input.pendingPermissions === 1 ? "Waiting for your approval" : `Waiting for your approval (${input.pendingPermissions} calls)`;
  if (input.retrying) return null;
  const running = [...input.tools.values()].filter((c) => c.status === "running");
  if (running.length === 1) return `Running ${running[0]!.toolName}`;
  if (running.length > 1) return `Running ${running.length} tools`;
  if (input.streaming) {
    const last = input.streaming.content.at(-1);
    if (!last) return "Waiting for the model";
    if (last.type === "thinking") return "Thinking";
    if (last.type === "toolCall") return `Writing a ${last.name} call`;
    return "Writing";
  }
  if ([...input.tools.values()].some((c) => c.status === "queued")) return "Preparing tools";
  return "Working";
}

/** Characters per token for an estimate (a common rule of thumb for English text and code). */
const CHARS_PER_TOKEN = 4;

export interface LiveCount {
  tokens: number;
  cost: number;
  /** Part of it is an estimate (the answer being written, where the provider sends no usage yet). */
  estimated: boolean;
}

/**
 * The length of arguments as JSON, measured once per arguments object: a streaming call's arguments
 * change only now and then (app/main/ipc/event-batcher.ts), while this is asked at every update.
 */
const argumentLengths = new WeakMap<object, number>();
function argumentChars(args: object): number {
  let chars = argumentLengths.get(args);
  if (chars === undefined) argumentLengths.set(args, (chars = JSON.stringify(args).length));
  return chars;
}

/** Tokens and cost of the answer being written: what the provider streamed, or an estimate. */
export function streamingUsage(message: AssistantMessage | null, contextTokens: number, model: Pick<Model, "cost"> | undefined): LiveCount {
  if (!message) return { tokens: 0, cost: 0, estimated: false };
  let chars = 0;
  for (const block of message.content) {
    if (block.type === "text") chars += block.text.length;
    else if (block.type === "thinking") chars += block.thinking.length;
    else chars += argumentChars(block.arguments ?? {}) + block.name.length;
  }
  const outputGuess = Math.ceil(chars / CHARS_PER_TOKEN);
  const u = message.usage;
  const streamedInput = (u?.input ?? 0) + (u?.cacheRead ?? 0) + (u?.cacheWrite ?? 0);
  const input = streamedInput > 0 ? streamedInput : contextTokens;
  const output = Math.max(u?.output ?? 0, outputGuess);
  const estimated = streamedInput === 0 || output > (u?.output ?? 0);
  const price = model?.cost;
  const cost = price
    ? streamedInput > 0
      ? ((u?.input ?? 0) * price.input + (u?.cacheRead ?? 0) * price.cacheRead + (u?.cacheWrite ?? 0) * price.cacheWrite + output * price.output) / 1_000_000
      : (input * price.input + output * price.output) / 1_000_000
    : 0;
  return { tokens: input + output, cost, estimated };
}
