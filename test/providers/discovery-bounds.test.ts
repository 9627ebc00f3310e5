// A model server that answers without end, with a compressed bomb, or with a list far too long:
// discovery reads at most MAX_LIST_BYTES and keeps at most MAX_DISCOVERED_MODELS models whose ids
// can be chosen. Before, an endless answer was read for the whole 10 s deadline (4 GB of memory
// over loopback), and a million models were saved in the settings and sent with every model list.
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterEach, describe, expect, test } from "vitest";
import { discoverModels, testProvider } from "../../app/main/providers/discovery.ts";
import { MAX_DISCOVERED_MODELS, MAX_LIST_BYTES, MAX_LIST_PAGES, MAX_MODEL_ID_CHARS } from "../../app/main/providers/list-bounds.ts";
import type { ProviderSettings } from "../../app/main/providers/types.ts";

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

async function serve(models: (res: ServerResponse) => void): Promise<string> {
  server = createServer((req, res) => {
    if (req.url === "/v1/models") return models(res);
    res.writeHead(404).end("{}");
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

test("an answer without end is cut at the bound, long before the deadline", async () => {
  const base = await serve((res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.write('{"data":[');
    const spaces = Buffer.alloc(1 << 20, 32);
    const pump = () => {
      while (!res.destroyed && res.write(spaces));
    };
    res.on("drain", pump);
    pump();
  });
  const started = performance.now();
  const found = await discoverModels(base, undefined, { timeoutMs: 60_000 });
  expect(found).toEqual({ ok: false, error: expect.stringMatching(/Its answer to \/v1\/models passed 16 MB, far more than a model list; it was not read further\./) });
  expect(performance.now() - started).toBeLessThan(30_000);
});

test("a compressed bomb is cut at the bound as it is decompressed", async () => {
  const bomb = gzipSync(Buffer.concat([Buffer.from('{"data":['), Buffer.alloc(4 * MAX_LIST_BYTES, 32), Buffer.from("]}")]));
  expect(bomb.length).toBeLessThan(MAX_LIST_BYTES / 64);
  const base = await serve((res) => res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" }).end(bomb));
  const found = await discoverModels(base);
  expect(found).toEqual({ ok: false, error: expect.stringMatching(/passed 16 MB/) });
});

test("at most MAX_DISCOVERED_MODELS models are kept, and none whose id is too long to choose; the result says so", async () => {
  const data = [
    { id: "x".repeat(MAX_MODEL_ID_CHARS + 1) },
    { id: "" },
    ...Array.from({ length: 20_000 }, (_, i) => ({ id: `m${i}`, name: i === 0 ? "n".repeat(5000) : undefined })),
  ];
  const base = await serve((res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data })));
  const found = await discoverModels(base);
  if (!found.ok) throw new Error(found.error);
  expect(found.models).toHaveLength(MAX_DISCOVERED_MODELS);
  expect(found.models[0]).toEqual({ id: "m0", name: "n".repeat(200) });
  expect(found.models.at(-1)!.id).toBe(`m${MAX_DISCOVERED_MODELS - 1}`);
  expect(found.notice).toBe(
    "The server listed 20,000 models; only the first 5,000 are shown. 2 models were left out: an empty id or one longer than 199 characters cannot be chosen.",
  );
});

test("a list just within the bound is read whole", async () => {
  const data = Array.from({ length: 3 }, (_, i) => ({ id: `m${i}`, description: "d".repeat(MAX_LIST_BYTES / 4) }));
  const base = await serve((res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data })));
  const found = await discoverModels(base);
  expect(found).toEqual({ ok: true, source: "models", models: [{ id: "m0" }, { id: "m1" }, { id: "m2" }] });
});

// The Settings "Test" button reads OpenAI's and Anthropic's lists through their SDKs: the same
// bounds hold there (list-bounds.ts), and a cut list says so. Before, the SDKs read any answer
// whole, without a deadline on the body, and Anthropic's list was its first page of 20.
type Kind = "openai" | "anthropic";
const KINDS: Kind[] = ["openai", "anthropic"];
const NAMES = { openai: "OpenAI", anthropic: "Anthropic" };

/** A server for both SDKs (OpenAI's base URL ends in /v1, Anthropic's adds it); `requests` counts the model lists asked for. */
async function serveSdk(models: (res: ServerResponse, url: URL) => void): Promise<{ settings: (kind: Kind) => ProviderSettings; requests: URL[] }> {
  const requests: URL[] = [];
  server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/v1/models") return res.writeHead(404).end("{}");
    requests.push(url);
    models(res, url);
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  const root = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { settings: (kind) => ({ [kind]: { apiKey: "k", baseUrl: kind === "openai" ? `${root}/v1` : root } }), requests };
}

/** Bytes the server sent without end (the client read at most this much of them). */
let sent = 0;
function endless(res: ServerResponse, head: string): void {
  res.writeHead(200, { "content-type": "application/json" });
  res.write(head);
  const spaces = Buffer.alloc(1 << 20, 32);
  sent = 0;
  const pump = () => {
    while (!res.destroyed && res.write(spaces)) sent += spaces.length;
  };
  res.on("drain", pump);
  pump();
}

