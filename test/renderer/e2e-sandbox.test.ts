// End to end, the sandbox in the window (headless Chromium, the real host, real bubblewrap):
// sandboxed auto as the default; a command the sandbox blocked, explained on its card, run again
// outside through "Run again outside the sandbox" and the dialog; the dialog naming the network
// rule; a git repository created in the sandbox flagged on its card; the full-auto warning; keys
// found in the environment; and, on a host without bwrap, the message in Settings and the dialog.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { startHost, type RunningHost } from "../../app/main/host/start-host.ts";
import { detectSandbox } from "../../app/main/sandbox/detect.ts";
import { chromiumMissing } from "../support/browser.ts";
import { describeWhen } from "../support/requirements.ts";
import { call, openProjectSession, screenshotIfFailed, sessionHelpers, shots, startE2e, useFakeModel, type E2e } from "./support/e2e-harness.ts";
import { MODEL_ID, type Brain } from "./support/fake-model.ts";

const RERUN_PREFIX = "The sandbox blocked this command";
let modelUrl = "";

const brain: Brain = (user, results) => {
  const once = (command: string, done: (r: string) => string) => (results.length === 0 ? { calls: [{ name: "bash", args: { command } }] } : { text: done(results[0]!) });
  if (user.startsWith(RERUN_PREFIX)) return once("bash write-outside.sh", () => "Done outside the sandbox.");
  if (user.includes("outside please")) return once("bash write-outside.sh", () => "The sandbox blocked it.");
  if (user.includes("fetch please")) return once(`curl -sS ${modelUrl}/models`, (r) => `Fetched: ${r.slice(0, 80)}`);
  if (user.includes("hello please")) return once("echo hello-no-sandbox", () => "Said hello.");
  if (user.includes("init please")) return once("bash init-repo.sh && echo made-a-repository", () => "Made a repository.");
  return { text: `Answer to: ${user.slice(0, 40)}` };
};

function sandboxMissing(): string | null {
  const sandbox = detectSandbox();
  return sandbox.available ? null : `needs a working sandbox: ${sandbox.message}`;
}

