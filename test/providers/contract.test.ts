// One conversation, three wire protocols: thinking, text, two parallel tool calls, their results,
// a final answer. Every adapter must yield the same assistant messages, whatever the byte splits.
import { afterEach, describe, expect, test } from "vitest";
import type { AssistantMessage, AssistantMessageEvent } from "../../app/shared/agent-types.ts";
import { ADAPTERS, testOptions } from "./support/adapters.ts";
import { ANSWER, contextFor, EXPECTED_TURN_1, EXPECTED_TURN_2, normalize } from "./support/conversation.ts";
import { startServer, type TestServer } from "./support/sse-server.ts";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function collect(stream: AsyncIterable<AssistantMessageEvent> & { result(): Promise<AssistantMessage> }) {
  const events: AssistantMessageEvent[] = [];
  for await (const event of stream) events.push(event);
  return { events, message: await stream.result() };
}

describe.each(ADAPTERS)("$name", (adapter) => {
  test.each([undefined, 1, 2, 3, 7, 64])("the contract conversation, body split every %s bytes", async (chunkSize) => {
    server = await startServer([
      { body: adapter.turn1(), chunkSize },
      { body: adapter.text(ANSWER), chunkSize },
    ]);
    const options = testOptions(server.baseUrl + adapter.basePath);
    const first = await collect(adapter.stream(adapter.model, contextFor(1), options));
    expect(normalize(first.message)).toEqual(EXPECTED_TURN_1);
    expect(first.events[0]?.type).toBe("start");
    expect(first.events.at(-1)?.type).toBe("done");
    const ids = first.message.content.flatMap((block) => (block.type === "toolCall" ? [block.id] : []));
    expect(new Set(ids).size).toBe(2);

    const second = await collect(adapter.stream(adapter.model, contextFor(2, first.message), options));
    expect(normalize(second.message)).toEqual(EXPECTED_TURN_2);
    expect(server.requests.map((request) => request.path)).toEqual([adapter.path, adapter.path]);
  });

  test("events arrive in order with best-effort arguments while a call is written", async () => {
    server = await startServer([{ body: adapter.turn1(), chunkSize: 5 }]);
    const { events, message } = await collect(adapter.stream(adapter.model, contextFor(1), testOptions(server.baseUrl + adapter.basePath)));
    const kinds = events.map((event) => event.type).filter((type, i, all) => type !== all[i - 1]);
    expect(kinds).toEqual([
      "start",
      "thinking_start",
      "thinking_delta",
      "thinking_end",
      "text_start",
      "text_delta",
      "text_end",
      "toolcall_start",
      "toolcall_delta",
      "toolcall_end",
      "toolcall_start",
      "toolcall_delta",
      "toolcall_end",
      "done",
    ]);
    // While the first command is streaming, its partial arguments show a growing prefix of it.
    const seen = events.flatMap((event) => {
      if (event.type !== "toolcall_delta" || event.contentIndex !== 2) return [];
      const block = event.partial.content[2];
      return block?.type === "toolCall" && typeof block.arguments.command === "string" ? [block.arguments.command] : [];
    });
    expect(seen.length).toBeGreaterThan(0);
    for (const command of seen) expect('ls -la "my dir"'.startsWith(command)).toBe(true);
    // 80 input, 50 output and 20 cache-read tokens at the test models' prices (per million: 2, 10
    // and 0.1; the local model is free).
    const expectedCost: Record<string, number> = { "anthropic-messages": 0.000662, "openai-responses": 0.000662, "openai-completions": 0 };
    expect(message.usage.cost.total).toBeCloseTo(expectedCost[adapter.name]!, 12);
  });
});

describe.each(ADAPTERS)("$name at chosen awkward boundaries", (adapter) => {
  test("inside a UTF-8 character, inside a JSON string, between the lines of one event", async () => {
    const body = Buffer.from(adapter.turn1());
    const cuts = new Set<number>();
    const emoji = body.indexOf(Buffer.from("🚀"));
    cuts.add(emoji + 1).add(emoji + 3);
    const coffee = body.indexOf(Buffer.from("☕"));
    cuts.add(coffee + 2);
    const jsonString = body.indexOf(Buffer.from("my dir"));
    cuts.add(jsonString + 3);
    const eventLines = body.indexOf(Buffer.from("\ndata:"));
    if (eventLines > 0) cuts.add(eventLines + 1);
    const blankLine = body.indexOf(Buffer.from("\n\n"));
    cuts.add(blankLine + 1);
    const sorted = [...cuts].filter((cut) => cut > 0).sort((a, b) => a - b);
    expect(sorted.length).toBeGreaterThanOrEqual(5);
    const chunks = [0, ...sorted].map((start, i) => body.subarray(start, sorted[i] ?? body.length));
    server = await startServer([{ chunks }]);
    const { message } = await collect(adapter.stream(adapter.model, contextFor(1), testOptions(server.baseUrl + adapter.basePath)));
    expect(normalize(message)).toEqual(EXPECTED_TURN_1);
  });
});
