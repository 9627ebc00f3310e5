// The message builder's streamed tool-call arguments: parsed at every piece while short (the view
// shows the call as the model writes it), then only as they grow by half, so a model streaming
// megabytes of arguments in tiny pieces costs linear time, not quadratic; the end of the call
// still parses everything.
import type * as PartialJson from "partial-json";
import { describe, expect, it, vi } from "vitest";
import { AssistantEventStream } from "../../app/main/loop/index.ts";
import { AnswerTooLongError, MAX_ANSWER_CHARS, MAX_ARGUMENT_VALUES, MessageBuilder } from "../../app/main/providers/message-builder.ts";
import { BUILTIN_MODELS } from "../../app/main/providers/models.ts";

const partialParses = vi.hoisted(() => ({ count: 0, longest: 0 }));
vi.mock("partial-json", async (importOriginal) => {
  const original = await importOriginal<typeof PartialJson>();
  return {
    ...original,
    parse: (text: string) => {
      partialParses.count++;
      partialParses.longest = Math.max(partialParses.longest, text.length);
      return original.parse(text);
    },
  };
});

function streamCall(pieces: string[]) {
  const builder = new MessageBuilder(BUILTIN_MODELS[0]!, new AssistantEventStream());
  builder.start();
  const index = builder.toolCallStart("call-1", "write");
  const seen: unknown[] = [];
  partialParses.count = 0;
  partialParses.longest = 0;
  for (const piece of pieces) {
    builder.toolCallDelta(index, piece);
    const args = (builder.message.content[index] as { arguments: Record<string, unknown> }).arguments;
    // Of a long call only the path: cloning megabytes at every piece would be the test's own cost.
    seen.push(pieces.length < 10 ? structuredClone(args) : { path: args.path });
  }
  const parsesWhileStreaming = partialParses.count;
  const message = builder.finish("toolUse");
  return { seen, parsesWhileStreaming, call: message.content[index] as { arguments: Record<string, unknown> } };
}

describe("MessageBuilder, streamed tool-call arguments", () => {
  it("shows short arguments as they arrive, piece by piece", () => {
    const { seen, call } = streamCall(['{"path":"a', '.ts","con', 'tent":"x"}']);
    expect(seen).toEqual([{ path: "a" }, { path: "a.ts" }, { path: "a.ts", content: "x" }]);
    expect(call.arguments).toEqual({ path: "a.ts", content: "x" });
  });

  it("parses megabytes streamed in small pieces a bounded number of times, and all of them at the end", () => {
    const content = "x".repeat(2_000_000);
    const json = JSON.stringify({ path: "big.txt", content });
    const pieces: string[] = [];
    for (let i = 0; i < json.length; i += 100) pieces.push(json.slice(i, i + 100));
    const { seen, parsesWhileStreaming, call } = streamCall(pieces);
    // Every piece up to 1 KB (10 pieces), then at each growth by half up to 256 KB: 13 more.
    // Parsing at every piece was 20,000 parses of up to 2 MB (minutes of CPU).
    expect(parsesWhileStreaming).toBe(23);
    expect(partialParses.longest).toBeLessThanOrEqual(262_144);
    expect((seen.at(-1) as { path: string }).path).toBe("big.txt");
    expect(call.arguments).toEqual({ path: "big.txt", content });
  });

  it("stops parsing partially once the arguments hold more than 4,096 values; text full of commas and colons in strings is parsed on", () => {
    // partial-json's cost is per value: 128,000 small values (256 KB) took 150 to 300 ms a parse.
    const values = Array.from({ length: 100_000 }, (_, i) => i % 10);
    const json = JSON.stringify({ path: "list.json", values });
    const pieces: string[] = [];
    for (let i = 0; i < json.length; i += 100) pieces.push(json.slice(i, i + 100));
    const { seen, call } = streamCall(pieces);
    expect(partialParses.longest).toBeLessThanOrEqual(4096 * 2 + 64);
    expect(partialParses.longest).toBeGreaterThan(4096);
    expect((seen.at(-1) as { path: string }).path).toBe("list.json");
    expect(call.arguments).toEqual({ path: "list.json", values });

    // The same length of text whose commas, colons and brackets are inside strings (escaped quotes too).
    const content = 'a,b:[{"c"}],\\"'.repeat(12_000);
    const text = JSON.stringify({ path: "notes.txt", content });
    const textPieces: string[] = [];
    for (let i = 0; i < text.length; i += 100) textPieces.push(text.slice(i, i + 100));
    const streamed = streamCall(textPieces);
    expect(partialParses.longest).toBeGreaterThan(100_000);
    expect(streamed.call.arguments).toEqual({ path: "notes.txt", content });
  });
});