describe.each(KINDS)("the %s SDK's list", (kind) => {
  test("an answer without end is cut at the bound", async () => {
    const { settings } = await serveSdk((res) => endless(res, '{"data":['));
    const started = performance.now();
    const result = await testProvider(settings(kind), kind, { env: {}, timeoutMs: 60_000 });
    expect(result).toEqual({ ok: false, message: `${NAMES[kind]}: Its answer to /v1/models passed 16 MB, far more than a model list; it was not read further.` });
    expect(performance.now() - started).toBeLessThan(30_000);
    // Reading stopped at the bound: what the server got out is the bound and the sockets' buffers.
    expect(sent).toBeLessThan(4 * MAX_LIST_BYTES);
  });

  test("an error answer without end is cut at the bound too", async () => {
    const { settings } = await serveSdk((res) => {
      res.writeHead(500, { "content-type": "text/plain" });
      const pump = () => {
        while (!res.destroyed && res.write(Buffer.alloc(1 << 20, 120)));
      };
      res.on("drain", pump);
      pump();
    });
    const result = await testProvider(settings(kind), kind, { env: {}, timeoutMs: 60_000 });
    expect(result).toEqual({ ok: false, message: expect.stringMatching(new RegExp(`^${NAMES[kind]} API error 500: .*passed 16 MB`)) });
  });

  test("a compressed bomb is cut as it is decompressed", async () => {
    const bomb = gzipSync(Buffer.concat([Buffer.from('{"data":['), Buffer.alloc(4 * MAX_LIST_BYTES, 32), Buffer.from("]}")]));
    const { settings } = await serveSdk((res) => res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" }).end(bomb));
    const result = await testProvider(settings(kind), kind, { env: {} });
    expect(result).toEqual({ ok: false, message: expect.stringMatching(/passed 16 MB, far more than a model list/) });
  });

  test("a body that trickles is stopped at the listing's deadline", async () => {
    const { settings } = await serveSdk((res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"data":[');
      const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write(" ")), 50);
    });
    const started = performance.now();
    const result = await testProvider(settings(kind), kind, { env: {}, timeoutMs: 1_000 });
    expect(result).toEqual({ ok: false, message: `${NAMES[kind]}: Its model list did not arrive whole within 1 s; it was not read further.` });
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  test("a server that never answers is given up at the deadline", async () => {
    const { settings } = await serveSdk(() => undefined);
    const result = await testProvider(settings(kind), kind, { env: {}, timeoutMs: 1_000 });
    expect(result).toEqual({ ok: false, message: `${NAMES[kind]}: Its model list did not arrive whole within 1 s; it was not read further.` });
  });
});

test("OpenAI: a list far too long keeps the first MAX_DISCOVERED_MODELS usable ids, and says so", async () => {
  const data = [{ id: "x".repeat(MAX_MODEL_ID_CHARS + 1) }, { id: 7 }, ...Array.from({ length: 20_000 }, (_, i) => ({ id: `m${i}`, object: "model" }))];
  const { settings } = await serveSdk((res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data })));
  const result = await testProvider(settings("openai"), "openai", { env: {} });
  if (!result.ok) throw new Error(result.message);
  expect(result.models).toHaveLength(MAX_DISCOVERED_MODELS);
  expect(result.models.at(-1)).toBe(`m${MAX_DISCOVERED_MODELS - 1}`);
  expect(result.message).toBe("Connected to OpenAI: 5,000 models available.");
  expect(result.notice).toBe(
    "The server listed 20,000 models; only the first 5,000 are shown. 1 model was left out: an empty id or one longer than 199 characters cannot be chosen.",
  );
});

/** An Anthropic page of `size` models after `after` (none: the first), with more always to come. */
function anthropicPage(url: URL, size: number): string {
  const start = Number(url.searchParams.get("after_id")?.slice(1) ?? -1) + 1;
  const data = Array.from({ length: size }, (_, i) => ({ id: `m${start + i}`, type: "model", display_name: "M", created_at: "2026-01-01T00:00:00Z" }));
  return JSON.stringify({ data, has_more: true, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? `m${start}` });
}

test("Anthropic: pages without end stop at MAX_DISCOVERED_MODELS models, and the list says so", async () => {
  const { settings, requests } = await serveSdk((res, url) => res.writeHead(200, { "content-type": "application/json" }).end(anthropicPage(url, 1_000)));
  const result = await testProvider(settings("anthropic"), "anthropic", { env: {} });
  if (!result.ok) throw new Error(result.message);
  expect(requests.map((url) => [url.searchParams.get("limit"), url.searchParams.get("after_id")])).toEqual([
    ["1000", null],
    ["1000", "m999"],
    ["1000", "m1999"],
    ["1000", "m2999"],
    ["1000", "m3999"],
  ]);
  expect(result.models).toHaveLength(MAX_DISCOVERED_MODELS);
  expect(result.notice).toBe("The server listed more than 5,000 models; only the first 5,000 are shown.");
});

test("Anthropic: small pages without end stop at MAX_LIST_PAGES pages, and the list says so", async () => {
  const { settings, requests } = await serveSdk((res, url) => res.writeHead(200, { "content-type": "application/json" }).end(anthropicPage(url, 1)));
  const result = await testProvider(settings("anthropic"), "anthropic", { env: {} });
  if (!result.ok) throw new Error(result.message);
  expect(requests).toHaveLength(MAX_LIST_PAGES);
  expect(result.models).toEqual(Array.from({ length: MAX_LIST_PAGES }, (_, i) => `m${i}`));
  expect(result.notice).toBe(`The server's list went on past ${MAX_LIST_PAGES} pages; only the ${MAX_LIST_PAGES} models of those are shown.`);
});

test("Anthropic: a list that ends is read whole, without a notice", async () => {
  const { settings, requests } = await serveSdk((res, url) => {
    const page = JSON.parse(anthropicPage(url, 3)) as { has_more: boolean; data: unknown[] };
    if (url.searchParams.get("after_id") === "m2") page.has_more = false;
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(page));
  });
  const result = await testProvider(settings("anthropic"), "anthropic", { env: {} });
  expect(result).toEqual({ ok: true, message: "Connected to Anthropic: 6 models available.", models: ["m0", "m1", "m2", "m3", "m4", "m5"] });
  expect(requests).toHaveLength(2);
});
