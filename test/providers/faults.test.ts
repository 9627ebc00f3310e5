// Every fault the issue lists, against every adapter: retries (and their notices), bounded
// attempts, abort during a wait and mid-stream, failures after tokens, malformed tool JSON,
// context overflow, stalls (keep-alives are not progress; a slow answer is), rejected and missing keys.
import { afterEach, describe, expect, test } from "vitest";
import type { AssistantMessage, ProviderRetry } from "../../app/shared/agent-types.ts";
import { AnswerTooLongError, MAX_ANSWER_CHARS } from "../../app/main/providers/message-builder.ts";
import { KEEP_ALIVE_FACTOR } from "../../app/main/providers/stream-runner.ts";
import { ADAPTERS, testOptions } from "./support/adapters.ts";
import { anthropicText, chunk, completionsText, contextFor, pieces, ResponsesScript, responsesText } from "./support/conversation.ts";
import { sseData, sseEvent, startServer, type ScriptedReply, type TestServer } from "./support/sse-server.ts";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const jsonError = (status: number, body: unknown, headers: Record<string, string> = {}): ScriptedReply => ({ status, body: JSON.stringify(body), headers });

/** An error event inside a 200 stream, before any content, in each API's own form. */
const overloadedEvent: Record<string, () => string> = {
  "anthropic-messages": () =>
    sseEvent("message_start", {
      type: "message_start",
      message: { id: "m", type: "message", role: "assistant", model: "x", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 0 } },
    }) + sseEvent("error", { type: "error", error: { type: "overloaded_error", message: "Overloaded" } }),
  "openai-responses": () =>
    new ResponsesScript().created().event("error", { code: "server_error", message: "The server had an error while processing your request.", param: null }).out,
  "openai-completions": () => chunk({ role: "assistant", content: "" }) + sseData({ error: { message: "Model is overloaded", type: "server_error", code: 503 } }),
};

/** Text that starts streaming, in each API's form, without its end. */
const partialText: Record<string, (text: string) => string[]> = {
  "anthropic-messages": (text) => {
    const full = anthropicText(text);
    const cut = full.indexOf("event: content_block_stop");
    return [full.slice(0, cut)];
  },
  "openai-responses": (text) => {
    const full = responsesText(text);
    return [full.slice(0, full.indexOf("event: response.output_text.done"))];
  },
  "openai-completions": (text) => [
    pieces(text, 3)
      .map((piece) => chunk({ content: piece }))
      .join(""),
  ],
};

/** What servers send to keep a connection open, in each API's form: none of it is progress. */
const keepAlive: Record<string, string> = {
  "anthropic-messages": ": keep-alive\n\n" + sseEvent("ping", { type: "ping" }),
  "openai-responses": ": keep-alive\n\n",
  "openai-completions": ": keep-alive\n\n" + sseData({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "qwen3-coder", choices: [] }) + chunk({ content: "" }),
};

/** A whole answer, one event per piece, whose first text delta is repeated `times` (a slow but steady answer). */
function manyDeltas(adapter: (typeof ADAPTERS)[number], times: number): string[] {
  const events = adapter.text("abc").split(/(?<=\n\n)/);
  const first = events.findIndex((e) => /"text_delta"|response\.output_text\.delta|"content":"a"/.test(e));
  events.splice(first, 0, ...Array<string>(times).fill(events[first]!));
  return events;
}

/** The promise's value, or undefined if it takes longer than `ms`. */
function within<T>(ms: number, promise: Promise<T>): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

const overflowReply: Record<string, ScriptedReply> = {
  "anthropic-messages": jsonError(400, { type: "error", error: { type: "invalid_request_error", message: "prompt is too long: 1250000 tokens > 1000000 maximum" } }),
  "openai-responses": jsonError(400, {
    error: {
      message: "Your input exceeds the context window of this model. Please adjust your input and try again.",
      type: "invalid_request_error",
      param: "input",
      code: "context_length_exceeded",
    },
  }),
  "openai-completions": jsonError(400, { error: { code: 400, message: "the request exceeds the available context size, try increasing it", type: "exceed_context_size_error" } }),
};

