// A client that reads everything but asks for more than MAX_REQUESTS_IN_FLIGHT slow requests at
// once: the host leaves the extra ones unread until a slot frees (ws-connection.ts), and with them
// the client's pongs. That pause is the host's own doing, so the heartbeat must not end the
// connection for it (it did: 17 requests of 3 s with a 400 ms heartbeat closed it after 812 ms,
// with no answer). And a client whose every slot is held by requests that never end (an MCP
// server that never answers) can still stop a run, answer a question or interrupt a command.
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { EventHub } from "../../app/main/ipc/event-hub.ts";
import type { IpcRouter } from "../../app/main/ipc/router.ts";
import { MAX_CONTROL_IN_FLIGHT, MAX_REQUESTS_IN_FLIGHT, MAX_WAITING, serveConnection } from "../../app/main/host/ws-connection.ts";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

type Answer = { id?: number; result?: { ok: boolean; data?: string; error?: { code: string; message: string } } };

/** A host connection served by `router`, and an authenticated client that records every answer. */
async function connected(router: IpcRouter, heartbeatMs = 60_000): Promise<{ client: WebSocket; answers: Answer[] }> {
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  cleanups.push(() => server.close());
  server.on("connection", (ws) => serveConnection(ws, { router, hub: new EventHub(), token: "t", authDeadlineMs: 5_000, heartbeatMs, report: () => undefined }));
  await once(server, "listening");
  const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
  cleanups.push(() => client.terminate());
  const answers: Answer[] = [];
  client.on("message", (data) => answers.push(JSON.parse(String(data)) as Answer));
  await once(client, "open");
  client.send(JSON.stringify({ token: "t" }));
  return { client, answers };
}

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

  it("still gets control requests through when every slot is held by requests that never end", async () => {
    const handled: string[] = [];
    const router = {
      handle: (method: string) => {
        handled.push(method);
        // Everything but control hangs for good (a server that never answers).
        return method === "sessions.create" ? new Promise(() => undefined) : Promise.resolve({ ok: true, data: method });
      },
    } as unknown as IpcRouter;
    const { client, answers } = await connected(router);
    let id = 0;
    for (let i = 0; i < MAX_REQUESTS_IN_FLIGHT + 3; i++) client.send(JSON.stringify({ id: ++id, method: "sessions.create", params: {} }));
    // Sent after the stuck ones, in separate writes: each is read and started in a slot of its own.
    const controls = ["sessions.abort", "permissions.respond", "tools.interrupt", "tools.input"];
    for (const method of controls) client.send(JSON.stringify({ id: ++id, method, params: {} }));
    await expect.poll(() => answers.filter((a) => a.result?.ok).map((a) => a.result!.data), { timeout: 5_000, interval: 20 }).toEqual(controls);
    // Ordinary requests still wait their turn; control ones keep getting through.
    expect(controls.length).toBe(MAX_CONTROL_IN_FLIGHT);
    expect(handled.filter((m) => m === "sessions.create")).toHaveLength(MAX_REQUESTS_IN_FLIGHT);
    client.send(JSON.stringify({ id: ++id, method: "app.info", params: {} }));
    client.send(JSON.stringify({ id: id + 1, method: "sessions.abort", params: {} }));
    await expect.poll(() => answers.filter((a) => a.result?.data === "sessions.abort").length, { timeout: 5_000, interval: 20 }).toBe(2);
    expect(handled).not.toContain("app.info");
    expect(MAX_WAITING).toBeGreaterThan(MAX_REQUESTS_IN_FLIGHT);
  });

  it("a Stop that goes ahead ends its session's work waiting before it (a prompt would otherwise start after the Stop)", async () => {
    const handled: string[] = [];
    const router = {
      handle: (method: string, params: { sessionId?: number }) => {
        handled.push(`${method}:${params?.sessionId ?? ""}`);
        return method === "sessions.create" ? new Promise(() => undefined) : Promise.resolve({ ok: true, data: method });
      },
    } as unknown as IpcRouter;
    const { client, answers } = await connected(router);
    for (let id = 1; id <= MAX_REQUESTS_IN_FLIGHT; id++) client.send(JSON.stringify({ id, method: "sessions.create", params: {} }));
    client.send(JSON.stringify({ id: 101, method: "sessions.prompt", params: { sessionId: 7, text: "go" } }));
    client.send(JSON.stringify({ id: 102, method: "sessions.prompt", params: { sessionId: 8, text: "other session" } }));
    client.send(JSON.stringify({ id: 103, method: "sessions.abort", params: { sessionId: 7 } }));
    await expect.poll(() => answers.find((a) => a.id === 103)?.result?.ok, { timeout: 5_000, interval: 20 }).toBe(true);
    expect(answers.find((a) => a.id === 101)?.result).toEqual({ ok: false, error: { code: "failed", message: "Stopped before it started: Stop was pressed while it waited." } });
    expect(handled).not.toContain("sessions.prompt:7");
    // Another session's prompt still waits its turn.
    expect(answers.find((a) => a.id === 102)).toBeUndefined();
  });
});
