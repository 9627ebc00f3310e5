// A client that stops reading what the host sends it, and keeps asking: its requests are left
// unread while its answers wait, so the host's memory stays bounded (before, each small request
// for a large answer queued that answer in the host, without bound: 300 requests for a 1 MB page
// of a session grew the heap by 600 MB, and a 400 MB heap ran out of memory). Once the client
// reads again, every answer arrives.
import { mkdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import net from "node:net";
import WebSocket from "ws";
import type { RunningHost } from "../../app/main/host/start-host.ts";
import { MAX_REQUESTS_IN_FLIGHT } from "../../app/main/host/ws-connection.ts";
import { createScriptedModel } from "../../app/main/loop/test/scripted-model.ts";
import { clientFrame } from "./support/raw.ts";
import { startTempHost, type TempHost } from "./support/temp-host.ts";

let temp: TempHost;
let host: RunningHost;
let dir: string;
const scripted = createScriptedModel();
const MAX_BUFFERED = 1024 * 1024;

beforeAll(async () => {
  temp = await startTempHost("lathe-slow-client-", { streamFn: scripted.streamFn, maxBufferedBytes: MAX_BUFFERED });
  ({ host, dir } = temp);
  mkdirSync(path.join(dir, "project"));
  host.services.settings.setProvider({ id: "local", kind: "compatible", name: "Local", baseUrl: "http://127.0.0.1:9/v1", models: [{ id: "scripted" }] });
  host.services.settings.update({ defaultModel: "local/scripted" });
});
afterAll(() => temp?.close());

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

/** A session whose newest page is over 2 MB (two prompts of a million characters). */
async function largeSession(): Promise<{ sessionId: number; answerChars: number }> {
  const setup = await connect();
  const project = (await setup.call("projects.open", { folder: path.join(dir, "project") })).data as { id: number };
  const session = (await setup.call("sessions.create", { projectId: project.id })).data as { id: number };
  for (let i = 0; i < 2; i++) {
    scripted.push({ text: "ok" });
    expect(await setup.call("sessions.prompt", { sessionId: session.id, text: "x ".repeat(499_999) })).toMatchObject({ ok: true });
    for (let n = 0; n < 200 && host.services.sessions.state(session.id).running; n++) await sleep(25);
  }
  const page = await setup.call("sessions.open", { sessionId: session.id });
  setup.ws.close();
  return { sessionId: session.id, answerChars: JSON.stringify(page).length };
}

/** Counts the requests the host's router takes on while `run` runs. */
async function counting<T>(run: (handled: () => number) => Promise<T>): Promise<T> {
  let handled = 0;
  const router = host.services.router;
  const handle = router.handle.bind(router);
  router.handle = (name, params) => {
    handled++;
    return handle(name, params);
  };
  try {
    return await run(() => handled);
  } finally {
    router.handle = handle;
  }
}

/** Waits until the count stops changing (what the host answered fills the socket buffers). */
async function settled(count: () => number): Promise<number> {
  let last = -1;
  for (let n = 0; n < 100 && count() !== last; n++) {
    last = count();
    await sleep(300);
  }
  return count();
}

describe("a client that does not read", () => {
  it("is not read either while its answers wait; once it reads, every answer arrives", async () => {
    const { sessionId, answerChars } = await largeSession();
    expect(answerChars).toBeGreaterThan(2_000_000);
    await counting(async (handled) => {
      const slow = await connect();
      slow.ws.pause();
      const requests = 100;
      const replies = Array.from({ length: requests }, () => slow.call("sessions.open", { sessionId }));
      const taken = await settled(handled);
      expect(taken).toBeLessThan(requests);
      // The answers the host took on are bounded by its limit and the two kernel buffers, not by
      // how many requests the client sent.
      expect(taken * answerChars).toBeLessThan(MAX_BUFFERED + 48 * 1024 * 1024);

      slow.ws.resume();
      const all = await Promise.all(replies);
      expect(all.every((r) => r.ok)).toBe(true);
      expect(slow.answers).toBe(requests);
      expect(handled()).toBe(requests);
      slow.ws.close();
    });
  }, 60_000);

  it("takes on at most MAX_REQUESTS_IN_FLIGHT of 300 requests sent in one write (2 GB of answers before)", async () => {
    const { sessionId } = await largeSession();
    await counting(async (handled) => {
      const socket = net.connect(host.port, "127.0.0.1");
      socket.on("error", () => undefined);
      await new Promise((resolve) => socket.once("connect", resolve));
      socket.write(
        `GET /ws HTTP/1.1\r\nHost: 127.0.0.1:${host.port}\r\nOrigin: ${host.origin}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
      );
      let seen = "";
      socket.on("data", (d) => (seen += d.toString("latin1")));
      await sleep(200);
      socket.write(clientFrame(JSON.stringify({ token: host.token })));
      for (let n = 0; n < 100 && !seen.includes('"authenticated":true'); n++) await sleep(20);
      expect(seen).toContain('"authenticated":true');
      socket.pause();
      const frames = Array.from({ length: 300 }, (_, i) => clientFrame(JSON.stringify({ id: i, method: "sessions.open", params: { sessionId } })));
      socket.write(Buffer.concat(frames));
      const taken = await settled(handled);
      expect(taken).toBeGreaterThan(0);
      expect(taken).toBeLessThanOrEqual(MAX_REQUESTS_IN_FLIGHT + 8);
      socket.destroy();
    });
  }, 60_000);
});
