// What every end-to-end suite of the renderer needs: the renderer built into the suite's own
// folder (suites run in parallel, so they never share an output folder), a fake model server, the
// real headless host on a fresh data folder, headless Chromium with one page, and the helpers that
// drive the session view. `close` releases all of it and never throws.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { expect } from "vitest";
import { startHost, type RunningHost } from "../../../app/main/host/start-host.ts";
import { launchBrowser } from "../../support/browser.ts";
import { MODEL_ID, startFakeModel, type Brain, type FakeModel } from "./fake-model.ts";

export const root = join(import.meta.dirname, "..", "..", "..");
export const shots = join(root, "screenshots");

export interface E2e {
  host: RunningHost;
  model: FakeModel;
  browser: Browser;
  page: Page;
  /** A scratch folder holding the project and the host's data. */
  dir: string;
  project: string;
  close(): Promise<void>;
}

export interface E2eOptions {
  prepareData?: (dataDir: string) => void;
  /** The host's permission mode: "ask" unless given; null keeps the app's default (sandboxed auto where bwrap works). */
  permissionMode?: "ask" | "auto-edit" | "full-auto" | "sandboxed-auto" | null;
  /** Variables added to the host's environment (PATH and HOME are always set). */
  env?: Record<string, string>;
}

export async function startE2e(brain: Brain, name: string, options: E2eOptions = {}): Promise<E2e> {
  const dir = mkdtempSync(join(tmpdir(), `lathe-${name}-`));
  const rendererDir = join(dir, "renderer");
  const vite = join(root, "node_modules/vite/bin/vite.js");
  const built = spawnSync(process.execPath, [vite, "build", "--logLevel", "error", "--outDir", rendererDir, "--emptyOutDir"], { cwd: root, encoding: "utf8" });
  if (built.status !== 0) throw new Error(`vite build failed: ${built.stderr}`);
  const project = join(dir, "project");
  mkdirSync(project);
  mkdirSync(shots, { recursive: true });
  const model = await startFakeModel(brain);
  mkdirSync(join(dir, "data"), { recursive: true, mode: 0o700 });
  options.prepareData?.(join(dir, "data"));
  const host = await startHost({ dataDir: join(dir, "data"), rendererDir, env: { PATH: process.env.PATH, HOME: dir, ...options.env }, bashTimeoutMs: 90_000 });
  if (options.permissionMode !== null) host.services.settings.update({ permissionMode: options.permissionMode ?? "ask" });
  const browser = await launchBrowser();
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 }, acceptDownloads: true });
  page.on("pageerror", (e) => console.error("page error:", e.message));
  page.on("console", (m) => m.type() === "error" && console.error("console:", m.text()));
  return {
    host,
    model,
    browser,
    page,
    dir,
    project,
    close: async () => {
      await browser.close().catch(() => undefined);
      await host.close().catch(() => undefined);
      await model.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Calls the host's API directly (for checks and set-up the person would not do in the window). */
export async function call<T>(host: RunningHost, method: string, params: unknown): Promise<T> {
  const r = await host.services.router.handle(method, params);
  if (!r.ok) throw new Error(`${method}: ${r.error.message}`);
  return r.data as T;
}

/** Makes the fake model the host's default model (`images`: it declares image input). */
export async function useFakeModel(e2e: E2e, options: { images?: boolean } = {}): Promise<void> {
  const model = options.images ? { id: MODEL_ID, images: true } : { id: MODEL_ID };
  e2e.host.services.settings.setProvider({ id: "local", kind: "compatible", name: "Local server", baseUrl: e2e.model.baseUrl, models: [model] });
  await call(e2e.host, "settings.update", { defaultModel: `local/${MODEL_ID}` });
}

/** In the window, as a person would: loads the host's page, opens the e2e project and starts a new session. */
export async function openProjectSession(e2e: E2e): Promise<void> {
  const page = e2e.page;
  await page.goto(e2e.host.url);
  await page.getByLabel("Project folder").fill(e2e.project);
  await page.getByRole("button", { name: "Open", exact: true }).click();
  await page.getByRole("button", { name: "New session" }).click();
  await sessionHelpers(page).transcript().waitFor();
}

/** For an `afterEach`: keeps a screenshot of the page when the test failed (never throws). */
export async function screenshotIfFailed(context: { task: { result?: { state?: string } } }, page: Page | undefined, name: string): Promise<void> {
  if (context.task.result?.state !== "fail" || !page) return;
  await page.screenshot({ path: join(shots, `failure-${name}.png`) }).catch(() => undefined);
}

export function sessionHelpers(page: Page) {
  const transcript = () => page.getByRole("log", { name: "Transcript" });
  const permission = () => page.getByRole("dialog");
  return {
    transcript,
    permission,
    composer: () => page.getByRole("textbox", { name: "Message to the agent" }),
    async send(text: string) {
      const box = page.getByRole("textbox", { name: "Message to the agent" });
      await box.fill(text);
      await box.press("Enter");
    },
    /** Answers the visible permission request with a key, once the dialog has the focus. */
    async answer(key: "y" | "n" | "s" | "a") {
      await expect.poll(() => permission().evaluate((el) => el.contains(document.activeElement)), { timeout: 10_000 }).toBe(true);
      await page.keyboard.press(key);
    },
    /** Waits until the session's run has ended. */
    async idle() {
      await expect.poll(() => page.locator(".session").getAttribute("data-running"), { timeout: 20_000 }).toBe("false");
    },
  };
}
