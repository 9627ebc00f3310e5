// The pure pieces: retry-after parsing and backoff, overflow recognition, cost arithmetic,
// transcript repair before sending, the thinking style table.
import { describe, expect, test } from "vitest";
import type { AssistantMessage, Message, ToolCall } from "../../app/shared/agent-types.ts";
import { describeFailure, isContextOverflowText } from "../../app/main/providers/errors.ts";
import { anthropicThinkingStyle, BUILTIN_MODELS, calculateCost, openaiMinimumEffort } from "../../app/main/providers/models.ts";
import { parseRetryAfter, retryDelay, sleep } from "../../app/main/providers/retry.ts";
import { prepareMessages } from "../../app/main/providers/transform-messages.ts";

describe("retry", () => {
  test("retry-after-ms, retry-after seconds and dates are read; garbage is ignored", () => {
    expect(parseRetryAfter(new Headers({ "retry-after-ms": "1500", "retry-after": "9" }))).toBe(1500);
    expect(parseRetryAfter(new Headers({ "retry-after": "4" }))).toBe(4000);
    const now = Date.parse("2026-11-29T12:00:00Z");
    expect(parseRetryAfter(new Headers({ "retry-after": "Sun, 29 Nov 2026 12:00:07 GMT" }), now)).toBe(7000);
    expect(parseRetryAfter(new Headers({ "retry-after": "soon" }))).toBeUndefined();
    expect(parseRetryAfter(new Headers())).toBeUndefined();
  });

  test("backoff doubles with bounded jitter, retry-after replaces it, the cap holds", () => {
    const policy = { maxAttempts: 5, baseDelayMs: 1000, maxDelayMs: 10_000 };
    expect([1, 2, 3, 4].map((attempt) => retryDelay(attempt, policy, undefined, () => 0))).toEqual([1000, 2000, 4000, 8000]);
    expect(retryDelay(2, policy, undefined, () => 1)).toBe(2400);
    expect(retryDelay(5, policy, undefined, () => 0)).toBe(10_000);
    expect(retryDelay(1, policy, 4000)).toBe(4000);
    expect(retryDelay(1, policy, 90_000)).toBe(10_000);
  });

  test("sleep ends early on abort", async () => {
    const controller = new AbortController();
    const waiting = sleep(60_000, controller.signal);
    controller.abort();
    expect(await waiting).toBe(false);
    expect(await sleep(1)).toBe(true);
  });
});

describe("context overflow", () => {
  test.each([
    "prompt is too long: 210000 tokens > 200000 maximum",
    "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens",
    "context_length_exceeded",
    "Your input exceeds the context window of this model.",
    "the request exceeds the available context size, try increasing it",
    "exceed_context_size_error",
    "The number of tokens to keep from the initial prompt is greater than the context length",
    "Trying to keep the first 5000 tokens when context the overflows. However, the model is loaded with context length of 4096",
    "prompt too long; exceeded max context length by 120 tokens",
    "This endpoint's maximum context length is 131072 tokens. However, you requested about 150000 tokens",
  ])("recognised: %s", (text) => expect(isContextOverflowText(text)).toBe(true));

  test.each(["Rate limit reached for requests", "Overloaded", "invalid x-api-key", "max_tokens: 200000 > 128000, which is the maximum allowed"])("not an overflow: %s", (text) =>
    expect(isContextOverflowText(text)).toBe(false),
  );

  test("an insufficient-quota 429 is not retried; a 529 is", () => {
    const label = { name: "OpenAI", keyEnv: "OPENAI_API_KEY", baseUrl: "x" };
    expect(describeFailure({ status: 429, error: { error: { message: "You exceeded your current quota", code: "insufficient_quota" } } }, label).retryable).toBe(false);
    expect(describeFailure({ status: 529, error: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } } }, label)).toMatchObject({
      retryable: true,
      message: "OpenAI API error 529: Overloaded",
    });
  });
});

test("cost is tokens times the per-million list price", () => {
  const opus = BUILTIN_MODELS.find((model) => model.id === "claude-opus-5-5")!;
  const cost = calculateCost(opus, { input: 1_000_000, output: 100_000, cacheRead: 2_000_000, cacheWrite: 10_000 });
  expect(cost.input).toBeCloseTo(opus.cost.input);
  expect(cost.output).toBeCloseTo(opus.cost.output / 10);
  expect(cost.cacheRead).toBeCloseTo(opus.cost.cacheRead * 2);
  expect(cost.cacheWrite).toBeCloseTo(opus.cost.cacheWrite / 100);
  expect(cost.total).toBeCloseTo(cost.input + cost.output + cost.cacheRead + cost.cacheWrite);
});

test("the shipped table is plausible", () => {
  for (const model of BUILTIN_MODELS) {
    expect(model.maxTokens).toBeLessThanOrEqual(model.contextWindow);
    expect(model.cost.output).toBeGreaterThan(model.cost.input);
    expect(model.cost.cacheRead).toBeLessThan(model.cost.input);
  }
  expect(new Set(BUILTIN_MODELS.map((model) => `${model.provider}/${model.id}`)).size).toBe(BUILTIN_MODELS.length);
});

test("thinking style and effort floors", () => {
  expect(anthropicThinkingStyle("claude-haiku-4-5")).toBe("budget");
  expect(anthropicThinkingStyle("claude-sonnet-4-20250514")).toBe("budget");
  expect(anthropicThinkingStyle("claude-sonnet-5-5")).toBe("adaptive");
  expect(anthropicThinkingStyle("claude-opus-4-8")).toBe("adaptive");
  expect(openaiMinimumEffort("gpt-6.2-astra")).toBe("low");
  expect(openaiMinimumEffort("gpt-6.1-terra")).toBe("none");
});

describe("prepareMessages", () => {
  const assistant = (content: AssistantMessage["content"], stopReason: AssistantMessage["stopReason"] = "toolUse"): AssistantMessage => ({
    role: "assistant",
    content,
    api: "x",
    provider: "p",
    model: "m",
    stopReason,
    timestamp: 0,
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
  });
  const call = (id: string): ToolCall => ({ type: "toolCall", id, name: "bash", arguments: {} });

  test("drops errored turns, fills missing results, drops results without a call, renames ids", () => {
    const messages: Message[] = [
      { role: "user", content: "go", timestamp: 0 },
      assistant([call("a.1"), call("b.2")]),
      { role: "toolResult", toolCallId: "a.1", toolName: "bash", content: [{ type: "text", text: "done" }], isError: false, timestamp: 0 },
      { role: "toolResult", toolCallId: "zzz", toolName: "bash", content: [], isError: false, timestamp: 0 },
      assistant([{ type: "text", text: "half" }, call("c")], "aborted"),
      { role: "user", content: "again", timestamp: 0 },
    ];
    const out = prepareMessages(messages, (id) => id.replace(".", "_"));
    expect(out.map((message) => message.role)).toEqual(["user", "assistant", "toolResult", "toolResult", "user"]);
    expect(out[2]).toMatchObject({ toolCallId: "a_1", isError: false });
    expect(out[3]).toMatchObject({ toolCallId: "b_2", isError: true, content: [{ type: "text", text: "No result was recorded for this tool call." }] });
    expect(messages[1]).toMatchObject({ content: [{ id: "a.1" }, { id: "b.2" }] });
  });
});