function malformedCall(name: string): string {
  const bad = '{"command": "ls", "path": }';
  if (name === "anthropic-messages") {
    const head = sseEvent("message_start", {
      type: "message_start",
      message: { id: "m", type: "message", role: "assistant", model: "x", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 5, output_tokens: 1 } },
    });
    return (
      head +
      sseEvent("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: "toolu_1", name: "bash", input: {} } }) +
      sseEvent("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: bad } }) +
      sseEvent("content_block_stop", { type: "content_block_stop", index: 0 }) +
      sseEvent("message_delta", { type: "message_delta", delta: { stop_reason: "tool_use", stop_sequence: null }, usage: { output_tokens: 9 } }) +
      sseEvent("message_stop", { type: "message_stop" })
    );
  }
  if (name === "openai-responses") return new ResponsesScript().created().call("call_1", "bash", bad).completed({ input: 5, cached: 0, output: 9 });
  return chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "bash", arguments: bad } }] }) + chunk({}, "tool_calls") + sseData("[DONE]");
}

async function run(adapter: (typeof ADAPTERS)[number], extra: Parameters<typeof testOptions>[1] = {}) {
  const retries: ProviderRetry[] = [];
  const stream = adapter.stream(adapter.model, contextFor(1), testOptions(server!.baseUrl + adapter.basePath, { onRetry: (retry) => retries.push(retry), ...extra }));
  const types: string[] = [];
  for await (const event of stream) types.push(event.type);
  const message: AssistantMessage = await stream.result();
  return { message, retries, types };
}

