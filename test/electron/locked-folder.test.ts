// The Electron shell on a data folder another Lathe holds (a headless host, here this test
// process): it names the holder in a dialog and, when the person chooses it, opens read-only: the
// window works, reads are answered, every change is refused. A second launch of the app focuses
// the running window (Electron's single-instance lock).
import { build } from "esbuild";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import Module, { createRequire } from "node:module";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pathToFileURL } from "node:url";
import { createAppServices } from "../../app/main/app-services.ts";
import { acquireFolderLock, type FolderLock } from "../../app/main/store/folder-lock.ts";
import { noSecretStore } from "../../app/main/settings/settings-service.ts";

const require = createRequire(import.meta.url);
const fakePath = require.resolve("./fake-electron.cjs");
type Handler = (event: unknown, name: unknown, params: unknown) => Promise<unknown>;
interface Fake {
  recorded: { windows: { webContents: unknown }[]; ipcHandlers: Map<string, Handler>; errors: string[]; focused: number; messageBoxes: { detail?: string; buttons?: string[] }[] };
  app: NodeJS.EventEmitter & { dataDir?: string };
  messageBoxResponse?: number;
}
let fake: Fake;
let dir: string;
let lock: FolderLock;
let rendererUrl: string;

beforeAll(async () => {
  mkdirSync(path.resolve("out"), { recursive: true });
  dir = realpathSync(mkdtempSync(path.resolve("out", "test-locked-")));
  const dataDir = path.join(dir, "data");
  // A database with one session, then held by "a headless host".
  const services = createAppServices({ dataDir, secrets: noSecretStore, host: "browser", version: "test", env: {} });
  const project = services.store.openProject(dir);
  services.store.createSession({ projectId: project.id, title: "kept session" });
  await services.close();
  lock = acquireFolderLock(dataDir, "the headless host");

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
  fake.app.dataDir = dataDir;
  fake.messageBoxResponse = 0; // "Open read-only"
  require(path.join(outDir, "index.cjs"));
  rendererUrl = pathToFileURL(path.join(dir, "out", "renderer", "index.html")).toString();
  for (let i = 0; i < 200 && fake.recorded.windows.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
}, 60_000);

afterAll(() => {
  fake?.app.emit("before-quit", { preventDefault: () => {} });
  lock?.release();
  rmSync(dir, { recursive: true, force: true });
});

describe("the Electron shell on a folder another Lathe holds", () => {
  it("names the holder and offers read-only or quit", () => {
    expect(fake.recorded.messageBoxes).toHaveLength(1);
    const box = fake.recorded.messageBoxes[0]!;
    expect(box.buttons).toEqual(["Open read-only", "Quit"]);
    expect(box.detail).toContain(`in use by the headless host (pid ${process.pid}`);
  });

  it("opens read-only when asked: reads answered, changes refused, the holder undisturbed", async () => {
    expect(fake.recorded.errors).toEqual([]);
    expect(fake.recorded.windows).toHaveLength(1);
    const handler = fake.recorded.ipcHandlers.get("lathe:request")!;
    const own = { sender: fake.recorded.windows[0]!.webContents, senderFrame: { url: rendererUrl } };
    expect(await handler(own, "app.info", {})).toMatchObject({ ok: true, data: { readOnly: true, notices: [expect.stringMatching(/^Read-only: /)] } });
    expect(await handler(own, "sessions.list", {})).toMatchObject({ ok: true, data: { sessions: [{ title: "kept session" }] } });
    expect(await handler(own, "settings.update", { theme: "dark" })).toMatchObject({ ok: false, error: { code: "unavailable", message: expect.stringMatching(/read-only/) } });
    expect(lock.holder.pid).toBe(process.pid);
  });

  it("focuses the running window when the app is launched again", () => {
    const before = fake.recorded.focused;
    fake.app.emit("second-instance");
    expect(fake.recorded.focused).toBe(before + 1);
  });
});
