// Inline `<think>…</think>` reasoning from local Chat Completions servers: the pure splitter at
// every split point (tags cut anywhere, nothing but a tag prefix and whitespace ever held back),
// then the adapter end to end: events, tool calls after thinking, unclosed thinking at the end,
// a literal "<think>" in the answer, and the thinking never sent back on the next turn.
import { afterEach, describe, expect, test } from "vitest";
import type { AssistantMessage, AssistantMessageEvent } from "../../app/shared/agent-types.ts";
import { ThinkTagSplitter, type ContentPiece } from "../../app/main/providers/think-tags.ts";
import { streamOpenAICompletions } from "../../app/main/providers/openai-completions.ts";
import { testOptions } from "./support/adapters.ts";
import { chunk, completionsModel, contextFor, usageChunk } from "./support/conversation.ts";
import { sseData, startServer, type TestServer } from "./support/sse-server.ts";

/** Runs the splitter over the pieces; checks after every push that only a tag prefix and whitespace are held. */
function split(parts: string[]): { thinking: string; text: string; kinds: string[] } {
  const splitter = new ThinkTagSplitter();
  const out: ContentPiece[] = [];
  for (const part of parts) {
    out.push(...splitter.push(part));
    expect(splitter.pending.trimStart().length).toBeLessThanOrEqual("</think>".length - 1);
    expect("</think>".startsWith(splitter.pending.trimStart()) || "<think>".startsWith(splitter.pending.trimStart())).toBe(true);
  }
  out.push(...splitter.flush());
  const kinds = out.map((piece) => piece.kind).filter((kind, i, all) => kind !== all[i - 1]);
  const join = (kind: ContentPiece["kind"]) =>
    out
      .filter((piece) => piece.kind === kind)
      .map((piece) => piece.text)
      .join("");
  return { thinking: join("thinking"), text: join("text"), kinds };
}

/** Every way to cut `content` in two and in three pieces, plus one character at a time. */
function splits(content: string): string[][] {
  const out: string[][] = [[content], [...content]];
  for (let i = 1; i < content.length; i++) {
    out.push([content.slice(0, i), content.slice(i)]);
    for (let j = i + 1; j < content.length; j++) out.push([content.slice(0, i), content.slice(i, j), content.slice(j)]);
  }
  return out;
}

describe("ThinkTagSplitter", () => {
  test.each([
    ["<think>Plan: list files.</think>The answer.", "Plan: list files.", "The answer."],
    ["\n <think>\nPlan: a < b, not </thin.\n\n</think>\n\nThe answer <b>bold</b>.", "Plan: a < b, not </thin.", "The answer <b>bold</b>."],
    ["<think>\n\n</think>\n\nNo thinking today.", "", "No thinking today."],
  ])("%j splits the same at every cut", (content, thinking, text) => {
    for (const parts of splits(content)) {
      const result = split(parts);
      expect({ thinking: result.thinking, text: result.text }, JSON.stringify(parts)).toEqual({ thinking, text });
      expect(result.kinds).toEqual([...(thinking ? ["thinking"] : []), "text"]);
    }
  });

  test.each(["Use the <think> tag like this: <think>x</think>.", "  <thinking> is not the tag", "<thin", "Reasoning without an opening tag</think>The answer."])(
    "%j stays text, unchanged, at every cut",
    (content) => {
      for (const parts of splits(content)) expect(split(parts), JSON.stringify(parts)).toEqual({ thinking: "", text: content, kinds: ["text"] });
    },
  );

  test("an unclosed <think> keeps what arrived as thinking, a half closing tag included", () => {
    expect(split(["<think>Still pond", "ering\n"])).toEqual({ thinking: "Still pondering", text: "", kinds: ["thinking"] });
    expect(split(["<think>Almost done</thi"])).toEqual({ thinking: "Almost done</thi", text: "", kinds: ["thinking"] });
  });

  test("ordinary text is never held back, and thinking only by a possible tag", () => {
    const splitter = new ThinkTagSplitter();
    expect(splitter.push("Hello")).toEqual([{ kind: "text", text: "Hello" }]);
    expect(splitter.push(" <")).toEqual([{ kind: "text", text: " <" }]);
    const thinker = new ThinkTagSplitter();
    expect(thinker.push("<think>a <")).toEqual([{ kind: "thinking", text: "a" }]);
    expect(thinker.pending).toBe(" <");
    expect(thinker.push("b")).toEqual([{ kind: "thinking", text: " <b" }]);
    expect(thinker.pending).toBe("");
  });
});

// ---- The adapter end to end ----

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const THOUGHT = "The user wants the files. I will run ls.";

/** A Chat Completions reply whose content arrives in the given pieces, then optional tool calls. */
function reply(contentPieces: string[], options: { finish?: string; calls?: boolean } = {}): string {
  let out = chunk({ role: "assistant", content: "" });
  for (const piece of contentPieces) out += chunk({ content: piece });
  if (options.calls) {
    out += chunk({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "bash", arguments: "" } }] });
    out += chunk({ tool_calls: [{ index: 0, function: { arguments: '{"command":"ls"}' } }] });
  }
  out += chunk({}, options.finish ?? (options.calls ? "tool_calls" : "stop"));
  return out + usageChunk(30, 0, 20) + sseData("[DONE]");
}

