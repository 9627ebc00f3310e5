// Builds one assistant message as a provider streams it, and pushes each change as an event into
// the AssistantEventStream. The message is mutated in place (every event's `partial` is the same
// object); raw tool-call JSON is kept here, off the message, so the message stays plain data.
// Tool-call arguments are parsed best-effort while streaming and strictly at the end by the loop's
// parseToolArguments: text that is not a JSON object becomes `arguments: {}` plus `argumentsError`
// and `rawArguments`, so the loop can tell the model what went wrong.
// One answer streams at most MAX_ANSWER_CHARS (text, thinking, signatures and tool-call arguments
// together): the piece that would pass it throws AnswerTooLongError out of the adapter, which ends
// the request; what arrived is kept. A model or server stuck in a loop cannot fill the memory, the
// store and the search index without end.
// Each change to the answer (a block started or ended, a non-empty piece of text, thinking,
// signature or arguments, usage counts) is progress, told to the listener set with onProgress:
// the stream runner's stall timer counts that, not bytes (keep-alives add nothing here).
import { parse as parsePartialJson } from "partial-json";
import type { AssistantMessage, Model, StopReason, ThinkingContent, Usage } from "../../shared/agent-types.ts";
import { emptyAssistantMessage, parseToolArguments, TOOL_ARGUMENT_BOUNDS, type AssistantEventStream } from "../loop/index.ts";
import { JsonValueCount } from "./json-value-count.ts";
import { calculateCost } from "./models.ts";

type BlockKind = "text" | "thinking" | "toolCall";

/**
 * Streamed tool-call arguments are parsed again at every piece up to this length (the view shows
 * the call as it is written; the event batcher sends them with every delta up to the same length).
 * Past it, only once they have grown by half since the last parse: re-parsing everything at every
 * piece is quadratic, and a model streaming megabytes of arguments in small pieces held the main
 * process for minutes (3.5 ms per parse of 500 KB here). At 16 KB, the parses of every piece of a
 * list of small values still took 250 ms of one 20 KB chunk of the stream.
 */
const PARSE_EVERY_DELTA_UP_TO = 1024;
/**
 * Nor past this length: what the parse is for (a call's card while it is written) gets partial
 * arguments only up to 256 KB (the event batcher's toolArgumentsCadence), and one parse of a long
 * list of small values held the main process for a third of a second at 400 KB (partial-json is
 * slow per value). The call's arguments are parsed whole at its end.
 */
const PARSE_PARTIAL_UP_TO = Math.min(262_144, TOOL_ARGUMENT_BOUNDS.maxChars);
/**
 * Nor once the arguments hold more values than this (json-value-count.ts): partial-json's cost is
 * per value, and a list of 128,000 small values (256 KB) took one parse of 150 to 300 ms of the
 * main process (bench:huge-answer, tool-args); 4,096 values take a few milliseconds, and a real
 * call (an edit of fifty changes) holds a few hundred. The card then shows the arguments as last
 * parsed until the call ends.
 */
const PARSE_PARTIAL_MAX_VALUES = 4096;
/**
 * A call's arguments counted past this (json-value-count.ts: commas, colons and opening brackets
 * outside strings) are refused at its end without being parsed: parsing 3.75 million small values
 * (7.5 MB) and holding them held the main process 80 to 240 ms (bench:huge-answer, tool-args), and
 * no tool takes that many (a file's content is one string, however long).
 */
export const MAX_ARGUMENT_VALUES = 500_000;

/** About two million tokens: far past every model's output limit (tens of thousands of tokens). */
export const MAX_ANSWER_CHARS = 8_000_000;

/** Thrown by a delta that would take the answer past MAX_ANSWER_CHARS (see the header). */
export class AnswerTooLongError extends Error {
  constructor() {
    super(
      `The answer was stopped at ${MAX_ANSWER_CHARS.toLocaleString("en-US")} characters, far past any model's output limit: ` +
        "the model or its server is likely stuck in a loop. What arrived is kept.",
    );
    this.name = "AnswerTooLongError";
  }
}

