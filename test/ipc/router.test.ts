// The router validates every request before a handler sees it: 1,000 random and malformed
// payloads are all rejected with clear errors, and no handler runs.
import { describe, expect, it } from "vitest";
import { IpcFailure, IpcRouter, type RequestHandlers } from "../../app/main/ipc/router.ts";
import { requestNames, requests } from "../../app/shared/ipc/contract.ts";

function recordingHandlers(calls: string[]): RequestHandlers {
  return new Proxy({} as RequestHandlers, {
    get: (_t, name: string) => () => {
      calls.push(name);
      return {};
    },
  });
}

/** A small deterministic PRNG, so a failure can be reproduced. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

export function malformedPayloads(count: number, seed = 42): { name: unknown; params: unknown }[] {
  const rand = prng(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const junk = (): unknown =>
    pick<() => unknown>([
      () => null,
      () => undefined,
      () => Math.floor(rand() * 1e9) - 5e8,
      () => NaN,
      () => "x".repeat(Math.floor(rand() * 50)),
      () => [1, "two", { three: 3 }],
      () => ({ sessionId: "1' OR 1=1 --" }),
      () => ({ __proto__: { polluted: true }, constructor: { prototype: { x: 1 } } }),
      () => ({ sessionId: -1, text: 5 }),
      () => ({ sessionId: 1.5 }),
      () => ({ unexpected: true }),
      () => ({ sessionId: 1, text: "ok", extra: "field" }),
      () => ({ folder: "" }),
      () => ({ query: "" }),
      () => ({ requestId: "r", decision: "maybe" }),
      () => true,
    ])();
  const out: { name: unknown; params: unknown }[] = [];
  for (let i = 0; i < count; i++) {
    const r = rand();
    const name =
      r < 0.2 ? pick([undefined, null, 42, {}, [], "", "sessions", "sessions.", ".prompt", "__proto__", "constructor", "toString", "sessions.prompt\u0000"]) : pick(requestNames);
    let params = junk();
    // A valid name with params that happen to be valid would not be a malformed payload.
    if (typeof name === "string" && name in requests && params !== null && typeof params === "object" && !Array.isArray(params)) {
      params = { ...(params as object), definitelyNotAField: i };
    }
    out.push({ name, params });
  }
  return out;
}

describe("IpcRouter", () => {
  it("rejects 1,000 random and malformed payloads before any handler runs", async () => {
    const calls: string[] = [];
    const router = new IpcRouter(recordingHandlers(calls));
    for (const { name, params } of malformedPayloads(1000)) {
      const result = await router.handle(name, params);
      expect(result.ok, `${String(name)} ${JSON.stringify(params)}`).toBe(false);
      if (!result.ok) {
        expect(["invalid-request", "unknown-request"]).toContain(result.error.code);
        expect(result.error.message.length).toBeGreaterThan(10);
      }
    }
    expect(calls).toEqual([]);
  });

  it("names each failing field", async () => {
    const router = new IpcRouter(recordingHandlers([]));
    const result = await router.handle("sessions.prompt", { sessionId: "seven", text: 3 });
    expect(result).toMatchObject({ ok: false, error: { code: "invalid-request" } });
    const message = (result as { error: { message: string } }).error.message;
    expect(message).toContain("sessionId: Expected integer");
    expect(message).toContain("text: Expected string");
  });

  it("passes valid params to the handler and wraps the result", async () => {
    const calls: string[] = [];
    const router = new IpcRouter(recordingHandlers(calls));
    expect(await router.handle("sessions.abort", { sessionId: 3 })).toEqual({ ok: true, data: {} });
    expect(calls).toEqual(["sessions.abort"]);
  });

  it("turns handler failures into errors without throwing", async () => {
    const handlers = new Proxy({} as RequestHandlers, {
      get: (_t, name) => () => {
        if (name === "sessions.abort") throw new IpcFailure("not-found", "Session 3 does not exist.");
        throw new Error("disk on fire");
      },
    });
    const seen: string[] = [];
    const router = new IpcRouter(handlers, (name) => seen.push(name));
    expect(await router.handle("sessions.abort", { sessionId: 3 })).toEqual({ ok: false, error: { code: "not-found", message: "Session 3 does not exist." } });
    expect(await router.handle("projects.list", {})).toEqual({ ok: false, error: { code: "failed", message: "disk on fire" } });
    expect(seen).toEqual(["projects.list"]);
  });
});