describe("MessageBuilder, the arguments' count of values", () => {
  const callOf = (count: number) => {
    const json = `{"path":"list.json","values":[${"1,".repeat(count - 1)}1]}`;
    const pieces: string[] = [];
    for (let i = 0; i < json.length; i += 1000) pieces.push(json.slice(i, i + 1000));
    return streamCall(pieces).call as { arguments: Record<string, unknown>; argumentsError?: string; rawArguments?: string };
  };

  it("refuses a call of more than MAX_ARGUMENT_VALUES values at its end, without parsing it", () => {
    const parse = vi.spyOn(JSON, "parse");
    try {
      const call = callOf(MAX_ARGUMENT_VALUES + 10);
      expect(call.arguments).toEqual({});
      expect(call.argumentsError).toBe("the arguments were refused: they hold more than 500,000 values (no tool takes that many; put such data in a file).");
      expect(call.rawArguments).toBeUndefined();
      expect(parse.mock.calls.some(([text]) => typeof text === "string" && text.length > 1_000_000)).toBe(false);
    } finally {
      parse.mockRestore();
    }
  });

  it("parses a call just within the bound whole", () => {
    const call = callOf(MAX_ARGUMENT_VALUES - 10);
    expect(call.argumentsError).toBeUndefined();
    expect((call.arguments.values as number[]).length).toBe(MAX_ARGUMENT_VALUES - 10);
  });
});

describe("MessageBuilder, the answer's size bound", () => {
  it("counts text, thinking, signatures and tool-call arguments together, and refuses the piece that would pass the bound", () => {
    const builder = new MessageBuilder(BUILTIN_MODELS[0]!, new AssistantEventStream());
    builder.start();
    const quarter = "x".repeat(MAX_ANSWER_CHARS / 4);
    const thinking = builder.thinkingStart();
    builder.thinkingDelta(thinking, quarter);
    builder.setThinkingSignature(thinking, quarter);
    const text = builder.textStart();
    builder.textDelta(text, quarter);
    const call = builder.toolCallStart("call-1", "write");
    builder.toolCallDelta(call, `{"a":"${"y".repeat(MAX_ANSWER_CHARS / 4 - 8)}"}`);
    // Exactly at the bound: accepted. One more character: refused, and not appended.
    expect(() => builder.textDelta(text, "z")).toThrow(AnswerTooLongError);
    expect(() => builder.thinkingDelta(thinking, "z")).toThrow(AnswerTooLongError);
    expect(() => builder.setThinkingSignature(thinking, "z", true)).toThrow(AnswerTooLongError);
    expect(() => builder.toolCallDelta(call, "z")).toThrow(AnswerTooLongError);
    expect((builder.message.content[text] as { text: string }).text).toBe(quarter);
    expect(builder.rawToolArguments(call)).toHaveLength(MAX_ANSWER_CHARS / 4);
  });
});

describe("MessageBuilder, a resent thinking signature", () => {
  it("counts a signature sent whole again only by what it adds", () => {
    const builder = new MessageBuilder(BUILTIN_MODELS[0]!, new AssistantEventStream());
    builder.start();
    const thinking = builder.thinkingStart();
    const signature = "s".repeat(MAX_ANSWER_CHARS / 4);
    // Counted at every resend, the fifth would pass the bound.
    for (let i = 0; i < 8; i++) builder.setThinkingSignature(thinking, signature);
    expect(() => builder.textDelta(builder.textStart(), "x".repeat(MAX_ANSWER_CHARS / 2))).not.toThrow();
  });
});
