// The part every adapter shares: it owns the event stream, the attempts and their retries, the
// user's abort, and the stall timer. An adapter supplies one `attempt` that sends the request
// and feeds the MessageBuilder; whatever it throws is classified here. Never throws: every path
// ends the stream with `done` or `error`.
// The stall timer has two limits. No bytes at all for the stall time (`idleMs`) ends the attempt,
// as before. Bytes that carry no part of the answer (SSE comments such as `: keep-alive`, ping
// events, empty chunks) keep it alive only up to KEEP_ALIVE_FACTOR times that: a reasoning model
// behind a proxy that sends keep-alives while it thinks gets ten minutes by default, and a server
// that only ever sends keep-alives is still stopped. Progress is the answer's headers and each
// change the adapter makes to the answer (MessageBuilder's onProgress).
import type { Model } from "../../shared/agent-types.ts";
import { AssistantEventStream, type AssistantMessageEventStream } from "../loop/index.ts";
import { connectionLostMessage, describeFailure, type FailureInfo, type ProviderLabel } from "./errors.ts";
import { AnswerTooLongError, MessageBuilder } from "./message-builder.ts";
import { retryDelay, sleep } from "./retry.ts";
import { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_RETRY_POLICY, type ProviderStreamOptions, type RetryPolicy } from "./types.ts";

export interface AttemptContext {
  builder: MessageBuilder;
  /** Aborted by the user's abort or by the stall timer; pass it to the SDK call. */
  signal: AbortSignal;
  /** A fetch for the SDK client: its headers count as progress, its bytes as life (see the header), and what it reads is bounded. */
  fetch: typeof fetch;
}

export interface Adapter {
  provider: ProviderLabel;
  /** Sends one request and streams it into the builder; resolves with the stop reason. */
  attempt(ctx: AttemptContext): Promise<"stop" | "length" | "toolUse">;
}

/** Thrown by adapters when the body ends before the API's terminal event. */
export class StreamEndedEarlyError extends Error {
  constructor() {
    super("The connection closed before the response was complete.");
    this.name = "StreamEndedEarlyError";
  }
}

/** A failure whose message is final (no key, a refusal, a failed response): reported as is, never retried. */
export class ReportedError extends Error {
  readonly contextOverflow: boolean;
  constructor(message: string, contextOverflow = false) {
    super(message);
    this.name = "ReportedError";
    this.contextOverflow = contextOverflow;
  }
}

export function runProviderStream(model: Model, options: ProviderStreamOptions, makeAdapter: () => Adapter): AssistantMessageEventStream {
  const stream = new AssistantEventStream();
  const builder = new MessageBuilder(model, stream);
  void drive(builder, options, makeAdapter).catch((error: unknown) => {
    builder.fail("error", `Unexpected provider failure: ${error instanceof Error ? error.message : String(error)}`);
  });
  return stream;
}

async function drive(builder: MessageBuilder, options: ProviderStreamOptions, makeAdapter: () => Adapter): Promise<void> {
  builder.start();
  const userSignal = options.signal;
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  const maxAttempts = Math.max(1, Math.floor(policy.maxAttempts));
  const idleMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;

  let adapter: Adapter;
  try {
    adapter = makeAdapter();
  } catch (error) {
    builder.fail("error", error instanceof Error ? error.message : String(error));
    return;
  }

  for (let attempt = 1; ; attempt++) {
    if (userSignal?.aborted) {
      builder.fail("aborted", "Request aborted.");
      return;
    }
    const outcome = await runAttempt(adapter, builder, userSignal, idleMs);
    if (outcome.kind === "done") {
      builder.finish(outcome.reason);
      return;
    }
    if (outcome.kind === "aborted") {
      builder.fail("aborted", "Request aborted.");
      return;
    }
    const info = outcome.info;
    if (info.connectionLost && builder.hasContent) {
      builder.fail("error", connectionLostMessage(adapter.provider));
      return;
    }
    if (!info.retryable || builder.hasContent || attempt >= maxAttempts) {
      const suffix = info.retryable && attempt > 1 ? ` (gave up after ${attempt} attempts)` : "";
      builder.fail("error", info.message + suffix, info.contextOverflow);
      return;
    }
    const delayMs = retryDelay(attempt, policy, info.retryAfterMs);
    options.onRetry?.({ attempt: attempt + 1, maxAttempts, delayMs, error: info.message });
    if (!(await sleep(delayMs, userSignal))) {
      builder.fail("aborted", "Request aborted.");
      return;
    }
  }
}

type AttemptOutcome = { kind: "done"; reason: "stop" | "length" | "toolUse" } | { kind: "aborted" } | { kind: "failed"; info: FailureInfo };

