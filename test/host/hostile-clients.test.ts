// Clients that try to make the host hold memory or time: a connection without the token that sends
// a huge first message in pieces (ws buffered up to 32 MiB of it: 40 such connections took
// 1.3 GB), many connections that never send the token, a tab that stops reading while events
// keep coming (510 MB queued for one client before), and a request of millions of values or
// nested millions deep (5 to 8 s of the host's time before). Each is refused or ended, and a real
// client still gets in and gets answers. The limits are the host's own; nothing here times them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { RunningHost } from "../../app/main/host/start-host.ts";
import { MAX_UNAUTHENTICATED, MAX_UNAUTHENTICATED_BYTES } from "../../app/main/host/unauthenticated.ts";
import { TOKEN_PROTOCOL_PREFIX } from "../../app/shared/ipc/limits.ts";
import { startTempHost, type TempHost } from "./support/temp-host.ts";

let temp: TempHost;
let host: RunningHost;
const reports: string[] = [];
const MAX_BUFFERED = 256 * 1024;

beforeAll(async () => {
  temp = await startTempHost("lathe-hostile-clients-", {
    maxBufferedBytes: MAX_BUFFERED,
    report: (what, error) => reports.push(`${what}: ${(error as Error).message}`),
  });
  host = temp.host;
});
afterAll(() => temp?.close());

type Reply = { ok: boolean; data?: unknown; error?: { code: string; message: string } };

/** A connection with the page's Origin that has not sent anything yet. */
function open(): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}/ws`, { origin: host.origin });
    ws.on("open", () => resolve(ws));
    ws.on("error", reject);
  });
}

const closed = (ws: WebSocket) =>
  new Promise<number>((resolve) => {
    if (ws.readyState === ws.CLOSED) resolve(-1);
    else ws.on("close", (code) => resolve(code));
  });

/** A connection that sent the token, with a call by raw text or by method. */
async function authenticated(): Promise<{ ws: WebSocket; send: (raw: string) => Promise<Reply & { id?: unknown }> }> {
  const ws = await open();
  ws.on("error", () => undefined);
  const answers: ((m: { id?: unknown; result: Reply }) => void)[] = [];
  await new Promise<void>((resolve) => {
    ws.on("message", (data) => {
      const message = JSON.parse(String(data));
      if (message.authenticated) resolve();
      else if ("result" in message) answers.shift()?.(message);
    });
    ws.send(JSON.stringify({ token: host.token }));
  });
  return {
    ws,
    send: (raw) =>
      new Promise((resolve) => {
        answers.push((m) => resolve({ ...m.result, id: m.id }));
        ws.send(raw);
      }),
  };
}

async function expectServed(): Promise<void> {
  const client = await authenticated();
  expect(await client.send(JSON.stringify({ id: 7, method: "app.info", params: {} }))).toMatchObject({ ok: true, id: 7 });
  client.ws.close();
}

describe("before the token", () => {
  it(`ends a connection that sends more than ${MAX_UNAUTHENTICATED_BYTES / 1024} KiB, even as an unfinished message`, async () => {
    const ws = await open();
    ws.on("error", () => undefined);
    const piece = Buffer.alloc(16 * 1024, "x");
    for (let i = 0; i < 8 && ws.readyState === ws.OPEN; i++) ws.send(piece, { fin: false });
    // Ended by the byte limit, not by the 10 s token deadline (which closes with 4408).
    expect(await closed(ws)).not.toBe(4408);
    await expectServed();
  });

  it(`keeps at most ${MAX_UNAUTHENTICATED} connections waiting for a token: the oldest goes`, async () => {
    const waiting = [];
    for (let i = 0; i < MAX_UNAUTHENTICATED + 4; i++) waiting.push(await open());
    // Closed by the limit, not by the 10 s token deadline (4408).
    for (const code of await Promise.all(waiting.slice(0, 4).map(closed))) expect(code).not.toBe(4408);
    const states = waiting.map((ws) => ws.readyState);
    expect(states.slice(0, 4)).toEqual([WebSocket.CLOSED, WebSocket.CLOSED, WebSocket.CLOSED, WebSocket.CLOSED]);
    expect(states.slice(4).every((s) => s === WebSocket.OPEN)).toBe(true);
    // The page's connection sends its token at once: it gets in (another waiting one goes).
    await expectServed();
    for (const ws of waiting) ws.terminate();
  });
});

describe("the token in the upgrade (the page's way)", () => {
  /** A connection that offers `token` as its subprotocol and sends nothing; what it heard first. */
  const offering = (token: string) =>
    new Promise<{ ws: WebSocket; first: string | number }>((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${host.port}/ws`, [`${TOKEN_PROTOCOL_PREFIX}${token}`], { origin: host.origin });
      ws.on("error", () => undefined);
      ws.on("message", (data) => resolve({ ws, first: String(data) }));
      ws.on("close", (code) => resolve({ ws, first: code }));
    });

  it("authenticates at once with the right token, closes with 4401 on a wrong one", async () => {
    const right = await offering(host.token);
    expect(right.first).toBe(JSON.stringify({ authenticated: true }));
    expect(right.ws.protocol).toBe(`${TOKEN_PROTOCOL_PREFIX}${host.token}`);
    right.ws.close();
    expect((await offering("wrong")).first).toBe(4401);
    expect((await offering("")).first).toBe(4401);
  });

  it("never waits among the connections without a token: a crowd of them cannot push it out", async () => {
    const crowd = [];
    for (let i = 0; i < MAX_UNAUTHENTICATED; i++) crowd.push(await open());
    const page = await offering(host.token);
    expect(page.first).toBe(JSON.stringify({ authenticated: true }));
    // It took no one's place: every waiting one is still open.
    expect(crowd.every((ws) => ws.readyState === WebSocket.OPEN)).toBe(true);
    page.ws.close();
    for (const ws of crowd) ws.terminate();
  });
});