export class MessageBuilder {
  readonly message: AssistantMessage;
  private readonly open = new Map<number, BlockKind>();
  private readonly rawArguments = new Map<number, string>();
  /** How long each call's raw arguments were when last parsed while streaming. */
  private readonly parsedLength = new Map<number, number>();
  /** Values in each call's raw arguments, counted while they may still be parsed partially. */
  private readonly valueCounts = new Map<number, JsonValueCount>();
  /** Set by finish/fail: later calls (a late chunk racing an abort) change nothing. */
  private closed = false;
  /** Characters streamed so far (see MAX_ANSWER_CHARS). */
  private streamedChars = 0;
  private progressListener: (() => void) | undefined;

  private readonly model: Model;
  private readonly stream: AssistantEventStream;

  constructor(model: Model, stream: AssistantEventStream) {
    this.model = model;
    this.stream = stream;
    this.message = emptyAssistantMessage(model);
  }

  start(): void {
    this.stream.push({ type: "start", partial: this.message });
  }

  /** Calls `listener` at each change to the answer (see the header); undefined stops it. */
  onProgress(listener: (() => void) | undefined): void {
    this.progressListener = listener;
  }

  get hasContent(): boolean {
    return this.message.content.length > 0;
  }

  get hasToolCalls(): boolean {
    return this.message.content.some((block) => block.type === "toolCall");
  }

  textStart(): number {
    const index = this.add({ type: "text", text: "" }, "text");
    if (index >= 0) this.stream.push({ type: "text_start", contentIndex: index, partial: this.message });
    return index;
  }

  textDelta(index: number, delta: string): void {
    if (this.closed) return;
    const block = this.message.content[index];
    if (block?.type !== "text" || delta === "") return;
    this.count(delta);
    this.progressListener?.();
    block.text += delta;
    this.stream.push({ type: "text_delta", contentIndex: index, delta, partial: this.message });
  }

  thinkingStart(init: Partial<Omit<ThinkingContent, "type">> = {}): number {
    const index = this.add({ type: "thinking", thinking: "", ...init }, "thinking");
    if (index >= 0) this.stream.push({ type: "thinking_start", contentIndex: index, partial: this.message });
    return index;
  }

  thinkingDelta(index: number, delta: string): void {
    if (this.closed) return;
    const block = this.message.content[index];
    if (block?.type !== "thinking" || delta === "") return;
    this.count(delta);
    this.progressListener?.();
    block.thinking += delta;
    this.stream.push({ type: "thinking_delta", contentIndex: index, delta, partial: this.message });
  }

  setThinkingSignature(index: number, signature: string, append = false): void {
    if (this.closed) return;
    const block = this.message.content[index];
    if (block?.type !== "thinking") return;
    // A replaced signature counts only what it adds (a server may resend it whole).
    this.count(append ? signature : signature.slice(block.thinkingSignature?.length ?? 0));
    this.progressListener?.();
    block.thinkingSignature = append ? (block.thinkingSignature ?? "") + signature : signature;
  }

  toolCallStart(id: string, name: string): number {
    const index = this.add({ type: "toolCall", id, name, arguments: {} }, "toolCall");
    this.rawArguments.set(index, "");
    if (index >= 0) this.stream.push({ type: "toolcall_start", contentIndex: index, partial: this.message });
    return index;
  }

  /** Appends a piece of the arguments' JSON and re-parses what has arrived, best effort. */
  toolCallDelta(index: number, delta: string): void {
    if (this.closed) return;
    const block = this.message.content[index];
    if (block?.type !== "toolCall" || delta === "") return;
    this.count(delta);
    this.progressListener?.();
    const raw = (this.rawArguments.get(index) ?? "") + delta;
    this.rawArguments.set(index, raw);
    const parsedAt = this.parsedLength.get(index) ?? 0;
    const values = this.countValues(index, delta);
    if (raw.length <= PARSE_PARTIAL_UP_TO && values <= PARSE_PARTIAL_MAX_VALUES && (raw.length <= PARSE_EVERY_DELTA_UP_TO || raw.length >= parsedAt * 1.5)) {
      this.parsedLength.set(index, raw.length);
      try {
        const parsed: unknown = parsePartialJson(raw);
        if (isPlainObject(parsed)) block.arguments = parsed;
      } catch {
        // Malformed so far: keep the last good parse; the end of the call decides.
      }
    }
    this.stream.push({ type: "toolcall_delta", contentIndex: index, delta, partial: this.message });
  }

