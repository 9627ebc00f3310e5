// A provider server that answers without end: an error answer whose body never ends, or a stream
// whose line never ends. Every chunk counts as a sign of life (the stall timer), so both used to
// be read until the memory ran out (200 MB/s over loopback; Anthropic's SDK stopped at V8's
// string limit, 512 MB). Now an error answer is read up to MAX_ERROR_BODY_BYTES, its message cut
// to MAX_FAILURE_MESSAGE_CHARS, and a line past MAX_LINE_BYTES stops the answer with a clear error,
// for each of the three APIs.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStreamModel } from "../../app/main/providers/index.ts";
import { MAX_FAILURE_MESSAGE_CHARS } from "../../app/main/providers/stream-runner.ts";
import type { ProviderStreamOptions } from "../../app/main/providers/types.ts";
import { anthropicModel, completionsModel, responsesModel } from "./support/conversation.ts";

let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.headers["x-test"] === "failed") {
      // A context overflow reported in the stream, whose message the server made 2 MB long.
      res.writeHead(200, { "content-type": "text/event-stream" });
      const error = { code: "context_length_exceeded", message: "x".repeat(2 << 20) };
      res.end(`event: response.failed\ndata: ${JSON.stringify({ type: "response.failed", sequence_number: 0, response: { usage: null, error } })}\n\n`);
      return;
    }
    const streamed = req.headers["x-test"] === "line";
    if (streamed) {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write('data: {"x":"');
    } else {
      res.writeHead(400, { "content-type": "application/json" });
      res.write('{"error":{"message":"');
    }
    const chunk = Buffer.alloc(1 << 20, 120);
    const pump = () => {
      while (!res.destroyed && res.write(chunk));
    };
    res.on("drain", pump);
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const models = [
  ["Anthropic Messages", anthropicModel],
  ["OpenAI Responses", responsesModel],
  ["Chat Completions", completionsModel],
] as const;

function answer(model: (typeof models)[number][1], kind: "error" | "line" | "failed") {
  const stream = createStreamModel({
    settings: () => ({
      anthropic: { apiKey: "k", baseUrl: base },
      openai: { apiKey: "k", baseUrl: `${base}/v1` },
      custom: [{ id: "local", name: "Local", baseUrl: `${base}/v1` }],
    }),
    env: {},
  });
  const options: ProviderStreamOptions = { headers: { "x-test": kind } };
  return stream(model, { messages: [{ role: "user", content: "hi", timestamp: 1 }] }, options).result();
}

it("a context overflow the stream reports keeps its message cut too", async () => {
  const message = await answer(responsesModel, "failed");
  expect(message.stopReason).toBe("error");
  expect(message.errorMessage).toMatch(/^OpenAI: the conversation is longer than the model's context window \(x+… \([\d,]+ more characters cut\)$/);
  expect(message.errorMessage!.length).toBeLessThan(MAX_FAILURE_MESSAGE_CHARS + 100);
});

describe.each(models)("%s", (_api, model) => {
  it("an error answer without end ends the turn with its message cut", async () => {
    const message = await answer(model, "error");
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/400/);
    expect(message.errorMessage!.length).toBeLessThan(MAX_FAILURE_MESSAGE_CHARS + 100);
    expect(message.errorMessage).toMatch(/more characters cut\)$/);
  }, 30_000);

  it("a line without end stops the answer with a clear error", async () => {
    const message = await answer(model, "line");
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toMatch(/ sent a line of over 64 MB without its end; the answer was stopped there\.$/);
  }, 30_000);
});
