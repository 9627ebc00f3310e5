// A client that stops reading what the host sends it, and keeps asking: its requests are left
// unread while its answers wait, so the host's memory stays bounded (before, each small request
// for a large answer queued that answer in the host, without bound: 300 requests for a 1 MB page
// of a session grew the heap by 600 MB, and a 400 MB heap ran out of memory). Once the client
// reads again, every answer arrives.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startHost, type RunningHost } from "../../app/main/host/start-host.ts";
import { createScriptedModel } from "../../app/main/loop/test/scripted-model.ts";

let host: RunningHost;
let dir: string;
const scripted = createScriptedModel();
const MAX_BUFFERED = 1024 * 1024;

beforeAll(async () => {
  dir = realpathSync(mkdtempSync(path.join(tmpdir(), "lathe-slow-client-")));
  mkdirSync(path.join(dir, "renderer"));
  mkdirSync(path.join(dir, "project"));
  writeFileSync(path.join(dir, "renderer", "index.html"), "<title>Lathe</title>");
  host = await startHost({
    dataDir: path.join(dir, "data"),
    rendererDir: path.join(dir, "renderer"),
    env: {},
    streamFn: scripted.streamFn,
    maxBufferedBytes: MAX_BUFFERED,
  });
  host.services.settings.setProvider({ id: "local", kind: "compatible", name: "Local", baseUrl: "http://127.0.0.1:9/v1", models: [{ id: "scripted" }] });
  host.services.settings.update({ defaultModel: "local/scripted" });
});
afterAll(async () => {
  await host?.close();
  rmSync(dir, { recursive: true, force: true });
});

type Reply = { ok: boolean; data?: unknown };

function connect(): Promise<{ ws: WebSocket; call: (method: string, params: unknown) => Promise<Reply>; answers: number }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}/ws`, { origin: host.origin });
    let id = 0;
    const waiting = new Map<number, (r: Reply) => void>();
    const client = {
      ws,
      answers: 0,
      call: (method: string, params: unknown) =>
        new Promise<Reply>((res) => {
          waiting.set(++id, res);
          ws.send(JSON.stringify({ id, method, params }));
        }),
    };
    ws.on("open", () => ws.send(JSON.stringify({ token: host.token })));
    ws.on("message", (data) => {
      const msg = JSON.parse(String(data));
      if (msg.authenticated) resolve(client);
      else if ("result" in msg) {
        client.answers++;
        waiting.get(msg.id)?.(msg.result);
      }
    });
    ws.on("error", reject);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("a client that does not read", () => {
  it("is not read either while its answers wait; once it reads, every answer arrives", async () => {
    const setup = await connect();
    const project = (await setup.call("projects.open", { folder: path.join(dir, "project") })).data as { id: number };
    const session = (await setup.call("sessions.create", { projectId: project.id })).data as { id: number };
    for (let i = 0; i < 2; i++) {
      scripted.push({ text: "ok" });
      expect(await setup.call("sessions.prompt", { sessionId: session.id, text: "x ".repeat(499_999) })).toMatchObject({ ok: true });
      for (let n = 0; n < 200 && host.services.sessions.state(session.id).running; n++) await sleep(25);
    }
    const page = await setup.call("sessions.open", { sessionId: session.id });
    const answerChars = JSON.stringify(page).length;
    expect(answerChars).toBeGreaterThan(2_000_000);
    setup.ws.close();

    let handled = 0;
    const router = host.services.router;
    const handle = router.handle.bind(router);
    router.handle = (name, params) => {
      handled++;
      return handle(name, params);
    };
    try {
      const slow = await connect();
      slow.ws.pause();
      const requests = 100;
      const replies = Array.from({ length: requests }, () => slow.call("sessions.open", { sessionId: session.id }));
      // Wait until the host stops taking requests (what it answered fills the socket buffers).
      let last = -1;
      for (let n = 0; n < 100 && handled !== last; n++) {
        last = handled;
        await sleep(300);
      }
      expect(handled).toBeLessThan(requests);
      // The answers the host took on are bounded by its limit and the two kernel buffers, not by
      // how many requests the client sent.
      expect(handled * answerChars).toBeLessThan(MAX_BUFFERED + 48 * 1024 * 1024);

      slow.ws.resume();
      const all = await Promise.all(replies);
      expect(all.every((r) => r.ok)).toBe(true);
      expect(slow.answers).toBe(requests);
      expect(handled).toBe(requests);
      slow.ws.close();
    } finally {
      router.handle = handle;
    }
  }, 60_000);
});