  /** Counts the values `delta` adds to call `index`'s arguments (until past MAX_ARGUMENT_VALUES); returns the count. */
  private countValues(index: number, delta: string): number {
    let values = this.valueCounts.get(index);
    if (!values) this.valueCounts.set(index, (values = new JsonValueCount()));
    if (values.count <= MAX_ARGUMENT_VALUES) values.add(delta);
    return values.count;
  }

  /** Sets the call's id/name when a server sends them late (some compatible servers do). */
  patchToolCall(index: number, patch: { id?: string; name?: string }): void {
    if (this.closed) return;
    const block = this.message.content[index];
    if (block?.type !== "toolCall") return;
    if (patch.id) block.id = patch.id;
    if (patch.name) block.name = block.name ? block.name : patch.name;
  }

  rawToolArguments(index: number): string {
    return this.rawArguments.get(index) ?? "";
  }

  /** Ends a block. For a tool call, `fullJson` (when the server repeats it) wins over the deltas. */
  endBlock(index: number, fullJson?: string): void {
    const kind = this.open.get(index);
    const block = this.message.content[index];
    if (!kind || !block || this.closed) return;
    this.open.delete(index);
    this.progressListener?.();
    if (block.type === "text") {
      this.stream.push({ type: "text_end", contentIndex: index, content: block.text, partial: this.message });
    } else if (block.type === "thinking") {
      this.stream.push({ type: "thinking_end", contentIndex: index, content: block.thinking, partial: this.message });
    } else {
      const values = fullJson === undefined ? (this.valueCounts.get(index)?.count ?? 0) : JsonValueCount.of(fullJson);
      if (values > MAX_ARGUMENT_VALUES) {
        block.arguments = {};
        delete block.rawArguments;
        block.argumentsError = `the arguments were refused: they hold more than ${MAX_ARGUMENT_VALUES.toLocaleString("en-US")} values (no tool takes that many; put such data in a file).`;
      } else parseToolArguments(block, fullJson ?? this.rawArguments.get(index) ?? "");
      this.stream.push({ type: "toolcall_end", contentIndex: index, toolCall: block, partial: this.message });
    }
  }

  endAllBlocks(): void {
    for (const index of [...this.open.keys()].sort((a, b) => a - b)) this.endBlock(index);
  }

  /** Replaces the usage counts and recomputes their cost from the model's prices. */
  setUsage(counts: Pick<Usage, "input" | "output" | "cacheRead" | "cacheWrite">): void {
    if (this.closed) return;
    this.progressListener?.();
    const usage = this.message.usage;
    Object.assign(usage, counts);
    usage.totalTokens = usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
    usage.cost = calculateCost(this.model, usage);
  }

  finish(reason: "stop" | "length" | "toolUse"): AssistantMessage {
    if (this.closed) return this.message;
    this.endAllBlocks();
    this.closed = true;
    this.message.stopReason = reason;
    this.stream.push({ type: "done", reason, message: this.message });
    return this.message;
  }

  fail(reason: Extract<StopReason, "error" | "aborted">, errorMessage: string, contextOverflow = false): AssistantMessage {
    if (this.closed) return this.message;
    this.endAllBlocks();
    this.closed = true;
    this.message.stopReason = reason;
    this.message.errorMessage = errorMessage;
    if (contextOverflow) this.message.contextOverflow = true;
    this.stream.push({ type: "error", reason, error: this.message });
    return this.message;
  }

  private count(piece: string): void {
    if (this.streamedChars + piece.length > MAX_ANSWER_CHARS) throw new AnswerTooLongError();
    this.streamedChars += piece.length;
  }

  private add(block: AssistantMessage["content"][number], kind: BlockKind): number {
    if (this.closed) return -1;
    this.progressListener?.();
    this.message.content.push(block);
    const index = this.message.content.length - 1;
    this.open.set(index, kind);
    return index;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
