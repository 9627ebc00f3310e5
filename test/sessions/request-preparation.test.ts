// A just-opened session's first request is prepared in slices (sessions/request-preparation.ts):
// the request each adapter then sends is byte for byte the one built from scratch (a structured
// copy: other objects, so nothing cached applies), with and without a compaction in force; the
// preparation works over growing prefixes, one per macrotask (the event loop runs between them);
// its last view holds the very message objects the request's view holds (what the providers'
// caches are keyed on); a stop ends it; a failing builder ends it without a throw.
import { describe, expect, test, vi } from "vitest";
import type { AgentMessage, AssistantMessage, Message, Model } from "../../app/shared/agent-types.ts";
import { emptyUsage } from "../../app/shared/agent-types.ts";
import { buildAnthropicParams } from "../../app/main/providers/anthropic-request.ts";
import { prepareRequest } from "../../app/main/providers/index.ts";
import { buildCompletionsParams } from "../../app/main/providers/openai-completions-request.ts";
import { buildResponsesParams } from "../../app/main/providers/openai-responses-request.ts";
import { jsonRequestBody } from "../../app/main/providers/request-body.ts";
import { modelView } from "../../app/main/sessions/context.ts";
import { prepareRequestsInSlices } from "../../app/main/sessions/request-preparation.ts";
import { anthropicModel, completionsModel, responsesModel } from "../providers/support/conversation.ts";

const SYSTEM = "You are Lathe.";

/** `turns` turns (a question, an answer calling a tool, its result), a failed answer now and then, app entries, optionally a compaction. */
function transcript(turns: number, model: Model, compactAt?: number): AgentMessage[] {
  const out: AgentMessage[] = [];
  for (let i = 0; i < turns; i++) {
    out.push({ role: "user", content: `Question ${i}`, timestamp: i });
    if (i % 97 === 5) {
      out.push({
        role: "assistant",
        content: [],
        api: model.api,
        provider: model.provider,
        model: model.id,
        usage: emptyUsage(),
        stopReason: "error",
        errorMessage: "boom",
        timestamp: i,
      });
      continue;
    }
    const answer: AssistantMessage = {
      role: "assistant",
      content: [
        { type: "text", text: `Reading ${i}.` },
        { type: "toolCall", id: `call_${i}`, name: "read", arguments: { path: `src/m${i}.ts` } },
      ],
      api: model.api,
      provider: model.provider,
      model: model.id,
      usage: emptyUsage(),
      stopReason: "toolUse",
      timestamp: i,
    };
    out.push(answer, {
      role: "toolResult",
      toolCallId: `call_${i}`,
      toolName: "read",
      content: [{ type: "text", text: `export const m${i} = ${i};` }],
      isError: false,
      timestamp: i,
    });
    if (i % 250 === 3) out.push({ role: "custom", customType: "note", content: "an app notice", display: true, timestamp: i });
    if (compactAt !== undefined && i === compactAt) {
      out.push({
        role: "custom",
        customType: "compaction",
        content: "Summary so far",
        display: true,
        details: { firstKeptIndex: Math.floor(out.length / 2), trigger: "manual" },
        timestamp: i,
      });
    }
  }
  return out;
}

const ADAPTERS: [string, Model, (model: Model, messages: Message[]) => string][] = [
  ["anthropic", anthropicModel, (model, messages) => jsonRequestBody(buildAnthropicParams(model, { systemPrompt: SYSTEM, messages }, {}), "messages")],
  ["responses", responsesModel, (model, messages) => jsonRequestBody(buildResponsesParams(model, { systemPrompt: SYSTEM, messages }, {}), "input")],
  ["completions", completionsModel, (model, messages) => jsonRequestBody(buildCompletionsParams(model, { systemPrompt: SYSTEM, messages }, {}), "messages")],
];

describe.each(ADAPTERS)("%s", (_name, model, body) => {
  test.each([undefined, 700])("the first request after the preparation is the one built from scratch (compaction at turn %s)", async (compactAt) => {
    const opened = transcript(1500, model, compactAt);
    const fromScratch = body(model, modelView(structuredClone(opened)));
    await prepareRequestsInSlices(opened, (messages) => prepareRequest(model, { systemPrompt: SYSTEM, messages }));
    // The run adds the prompt, then asks.
    opened.push({ role: "user", content: "And now?", timestamp: 9 });
    const copy = structuredClone(opened);
    expect(body(model, modelView(opened))).toBe(body(model, modelView(copy)));
    opened.pop();
    expect(body(model, modelView(opened))).toBe(fromScratch);
  });
});

describe("the preparation", () => {
  test("goes over growing prefixes, one per macrotask, ending with the whole view (the same objects)", async () => {
    const opened = transcript(3000, completionsModel, 1200);
    const views: Message[][] = [];
    // A macrotask of every turn of the event loop (a timer of 1 ms would not fire between slices
    // that take less than that, as they may on a fast machine: seen in CI).
    let ticks = 0;
    let ticking = true;
    const tick = () => {
      ticks++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const ticksAt: number[] = [];
    try {
      await prepareRequestsInSlices(opened, (view) => {
        views.push(view);
        ticksAt.push(ticks);
      });
    } finally {
      ticking = false;
    }
    expect(views.length).toBeGreaterThan(1);
    for (let i = 1; i < views.length; i++) {
      expect(views[i]!.length).toBeGreaterThan(views[i - 1]!.length);
      // Each view extends the one before (the same objects), but for the last turn's messages.
      expect(views[i]!.slice(0, views[i - 1]!.length - 3)).toEqual(views[i - 1]!.slice(0, views[i - 1]!.length - 3));
    }
    const final = modelView(opened);
    expect(views.at(-1)!.length).toBe(final.length);
    expect(views.at(-1)!.every((m, i) => m === final[i])).toBe(true);
    // Other macrotasks ran between the slices.
    expect(ticksAt.at(-1)!).toBeGreaterThan(ticksAt[0]!);
  });

  test("stops when told, and a failing builder ends it without a throw", async () => {
    const opened = transcript(3000, completionsModel);
    const stop = new AbortController();
    let calls = 0;
    await prepareRequestsInSlices(
      opened,
      () => {
        calls++;
        stop.abort();
      },
      stop.signal,
    );
    expect(calls).toBe(1);
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    let failing = 0;
    await expect(
      prepareRequestsInSlices(opened, () => {
        failing++;
        throw new Error("broken");
      }),
    ).resolves.toBeUndefined();
    expect(failing).toBe(1);
    expect(error).toHaveBeenCalledOnce();
    error.mockRestore();
  });
});
