// The request each adapter sends, checked against its API's documented shape: system prompt,
// tools as JSON schema, images, tool results (with images), thinking signatures, redacted thinking.
import { afterEach, expect, test } from "vitest";
import type { AssistantMessage, Message, ToolResultMessage } from "../../app/shared/agent-types.ts";
import type { LlmContext } from "../../app/main/loop/index.ts";
import { ADAPTERS, testOptions } from "./support/adapters.ts";
import { ANSWER, anthropicModel, anthropicTurn1, completionsModel, contextFor, responsesModel, responsesTurn1, tools } from "./support/conversation.ts";
import { sseEvent, startServer, type TestServer } from "./support/sse-server.ts";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const [anthropic, responses, completions] = ADAPTERS as [(typeof ADAPTERS)[0], (typeof ADAPTERS)[0], (typeof ADAPTERS)[0]];

function conversation(assistant: AssistantMessage, callIds: [string, string]): LlmContext {
  const result = (id: string, content: ToolResultMessage["content"]): ToolResultMessage => ({
    role: "toolResult",
    toolCallId: id,
    toolName: "read",
    content,
    isError: false,
    timestamp: 3,
  });
  const messages: Message[] = [
    {
      role: "user",
      content: [
        { type: "text", text: "Look at this" },
        { type: "image", data: PNG, mimeType: "image/png" },
      ],
      timestamp: 1,
    },
    assistant,
    result(callIds[0], [{ type: "text", text: "file one" }]),
    result(callIds[1], [
      { type: "text", text: "a screenshot" },
      { type: "image", data: PNG, mimeType: "image/png" },
    ]),
  ];
  return { systemPrompt: "You are Lathe.", messages, tools };
}

function assistantOf(model: typeof anthropicModel, content: AssistantMessage["content"]): AssistantMessage {
  return {
    role: "assistant",
    content,
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: "toolUse",
    timestamp: 2,
  };
}

async function send(adapter: (typeof ADAPTERS)[number], context: LlmContext, options = testOptions("")) {
  server = await startServer([{ body: adapter.text("ok") }]);
  const message = await adapter.stream(adapter.model, context, { ...options, baseUrl: server.baseUrl + adapter.basePath }).result();
  expect(message.stopReason).toBe("stop");
  return server.requests[0]!;
}

const schema = { type: "object", properties: { command: { type: "string" } }, required: ["command"] };

test("Anthropic: system, tools, images, thinking signatures, grouped tool results", async () => {
  const assistant = assistantOf(anthropicModel, [
    { type: "thinking", thinking: "Let me read both.", thinkingSignature: "sig-abc" },
    { type: "thinking", thinking: "", thinkingSignature: "opaque-redacted", redacted: true },
    { type: "text", text: "Reading." },
    { type: "toolCall", id: "toolu_1", name: "read", arguments: { path: "a" } },
    { type: "toolCall", id: "toolu_2", name: "read", arguments: { path: "b" } },
  ]);
  const request = await send(anthropic, conversation(assistant, ["toolu_1", "toolu_2"]));
  // SDK 1.x sends the key as a bearer token.
  expect(request.headers.authorization).toBe("Bearer test-key");
  expect(request.headers["anthropic-version"]).toBeTruthy();
  const image = { type: "image", source: { type: "base64", media_type: "image/png", data: PNG } };
  expect(request.body).toEqual({
    model: "claude-sonnet-5-5",
    max_tokens: 128_000,
    stream: true,
    system: [{ type: "text", text: "You are Lathe.", cache_control: { type: "ephemeral" } }],
    tools: [{ name: "bash", description: "Run a shell command", input_schema: schema }],
    thinking: { type: "adaptive", display: "summarized" },
    messages: [
      { role: "user", content: [{ type: "text", text: "Look at this" }, image] },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Let me read both.", signature: "sig-abc" },
          { type: "redacted_thinking", data: "opaque-redacted" },
          { type: "text", text: "Reading." },
          { type: "tool_use", id: "toolu_1", name: "read", input: { path: "a" } },
          { type: "tool_use", id: "toolu_2", name: "read", input: { path: "b" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "file one" }], is_error: false },
          { type: "tool_result", tool_use_id: "toolu_2", content: [{ type: "text", text: "a screenshot" }, image], is_error: false, cache_control: { type: "ephemeral" } },
        ],
      },
    ],
  });
});

