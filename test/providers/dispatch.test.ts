// streamModel picks the adapter from model.api and resolves key and endpoint: call options,
// then settings, then ANTHROPIC_/OPENAI_ variables; testProvider and discoverModels for Settings.
import { afterEach, expect, test } from "vitest";
import type { Model } from "../../app/shared/agent-types.ts";
import { createStreamModel, discoverModels, listModels, testProvider } from "../../app/main/providers/index.ts";
import { anthropicModel, anthropicText, completionsModel, completionsText, responsesModel, responsesText } from "./support/conversation.ts";
import { startServer, type TestServer } from "./support/sse-server.ts";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const hello = { messages: [{ role: "user" as const, content: "hi", timestamp: 1 }] };

test("the api field picks the adapter; settings win over the environment", async () => {
  server = await startServer((request) => ({
    body: request.path.endsWith("/messages") ? anthropicText("a") : request.path.endsWith("/responses") ? responsesText("r") : completionsText("c"),
  }));
  const base = server.baseUrl;
  const stream = createStreamModel({
    settings: {
      anthropic: { apiKey: "settings-anthropic", baseUrl: base },
      openai: { apiKey: "settings-openai" },
      custom: [{ id: "local", name: "Ollama", baseUrl: `${base}/v1` }],
    },
    env: { ANTHROPIC_API_KEY: "env-anthropic", OPENAI_API_KEY: "env-openai", OPENAI_BASE_URL: `${base}/v1` },
  });
  const texts = [];
  for (const model of [anthropicModel, responsesModel, completionsModel]) {
    const message = await stream(model, hello, {}).result();
    texts.push(message.content[0]?.type === "text" ? message.content[0].text : message.errorMessage);
  }
  expect(texts).toEqual(["a", "r", "c"]);
  expect(server.requests.map((request) => [request.path, request.headers.authorization])).toEqual([
    ["/v1/messages", "Bearer settings-anthropic"],
    ["/v1/responses", "Bearer settings-openai"],
    ["/v1/chat/completions", undefined],
  ]);
});

test("the standard variables are used when settings have nothing; the call's apiKey wins over both", async () => {
  server = await startServer(() => ({ body: anthropicText("ok") }));
  const stream = createStreamModel({ settings: () => ({}), env: { ANTHROPIC_API_KEY: "env-key", ANTHROPIC_BASE_URL: server!.baseUrl } });
  await stream(anthropicModel, hello, {}).result();
  await stream(anthropicModel, hello, { apiKey: "call-key" }).result();
  expect(server.requests.map((request) => request.headers.authorization)).toEqual(["Bearer env-key", "Bearer call-key"]);
});

test("an unknown api ends the turn with an error instead of throwing", async () => {
  const stream = createStreamModel({ env: {} });
  const message = await stream({ ...anthropicModel, api: "carrier-pigeon" } as unknown as Model, hello, {}).result();
  expect(message.stopReason).toBe("error");
  expect(message.errorMessage).toMatch(/Unknown model API "carrier-pigeon"/);
});

test("discoverModels reads an OpenAI-style list and falls back to Ollama's /api/tags", async () => {
  server = await startServer((request) =>
    request.path === "/v1/models"
      ? {
          status: 200,
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ object: "list", data: [{ id: "qwen3-coder", object: "model", max_model_len: 32768 }, { id: "llama4" }] }),
        }
      : { status: 404, body: "{}" },
  );
  const listed = await discoverModels(`${server.baseUrl}/v1/`, "k");
  expect(listed).toEqual({ ok: true, source: "models", models: [{ id: "qwen3-coder", contextWindow: 32768 }, { id: "llama4" }] });
  expect(server.requests[0]!.headers.authorization).toBe("Bearer k");
  await server.close();

  server = await startServer((request) =>
    request.path === "/api/tags"
      ? { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify({ models: [{ name: "gemma3:4b", model: "gemma3:4b" }] }) }
      : { status: 404, body: "404 page not found" },
  );
  const tags = await discoverModels(`${server.baseUrl}/v1`);
  expect(tags).toEqual({ ok: true, source: "ollama", models: [{ id: "gemma3:4b" }] });
  expect(server.requests.map((request) => request.path)).toEqual(["/v1/models", "/api/tags"]);
});

test("testProvider reports success with the model count, and a rejected or missing key clearly", async () => {
  server = await startServer((request) =>
    request.headers.authorization === "Bearer good"
      ? {
          status: 200,
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ object: "list", data: [{ id: "gpt-6.2-sol", object: "model", created: 1, owned_by: "openai" }] }),
        }
      : { status: 401, body: JSON.stringify({ error: { message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key" } }) },
  );
  const good = await testProvider({ openai: { apiKey: "good", baseUrl: `${server.baseUrl}/v1` } }, "openai", { env: {} });
  expect(good).toEqual({ ok: true, message: "Connected to OpenAI: 1 model available.", models: ["gpt-6.2-sol"] });
  const bad = await testProvider({ openai: { apiKey: "bad", baseUrl: `${server.baseUrl}/v1` } }, "openai", { env: {} });
  expect(bad).toEqual({ ok: false, message: expect.stringMatching(/^The OpenAI API rejected the key \(401 Incorrect API key provided\)\. Check OPENAI_API_KEY/) });
  const none = await testProvider({}, "anthropic", { env: {} });
  expect(none).toEqual({ ok: false, message: "No Anthropic API key. Set ANTHROPIC_API_KEY or add a key in Settings → Providers." });
});

test("testProvider on Anthropic lists models through the SDK", async () => {
  server = await startServer(() => ({
    status: 200,
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      data: [{ id: "claude-opus-5-5", type: "model", display_name: "Claude Opus 5.5", created_at: "2026-10-01T00:00:00Z" }],
      has_more: false,
      first_id: "claude-opus-5-5",
      last_id: "claude-opus-5-5",
    }),
  }));
  const result = await testProvider({ anthropic: { apiKey: "k", baseUrl: server.baseUrl } }, "anthropic", { env: {} });
  expect(result).toMatchObject({ ok: true, models: ["claude-opus-5-5"] });
  expect(server.requests[0]!.path).toMatch(/^\/v1\/models/);
});

test("user-defined models of compatible servers join the shipped table", () => {
  const models = listModels({
    custom: [{ id: "lmstudio", name: "LM Studio", baseUrl: "http://127.0.0.1:1234/v1", models: [{ id: "qwen3-coder", contextWindow: 65536, images: true }] }],
  });
  const custom = models.find((model) => model.provider === "lmstudio");
  expect(custom).toEqual({
    id: "qwen3-coder",
    name: "qwen3-coder",
    api: "openai-completions",
    provider: "lmstudio",
    baseUrl: "http://127.0.0.1:1234/v1",
    contextWindow: 65536,
    maxTokens: 8192,
    input: ["text", "image"],
    reasoning: false,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  });
  expect(models.filter((model) => model.provider === "anthropic").length).toBeGreaterThan(3);
  expect(models.filter((model) => model.api === "openai-responses").every((model) => model.provider === "openai")).toBe(true);
});