async function run(body: string, turn: 1 | 2 = 1, first?: AssistantMessage) {
  server ??= await startServer(() => ({ body }));
  const stream = streamOpenAICompletions(completionsModel, contextFor(turn, first), testOptions(server.baseUrl + "/v1"));
  const events: AssistantMessageEvent[] = [];
  for await (const event of stream) events.push(event);
  return { events, message: await stream.result() };
}

const kinds = (events: AssistantMessageEvent[]) => events.map((event) => event.type).filter((type, i, all) => type !== all[i - 1]);

describe("chat completions with <think> tags", () => {
  test("reasoning in <think> streams as thinking, the rest as text", async () => {
    const { events, message } = await run(reply(["<think>\n", "The user wants the files.", " I will run ls.\n</think>", "\n\nHere ", "they are."]));
    expect(kinds(events)).toEqual(["start", "thinking_start", "thinking_delta", "thinking_end", "text_start", "text_delta", "text_end", "done"]);
    expect(message.content).toEqual([
      { type: "thinking", thinking: THOUGHT },
      { type: "text", text: "Here they are." },
    ]);
    expect(message.stopReason).toBe("stop");
    const deltas = events.flatMap((event) => (event.type === "thinking_delta" ? [event.delta] : []));
    expect(deltas.length).toBeGreaterThan(1);
  });

  test("the tags split at every character boundary give the same message", async () => {
    const content = `<think>${THOUGHT}</think>Done.`;
    const cuts = Array.from({ length: content.length - 1 }, (_, i) => i + 1);
    server = await startServer((_request, index) => ({ body: reply([content.slice(0, cuts[index]), content.slice(cuts[index])]) }));
    for (const cut of cuts) {
      const { message } = await run("");
      expect(message.content, `cut at ${cut}`).toEqual([
        { type: "thinking", thinking: THOUGHT },
        { type: "text", text: "Done." },
      ]);
    }
    expect(server.requests).toHaveLength(cuts.length);
  });

  test("a literal <think> in the middle of the answer stays text", async () => {
    const text = "Write <think> in the template, then </think> to close it.";
    const { events, message } = await run(reply(["Write <thi", "nk> in the template, then </think> to close it."]));
    expect(message.content).toEqual([{ type: "text", text }]);
    expect(events.some((event) => event.type.startsWith("thinking"))).toBe(false);
  });

  test.each(["length", "stop"])("a stream ending inside <think> keeps the thinking (finish_reason %s)", async (finish) => {
    const { events, message } = await run(reply(["<think>Let me weigh", " both options"], { finish }));
    expect(message.content).toEqual([{ type: "thinking", thinking: "Let me weigh both options" }]);
    expect(message.stopReason).toBe(finish);
    expect(kinds(events)).toEqual(["start", "thinking_start", "thinking_delta", "thinking_end", "done"]);
  });

  test("a connection cut inside <think> keeps the thinking, held characters included, and reports the error", async () => {
    server = await startServer([{ chunks: [chunk({ role: "assistant", content: "" }) + chunk({ content: "<think>Half a thought </th" })], destroyAfter: 1 }]);
    const { message } = await run("");
    expect(message.stopReason).toBe("error");
    expect(message.content).toEqual([{ type: "thinking", thinking: "Half a thought </th" }]);
  });

  test("tool calls after thinking still work, with or without text between", async () => {
    const bare = await run(reply([`<think>${THOUGHT}</think>`, "\n\n"], { calls: true }));
    expect(bare.message.stopReason).toBe("toolUse");
    expect(bare.message.content).toEqual([
      { type: "thinking", thinking: THOUGHT },
      { type: "toolCall", id: "call_1", name: "bash", arguments: { command: "ls" } },
    ]);
    await server?.close();
    server = undefined;
    const withText = await run(reply([`<think>${THOUGHT}</think>`, "Running ls."], { calls: true }));
    expect(withText.message.content.map((block) => block.type)).toEqual(["thinking", "text", "toolCall"]);
    expect(kinds(withText.events)).toEqual([
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
      "done",
    ]);
  });

  test("content the splitter still holds when a tool call starts comes before the call, as it arrived", async () => {
    const { message } = await run(reply(["\n\n"], { calls: true }));
    expect(message.content.map((block) => block.type)).toEqual(["text", "toolCall"]);
    expect(message.content[0]).toEqual({ type: "text", text: "\n\n" });
  });

  test("thinking from <think> tags is not sent back on the next turn", async () => {
    let turn = 0;
    server = await startServer(() => (turn++ === 0 ? { body: reply([`<think>${THOUGHT}</think>Running ls.`], { calls: true }) } : { body: reply(["Three files."]) }));
    const first = await run("");
    expect(first.message.content[0]).toEqual({ type: "thinking", thinking: THOUGHT });
    const second = await run("", 2, first.message);
    expect(second.message.content).toEqual([{ type: "text", text: "Three files." }]);
    const sent = JSON.stringify(server.requests[1]?.body);
    expect(sent).toContain("Running ls.");
    expect(sent).not.toContain("<think>");
    expect(sent).not.toContain("I will run ls");
  });
});
