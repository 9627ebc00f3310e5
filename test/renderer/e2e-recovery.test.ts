// What the window shows when things go wrong, in headless Chromium against the real host: a
// session whose host was killed with -9 mid-command reopens with the command's output, colours
// included, in its terminal card; a failed answer offers Retry, which asks again and keeps the
// failed answer; while an answer waits for data the status bar counts "No data for N s"; a delete
// in History is stored at once and Undo restores it.
import { cpSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import { createAppServices } from "../../app/main/app-services.ts";
import { noSecretStore } from "../../app/main/settings/settings-service.ts";
import { chromiumMissing } from "../support/browser.ts";
import { describeWhen } from "../support/requirements.ts";
import { connectHost, sessionEventsOf, startHostProcess } from "../support/host-process.ts";
import { call, sessionHelpers, startE2e, type E2e } from "./support/e2e-harness.ts";
import { MODEL_ID, startFakeModel, type Brain } from "./support/fake-model.ts";

const brain: Brain = (user) => {
  if (user.includes("pause")) return { text: "Finally, the answer after a pause.", pauseMs: 7000 };
  return { text: `Answer to: ${user.slice(0, 40)}` };
};

/** A data folder whose host was killed with -9 while a command printed coloured output. */
async function killedMidCommand(): Promise<{ dataDir: string; root: string; sessionId: number }> {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), "lathe-killed-")));
  const dataDir = path.join(root, "data");
  const model = await startFakeModel((_user, results) =>
    results.length === 0 ? { calls: [{ name: "bash", args: { command: "printf '\\033[35mmagenta-before-kill\\033[0m\\n'; sleep 60" } }] } : { text: "unexpected" },
  );
  try {
    const services = createAppServices({ dataDir, secrets: noSecretStore, host: "browser", version: "test", env: {} });
    services.settings.setProvider({ id: "local", kind: "compatible", name: "Local", baseUrl: model.baseUrl, models: [{ id: MODEL_ID }] });
    services.settings.update({ defaultModel: `local/${MODEL_ID}`, permissionMode: "full-auto" });
    await services.close();
    const doomed = startHostProcess(dataDir);
    const c = await connectHost(await doomed.url);
    const project = (await c.call<{ id: number }>("projects.open", { folder: root })).data!;
    const session = (await c.call<{ id: number }>("sessions.create", { projectId: project.id })).data!;
    await c.call("sessions.prompt", { sessionId: session.id, text: "print and wait" });
    await c.waitFor(() => sessionEventsOf(c, session.id).some((e) => e.type === "tool_execution_update" && JSON.stringify(e).includes("magenta-before-kill")), "the output");
    await new Promise((resolve) => setTimeout(resolve, 600));
    doomed.child.kill("SIGKILL");
    await doomed.exited;
    c.close();
    return { dataDir, root, sessionId: session.id };
  } finally {
    await model.close();
  }
}

describeWhen(chromiumMissing(), "recovery in the window", () => {
  let e2e: E2e;
  let page: Page;
  let killed: Awaited<ReturnType<typeof killedMidCommand>>;
  let h: ReturnType<typeof sessionHelpers>;

  beforeAll(async () => {
    killed = await killedMidCommand();
    e2e = await startE2e(brain, "e2e-recovery", { prepareData: (dataDir) => cpSync(killed.dataDir, dataDir, { recursive: true }) });
    page = e2e.page;
    h = sessionHelpers(page);
    e2e.host.services.settings.setProvider({ id: "local", kind: "compatible", name: "Local server", baseUrl: e2e.model.baseUrl, models: [{ id: MODEL_ID }] });
    await call(e2e.host, "settings.update", { defaultModel: `local/${MODEL_ID}` });
  }, 180_000);
  afterAll(async () => {
    await e2e?.close();
    if (killed) rmSync(killed.root, { recursive: true, force: true });
  });

  test("a session cut by kill -9 mid-command reopens with the output it had shown, in colour", async () => {
    await page.goto(`${e2e.host.origin}/?session=${killed.sessionId}#token=${e2e.host.token}`);
    const card = page.locator("section.card").filter({ hasText: "bash" });
    await card.waitFor({ timeout: 15_000 });
    expect(await card.getAttribute("data-status")).toBe("error");
    const terminal = card.getByRole("log", { name: "Command output" });
    await expect.poll(() => terminal.innerText(), { timeout: 10_000 }).toContain("magenta-before-kill");
    // xterm's DOM renderer marks ANSI colour 5 (magenta) with a class on the span.
    const coloured = terminal.locator("span[class*='xterm-fg-5']", { hasText: "magenta-before-kill" });
    expect(await coloured.count()).toBeGreaterThan(0);
  });

  test("a failed answer offers Retry: asked again, the failed one stays", async () => {
    await page.getByRole("button", { name: "Home" }).click();
    const project = await call<{ id: number }>(e2e.host, "projects.open", { folder: e2e.project });
    const session = await call<{ id: number }>(e2e.host, "sessions.create", { projectId: project.id });
    await page.goto(`${e2e.host.origin}/?session=${session.id}`);
    await h.transcript().waitFor();
    e2e.model.failNext(400);
    await h.send("first try");
    const failure = page.locator(".msg.assistant .assistant-error");
    await failure.waitFor({ timeout: 15_000 });
    expect(await failure.innerText()).toMatch(/scripted failure 400/);
    await h.idle();
    await failure.getByRole("button", { name: "Retry" }).click();
    await h.transcript().getByText("Answer to: first try").waitFor({ timeout: 15_000 });
    await h.idle();
    expect(await page.locator(".msg.assistant").count()).toBe(2);
    expect(await page.getByRole("button", { name: "Retry" }).count()).toBe(0);
  });

  test("while an answer waits for data, the status bar counts the seconds", async () => {
    await h.send("pause please");
    const stall = page.locator(".statusbar .stall");
    await expect.poll(() => stall.innerText().catch(() => ""), { timeout: 15_000 }).toMatch(/^No data for [5-9] s \(stops at 120 s\)$/);
    await h.transcript().getByText("Finally, the answer after a pause.").waitFor({ timeout: 15_000 });
    await h.idle();
    expect(await stall.count()).toBe(0);
  });

  test("a delete in History is stored at once, and Undo restores it", async () => {
    await page.getByRole("button", { name: "History" }).click();
    const rows = page.locator(".session-row");
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBeGreaterThan(1);
    const before = await rows.count();
    const row = rows.filter({ hasText: "first try" });
    await row.getByRole("button", { name: /^Delete/ }).click();
    await expect.poll(() => rows.count()).toBe(before - 1);
    const listed = () => e2e.host.services.store.listSessions().sessions.map((s) => s.title);
    // Stored before the undo window ends: a quit now would keep the delete.
    await expect.poll(listed, { timeout: 2000 }).not.toContain("first try");
    await page.getByRole("button", { name: "Undo" }).click();
    await expect.poll(() => rows.count()).toBe(before);
    expect(listed()).toContain("first try");
  });
});
