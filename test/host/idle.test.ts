// Silent connections are closed: an HTTP socket that never sends a whole request, a WebSocket that
// never sends its token, a WebSocket that stops answering pings. One that answers stays open.
// The host runs with short timeouts here; the assertions only wait for "closed", never time it.
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { RunningHost } from "../../app/main/host/start-host.ts";
import { startTempHost, type TempHost } from "./support/temp-host.ts";

let temp: TempHost;
let host: RunningHost;

beforeAll(async () => {
  temp = await startTempHost("lathe-host-idle-", { timeouts: { headersMs: 500, requestMs: 1_000, authMs: 1_000, heartbeatMs: 1_000 } });
  host = temp.host;
});
afterAll(() => temp?.close());

function socketClosed(send: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(host.port, "127.0.0.1", () => socket.write(send));
    let got = "";
    socket.on("data", (d) => (got += d));
    socket.on("error", () => undefined);
    socket.on("close", () => resolve(got.split("\r\n")[0]!));
  });
}

function open(autoPong = true): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}/ws`, { origin: host.origin, autoPong });
    ws.on("open", () => resolve(ws));
    ws.on("error", reject);
  });
}

const closeCode = (ws: WebSocket) => new Promise<number>((resolve) => ws.on("close", (code) => resolve(code)));

describe("silent connections", () => {
  it("closes an HTTP socket that sends nothing, or never finishes its request", async () => {
    expect(await socketClosed("")).toMatch(/^(HTTP\/1\.1 408 Request Timeout)?$/);
    expect(await socketClosed(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${host.port}\r\n`)).toMatch(/^(HTTP\/1\.1 408 Request Timeout)?$/);
  });

  it("closes a WebSocket that never sends its token (4408)", async () => {
    const ws = await open();
    expect(await closeCode(ws)).toBe(4408);
  });

  it("terminates a WebSocket that stops answering pings, and keeps one that answers", async () => {
    const silent = await open(false);
    const answering = await open(true);
    const silentClosed = closeCode(silent);
    for (const ws of [silent, answering]) ws.send(JSON.stringify({ token: host.token }));
    expect(await silentClosed).toBe(1006);
    expect(answering.readyState).toBe(WebSocket.OPEN);
    const reply = await new Promise((resolve) => {
      answering.on("message", (d) => {
        const msg = JSON.parse(String(d));
        if ("result" in msg) resolve(msg.result);
      });
      answering.send(JSON.stringify({ id: 1, method: "app.info", params: {} }));
    });
    expect(reply).toMatchObject({ ok: true });
    answering.close();
  });
});