describe("after the token", () => {
  it("ends a client that stops reading while events keep coming, once 4 times the limit waits for it", async () => {
    const slow = await authenticated();
    const ended = closed(slow.ws);
    // The client's own socket stops reading: what the host sends piles up on its side.
    (slow.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const message = "x".repeat(64 * 1024);
    let sent = 0;
    while (slow.ws.readyState === slow.ws.OPEN && sent < 400 * 1024 * 1024) {
      host.services.hub.emit("app.notice", { level: "info", message });
      sent += message.length;
      await new Promise((resolve) => setImmediate(resolve));
      if (reports.some((r) => r.includes("stopped reading"))) break;
    }
    expect(reports.find((r) => r.includes("stopped reading"))).toMatch(/^sending to a window: it stopped reading \(\d+ MB waited to be sent to it\)/);
    (slow.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    await ended;
    await expectServed();
  }, 60_000);

  it("refuses a request of millions of values or nested millions deep without parsing it, and pairs the answer with its id", async () => {
    const client = await authenticated();
    const many = `{"id":3,"method":"settings.update","params":{"hiddenPaths":[${"{},".repeat(4_000_000)}{}]}}`;
    expect(await client.send(many)).toMatchObject({
      ok: false,
      id: 3,
      error: { code: "invalid-request", message: "The request is made of more than 250,000 values: it was not read." },
    });
    const deep = `{"id":4,"method":"settings.update","params":${"[".repeat(8_000_000)}${"]".repeat(8_000_000)}}`;
    expect(await client.send(deep)).toMatchObject({
      ok: false,
      id: 4,
      error: { code: "invalid-request", message: "The request is nested deeper than 64 levels: it was not read." },
    });
    // A large request that is within the bounds is read (a pasted image's worth of text).
    const large = JSON.stringify({ id: 5, method: "app.info", params: {}, pad: "y".repeat(8 * 1024 * 1024) });
    expect(await client.send(large)).toMatchObject({ id: 5 });
    client.ws.close();
    await expectServed();
  }, 60_000);
});
