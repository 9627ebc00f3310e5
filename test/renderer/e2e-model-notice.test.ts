// End to end in Chromium: Settings › Providers when a server lists more models than Lathe keeps
// (list-bounds.ts: 5,000). Before, the list was cut silently ("5,000 models found"); now the
// host's notice is shown under the result of "Refresh models" and of "Test", and, for a provider
// added through the form, under "Add a provider…" once the form has closed.
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { startServer, type TestServer } from "../providers/support/sse-server.ts";
import { chromiumMissing } from "../support/browser.ts";
import { describeWhen } from "../support/requirements.ts";
import { openProjectSession, shots, startE2e, useFakeModel, type E2e } from "./support/e2e-harness.ts";

const NOTICE = "The server listed 6,000 models; only the first 5,000 are shown.";

describeWhen(chromiumMissing(), "a cut model list in Settings", () => {
  let e2e: E2e;
  let page: Page;
  let big: TestServer;

  beforeAll(async () => {
    e2e = await startE2e(() => ({ text: "ok" }), "e2e-model-notice");
    page = e2e.page;
    await useFakeModel(e2e);
    const data = Array.from({ length: 6_000 }, (_, i) => ({ id: `m${i}` }));
    big = await startServer(
      (request) =>
        request.path.endsWith("/models")
          ? { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify({ object: "list", data }) }
          : { status: 404, headers: { "content-type": "application/json" }, body: "{}" },
      "/v1",
    );
    e2e.host.services.settings.setProvider({ id: "big", kind: "compatible", name: "Big server", baseUrl: big.baseUrl, models: [{ id: "m0" }] });
    await openProjectSession(e2e);
  }, 120_000);

  afterEach(async (context) => {
    if (context.task.result?.state === "fail") await page.screenshot({ path: join(shots, "failure-model-notice.png") }).catch(() => undefined);
  });

  afterAll(async () => {
    await big?.close();
    await e2e?.close();
  });

  test("Refresh models and Test show how the list was cut", async () => {
    e2e.host.services.hub.emit("app.command", { command: "show-settings" });
    const provider = page.getByRole("listitem", { name: "Provider Big server" });
    await provider.waitFor({ timeout: 10_000 });
    const note = provider.getByRole("note", { name: "Model list cut" });
    expect(await note.count()).toBe(0);

    await provider.getByRole("button", { name: "Refresh models" }).click();
    await expect.poll(() => provider.getByRole("status").innerText(), { timeout: 20_000 }).toBe("5,000 models found");
    expect(await note.innerText()).toBe(NOTICE);

    await provider.getByRole("button", { name: "Test", exact: true }).click();
    await expect.poll(() => provider.getByRole("status").innerText(), { timeout: 20_000 }).toBe("Connected to Big server: 5,000 models available.");
    expect(await note.innerText()).toBe(NOTICE);
  }, 60_000);

  test("a provider added through the form keeps its notice after the form closes", async () => {
    e2e.host.services.hub.emit("app.command", { command: "show-settings" });
    await page.getByRole("button", { name: "Add a provider…" }).click();
    const form = page.getByRole("form", { name: "Set up a provider" });
    await form.getByLabel("Id", { exact: true }).fill("big-two");
    await form.getByLabel("Name", { exact: true }).fill("Big two");
    await form.getByLabel("Base URL", { exact: true }).fill(big.baseUrl);
    await form.getByRole("button", { name: "Save and test" }).click();
    const added = page.getByRole("status", { name: "Provider added" });
    await added.waitFor({ timeout: 20_000 });
    expect(await form.count()).toBe(0);
    expect(await added.innerText()).toContain("Added. Connected to big-two: 5,000 models available.");
    expect(await added.getByRole("note", { name: "Model list cut" }).innerText()).toBe(NOTICE);
    await expect.poll(() => page.getByRole("listitem", { name: "Provider Big two" }).count()).toBe(1);
  }, 60_000);
});