describeWhen(chromiumMissing() ?? sandboxMissing(), "the sandbox in the window", () => {
  let e2e: E2e;
  let page: Page;
  let h: ReturnType<typeof sessionHelpers>;
  let outsideFile: string;
  const card = (text: string) => page.locator("section.card").filter({ hasText: text });

  beforeAll(async () => {
    e2e = await startE2e(brain, "e2e-sandbox", { permissionMode: null, env: { ANTHROPIC_API_KEY: "sk-ant-api03-FAKE-E2E-ENV-KEY" } });
    page = e2e.page;
    h = sessionHelpers(page);
    modelUrl = e2e.model.baseUrl;
    outsideFile = join(e2e.dir, "written-outside.txt");
    // A project script that writes outside the project: nothing in the command line says so.
    writeFileSync(join(e2e.project, "write-outside.sh"), `echo data > '${outsideFile}'\n`);
    // "git init" asks by name (it needs the real machine); a script that makes a repository does not.
    writeFileSync(join(e2e.project, "init-repo.sh"), "git init -q\n");
    await useFakeModel(e2e);
    await openProjectSession(e2e);
  }, 90_000);

  afterEach((context) => screenshotIfFailed(context, page, "sandbox"));
  afterAll(() => e2e?.close());

  test("a blocked command is explained on its card; running it again outside asks first", async () => {
    expect(await page.getByLabel("Permission mode").inputValue()).toBe("sandboxed-auto");
    await h.send("outside please");
    const blocked = card("write-outside.sh").first();
    const note = blocked.getByRole("alert", { name: "Blocked by the sandbox" });
    await note.waitFor({ timeout: 20_000 });
    expect(await note.innerText()).toContain("Read-only file system");
    expect(await note.innerText()).toContain("only the project folder");
    expect(await h.permission().count()).toBe(0);
    await h.transcript().getByText("The sandbox blocked it.").waitFor({ timeout: 15_000 });
    expect(existsSync(outsideFile)).toBe(false);
    await page.screenshot({ path: join(shots, "sandbox-blocked.png") });

    await note.getByRole("button", { name: "Run again outside the sandbox" }).click();
    await h.permission().getByText("Outside the sandbox, as you asked").waitFor({ timeout: 15_000 });
    expect(await h.permission().innerText()).toContain("with your full rights");
    await page.screenshot({ path: join(shots, "sandbox-rerun-dialog.png") });
    await h.answer("y");
    await h.transcript().getByText("Done outside the sandbox.").waitFor({ timeout: 15_000 });
    expect(existsSync(outsideFile)).toBe(true);
    await card("write-outside.sh").nth(1).getByText("Ran outside the sandbox: You chose to run this command outside the sandbox.").waitFor();
    await h.idle();
  }, 60_000);

  test("the dialog names the network rule; allowed, the command runs in the sandbox with network", async () => {
    await h.send("fetch please");
    const dialog = h.permission();
    await dialog.getByText("Needs the network").waitFor({ timeout: 15_000 });
    expect(await dialog.getByRole("button", { name: "Run outside the sandbox" }).count()).toBe(1);
    await h.answer("y");
    // The answer streams in pieces: wait for the whole of it, not its first fragment.
    await h.transcript().getByText(`Fetched:`).filter({ hasText: MODEL_ID }).waitFor({ timeout: 15_000 });
    await card("curl").getByText("Ran in the sandbox with network.").waitFor();
    await h.idle();
  }, 60_000);

  test("a repository a sandboxed command created is flagged on its card as untrusted", async () => {
    await h.send("init please");
    const note = card("init-repo.sh").getByRole("alert", { name: "Repository created in the sandbox" });
    await note.waitFor({ timeout: 20_000 });
    expect(await note.innerText()).toContain(`created or rewrote a git repository (${join(e2e.project, ".git")}) inside the sandbox`);
    expect(await note.innerText()).toContain("review .git/config");
    await h.transcript().getByText("Made a repository.").waitFor({ timeout: 15_000 });
    await h.idle();
  }, 60_000);

  test("Settings shows the sandbox, the full-auto warning, and the key found in the environment", async () => {
    await page.getByLabel("Permission mode").selectOption("full-auto");
    await expect.poll(() => page.getByLabel("Permission mode").getAttribute("class")).toContain("warning");
    e2e.host.services.hub.emit("app.command", { command: "show-settings" });
    await page.getByRole("heading", { name: "Settings" }).waitFor();
    expect(await page.getByRole("status", { name: "Sandbox status" }).innerText()).toContain("Commands run in a bubblewrap sandbox");
    expect(await page.getByRole("alert").filter({ hasText: "Full auto: commands run outside the sandbox" }).count()).toBe(1);
    const keys = page.getByRole("note", { name: "Keys in the environment" });
    expect(await keys.innerText()).toContain("ANTHROPIC_API_KEY");
    expect(await keys.innerText()).toContain("Commands that run outside the sandbox");
    expect(await keys.getByRole("button", { name: "Store in keyring" }).isDisabled()).toBe(true);
    await page.getByLabel("Allow network for commands in project").check();
    const projectId = (await call<{ id: number }[]>(e2e.host, "projects.list", {}))[0]!.id;
    await expect.poll(async () => (await call<{ sandbox: { networkProjects: number[] } }>(e2e.host, "settings.get", {})).sandbox.networkProjects).toEqual([projectId]);
    await page.screenshot({ path: join(shots, "sandbox-settings.png"), fullPage: true });
    await call(e2e.host, "settings.update", { permissionMode: "sandboxed-auto" });
  }, 60_000);

  test("without bwrap: Settings and the dialog say there is no sandbox, and how to get one", async () => {
    const dataDir = join(e2e.dir, "data-no-sandbox");
    mkdirSync(dataDir);
    let bare: RunningHost | undefined;
    try {
      bare = await startHost({
        dataDir,
        rendererDir: join(e2e.dir, "renderer"),
        env: { PATH: process.env.PATH ?? "", HOME: e2e.dir },
        detectSandbox: () => detectSandbox({ platform: "linux", pathVariable: join(e2e.dir, "no-such-dir") }),
      });
      bare.services.settings.setProvider({ id: "local", kind: "compatible", name: "Local server", baseUrl: e2e.model.baseUrl, models: [{ id: MODEL_ID }] });
      bare.services.settings.update({ defaultModel: `local/${MODEL_ID}` });
      await page.goto(bare.url);
      await page.getByLabel("Project folder").fill(e2e.project);
      await page.getByRole("button", { name: "Open", exact: true }).click();
      await page.getByRole("button", { name: "New session" }).click();
      await h.transcript().waitFor();
      expect(await page.getByLabel("Permission mode").inputValue()).toBe("ask");
      await h.send("hello please");
      await h.permission().getByText("No sandbox:").waitFor({ timeout: 15_000 });
      expect(await h.permission().innerText()).toContain("sudo apt install bubblewrap");
      expect(await h.permission().getByRole("button", { name: "Run outside the sandbox" }).count()).toBe(0);
      await page.screenshot({ path: join(shots, "sandbox-missing-dialog.png") });
      await h.answer("y");
      await h.transcript().getByText("Said hello.").waitFor({ timeout: 15_000 });
      bare.services.hub.emit("app.command", { command: "show-settings" });
      await page.getByRole("heading", { name: "Settings" }).waitFor();
      expect(await page.getByRole("status", { name: "Sandbox status" }).innerText()).toContain("bubblewrap (bwrap) is not installed");
    } finally {
      await bare?.close();
    }
  }, 60_000);
});
