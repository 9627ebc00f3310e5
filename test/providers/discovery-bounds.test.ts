// A model server that answers without end, with a compressed bomb, or with a list far too long:
// discovery reads at most MAX_LIST_BYTES and keeps at most MAX_DISCOVERED_MODELS models whose ids
// can be chosen. Before, an endless answer was read for the whole 10 s deadline (4 GB of memory
// over loopback), and a million models were saved in the settings and sent with every model list.
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterEach, expect, test } from "vitest";
import { discoverModels, MAX_DISCOVERED_MODELS, MAX_LIST_BYTES, MAX_MODEL_ID_CHARS } from "../../app/main/providers/discovery.ts";

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

test("at most MAX_DISCOVERED_MODELS models are kept, and none whose id is too long to choose", async () => {
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
});

test("a list just within the bound is read whole", async () => {
  const data = Array.from({ length: 3 }, (_, i) => ({ id: `m${i}`, description: "d".repeat(MAX_LIST_BYTES / 4) }));
  const base = await serve((res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data })));
  const found = await discoverModels(base);
  expect(found).toEqual({ ok: true, source: "models", models: [{ id: "m0" }, { id: "m1" }, { id: "m2" }] });
});