test("Anthropic: another model's thinking is not sent; foreign tool ids are made valid; effort and budget", async () => {
  const foreign = {
    ...assistantOf(responsesModel, [
      { type: "thinking", thinking: "secret", thinkingSignature: "{}" },
      { type: "toolCall", id: "call_9|fc_9", name: "read", arguments: {} },
      { type: "toolCall", id: "call_8|fc_8", name: "read", arguments: {} },
    ]),
  };
  const request = await send(anthropic, conversation(foreign, ["call_9|fc_9", "call_8|fc_8"]), testOptions("", { reasoning: "high" }));
  const body = request.body as { messages: { content: { type: string; id?: string; tool_use_id?: string }[] }[]; output_config: unknown };
  expect(body.messages[1]!.content.map((block) => block.type)).toEqual(["tool_use", "tool_use"]);
  expect(body.messages[1]!.content[0]!.id).toBe("call_9_fc_9");
  expect(body.messages[2]!.content[0]!.tool_use_id).toBe("call_9_fc_9");
  expect(body.output_config).toEqual({ effort: "high" });

  const haiku = { ...anthropicModel, id: "claude-haiku-4-5", maxTokens: 64_000 };
  server?.close();
  server = await startServer([{ body: anthropic.text("ok") }]);
  await anthropic.stream(haiku, { messages: [{ role: "user", content: "hi", timestamp: 1 }] }, testOptions(server.baseUrl, { reasoning: "low", maxTokens: 2000 })).result();
  const budget = server.requests[0]!.body as { thinking: { type: string; budget_tokens: number }; max_tokens: number };
  expect(budget.thinking.type).toBe("enabled");
  expect(budget.max_tokens).toBeGreaterThan(budget.thinking.budget_tokens);
  expect(budget.thinking.budget_tokens).toBeGreaterThanOrEqual(1024);
});

test("OpenAI Responses: instructions, function tools, input images, function outputs with images", async () => {
  const assistant = assistantOf(responsesModel, [
    { type: "thinking", thinking: "Reading both.", thinkingSignature: JSON.stringify({ type: "reasoning", id: "rs_1", summary: [], encrypted_content: "enc" }) },
    { type: "text", text: "Reading." },
    { type: "toolCall", id: "call_1|fc_1", name: "read", arguments: { path: "a" } },
    { type: "toolCall", id: "call_2|fc_2", name: "read", arguments: { path: "b" } },
  ]);
  const request = await send(responses, conversation(assistant, ["call_1|fc_1", "call_2|fc_2"]));
  expect(request.headers.authorization).toBe("Bearer test-key");
  const imageUrl = `data:image/png;base64,${PNG}`;
  expect(request.body).toEqual({
    model: "gpt-6.2-sol",
    stream: true,
    store: false,
    max_output_tokens: 128_000,
    instructions: "You are Lathe.",
    reasoning: { effort: "medium", summary: "auto" },
    include: ["reasoning.encrypted_content"],
    tools: [{ type: "function", name: "bash", description: "Run a shell command", parameters: schema, strict: false }],
    input: [
      {
        role: "user",
        content: [
          { type: "input_text", text: "Look at this" },
          { type: "input_image", image_url: imageUrl, detail: "auto" },
        ],
      },
      // The reasoning item was followed by text, not by a call we can pair it with: not replayed.
      { role: "assistant", content: "Reading." },
      { type: "function_call", call_id: "call_1", name: "read", arguments: '{"path":"a"}' },
      { type: "function_call", call_id: "call_2", name: "read", arguments: '{"path":"b"}' },
      { type: "function_call_output", call_id: "call_1", output: "file one" },
      {
        type: "function_call_output",
        call_id: "call_2",
        output: [
          { type: "input_text", text: "a screenshot" },
          { type: "input_image", image_url: imageUrl, detail: "auto" },
        ],
      },
    ],
  });
});

test("OpenAI Responses: a reasoning item directly before a call is replayed with the call's item id", async () => {
  const reasoning = { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Reading." }], encrypted_content: "enc" };
  const assistant = assistantOf(responsesModel, [
    { type: "thinking", thinking: "Reading.", thinkingSignature: JSON.stringify(reasoning) },
    { type: "toolCall", id: "call_1|fc_1", name: "read", arguments: { path: "a" } },
    { type: "toolCall", id: "call_2|fc_2", name: "read", arguments: { path: "b" } },
  ]);
  const request = await send(responses, conversation(assistant, ["call_1|fc_1", "call_2|fc_2"]), testOptions("", { reasoning: "off" }));
  const body = request.body as { input: unknown[]; reasoning: unknown };
  expect(body.input.slice(1, 4)).toEqual([
    reasoning,
    { type: "function_call", call_id: "call_1", name: "read", arguments: '{"path":"a"}', id: "fc_1" },
    { type: "function_call", call_id: "call_2", name: "read", arguments: '{"path":"b"}', id: "fc_2" },
  ]);
  // gpt-6.2-sol rejects effort "none": "off" becomes its lowest effort.
  expect(body.reasoning).toEqual({ effort: "low", summary: "auto" });
});

test("Chat Completions: system message, tool_calls, tool messages, tool images in a following user message, no key header", async () => {
  const assistant = assistantOf(completionsModel, [
    { type: "thinking", thinking: "Reading both." },
    { type: "text", text: "Reading." },
    { type: "toolCall", id: "call_1", name: "read", arguments: { path: "a" } },
    { type: "toolCall", id: "call_2", name: "read", arguments: { path: "b" } },
  ]);
  const { apiKey: _omit, ...noKey } = testOptions("");
  const request = await send(completions, conversation(assistant, ["call_1", "call_2"]), noKey);
  expect(request.headers.authorization).toBeUndefined();
  const imagePart = { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } };
  expect(request.body).toEqual({
    model: "qwen3-coder",
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: 8192,
    tools: [{ type: "function", function: { name: "bash", description: "Run a shell command", parameters: schema } }],
    messages: [
      { role: "system", content: "You are Lathe." },
      { role: "user", content: [{ type: "text", text: "Look at this" }, imagePart] },
      {
        role: "assistant",
        content: "Reading.",
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "read", arguments: '{"path":"a"}' } },
          { id: "call_2", type: "function", function: { name: "read", arguments: '{"path":"b"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "file one" },
      { role: "tool", tool_call_id: "call_2", content: "a screenshot\n(1 image attached in the next user message)" },
      { role: "user", content: [{ type: "text", text: "Images returned by the tool calls above:" }, imagePart] },
    ],
  });
});

test("images are replaced by a note for a model that takes text only", async () => {
  const textOnly = { ...completionsModel, input: ["text"] as ("text" | "image")[] };
  server = await startServer([{ body: completions.text("ok") }]);
  await completions
    .stream(
      textOnly,
      {
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "see" },
              { type: "image", data: PNG, mimeType: "image/png" },
            ],
            timestamp: 1,
          },
        ],
      },
      testOptions(server.baseUrl + "/v1"),
    )
    .result();
  const body = server.requests[0]!.body as { messages: { content: unknown }[] };
  expect(JSON.stringify(body.messages[0]!.content)).toContain("An image was omitted: Qwen3 Coder does not accept images.");
  expect(JSON.stringify(body)).not.toContain(PNG);
});

