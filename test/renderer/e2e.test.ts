// End to end, in headless Chromium against the real headless host and a Chat Completions model
// server on 127.0.0.1: set up the provider, open a project, prompt and watch the answer stream,
// approve a bash call and see its output in the terminal, deny an edit with a reason and see the
// model told so, steer mid-run, abort, then search the history, reopen at the hit, fork, export,
// delete with undo. Saves a screenshot of each main screen in screenshots/.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import type { RunningHost } from "../../app/main/host/start-host.ts";
import { chromiumMissing } from "../support/browser.ts";
import { describeWhen } from "../support/requirements.ts";
import { sessionHelpers, shots, startE2e, type E2e } from "./support/e2e-harness.ts";
import { MODEL_ID, type Brain, type FakeModel } from "./support/fake-model.ts";

const LONG_ANSWER =
  "Here is **the plan**:\n\n1. Read the code\n2. Change it\n\n```ts\nconst answer: number = 42;\nfunction greet(name: string) {\n  return `hello ${name}`;\n}\n```\n\nThat is all for now, thanks for waiting while this streams in.";

const brain: Brain = (user, results) => {
  if (user.startsWith("steer:")) return { text: `Steering received: ${user}` };
  if (user.includes("demo")) {
    if (results.length === 0) return { calls: [{ name: "bash", args: { command: "printf '\\033[32mgreen-ok\\033[0m\\n'; echo second-line" } }] };
    if (results.length === 1) return { calls: [{ name: "edit", args: { path: "notes.txt", edits: [{ oldText: "hello", newText: "HELLO" }] } }] };
    return { text: `Edit outcome: ${results[1]}` };
  }
  if (user.includes("slow")) return results.length === 0 ? { calls: [{ name: "bash", args: { command: "sleep 4; echo slept-well" } }] } : { text: "Slow task done." };
  if (user.includes("parallel"))
    return results.length === 0
      ? {
          calls: [
            { name: "bash", args: { command: "sleep 1; echo first-done" } },
            { name: "bash", args: { command: "echo second-done" } },
          ],
        }
      : { text: "Both ran." };
  if (user.includes("long")) return results.length === 0 ? { calls: [{ name: "bash", args: { command: "sleep 60" } }] } : { text: "unexpected" };
  return { text: LONG_ANSWER };
};

