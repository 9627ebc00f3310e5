// The router validates every request before a handler sees it: 1,000 random and malformed
// payloads are all rejected with clear errors, and no handler runs.
import { describe, expect, it } from "vitest";
import { IpcRouter, type RequestHandlers } from "../../app/main/ipc/router.ts";
import { ServiceError } from "../../app/shared/errors.ts";
import { malformedPayloads } from "../support/fuzz.ts";

function recordingHandlers(calls: string[]): RequestHandlers {
  return new Proxy({} as RequestHandlers, {
    get: (_t, name: string) => () => {
      calls.push(name);
      return {};
    },
  });
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

  // What Electron's IPC delivers is already parsed: the walk bounds it (the WebSocket also reads the text first).
  it("refuses params of more values than any request holds, and a bad value too large to print is described, not serialized", async () => {
    const calls: string[] = [];
    const router = new IpcRouter(recordingHandlers(calls));
    const many = await router.handle("settings.update", { hiddenPaths: Array.from({ length: 300_000 }, () => ({})) });
    expect(many).toEqual({ ok: false, error: { code: "invalid-request", message: "Invalid params for settings.update: they are made of more than 250,000 values." } });
    const wrong = await router.handle("settings.update", { hiddenPaths: Array.from({ length: 100_000 }, () => ({})) });
    expect(wrong.ok).toBe(false);
    expect((wrong as { error: { message: string } }).error.message.length).toBeLessThan(2_000);
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
        if (name === "sessions.abort") throw new ServiceError("not-found", "Session 3 does not exist.");
        throw new Error("disk on fire");
      },
    });
    const seen: string[] = [];
    const router = new IpcRouter(handlers, (name) => seen.push(name));
    expect(await router.handle("sessions.abort", { sessionId: 3 })).toEqual({ ok: false, error: { code: "not-found", message: "Session 3 does not exist." } });
    expect(await router.handle("projects.list", {})).toEqual({ ok: false, error: { code: "failed", message: "disk on fire" } });
    expect(seen).toEqual(["projects.list"]);
  });

  it.each([
    ["not-found", "not-found"],
    ["invalid", "invalid-request"],
    ["unavailable", "unavailable"],
    ["failed", "failed"],
  ] as const)("a service's %s failure is answered as %s, and is not reported as a bug", async (kind, code) => {
    const seen: string[] = [];
    const handlers = new Proxy({} as RequestHandlers, {
      get: () => () => {
        throw new ServiceError(kind, `it was ${kind}`);
      },
    });
    const router = new IpcRouter(handlers, (name) => seen.push(name));
    expect(await router.handle("sessions.abort", { sessionId: 3 })).toEqual({ ok: false, error: { code, message: `it was ${kind}` } });
    expect(seen).toEqual([]);
  });
});
