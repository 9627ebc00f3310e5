// The adapters convert a transcript incrementally (each request converts what is new since the
// last): at every length of a growing transcript, the request's messages must equal those of a
// conversion from scratch (a structured copy: other objects, so nothing cached applies), for
// transcripts with failed answers, calls without results, orphan results, parallel batches,
// images, thinking and odd ids; and after a model switch, a truncation or a fork. The body sent,
// serialized item by item, parses to the whole request's JSON.
import { describe, expect, test } from "vitest";
import type { AssistantMessage, Message, Model, ToolCall, ToolResultMessage } from "../../app/shared/agent-types.ts";
import { emptyUsage } from "../../app/shared/agent-types.ts";
import { convertMessages as anthropicMessages } from "../../app/main/providers/anthropic-request.ts";
import { convertMessages as completionsMessages } from "../../app/main/providers/openai-completions-request.ts";
import { convertInput as responsesInput } from "../../app/main/providers/openai-responses-request.ts";
import { jsonRequestBody } from "../../app/main/providers/request-body.ts";
import { anthropicModel, completionsModel, responsesModel } from "./support/conversation.ts";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const textOnly: Model = { ...completionsModel, id: "text-only", name: "Text Only", input: ["text"] };

/** A small deterministic generator (mulberry32), so a failure is reproducible. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A transcript of `n` messages of every kind the adapters treat differently. */
function transcript(seed: number, n: number, model: Model): Message[] {
  const rnd = random(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
  const out: Message[] = [];
  let pending: ToolCall[] = [];
  let call = 0;
  while (out.length < n) {
    const roll = rnd();
    if (pending.length > 0 && roll < 0.6) {
      // A result for one of the pending calls (in any order), or an orphan now and then.
      const target = rnd() < 0.1 ? undefined : pending.splice(Math.floor(rnd() * pending.length), 1)[0];
      const content: ToolResultMessage["content"] = [{ type: "text", text: `out ${out.length}` }];
      if (rnd() < 0.2) content.push({ type: "image", data: PNG, mimeType: "image/png" });
      if (rnd() < 0.1) content.length = 0;
      out.push({ role: "toolResult", toolCallId: target?.id ?? `orphan.${out.length}`, toolName: "read", content, isError: rnd() < 0.2, timestamp: out.length });
    } else if (roll < 0.8 || out.length === 0 || out.at(-1)!.role === "assistant") {
      const content =
        rnd() < 0.8
          ? `question ${out.length}`
          : [
              { type: "text" as const, text: `look ${out.length}` },
              { type: "image" as const, data: PNG, mimeType: "image/png" },
            ];
      out.push({ role: "user", content, timestamp: out.length });
      if (rnd() < 0.3) pending = [];
    } else {
      const content: AssistantMessage["content"] = [];
      if (rnd() < 0.3) content.push({ type: "thinking", thinking: `think ${out.length}`, thinkingSignature: rnd() < 0.8 ? "sig" : undefined });
      if (rnd() < 0.7) content.push({ type: "text", text: pick(["answer", "", "  ", `answer ${out.length}`]) });
      const calls = Math.floor(rnd() * 4);
      for (let i = 0; i < calls; i++) {
        const id = pick([`call_${++call}`, `call.${++call}|fc_${call}`, `weird id ${++call}!`]);
        const toolCall: ToolCall = { type: "toolCall", id, name: "read", arguments: { path: `f${call}` } };
        if (rnd() < 0.05) toolCall.rawArguments = "{broken";
        content.push(toolCall);
      }
      const stopReason = pick(["stop", "toolUse", "toolUse", "toolUse", "error", "aborted"] as const);
      const other = rnd() < 0.2;
      out.push({
        role: "assistant",
        content,
        api: model.api,
        provider: other ? "elsewhere" : model.provider,
        model: model.id,
        usage: emptyUsage(),
        stopReason,
        ...(stopReason === "error" || stopReason === "aborted" ? { errorMessage: "failed" } : {}),
        timestamp: out.length,
      });
      pending = [...pending, ...content.filter((c): c is ToolCall => c.type === "toolCall")];
    }
  }
  return out;
}

const ADAPTERS: [string, Model, (messages: Message[], model: Model) => unknown][] = [
  ["anthropic", anthropicModel, (messages, model) => anthropicMessages(messages, model)],
  ["completions", completionsModel, (messages, model) => completionsMessages({ systemPrompt: "system", messages }, model)],
  ["completions without images", textOnly, (messages, model) => completionsMessages({ messages }, model)],
  ["responses", responsesModel, (messages, model) => responsesInput(messages, model)],
];

describe.each(ADAPTERS)("%s", (_name, model, convert) => {
  const fromScratch = (messages: Message[]) => convert(structuredClone(messages), model);

  test("a growing transcript: every request equals a conversion from scratch", () => {
    for (const seed of [1, 2, 3, 4]) {
      const full = transcript(seed, 100, model);
      // A run copies the transcript and grows it: the same message objects, at the same places.
      const growing: Message[] = [];
      for (const message of full) {
        growing.push(message);
        expect(convert([...growing], model), `seed ${seed}, ${growing.length} messages`).toEqual(fromScratch(growing));
      }
    }
  });

  test("a truncated, forked or switched transcript converts to its own messages", () => {
    const full = transcript(11, 80, model);
    convert(full, model);
    const truncated = full.slice(0, 30);
    expect(convert(truncated, model)).toEqual(fromScratch(truncated));
    // A fork at 40: the first 40 messages kept, the rest new objects with other content.
    const fork = [...full.slice(0, 40), ...transcript(12, 40, model).slice(0, 40)];
    expect(convert(fork, model)).toEqual(fromScratch(fork));
    expect(convert(full, model)).toEqual(fromScratch(full));
    // Another model for the same transcript: images and thinking are converted for it.
    expect(convert(full, textOnly)).toEqual(convert(structuredClone(full), textOnly));
    expect(convert(full, model)).toEqual(fromScratch(full));
  });

  test("the messages a request was given do not change when a later request is built", () => {
    const full = transcript(21, 60, model);
    const first = convert(full.slice(0, 30), model);
    const copy = structuredClone(first);
    convert(full, model);
    convert(full.slice(0, 45), model);
    expect(first).toEqual(copy);
  });
});

describe("the request body, serialized item by item", () => {
  test("parses to what JSON.stringify of the whole request gives, for every adapter's list", () => {
    const params = {
      model: "m",
      messages: [
        { role: "user", content: 'a \u2028 "quoted"' },
        { role: "assistant", content: null, note: undefined },
      ],
      stream: true,
    };
    expect(JSON.parse(jsonRequestBody(params, "messages"))).toEqual(JSON.parse(JSON.stringify(params)));
    // Again, with the items' texts kept from the first call: the same.
    expect(jsonRequestBody(params, "messages")).toBe(jsonRequestBody({ ...params }, "messages"));
    expect(JSON.parse(jsonRequestBody({ input: [] }, "input"))).toEqual({ input: [] });
    const full = transcript(31, 60, anthropicModel);
    for (const [, model, convert] of ADAPTERS) {
      const list = convert(full, model) as object[];
      const request = { model: model.id, list, max_tokens: 5 };
      expect(JSON.parse(jsonRequestBody(request, "list"))).toEqual(JSON.parse(JSON.stringify(request)));
    }
  });

  test("a growing, truncated or forked transcript: every body is the whole request's JSON", () => {
    for (const [name, model, convert] of ADAPTERS) {
      const full = transcript(41, 70, model);
      const growing: Message[] = [];
      const check = (messages: Message[]) => {
        const request = { model: model.id, list: convert(messages, model) as object[] };
        expect(JSON.parse(jsonRequestBody(request, "list")), `${name}, ${messages.length} messages`).toEqual(JSON.parse(JSON.stringify(request)));
      };
      for (const message of full) {
        growing.push(message);
        check([...growing]);
      }
      check(full.slice(0, 20));
      check([...full.slice(0, 30), ...transcript(42, 30, model)]);
      check(full);
    }
  });
});