// Without Chromium the suite is skipped, saying so; CI counts a skip as a failure (.ci/run).
describeWhen(chromiumMissing(), "renderer end to end", () => {
  let e2e: E2e;
  let host: RunningHost;
  let model: FakeModel;
  let page: Page;
  let project: string;
  let h: ReturnType<typeof sessionHelpers>;

  beforeAll(async () => {
    e2e = await startE2e(brain, "e2e-day");
    ({ host, model, page, project } = e2e);
    writeFileSync(join(project, "notes.txt"), "hello\nworld\n");
    h = sessionHelpers(page);
  }, 90_000);

  afterAll(() => e2e?.close());

  const transcript = () => h.transcript();
  const send = (text: string) => h.send(text);
  const permission = () => h.permission();
  const answer = (key: "y" | "n") => h.answer(key);

  test("a person's day: setup, prompt, tools, permissions, steering, abort, history", async () => {
    try {
      await day();
    } catch (error) {
      await page.screenshot({ path: join(shots, "failure.png") }).catch(() => undefined);
      throw error;
    }
  }, 180_000);

  async function day() {
    await page.goto(host.url);

    // First run: connect the local server, test it.
    await page.getByRole("form", { name: "Set up a provider" }).waitFor();
    await page.getByLabel("Base URL").fill(model.baseUrl);
    await page.getByRole("button", { name: "Save and test" }).click();
    await expect.poll(() => page.getByRole("status").filter({ hasText: "✓" }).count(), { timeout: 15_000 }).toBe(1);
    await page.screenshot({ path: join(shots, "welcome.png") });

    // Open the project and start a session.
    await page.getByLabel("Project folder").fill(project);
    await page.getByRole("button", { name: "Open", exact: true }).click();
    await page.getByRole("button", { name: "New session" }).click();
    await transcript().waitFor();
    await expect.poll(() => page.getByLabel("Model", { exact: true }).inputValue()).toBe(`local/${MODEL_ID}`);

    // Streaming: the answer is seen while it is still being written, then whole.
    await send("hello there");
    await page.locator('.msg.assistant[aria-busy="true"]').waitFor({ timeout: 15_000 });
    await transcript().getByText("That is all for now").waitFor({ timeout: 15_000 });
    await expect.poll(() => page.locator('.msg.assistant[aria-busy="true"]').count()).toBe(0);
    expect(await transcript().locator("pre code .hljs-keyword").count()).toBeGreaterThan(0);

    // Approve a bash call with the keyboard; its coloured output shows in the terminal.
    await send("run the demo");
    await permission().getByText("printf").first().waitFor({ timeout: 15_000 });
    const bashCard = page.locator("section.card").filter({ hasText: "printf" });
    // Until answered, the card says it waits for the person, not that it runs.
    expect(await bashCard.getAttribute("data-status")).toBe("awaiting");
    expect(await bashCard.locator(".status").innerText()).toBe("needs your approval");
    await answer("y");
    await expect.poll(() => bashCard.getAttribute("data-status"), { timeout: 15_000 }).toBe("done");
    // xterm draws on its own schedule, late on a loaded machine.
    await expect.poll(() => bashCard.locator(".xterm-rows").innerText(), { timeout: 15_000 }).toContain("green-ok");
    expect(await bashCard.locator(".xterm-rows").innerText()).toContain("second-line");

    // Deny the edit with a reason: the model is told, and says so.
    await permission().getByLabel("Proposed change").waitFor({ timeout: 15_000 });
    expect(await permission().getByLabel("Proposed change").innerText()).toContain("HELLO");
    await page.screenshot({ path: join(shots, "permission.png") });
    await answer("n");
    await page.getByLabel("Reason, sent to the model (optional)").fill("leave notes.txt alone");
    await page.keyboard.press("Enter");
    await transcript().getByText("Edit outcome:").waitFor({ timeout: 15_000 });
    await expect.poll(() => transcript().getByText("Edit outcome:").innerText(), { timeout: 10_000 }).toContain("leave notes.txt alone");
    const lastChat = model.chatRequests().at(-1)!.body as { messages: { role: string; content: unknown }[] };
    expect(JSON.stringify(lastChat.messages.filter((m) => m.role === "tool").at(-1))).toContain("leave notes.txt alone");
    expect(readFileSync(join(project, "notes.txt"), "utf8")).toBe("hello\nworld\n");
    const editCard = page.locator("section.card").filter({ hasText: "notes.txt" });
    // Denied, not failed: the card says so with the reason, outside any terminal.
    expect(await editCard.getAttribute("data-status")).toBe("denied");
    expect(await editCard.locator(".card-outcome").innerText()).toContain("leave notes.txt alone");

    // Steer while a command runs: the message is delivered after the tool, and the model sees it.
    await send("a slow task please");
    await permission().waitFor({ timeout: 15_000 });
    await answer("y");
    const slowCard = page.locator("section.card").filter({ hasText: "sleep 4" });
    await expect.poll(() => slowCard.getAttribute("data-status"), { timeout: 15_000 }).toBe("running");
    await send("steer: use tabs");
    await page.getByRole("status").filter({ hasText: "Sent as steering" }).waitFor();
    await page.screenshot({ path: join(shots, "session-running.png") });
    await transcript().getByText("Steering received: steer: use tabs").waitFor({ timeout: 20_000 });
    expect(await slowCard.getAttribute("data-status")).toBe("done");

    // A parallel batch: two approvals, one at a time; cards stay in source order; a timeline.
    await send("two in parallel");
    await permission().getByText("sleep 1; echo first-done").first().waitFor({ timeout: 15_000 });
    await answer("y");
    await permission().getByText("echo second-done").first().waitFor({ timeout: 15_000 });
    await answer("y");
    await transcript().getByText("Both ran.").waitFor({ timeout: 20_000 });
    const batch = page.locator("section.card").filter({ hasText: /first-done|second-done/ });
    expect(await batch.evaluateAll((cards) => cards.map((c) => c.getAttribute("aria-label")))).toEqual(["bash sleep 1; echo first-done", "bash echo second-done"]);
    expect(await page.locator(".timeline .timeline-seg.run").count()).toBe(2);
    await page.screenshot({ path: join(shots, "session-parallel.png") });

    // Abort a long command with Stop.
    await send("a long task");
    await permission().waitFor({ timeout: 15_000 });
    await answer("y");
    const longCard = page.locator("section.card").filter({ hasText: "sleep 60" });
    await expect.poll(() => longCard.getAttribute("data-status"), { timeout: 15_000 }).toBe("running");
    await page.getByRole("button", { name: /^Stop/ }).click();
    await expect.poll(() => page.locator(".session").getAttribute("data-running"), { timeout: 15_000 }).toBe("false");
    expect(await longCard.getAttribute("data-status")).toBe("stopped");
    await page.screenshot({ path: join(shots, "session.png") });

    // History: search, open at the hit.
    await page.getByRole("button", { name: "History" }).click();
    await page.getByRole("searchbox", { name: "Search all sessions" }).fill("tabs");
    const hit = page.locator(".hit").first();
    await hit.locator("mark").first().waitFor({ timeout: 10_000 });
    expect((await hit.locator("mark").first().innerText()).toLowerCase()).toContain("tabs");
    await page.screenshot({ path: join(shots, "history-search.png") });
    await hit.getByRole("button").click();
    await transcript().waitFor();
    await page.locator(".transcript-row.jump-target").first().waitFor({ timeout: 10_000 });
    expect(await page.locator(".transcript-row.jump-target").first().innerText()).toContain("tabs");

    // Fork from the first answer: a new session with just that much history.
    await transcript().evaluate((el) => el.scrollTo(0, 0));
    await transcript().getByText("That is all for now").waitFor();
    await page.locator('.msg.assistant[data-position="1"]').getByRole("button", { name: /Fork/ }).click();
    await expect.poll(() => page.locator(".msg[data-position]").count(), { timeout: 10_000 }).toBe(2);

    // The history lists both sessions; export one to Markdown; delete one and undo.
    await page.getByRole("button", { name: "History" }).click();
    const rows = page.locator(".session-row");
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(2);
    expect(await page.locator(".session-row").filter({ hasText: "(fork)" }).count()).toBe(1);
    await page.screenshot({ path: join(shots, "history.png") });
    const original = rows.filter({ hasNotText: "(fork)" });
    const [download] = await Promise.all([page.waitForEvent("download"), original.getByRole("button", { name: /^Export/ }).click()]);
    const exported = readFileSync((await download.path())!, "utf8");
    expect(exported).toContain("Steering received");
    await original.getByRole("button", { name: /^Delete/ }).click();
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(1);
    await page.getByRole("button", { name: "Undo" }).click();
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(2);

    // Settings shows the provider and its model.
    await page.getByRole("button", { name: "Settings" }).click();
    await page.getByRole("listitem", { name: "Provider Local server" }).waitFor();
    await page.screenshot({ path: join(shots, "settings.png") });
    await page.getByLabel("Theme").selectOption("dark");
    await expect.poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");
    await page.getByRole("button", { name: "project", exact: true }).click();
    await page
      .getByRole("button", { name: /hello there/ })
      .first()
      .click();
    await transcript().waitFor();
    await page.screenshot({ path: join(shots, "session-dark.png") });
  }
});