async function runAttempt(adapter: Adapter, builder: MessageBuilder, userSignal: AbortSignal | undefined, idleMs: number): Promise<AttemptOutcome> {
  const controller = new AbortController();
  let stalled = false;
  let stalledBy: "silence" | "keep-alives" = "silence";
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Bytes and progress only note the time (they come at every chunk and delta); the timer, when it
  // fires, waits on for what is left of either limit, or stops the attempt.
  const progressMs = idleMs * KEEP_ALIVE_FACTOR;
  let lastByte = performance.now();
  let lastProgress = lastByte;
  const alive = () => {
    lastByte = performance.now();
  };
  const progress = () => {
    lastProgress = lastByte = performance.now();
  };
  const check = () => {
    const now = performance.now();
    const left = Math.min(idleMs - (now - lastByte), progressMs - (now - lastProgress));
    if (left > 0) {
      timer = setTimeout(check, left);
      return;
    }
    stalled = true;
    stalledBy = now - lastByte >= idleMs ? "silence" : "keep-alives";
    controller.abort(new Error("stalled"));
  };
  // The user's abort settles the attempt at once, whatever the SDK is doing; the request is cancelled.
  let onUserAbort = () => {};
  const userAborted = new Promise<AttemptOutcome>((resolve) => {
    onUserAbort = () => {
      controller.abort(userSignal?.reason);
      resolve({ kind: "aborted" });
    };
    userSignal?.addEventListener("abort", onUserAbort, { once: true });
  });
  let lineTooLong = false;
  const onLineTooLong = () => {
    lineTooLong = true;
    controller.abort(new Error("line too long"));
  };
  const ctx: AttemptContext = { builder, signal: controller.signal, fetch: watchingFetch(progress, alive, onLineTooLong) };
  builder.onProgress(progress);
  timer = setTimeout(check, idleMs);
  const work = adapter.attempt(ctx).then(
    (reason): AttemptOutcome => (userSignal?.aborted ? { kind: "aborted" } : stalled ? stallOutcome(stalledBy, idleMs) : { kind: "done", reason }),
    (error: unknown): AttemptOutcome => {
      if (userSignal?.aborted) return { kind: "aborted" };
      if (stalled) return stallOutcome(stalledBy, idleMs);
      if (lineTooLong) {
        const message = `${adapter.provider.name} sent a line of over ${MAX_LINE_BYTES / 1024 / 1024} MB without its end; the answer was stopped there.`;
        return { kind: "failed", info: { message, retryable: false, contextOverflow: false } };
      }
      if (error instanceof ReportedError) return { kind: "failed", info: { message: cutMessage(error.message), retryable: false, contextOverflow: error.contextOverflow } };
      if (error instanceof AnswerTooLongError) return { kind: "failed", info: { message: error.message, retryable: false, contextOverflow: false } };
      if (error instanceof StreamEndedEarlyError) {
        return { kind: "failed", info: { message: `${adapter.provider.name}: ${error.message}`, retryable: true, contextOverflow: false, connectionLost: true } };
      }
      const info = describeFailure(error, adapter.provider);
      return { kind: "failed", info: { ...info, message: cutMessage(info.message) } };
    },
  );
  try {
    return await Promise.race([work, userAborted]);
  } finally {
    builder.onProgress(undefined);
    clearTimeout(timer);
    userSignal?.removeEventListener("abort", onUserAbort);
    if (!controller.signal.aborted) controller.abort();
  }
}

/** Longest failure message kept: a server's error text is quoted in it, and a server chooses its length. */
export const MAX_FAILURE_MESSAGE_CHARS = 4_000;

function cutMessage(message: string): string {
  if (message.length <= MAX_FAILURE_MESSAGE_CHARS) return message;
  return `${message.slice(0, MAX_FAILURE_MESSAGE_CHARS)}… (${(message.length - MAX_FAILURE_MESSAGE_CHARS).toLocaleString("en-US")} more characters cut)`;
}

/** Keep-alives without a part of the answer keep a stream alive up to this many stall times. */
export const KEEP_ALIVE_FACTOR = 5;

function stallOutcome(by: "silence" | "keep-alives", idleMs: number): AttemptOutcome {
  const message =
    by === "silence"
      ? `The stream stalled: no data for ${duration(idleMs)}.`
      : `The stream stalled: only keep-alives for ${duration(idleMs * KEEP_ALIVE_FACTOR)}, no part of the answer.`;
  return { kind: "failed", info: { message, retryable: false, contextOverflow: false } };
}

function duration(ms: number): string {
  return ms >= 1000 ? `${Number((ms / 1000).toFixed(1))} s` : `${ms} ms`;
}

/**
 * What a server may send that is read at all. An error answer (status not 2xx) is read up to
 * MAX_ERROR_BODY_BYTES and cut there: its message is in its first lines. A streamed answer's line
 * (a server-sent event's data line, which the SDKs collect whole) may be at most MAX_LINE_BYTES:
 * far more than any event carries (the largest, OpenAI's response.completed, holds the whole
 * answer, at most 8 million characters). Every chunk resets the stall timer's silence, so before these
 * bounds an error answer without end, or a line without end, was read until the memory ran out
 * (about 200 MB/s over loopback; Anthropic's SDK stopped at V8's string limit, 512 MB).
 */
export const MAX_ERROR_BODY_BYTES = 1024 * 1024;
export const MAX_LINE_BYTES = 64 * 1024 * 1024;

/** Wraps fetch so the headers count as progress and body bytes as life (see the header), and the body is read within the bounds above. */
function watchingFetch(onHeaders: () => void, onBytes: () => void, onLineTooLong: () => void): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    onHeaders();
    if (!response.body) return response;
    const errorAnswer = !response.ok;
    let read = 0;
    let lineBytes = 0;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          onBytes();
          if (errorAnswer) {
            const room = MAX_ERROR_BODY_BYTES - read;
            read += chunk.byteLength;
            controller.enqueue(chunk.byteLength <= room ? chunk : chunk.subarray(0, room));
            if (read >= MAX_ERROR_BODY_BYTES) controller.terminate();
            return;
          }
          const newline = chunk.lastIndexOf(10);
          lineBytes = newline === -1 ? lineBytes + chunk.byteLength : chunk.byteLength - newline - 1;
          if (lineBytes > MAX_LINE_BYTES) {
            onLineTooLong();
            controller.error(new Error("A line of the answer passed MAX_LINE_BYTES."));
            return;
          }
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
