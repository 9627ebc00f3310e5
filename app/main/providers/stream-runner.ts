// The part every adapter shares: it owns the event stream, the attempts and their retries, the
// user's abort, and the stall timer. An adapter supplies one `attempt` that sends the request
// and feeds the MessageBuilder; whatever it throws is classified here. Never throws: every path
// ends the stream with `done` or `error`.
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
  /** A fetch for the SDK client that counts every received byte as a sign of life. */
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
  let timer: ReturnType<typeof setTimeout> | undefined;
  const touch = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      stalled = true;
      controller.abort(new Error("stalled"));
    }, idleMs);
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
  const ctx: AttemptContext = { builder, signal: controller.signal, fetch: watchingFetch(touch) };
  touch();
  const work = adapter.attempt(ctx).then(
    (reason): AttemptOutcome => (userSignal?.aborted ? { kind: "aborted" } : stalled ? stallOutcome(idleMs) : { kind: "done", reason }),
    (error: unknown): AttemptOutcome => {
      if (userSignal?.aborted) return { kind: "aborted" };
      if (stalled) return stallOutcome(idleMs);
      if (error instanceof ReportedError) return { kind: "failed", info: { message: error.message, retryable: false, contextOverflow: error.contextOverflow } };
      if (error instanceof AnswerTooLongError) return { kind: "failed", info: { message: error.message, retryable: false, contextOverflow: false } };
      if (error instanceof StreamEndedEarlyError) {
        return { kind: "failed", info: { message: `${adapter.provider.name}: ${error.message}`, retryable: true, contextOverflow: false, connectionLost: true } };
      }
      return { kind: "failed", info: describeFailure(error, adapter.provider) };
    },
  );
  try {
    return await Promise.race([work, userAborted]);
  } finally {
    clearTimeout(timer);
    userSignal?.removeEventListener("abort", onUserAbort);
    if (!controller.signal.aborted) controller.abort();
  }
}

function stallOutcome(idleMs: number): AttemptOutcome {
  const idle = idleMs >= 1000 ? `${Math.round(idleMs / 1000)} s` : `${idleMs} ms`;
  return { kind: "failed", info: { message: `The stream stalled: no data for ${idle}.`, retryable: false, contextOverflow: false } };
}

/** Wraps fetch so the headers and every body chunk reset the stall timer. */
function watchingFetch(touch: () => void): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    touch();
    if (!response.body) return response;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          touch();
          controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
