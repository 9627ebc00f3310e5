// A client that reads everything but asks for more than MAX_REQUESTS_IN_FLIGHT slow requests at
// once: the host leaves the extra ones unread until a slot frees (ws-connection.ts), and with them
// the client's pongs. That pause is the host's own doing, so the heartbeat must not end the
// connection for it (it did: 17 requests of 3 s with a 400 ms heartbeat closed it after 812 ms,
// with no answer).
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { EventHub } from "../../app/main/ipc/event-hub.ts";
import type { IpcRouter } from "../../app/main/ipc/router.ts";
import { MAX_REQUESTS_IN_FLIGHT, serveConnection } from "../../app/main/host/ws-connection.ts";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe("a client whose requests wait for a free slot", () => {
  it("is not ended by the heartbeat while its requests wait, and gets every answer", async () => {
    const slowRouter = { handle: () => new Promise((resolve) => setTimeout(() => resolve({ ok: true, data: "done" }), 1_500)) } as unknown as IpcRouter;
    const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
    cleanups.push(() => server.close());
    server.on("connection", (ws) => serveConnection(ws, { router: slowRouter, hub: new EventHub(), token: "t", authDeadlineMs: 5_000, heartbeatMs: 300, report: () => undefined }));
    await once(server, "listening");
    const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
    cleanups.push(() => client.terminate());
    let closed: number | null = null;
    client.on("close", (code) => (closed = code));
    const answers: unknown[] = [];
    client.on("message", (data) => answers.push(JSON.parse(String(data))));
    await once(client, "open");
    client.send(JSON.stringify({ token: "t" }));
    const requests = MAX_REQUESTS_IN_FLIGHT + 1;
    for (let id = 1; id <= requests; id++) client.send(JSON.stringify({ id, method: "app.info", params: {} }));
    // Two slow rounds: the 17th starts once the first 16 are done, 1.5 s later, 5 heartbeats.
    await expect.poll(() => answers.length, { timeout: 10_000, interval: 100 }).toBe(requests + 1);
    expect(closed).toBeNull();
    expect(answers.filter((a) => (a as { result?: { ok: boolean } }).result?.ok).length).toBe(requests);
  }, 20_000);
});
