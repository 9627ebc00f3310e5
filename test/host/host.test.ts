// The headless host: loopback only, a token on every request, the renderer served, the router
// behind a WebSocket that survives garbage.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startHost, type RunningHost } from "../../app/main/host/start-host.ts";
import { isLoopback, startHostServer } from "../../app/main/host/server.ts";
import { CONTENT_SECURITY_POLICY } from "../../app/shared/csp.ts";
import { malformedPayloads } from "../support/fuzz.ts";

let host: RunningHost;
let dataDir: string;
let rendererDir: string;

beforeAll(async () => {
  dataDir = realpathSync(mkdtempSync(path.join(tmpdir(), "lathe-host-")));
  rendererDir = path.join(dataDir, "renderer");
  mkdirSync(path.join(rendererDir, "assets"), { recursive: true });
  writeFileSync(path.join(rendererDir, "index.html"), "<!doctype html><title>Lathe</title>");
  writeFileSync(path.join(rendererDir, "assets", "app.js"), "console.log(1)");
  host = await startHost({ dataDir: path.join(dataDir, "data"), rendererDir, env: {} });
});
afterAll(async () => {
  await host?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

function connect(token = host.token): Promise<{ ws: WebSocket; call: (method: unknown, params?: unknown, raw?: string) => Promise<{ ok: boolean; data?: unknown; error?: { code: string } }> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}/ws?token=${token}`);
    let id = 0;
    type Reply = { ok: boolean; data?: unknown; error?: { code: string } };
    const waiting = new Map<number | null, (v: Reply) => void>();
    ws.on("message", (data) => {
      const msg = JSON.parse(String(data));
      if ("result" in msg) {
        waiting.get(msg.id)?.(msg.result);
        waiting.delete(msg.id);
      }
    });
    ws.on("open", () =>
      resolve({
        ws,
        call: (method, params, raw) =>
          new Promise((res) => {
            const myId = raw === undefined ? ++id : null;
            waiting.set(myId, res);
            ws.send(raw ?? JSON.stringify({ id: myId, method, params }));
          }),
      }),
    );
    ws.on("error", reject);
    ws.on("unexpected-response", (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
  });
}

describe("headless host", () => {
  it("prints a loopback URL carrying its token", () => {
    expect(host.url).toBe(`http://127.0.0.1:${host.port}/?token=${host.token}`);
    expect(host.token.length).toBeGreaterThanOrEqual(32);
  });

  it("refuses requests without the right token", async () => {
    expect((await fetch(`http://127.0.0.1:${host.port}/`)).status).toBe(401);
    expect((await fetch(`http://127.0.0.1:${host.port}/?token=wrong`)).status).toBe(401);
    expect((await fetch(`http://127.0.0.1:${host.port}/assets/app.js`)).status).toBe(401);
    await expect(connect("wrong")).rejects.toThrow(/401/);
  });

  it("serves the renderer with the token, then its assets by cookie", async () => {
    const page = await fetch(host.url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("<title>Lathe</title>");
    expect(page.headers.get("content-security-policy")).toBe(CONTENT_SECURITY_POLICY);
    const cookie = page.headers.get("set-cookie")!.split(";")[0]!;
    const asset = await fetch(`http://127.0.0.1:${host.port}/assets/app.js`, { headers: { cookie } });
    expect(asset.status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${host.port}/assets/../../data/lathe.db`, { headers: { cookie } })).status).toBe(404);
  });

  it("refuses a foreign Host header (DNS rebinding) and a non-loopback address", async () => {
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(host.url, { headers: { host: "attacker.example" } }, (res) => resolve(res.statusCode));
      req.on("error", reject);
      req.end();
    });
    expect(status).toBe(403);
    await expect(startHostServer({ router: host.services.router, hub: host.services.hub, rendererDir, host: "0.0.0.0" })).rejects.toThrow(/loopback/);
    expect(isLoopback("10.0.0.5")).toBe(false);
    expect(isLoopback("::ffff:127.0.0.1")).toBe(true);
    expect(isLoopback("::1")).toBe(true);
  });

  it("rejects 1,000 malformed payloads over the WebSocket and keeps serving", async () => {
    const { ws, call } = await connect();
    for (const { name, params } of malformedPayloads(1000, 7)) {
      const result = await call(name, params);
      expect(result.ok, JSON.stringify({ name, params })).toBe(false);
    }
    for (const garbage of ["not json", "[1,2]", "null", "42", '{"id":'] as const) {
      expect(await call(undefined, undefined, garbage)).toMatchObject({ ok: false, error: { code: "invalid-request" } });
    }
    expect(await call("app.info", {})).toMatchObject({ ok: true, data: { host: "browser" } });
    ws.close();
  });

  it("pushes events to connected clients", async () => {
    const { ws } = await connect();
    const got = new Promise((resolve) => ws.on("message", (d) => String(d).includes("app.notice") && resolve(JSON.parse(String(d)))));
    host.services.hub.emit("app.notice", { level: "info", message: "hello" });
    expect(await got).toEqual({ event: "app.notice", payload: { level: "info", message: "hello" } });
    ws.close();
  });
});