test("Anthropic round trip: a streamed signature and redacted thinking are kept and sent back verbatim", async () => {
  const redactedFirst = anthropicTurn1().replace(
    "event: content_block_start",
    `${sseEvent("content_block_start", { type: "content_block_start", index: 9, content_block: { type: "redacted_thinking", data: "EmwKAhgBEgy3va3p" } })}${sseEvent("content_block_stop", { type: "content_block_stop", index: 9 })}event: content_block_start`,
  );
  server = await startServer([{ body: redactedFirst, chunkSize: 11 }, { body: anthropic.text(ANSWER) }]);
  const options = testOptions(server.baseUrl);
  const first = await anthropic.stream(anthropicModel, contextFor(1), options).result();
  expect(first.content.slice(0, 2)).toEqual([
    { type: "thinking", thinking: "", redacted: true, thinkingSignature: "EmwKAhgBEgy3va3p" },
    { type: "thinking", thinking: expect.stringContaining("Two commands"), thinkingSignature: "EqQBsig==" },
  ]);
  await anthropic.stream(anthropicModel, contextFor(2, first), options).result();
  const sent = (server.requests[1]!.body as { messages: { content: { type: string }[] }[] }).messages[1]!.content;
  expect(sent.slice(0, 2)).toEqual([
    { type: "redacted_thinking", data: "EmwKAhgBEgy3va3p" },
    { type: "thinking", thinking: first.content[1]!.type === "thinking" ? first.content[1]!.thinking : "", signature: "EqQBsig==" },
  ]);
});

test("OpenAI Responses round trip: the streamed reasoning item (encrypted) is kept as the signature", async () => {
  server = await startServer([{ body: responsesTurn1() }]);
  const first = await responses.stream(responsesModel, contextFor(1), testOptions(server.baseUrl + "/v1")).result();
  const thinking = first.content[0];
  expect(thinking?.type).toBe("thinking");
  expect(JSON.parse(thinking?.type === "thinking" ? (thinking.thinkingSignature ?? "") : "")).toMatchObject({ type: "reasoning", id: "rs_0", encrypted_content: "gAAAAenc" });
  expect(first.content.filter((block) => block.type === "toolCall").map((block) => block.id)).toEqual(["call_1|fc_2", "call_2|fc_3"]);
});

test("a call whose arguments were not JSON goes back with the text the model wrote, inside an object", async () => {
  const raw = '{"path": "a", "limit": }';
  const wrapped = { INVALID_JSON: raw };
  for (const [adapter, model, id] of [
    [anthropic, anthropicModel, "toolu_1"],
    [responses, responsesModel, "call_1"],
    [completions, completionsModel, "call_1"],
  ] as const) {
    const assistant = assistantOf(model, [
      { type: "toolCall", id, name: "read", arguments: {}, argumentsError: "the arguments are not valid JSON (Unexpected token '}')", rawArguments: raw },
      { type: "toolCall", id: id.replace("1", "2"), name: "read", arguments: { path: "b" } },
    ]);
    const request = await send(adapter, conversation(assistant, [id, id.replace("1", "2")]));
    await server?.close();
    server = undefined;
    const body = JSON.stringify(request.body);
    // Anthropic's input is the object; OpenAI's arguments are the object as JSON text.
    expect(body).toContain(adapter === anthropic ? `"input":${JSON.stringify(wrapped)}` : JSON.stringify(JSON.stringify(wrapped)));
    expect(body).toContain(adapter === anthropic ? '"input":{"path":"b"}' : JSON.stringify('{"path":"b"}'));
  }
});
