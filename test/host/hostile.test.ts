// The headless host, as a real process, against requests from outside that once killed it or let
// a foreign page in: bad request targets and paths, 1,000 fuzzed upgrade requests with a wrong or
// missing Origin, Host or token, frames nested 5,000 deep and frames over the size bound. After
// each, the process is still running and still serves the real client.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { clientFrame, rawExchange, startHostProcess, upgradeRequest, type HostProcess } from "./support/raw.ts";

let host: HostProcess;

beforeAll(async () => {
  host = await startHostProcess();
}, 60_000);
afterAll(async () => {
  expect(await host?.stop()).toBe(0);
});

/** The host process is running and a real client still gets in and gets answers. */
async function expectAlive(): Promise<void> {
  expect(host.child.exitCode, host.stderr()).toBeNull();
  const reply = await authenticatedCall("app.info", {});
  expect(reply).toMatchObject({ ok: true, data: { host: "browser" } });
}

function authenticatedCall(method: string, params: unknown, raw?: string): Promise<{ ok: boolean; data?: unknown; error?: { code: string; message: string } }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}/ws`, { origin: host.origin });
    ws.on("open", () => ws.send(JSON.stringify({ token: host.token })));
    ws.on("message", (data) => {
      const msg = JSON.parse(String(data));
      if (msg.authenticated) ws.send(raw ?? JSON.stringify({ id: 1, method, params }));
      if ("result" in msg) {
        resolve(msg.result);
        ws.close();
      }
    });
    ws.on("close", (code) => reject(new Error(`closed ${code}`)));
    ws.on("error", reject);
  });
}

const get = (target: string, host_ = `127.0.0.1:${host.port}`) => `GET ${target} HTTP/1.1\r\nHost: ${host_}\r\nConnection: close\r\n\r\n`;

describe("requests that used to kill the host", () => {
  it.each([
    ["an absolute target with a port out of range", "http://x:99999/"],
    ["a path that is not UTF-8", "/%ff"],
    ["a cut-off escape", "/%E0%A4%A"],
    ["overlong dots", "/%c0%ae%c0%ae/%c0%ae%c0%ae/etc/passwd"],
    ["a NUL byte", "/index.html%00.png"],
  ])("%s (%s) is answered 400 and the host lives", async (_what, target) => {
    expect((await rawExchange(host.port, get(target))).status).toBe(400);
    const upgrade = upgradeRequest(target, { Host: `127.0.0.1:${host.port}`, Origin: host.origin });
    expect((await rawExchange(host.port, upgrade)).status).toBe(400);
    await expectAlive();
  });

  it("answers malformed Host headers 400 and foreign ones 403", async () => {
    for (const bad of ["x:99999", "[::1", "127.0.0.1:80:80", "a b", "127.0.0.1:4317/evil"]) {
      expect((await rawExchange(host.port, get("/", bad))).status, bad).toBe(400);
    }
    for (const foreign of ["attacker.example", `attacker.example:${host.port}`, "10.0.0.1", "127.0.0.1.nip.io"]) {
      expect((await rawExchange(host.port, get("/", foreign))).status, foreign).toBe(403);
    }
    expect((await rawExchange(host.port, "GET / HTTP/1.1\r\nConnection: close\r\n\r\n")).status).toBe(400);
    await expectAlive();
  });

  it("refuses a frame nested 5,000 levels deep (40 KB) with a clear error", async () => {
    const deep = "[".repeat(5000) + "]".repeat(5000);
    for (const method of ["settings.update", "sessions.prompt", "no.such.method"]) {
      const reply = await authenticatedCall(method, undefined, `{"id":1,"method":"${method}","params":${deep}}`);
      expect(reply.ok, method).toBe(false);
      expect(reply.error!.code).toMatch(/invalid-request|unknown-request/);
      if (method !== "no.such.method") expect(reply.error!.message).toMatch(/nested deeper than 64 levels/);
    }
    const deepObject = '{"a":'.repeat(5000) + "1" + "}".repeat(5000);
    const reply = await authenticatedCall("settings.update", undefined, `{"id":1,"method":"settings.update","params":${deepObject}}`);
    expect(reply.error!.message).toMatch(/nested deeper than 64 levels/);
    await expectAlive();
  });

  it("closes a connection whose frame is over the size bound and serves the next", async () => {
    const code = await new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${host.port}/ws`, { origin: host.origin });
      ws.on("open", () => ws.send(JSON.stringify({ token: host.token })));
      ws.on("message", (data) => {
        if (JSON.parse(String(data)).authenticated) ws.send(JSON.stringify({ id: 1, method: "app.info", params: { pad: "x".repeat(33 * 1024 * 1024) } }));
      });
      ws.on("close", (c) => resolve(c));
      ws.on("error", () => undefined);
      setTimeout(() => reject(new Error("no close")), 30_000);
    });
    // 1009 (too big) when the close frame is read; 1006 when the host's reset beats it, as the
    // client was still writing.
    expect([1009, 1006]).toContain(code);
    await expectAlive();
  });
});