describe.each(ADAPTERS)("$name", (adapter) => {
  test.each([429, 500, 502, 503, 529])("HTTP %s before the first token is retried, honouring retry-after-ms", async (status) => {
    server = await startServer([jsonError(status, { error: { message: "busy", type: "overloaded_error" } }, { "retry-after-ms": "30" }), { body: adapter.text("ok") }]);
    const { message, retries } = await run(adapter);
    expect(message.stopReason).toBe("stop");
    expect(message.content).toEqual([{ type: "text", text: "ok" }]);
    expect(retries).toEqual([{ attempt: 2, maxAttempts: 5, delayMs: 30, error: expect.stringContaining(String(status)) }]);
    expect(server.requests).toHaveLength(2);
  });

  test("retry-after in seconds is honoured up to the configured cap", async () => {
    server = await startServer([jsonError(429, { error: { message: "slow down" } }, { "retry-after": "1" }), { body: adapter.text("ok") }]);
    const { message, retries } = await run(adapter, { retry: { baseDelayMs: 10, maxDelayMs: 150, maxAttempts: 5 } });
    expect(message.stopReason).toBe("stop");
    expect(retries[0]?.delayMs).toBe(150);
  });

  test("an overloaded error event before any content is retried", async () => {
    server = await startServer([{ body: overloadedEvent[adapter.name]!() }, { body: adapter.text("after overload") }]);
    const { message, retries } = await run(adapter);
    expect(message.stopReason).toBe("stop");
    expect(message.content).toEqual([{ type: "text", text: "after overload" }]);
    expect(retries).toHaveLength(1);
  });

  test("a connection reset before the first token is retried", async () => {
    server = await startServer([{ body: adapter.text("lost"), destroyAfter: 0 }, { body: adapter.text("second try") }]);
    const { message, retries } = await run(adapter);
    expect(message.content).toEqual([{ type: "text", text: "second try" }]);
    expect(retries).toHaveLength(1);
  });

  test("retries are bounded and the last error is reported", async () => {
    server = await startServer(() => jsonError(503, { error: { message: "unavailable" } }));
    const { message, retries } = await run(adapter, { retry: { baseDelayMs: 5, maxDelayMs: 20, maxAttempts: 3 } });
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/503.*unavailable.*gave up after 3 attempts/);
    expect(retries.map((retry) => `${retry.attempt}/${retry.maxAttempts}`)).toEqual(["2/3", "3/3"]);
    expect(server.requests).toHaveLength(3);
  });

  test("an abort during a retry wait ends the message as aborted", async () => {
    server = await startServer(() => jsonError(503, { error: { message: "unavailable" } }, { "retry-after-ms": "60000" }));
    const controller = new AbortController();
    const started = Date.now();
    const { message } = await run(adapter, { signal: controller.signal, retry: { maxDelayMs: 60_000 }, onRetry: () => setTimeout(() => controller.abort(), 20) });
    expect(message.stopReason).toBe("aborted");
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(server.requests).toHaveLength(1);
  });

  test("a failure after tokens streamed keeps them and ends with error, without retry", async () => {
    server = await startServer([{ chunks: partialText[adapter.name]!("Partial answer here"), destroyAfter: 1 }, { body: adapter.text("must not be used") }]);
    const { message, retries, types } = await run(adapter);
    expect(message.stopReason).toBe("error");
    // Said in plain words, with the provider's name, not as a network error code.
    expect(message.errorMessage).toMatch(/^The connection to (Anthropic|OpenAI|\w+) was lost mid-answer; the part that had arrived is kept\.$/);
    expect(message.errorMessage).toContain(adapter.name === "anthropic-messages" ? "Anthropic" : adapter.name === "openai-responses" ? "OpenAI" : "");
    expect(message.content).toEqual([{ type: "text", text: "Partial answer here" }]);
    expect(types.at(-1)).toBe("error");
    expect(retries).toHaveLength(0);
    expect(server.requests).toHaveLength(1);
  });

  test("an abort mid-stream ends the message as aborted and cancels the request", async () => {
    server = await startServer([{ chunks: partialText[adapter.name]!("Streaming..."), stallAfter: 1 }]);
    const controller = new AbortController();
    const stream = adapter.stream(adapter.model, contextFor(1), testOptions(server.baseUrl + adapter.basePath, { signal: controller.signal }));
    let abortedAt = 0;
    for await (const event of stream) {
      if (event.type === "text_delta" && !abortedAt) {
        abortedAt = Date.now();
        controller.abort();
      }
    }
    const message = await stream.result();
    expect(message.stopReason).toBe("aborted");
    expect(message.content[0]).toMatchObject({ type: "text" });
    expect(Date.now() - abortedAt).toBeLessThan(2000);
    await expect.poll(() => server!.requests[0]?.closedByClient, { timeout: 5000 }).toBe(true);
  });

  test("an answer that keeps streaming is stopped at MAX_ANSWER_CHARS, keeping what arrived, and the request is closed", async () => {
    // A model or server stuck in a loop: more text than any model writes, and no end.
    const text = "loop ".repeat(Math.ceil((MAX_ANSWER_CHARS + 3000) / 5));
    server = await startServer([{ chunks: partialText[adapter.name]!(text), stallAfter: 1 }, { body: adapter.text("must not be used") }]);
    const { message, retries } = await run(adapter);
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toBe(new AnswerTooLongError().message);
    expect(message.errorMessage).toContain("8,000,000 characters");
    const kept = (message.content[0] as { text: string }).text;
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThanOrEqual(MAX_ANSWER_CHARS);
    expect(text.startsWith(kept)).toBe(true);
    expect(retries).toHaveLength(0);
    await expect.poll(() => server!.requests[0]?.closedByClient, { timeout: 5000 }).toBe(true);
    expect(server.requests).toHaveLength(1);
  });

  test("malformed tool-call JSON reaches the loop as an argumentsError, not a crash", async () => {
    server = await startServer([{ body: malformedCall(adapter.name) }]);
    const { message } = await run(adapter);
    expect(message.stopReason).toBe("toolUse");
    const call = message.content[0];
    expect(call).toMatchObject({ type: "toolCall", name: "bash", arguments: {}, rawArguments: '{"command": "ls", "path": }' });
    expect(call?.type === "toolCall" && call.argumentsError).toMatch(/^the arguments are not valid JSON \(.+\); send them as one complete JSON object\.$/);
  });

  test("a context overflow is reported as such and not retried", async () => {
    server = await startServer([overflowReply[adapter.name]!, { body: adapter.text("never") }]);
    const { message, retries } = await run(adapter);
    expect(message.stopReason).toBe("error");
    expect(message.contextOverflow).toBe(true);
    expect(message.errorMessage).toMatch(/context window/);
    expect(retries).toHaveLength(0);
  });

  test("a stream that stalls is ended as an error after the idle time", async () => {
    server = await startServer([{ chunks: partialText[adapter.name]!("Half a"), stallAfter: 1 }]);
    const { message } = await run(adapter, { idleTimeoutMs: 300 });
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/stalled: no data for 300 ms/);
    expect(message.content).toEqual([{ type: "text", text: "Half a" }]);
  });

  test.each([
    ["after part of the answer", ["Half a"]],
    ["before any of it", []],
  ])("keep-alives %s count as life only up to KEEP_ALIVE_FACTOR stall times: then the stream is ended", async (_when, text) => {
    // Thirty seconds of keep-alives, every 50 ms, after the headers (and maybe some text).
    const beats = Array<string>(600).fill(keepAlive[adapter.name]!);
    server = await startServer([{ chunks: [...text.flatMap((t) => partialText[adapter.name]!(t)), ...beats], delayMs: 50 }]);
    const ended = await within(10_000, run(adapter, { idleTimeoutMs: 500 }));
    expect(ended, "the stream was still open 10 s later").toBeDefined();
    expect(ended!.message.stopReason).toBe("error");
    expect(ended!.message.errorMessage).toBe(`The stream stalled: only keep-alives for ${(500 * KEEP_ALIVE_FACTOR) / 1000} s, no part of the answer.`);
    expect(ended!.message.content).toEqual(text.map((t) => ({ type: "text", text: t })));
    await expect.poll(() => server!.requests[0]?.closedByClient, { timeout: 5000 }).toBe(true);
  });

  test("keep-alives longer than the stall time, then the answer: the stream is kept (a model thinking behind a proxy)", async () => {
    // A second of keep-alives every 50 ms with a stall time of 300 ms (keep-alives alone end it at 1.5 s).
    const beats = Array<string>(20).fill(keepAlive[adapter.name]!);
    server = await startServer([{ chunks: [...beats, ...manyDeltas(adapter, 3)], delayMs: 50 }]);
    const { message } = await run(adapter, { idleTimeoutMs: 300 });
    expect(message.stopReason).toBe("stop");
    expect(message.content).toEqual([{ type: "text", text: `${"a".repeat(4)}bc` }]);
  });

  test("an answer that keeps coming is not stalled, however long it takes in all", async () => {
    // 40 pieces 50 ms apart: over two seconds in all, a stall time of 1.5 s.
    server = await startServer([{ chunks: manyDeltas(adapter, 40), delayMs: 50 }]);
    const { message } = await run(adapter, { idleTimeoutMs: 1500 });
    expect(message.stopReason).toBe("stop");
    expect(message.content).toEqual([{ type: "text", text: `${"a".repeat(41)}bc` }]);
  });

  test("a rejected key ends the turn with what to check, without retry", async () => {
    server = await startServer([jsonError(401, { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } })]);
    const { message, retries } = await run(adapter);
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/rejected the key \(401 /);
    expect(message.errorMessage).toMatch(adapter.name === "openai-completions" ? /Settings → Providers/ : /_API_KEY or Settings → Providers/);
    expect(retries).toHaveLength(0);
  });
});

