// The Electron shell's main bundle, started in plain Node against a stand-in `electron` module:
// it opens a hardened window, denies web permissions, navigation and new windows, and answers
// IPC only from its own page in its own window.
import { build } from "esbuild";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import Module, { createRequire } from "node:module";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pathToFileURL } from "node:url";

const require = createRequire(import.meta.url);
const fakePath = require.resolve("./fake-electron.cjs");
interface FakeWindow {
  options: { webPreferences: Record<string, unknown> };
  webContents: NodeJS.EventEmitter & { windowOpenHandler?: (details: { url: string }) => unknown };
  loaded?: string;
}
interface Fake {
  recorded: {
    windows: FakeWindow[];
    ipcHandlers: Map<string, (event: unknown, name: unknown, params: unknown) => Promise<unknown>>;
    permissionRequestHandler?: (contents: unknown, permission: string, callback: (ok: boolean) => void) => void;
    permissionCheckHandler?: (contents: unknown, permission: string) => boolean;
    menu?: unknown;
    errors: string[];
  };
  app: NodeJS.EventEmitter & { dataDir?: string; quitCalls: number };
}
let fake: Fake;
let dir: string;
let rendererUrl: string;

beforeAll(async () => {
  // Inside the repository, so the bundle finds the native modules in node_modules.
  mkdirSync(path.resolve("out"), { recursive: true });
  dir = realpathSync(mkdtempSync(path.resolve("out", "test-shell-")));
  const outDir = path.join(dir, "out", "main");
  await build({
    entryPoints: [path.resolve("app/main/electron/main.ts")],
    outfile: path.join(outDir, "index.cjs"),
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node22",
    external: ["electron", "better-sqlite3", "node-pty"],
    define: { "import.meta.url": "__lathe_import_meta_url" },
    banner: { js: 'var __lathe_import_meta_url = require("url").pathToFileURL(__filename).href;' },
    logLevel: "silent",
  });
  const resolve = (Module as unknown as { _resolveFilename: (r: string, ...rest: unknown[]) => string })._resolveFilename;
  (Module as unknown as { _resolveFilename: typeof resolve })._resolveFilename = (request, ...rest) => (request === "electron" ? fakePath : resolve(request, ...rest));
  fake = require(fakePath) as Fake;
  fake.app.dataDir = path.join(dir, "data");
  require(path.join(outDir, "index.cjs"));
  rendererUrl = pathToFileURL(path.join(dir, "out", "renderer", "index.html")).toString();
  for (let i = 0; i < 100 && fake.recorded.windows.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
});

afterAll(async () => {
  if (fake) {
    // Quitting closes the services (sessions, then the store) before the app quits for real.
    fake.app.emit("before-quit", { preventDefault: () => {} });
    for (let i = 0; i < 200 && fake.app.quitCalls === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(fake.app.quitCalls).toBe(1);
  }
  rmSync(dir, { recursive: true, force: true });
});

describe("the Electron shell", () => {
  it("starts without errors and opens one hardened window on the bundled renderer", () => {
    expect(fake.recorded.errors).toEqual([]);
    expect(fake.recorded.windows).toHaveLength(1);
    const win = fake.recorded.windows[0]!;
    expect(win.options.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webviewTag: false });
    expect(win.options.webPreferences["preload"]).toBe(path.join(dir, "out", "preload", "index.cjs"));
    expect(win.loaded).toBe(path.join(dir, "out", "renderer", "index.html"));
    expect(fake.recorded.menu).toBeDefined();
  });

  it("denies every web permission request and check", () => {
    let granted: boolean | undefined;
    fake.recorded.permissionRequestHandler!({}, "media", (ok: boolean) => (granted = ok));
    expect(granted).toBe(false);
    expect(fake.recorded.permissionCheckHandler!({}, "notifications")).toBe(false);
  });

  it("blocks navigation away from the app and every new window", () => {
    const contents = fake.recorded.windows[0]!.webContents;
    let prevented = 0;
    contents.emit("will-navigate", { preventDefault: () => prevented++ }, "https://example.com/");
    contents.emit("will-navigate", { preventDefault: () => prevented++ }, `${rendererUrl}#/history`);
    expect(prevented).toBe(1);
    expect(contents.windowOpenHandler!({ url: "https://example.com/docs" })).toEqual({ action: "deny" });
    expect(contents.windowOpenHandler!({ url: "file:///etc/passwd" })).toEqual({ action: "deny" });
  });

  it("answers requests from its own page only, validated by the router", async () => {
    const handler = fake.recorded.ipcHandlers.get("lathe:request")!;
    const win = fake.recorded.windows[0]!;
    const own = { sender: win.webContents, senderFrame: { url: rendererUrl } };
    expect(await handler(own, "app.info", {})).toMatchObject({ ok: true, data: { host: "electron", version: "0.0.0-test", dataDir: fake.app.dataDir } });
    expect(await handler(own, "sessions.prompt", { sessionId: "x" })).toMatchObject({ ok: false, error: { code: "invalid-request" } });
    const foreignFrame = { sender: win.webContents, senderFrame: { url: "https://evil.example/" } };
    expect(await handler(foreignFrame, "app.info", {})).toMatchObject({ ok: false, error: { message: expect.stringContaining("Lathe window only") } });
    const otherContents = { sender: {}, senderFrame: { url: rendererUrl } };
    expect(await handler(otherContents, "app.info", {})).toMatchObject({ ok: false });
  });

  it("refuses to store a key without an OS keyring, and says so", async () => {
    const handler = fake.recorded.ipcHandlers.get("lathe:request")!;
    const own = { sender: fake.recorded.windows[0]!.webContents, senderFrame: { url: rendererUrl } };
    expect(await handler(own, "settings.get", {})).toMatchObject({ ok: true, data: { canStoreKeys: false } });
    const result = await handler(own, "settings.setProvider", { id: "anthropic", apiKey: "sk-ant-secret-value-123456" });
    expect(result).toMatchObject({ ok: false, error: { code: "unavailable", message: expect.stringContaining("will not store an API key in plain text") } });
  });
});
