// The headless host: loopback only, the token as the WebSocket's first message, the renderer
// served (public code, no token), the router behind a WebSocket that survives garbage.
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
import { rawExchange } from "./support/raw.ts";

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

/** A GET of exactly `target` (fetch would normalize it first). */
const rawGet = (target: string) => `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${host.port}\r\nConnection: close\r\n\r\n`;
/** A header's value in a raw HTTP answer. */
function headerOf(bytes: Buffer, name: string): string | undefined {
  const head = bytes.toString("latin1").split("\r\n\r\n", 1)[0]!;
  const line = head.split("\r\n").find((l) => l.toLowerCase().startsWith(`${name}:`));
  return line?.slice(name.length + 1).trim();
}

type Reply = { ok: boolean; data?: unknown; error?: { code: string } };
type Client = { ws: WebSocket; call: (method: unknown, params?: unknown, raw?: string) => Promise<Reply> };

/** Opens the WebSocket the way the page does: the host's own Origin, then the token first. */
function connect(token: string = host.token): Promise<Client> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}/ws`, { origin: host.origin });
    let id = 0;
    const waiting = new Map<number | null, (v: Reply) => void>();
    const client: Client = {
      ws,
      call: (method, params, raw) =>
        new Promise((res) => {
          const myId = raw === undefined ? ++id : null;
          waiting.set(myId, res);
          ws.send(raw ?? JSON.stringify({ id: myId, method, params }));
        }),
    };
    ws.on("message", (data) => {
      const msg = JSON.parse(String(data));
      if (msg.authenticated === true) resolve(client);
      if ("result" in msg) {
        waiting.get(msg.id)?.(msg.result);
        waiting.delete(msg.id);
      }
    });
    ws.on("open", () => ws.send(JSON.stringify({ token })));
    ws.on("close", (code, reason) => reject(new Error(`closed ${code} ${String(reason)}`)));
    ws.on("error", reject);
    ws.on("unexpected-response", (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
  });
}

describe("headless host", () => {
  it("prints a loopback URL carrying its token in the fragment, never sent to a server", () => {
    expect(host.url).toBe(`http://127.0.0.1:${host.port}/#token=${host.token}`);
    expect(host.origin).toBe(`http://127.0.0.1:${host.port}`);
    expect(host.token.length).toBeGreaterThanOrEqual(32);
  });

  it("accepts a WebSocket only with the token as its first message", async () => {
    await expect(connect("wrong")).rejects.toThrow(/closed 4401/);
    await expect(connect("")).rejects.toThrow(/closed 4401/);
    const { ws, call } = await connect();
    expect(await call("app.info", {})).toMatchObject({ ok: true });
    ws.close();
  });

  it("serves the page and its assets without any token or cookie, with no-referrer", async () => {
    const page = await fetch(`${host.origin}/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("<title>Lathe</title>");
    expect(html).not.toContain(host.token);
    expect(page.headers.get("content-security-policy")).toBe(CONTENT_SECURITY_POLICY);
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    expect(page.headers.get("set-cookie")).toBeNull();
    const asset = await fetch(`${host.origin}/assets/app.js`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("referrer-policy")).toBe("no-referrer");
    expect((await fetch(`${host.origin}/%2e%2e/data/lathe.db`)).status).toBe(404);
    expect((await fetch(`${host.origin}/assets/..%2f..%2fdata%2flathe.db`)).status).toBe(404);
  });

  // Another spelling of the page once came without the header policy, so a page on another port
  // of 127.0.0.1 (which shares the tab's storage, token included) could frame a working app.
  it("serves a file only under its plain path, and never a page without its policy or a frame", async () => {
    for (const target of ["/", "/index.html"]) {
      const answer = await rawExchange(host.port, rawGet(target));
      expect(answer.status, target).toBe(200);
      expect(headerOf(answer.bytes, "content-security-policy"), target).toBe(CONTENT_SECURITY_POLICY);
      expect(headerOf(answer.bytes, "x-frame-options"), target).toBe("DENY");
    }
    for (const target of [
      "//index.html",
      "/./index.html",
      "/%2Findex.html",
      "/%2e/index.html",
      "/assets/../index.html",
      "/assets/%2e%2e/index.html",
      "/assets//app.js",
      "/assets/app.js/",
      "/assets%5capp.js",
      "/.//index.html",
    ]) {
      expect((await rawExchange(host.port, rawGet(target))).status, target).toBe(404);
    }
    const asset = await rawExchange(host.port, rawGet("/assets/app.js"));
    expect(asset.status).toBe(200);
    expect(headerOf(asset.bytes, "x-frame-options")).toBe("DENY");
    expect(headerOf((await rawExchange(host.port, rawGet("/nothing-here"))).bytes, "x-frame-options")).toBe("DENY");
  });

  it("refuses other methods and other origins over HTTP", async () => {
    expect((await fetch(`${host.origin}/`, { method: "POST", body: "x", headers: { origin: host.origin } })).status).toBe(405);
    expect((await fetch(`${host.origin}/`, { method: "POST", body: "x" })).status).toBe(403);
    expect((await fetch(`${host.origin}/`, { method: "PUT", body: "x", headers: { origin: "http://127.0.0.1:1" } })).status).toBe(403);
    expect((await fetch(`${host.origin}/`, { headers: { origin: "http://127.0.0.1:1" } })).status).toBe(403);
    expect((await fetch(`${host.origin}/assets/app.js`, { headers: { "sec-fetch-site": "same-site", "sec-fetch-mode": "no-cors" } })).status).toBe(403);
  });

  it("refuses a foreign Host header (DNS rebinding) and a non-loopback address", async () => {
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request(host.origin, { headers: { host: "attacker.example" } }, (res) => resolve(res.statusCode));
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