test("a hosted provider without any key fails with what to set, and sends nothing", async () => {
  server = await startServer([]);
  for (const adapter of ADAPTERS.slice(0, 2)) {
    const stream = adapter.stream(adapter.model, contextFor(1), { baseUrl: server.baseUrl, env: {} });
    const message = await stream.result();
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toBe(
      adapter.model.provider === "anthropic"
        ? "No Anthropic API key. Set ANTHROPIC_API_KEY or add a key in Settings → Providers."
        : "No OpenAI API key. Set OPENAI_API_KEY or add a key in Settings → Providers.",
    );
  }
  expect(server.requests).toHaveLength(0);
});

test("a refused connection to a local server says so and is not retried", async () => {
  const closed = await startServer([]);
  const url = closed.baseUrl;
  await closed.close();
  const adapter = ADAPTERS[2]!;
  const retries: ProviderRetry[] = [];
  const message = await adapter.stream(adapter.model, contextFor(1), { baseUrl: url, env: {}, onRetry: (retry) => retries.push(retry) }).result();
  expect(message.stopReason).toBe("error");
  expect(message.errorMessage).toMatch(/Could not reach local at http:\/\/127\.0\.0\.1:\d+.*ECONNREFUSED.*Is the server running\?/);
  expect(retries).toHaveLength(0);
});

test("chat completions: finish_reason length maps to length, stop to stop", async () => {
  const adapter = ADAPTERS[2]!;
  server = await startServer([{ body: completionsText("cut", "length") }]);
  const { message } = await run(adapter);
  expect(message.stopReason).toBe("length");
});
