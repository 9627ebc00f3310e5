// The Electron shell's security configuration, asserted without Electron: the window options,
// the navigation guard, the renderer's Content Security Policy, the preload's exposed API (the
// preload run against a stand-in electron module).
import { readFileSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { isAppUrl, mainWindowOptions } from "../../app/main/electron/window-config.ts";
import { CONTENT_SECURITY_POLICY, META_CONTENT_SECURITY_POLICY } from "../../app/shared/csp.ts";
import { buildApi, eventNames, requestNames } from "../../app/shared/ipc/contract.ts";
import { EVENT_CHANNEL, REQUEST_CHANNEL } from "../../app/shared/ipc/channels.ts";

describe("the main window", () => {
  it("is isolated, sandboxed and has no Node", () => {
    const web = mainWindowOptions("/app/preload/index.cjs").webPreferences!;
    expect(web).toMatchObject({
      preload: "/app/preload/index.cjs",
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    });
  });

  it("keeps remembered bounds but never below the minimum size", () => {
    expect(mainWindowOptions("p", { x: 10, y: 20, width: 1500, height: 900 })).toMatchObject({ x: 10, y: 20, width: 1500, height: 900 });
    expect(mainWindowOptions("p", { width: 100, height: 100 })).toMatchObject({ width: 720, height: 480 });
  });

  it("may only show the bundled renderer", () => {
    const app = "file:///opt/Lathe/resources/app.asar/out/renderer/index.html";
    expect(isAppUrl(`${app}#/session/3`, app)).toBe(true);
    expect(isAppUrl("https://example.com/", app)).toBe(false);
    expect(isAppUrl("file:///etc/passwd", app)).toBe(false);
    expect(isAppUrl("javascript:alert(1)", app)).toBe(false);
  });
});

describe("the Content Security Policy", () => {
  const directives = Object.fromEntries(CONTENT_SECURITY_POLICY.split("; ").map((d) => [d.split(" ")[0], d.split(" ").slice(1)]));
  it("allows no remote code, no eval, no plugins, no framing", () => {
    expect(directives["default-src"]).toEqual(["'none'"]);
    expect(directives["script-src"]).toEqual(["'self'"]);
    expect(CONTENT_SECURITY_POLICY).not.toContain("unsafe-eval");
    expect(directives["object-src"]).toEqual(["'none'"]);
    expect(directives["frame-ancestors"]).toEqual(["'none'"]);
    expect(directives["connect-src"]).toEqual(["'self'"]);
    expect(CONTENT_SECURITY_POLICY).not.toMatch(/https?:/);
  });

  it("goes into the meta tag without frame-ancestors, which browsers ignore there", () => {
    expect(META_CONTENT_SECURITY_POLICY).not.toContain("frame-ancestors");
    expect(META_CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY.startsWith(META_CONTENT_SECURITY_POLICY.split("; ")[0]!)).toBe(true);
  });

  it("is in the renderer's index.html", () => {
    const html = readFileSync(new URL("../../app/renderer/index.html", import.meta.url), "utf8");
    expect(html).toMatch(/<meta http-equiv="Content-Security-Policy" content="%LATHE_CSP%"/);
  });
});

describe("the preload API", () => {
  it("has one named function per request and per event, and nothing generic", async () => {
    const calls: unknown[] = [];
    const api = buildApi(
      async (name, params) => (calls.push([name, params]), { ok: true, data: null }),
      () => () => {},
    ) as unknown as Record<string, Record<string, unknown>>;
    for (const name of requestNames) {
      const [ns, method] = name.split(".") as [string, string];
      expect(typeof api[ns]![method], name).toBe("function");
    }
    expect(Object.keys(api.events!)).toHaveLength(eventNames.length);
    expect(Object.keys(api.events!).every((k) => /^on[A-Z]/.test(k))).toBe(true);
    for (const generic of ["send", "on", "invoke", "ipcRenderer"]) expect(api[generic]).toBeUndefined();
    await (api.sessions!.abort as (p: unknown) => Promise<unknown>)({ sessionId: 1 });
    expect(calls).toEqual([["sessions.abort", { sessionId: 1 }]]);
  });

  it("the preload, run against a stand-in electron, exposes exactly window.lathe, wired to the two channels", async () => {
    const exposed = new Map<string, unknown>();
    const invoked: unknown[][] = [];
    const channelListeners = new Map<string, (event: unknown, name: string, payload: unknown) => void>();
    vi.doMock("electron", () => ({
      contextBridge: { exposeInMainWorld: (key: string, value: unknown) => exposed.set(key, value) },
      ipcRenderer: {
        on: (channel: string, listener: (event: unknown, name: string, payload: unknown) => void) => channelListeners.set(channel, listener),
        invoke: async (...args: unknown[]) => (invoked.push(args), { ok: true, data: null }),
      },
    }));
    await import("../../app/preload/index.ts");
    expect([...exposed.keys()]).toEqual(["lathe"]);
    expect([...channelListeners.keys()]).toEqual([EVENT_CHANNEL]);
    const api = exposed.get("lathe") as Record<string, Record<string, (arg: unknown) => unknown>>;
    expect(Object.keys(api).sort()).toEqual([...new Set(requestNames.map((n) => n.split(".")[0]!)), "events"].sort());
    for (const generic of ["send", "on", "invoke", "ipcRenderer"]) expect(api[generic]).toBeUndefined();
    await api.sessions!.abort!({ sessionId: 1 });
    expect(invoked).toEqual([[REQUEST_CHANNEL, "sessions.abort", { sessionId: 1 }]]);
    const received: unknown[] = [];
    const unsubscribe = api.events!.onSessionState!((payload: unknown) => received.push(payload)) as () => void;
    const deliver = channelListeners.get(EVENT_CHANNEL)!;
    deliver(undefined, "session.state", { n: 1 });
    deliver(undefined, "session.updated", { n: 2 });
    unsubscribe();
    deliver(undefined, "session.state", { n: 3 });
    expect(received).toEqual([{ n: 1 }]);
  });
});