/** A deterministic PRNG, so a failing case can be replayed. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

describe("1,000 fuzzed upgrade requests", () => {
  it("with a wrong or missing Origin, Host or token are all refused, and the host lives", async () => {
    const rand = prng(15);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const right = { host: `127.0.0.1:${host.port}`, origin: host.origin };
    const hosts = [right.host, right.host, null, "", "attacker.example", `attacker.example:${host.port}`, `localhost:${host.port}`, "127.0.0.1:1", "x:99999", "[::1]", "%ff"];
    const origins = [
      right.origin,
      right.origin,
      null,
      "null",
      "",
      "http://127.0.0.1:1",
      `http://localhost:${host.port}`,
      `https://127.0.0.1:${host.port}`,
      `http://127.0.0.1:${host.port}/`,
      `http://127.0.0.1:${host.port}.attacker.example`,
      "http://attacker.example",
      "file://",
    ];
    const firstFrames = [
      () => [] as Buffer[],
      () => [clientFrame(JSON.stringify({ token: "wrong" }))],
      () => [clientFrame(JSON.stringify({ token: host.token.toUpperCase() }))],
      () => [clientFrame(JSON.stringify({ token: host.token.slice(0, -1) }))],
      () => [clientFrame(JSON.stringify({ token: [host.token] }))],
      () => [clientFrame(JSON.stringify({ id: 1, method: "settings.update", params: { permissionMode: "full-auto" } }))],
      () => [clientFrame(JSON.stringify({ id: 1, method: "projects.open", params: { folder: "/" }, token: "nope" }))],
      () => [clientFrame(`{"token":"${host.token}"`)],
      () => [clientFrame(Buffer.from(JSON.stringify({ token: host.token })), 0x2)],
      () => [clientFrame("x".repeat(2000))],
      () => [clientFrame("[".repeat(5000))],
    ];
    const targets = ["/ws", "/ws", `/ws?token=${host.token}`, "/", "/ws/../ws", "/%ff"];
    let accepted = 0;
    let refusedAtUpgrade = 0;
    let closedUnauthorized = 0;
    const cases = Array.from({ length: 1000 }, (_, n) => {
      let hostHeader = pick(hosts);
      let origin = pick(origins);
      let frames = pick(firstFrames);
      // Every case gets at least one thing wrong; a missing token (no first message) only once,
      // as it waits for the host's deadline.
      if (n === 0) [hostHeader, origin, frames] = [right.host, right.origin, firstFrames[0]!];
      else if (hostHeader === right.host && origin === right.origin && frames === firstFrames[0]) frames = firstFrames[1]!;
      return { target: pick(targets), headers: { Host: hostHeader, Origin: origin }, frames: frames() };
    });
    const answers: Awaited<ReturnType<typeof rawExchange>>[] = [];
    for (let i = 0; i < cases.length; i += 20) {
      answers.push(...(await Promise.all(cases.slice(i, i + 20).map((c) => rawExchange(host.port, upgradeRequest(c.target, c.headers), c.frames)))));
    }
    answers.forEach((answer, i) => {
      const what = JSON.stringify({ ...cases[i]!, frames: cases[i]!.frames.length });
      expect(answer.authenticated, what).toBe(false);
      if (answer.status === 101) {
        accepted++;
        expect([4401, 4408, 1009, 1002, 1003, 1007], what).toContain(answer.closeCode);
        if (answer.closeCode === 4401) closedUnauthorized++;
      } else {
        refusedAtUpgrade++;
        expect([400, 403, 404], `${what} ${answer.statusLine}`).toContain(answer.status);
      }
    });
    expect(refusedAtUpgrade + accepted).toBe(1000);
    expect(refusedAtUpgrade).toBeGreaterThan(500);
    expect(closedUnauthorized).toBeGreaterThan(20);
    await expectAlive();
  }, 180_000);
});
