// End to end, the controls the day-in-the-life suite does not reach: images pasted and dropped
// into the composer (with a prompt and while the agent runs) reaching the model; answering a
// command that waits for input, and Interrupt; the s and a keys of the permission dialog with an
// edited rule pattern; menu commands; rename in History; editing and revoking a rule in
// Settings (with what each rule means); why a permission dialog asks, what the proposed rule
// means, protected files; a provider retry notice; and the context controls: instruction files, Compact now,
// editing and undoing the summary, each checked in what the model is sent next.
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import type { PermissionRule, Session } from "../../app/shared/ipc/contract.ts";
import { chromiumMissing } from "../support/browser.ts";
import { describeWhen } from "../support/requirements.ts";
import { call, openProjectSession, sessionHelpers, shots, startE2e, useFakeModel, type E2e } from "./support/e2e-harness.ts";
import type { Brain } from "./support/fake-model.ts";

// Two different 1x1 PNGs.
const PNG_A = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const PNG_B = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

const bashThen = (command: string, results: string[], done: (result: string) => string) =>
  results.length === 0 ? { calls: [{ name: "bash", args: { command } }] } : { text: done(results[0]!) };

const brain: Brain = (user, results) => {
  if (user.startsWith("Summarize the conversation above")) return { text: "## Goal\nORIGINAL-SUMMARY of the first exchange." };
  if (user.startsWith("steer:")) return { text: `Steering received: ${user}` };
  if (user.includes("slow")) return bashThen("sleep 8; echo slow-ok", results, () => "Slow task done.");
  if (user.includes("my name")) return bashThen('read -p "Name? " n; echo "hi $n"', results, (r) => `Got: ${r}`);
  if (user.includes("interrupt")) return bashThen("sleep 30; echo never", results, (r) => `Interrupted: ${r.slice(0, 60)}`);
  if (user.includes("perm-s")) return bashThen("echo perm-s-ok", results, () => "s done");
  if (user.includes("perm-a")) return bashThen("echo perm-a-ok", results, () => "a done");
  if (user.includes("perm-why")) return bashThen('echo "$(id -u)" && rm -rf build-none', results, () => "why done");
  if (user.includes("perm-hook"))
    return results.length === 0 ? { calls: [{ name: "write", args: { path: ".git/hooks/pre-commit", content: "#!/bin/sh\n" } }] } : { text: "hook done" };
  return { text: `Answer to: ${user.slice(0, 60)}` };
};

type Chat = { messages: { role: string; content: unknown }[] };
const imageUrls = (body: unknown) => JSON.stringify(body).match(/data:image\/png;base64,[A-Za-z0-9+/=]+/g) ?? [];

async function pasteImage(page: Page, base64: string) {
  await page.getByRole("textbox", { name: "Message to the agent" }).evaluate((el, b64) => {
    const data = new DataTransfer();
    data.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], "pasted.png", { type: "image/png" }));
    el.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
  }, base64);
}

async function dropImage(page: Page, base64: string) {
  await page.locator(".composer").evaluate((el, b64) => {
    const data = new DataTransfer();
    data.items.add(new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], "dropped.png", { type: "image/png" }));
    el.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
  }, base64);
}

describeWhen(chromiumMissing(), "renderer controls end to end", () => {
  let e2e: E2e;
  let page: Page;
  let h: ReturnType<typeof sessionHelpers>;
  let projectId: number;
  const lastChat = () => e2e.model.chatRequests().at(-1)!.body as Chat;
  const card = (text: string) => page.locator("section.card").filter({ hasText: text });
  const rules = (query: { projectId?: number; sessionId?: number }) => call<PermissionRule[]>(e2e.host, "permissions.rules", query);
  // (Read without waiting: a locator would wait for a session view that may not be there.)
  const shownSessionId = () => page.evaluate(() => document.querySelector(".session")?.getAttribute("data-session-id") ?? "");
  const currentSessionId = async () => Number(await shownSessionId());
  /** A new session through the menu command, as the app's menu sends it. */
  const newSession = async () => {
    const before = await shownSessionId();
    e2e.host.services.hub.emit("app.command", { command: "new-session" });
    await expect.poll(shownSessionId, { timeout: 10_000 }).not.toBe(before);
    await h.transcript().waitFor();
  };

  beforeAll(async () => {
    e2e = await startE2e(brain, "e2e-controls");
    page = e2e.page;
    h = sessionHelpers(page);
    writeFileSync(join(e2e.project, "AGENTS.md"), "Use tabs for indentation.\n");
    mkdirSync(join(e2e.project, ".git", "hooks"), { recursive: true });
    // The local model declares image input, so pasted images are sent as images.
    await useFakeModel(e2e, { images: true });
    await openProjectSession(e2e);
    projectId = (await call<{ id: number }[]>(e2e.host, "projects.list", {}))[0]!.id;
  }, 90_000);

  afterEach(async (context) => {
    if (context.task.result?.state === "fail") await page.screenshot({ path: join(shots, "failure-controls.png") }).catch(() => undefined);
  });

  afterAll(() => e2e?.close());

  test("images pasted and dropped reach the model, with a prompt and while the agent runs", async () => {
    await pasteImage(page, PNG_A);
    await dropImage(page, PNG_B);
    await expect.poll(() => page.locator(".attachments img").count()).toBe(2);
    await h.send("what is in these images");
    await h.transcript().getByText("Answer to: what is in these images").waitFor({ timeout: 15_000 });
    expect(imageUrls(lastChat())).toEqual([`data:image/png;base64,${PNG_A}`, `data:image/png;base64,${PNG_B}`]);
    expect(await page.locator(".attachments img").count()).toBe(0);
    expect(await h.transcript().getByRole("img", { name: "Attached image" }).count()).toBe(2);

    // While a command runs: an image goes with the steering message.
    await h.send("a slow task please");
    await h.answer("y");
    await expect.poll(() => card("sleep 8").getAttribute("data-status"), { timeout: 15_000 }).toBe("running");
    await pasteImage(page, PNG_B);
    await h.send("steer: look at this");
    await page.getByRole("status").filter({ hasText: "Sent as steering" }).waitFor();
    await h.transcript().getByText("Steering received: steer: look at this").waitFor({ timeout: 20_000 });
    const steered = lastChat()
      .messages.filter((m) => m.role === "user")
      .at(-1);
    expect(JSON.stringify(steered)).toContain("steer: look at this");
    expect(imageUrls(steered)).toEqual([`data:image/png;base64,${PNG_B}`]);
  }, 60_000);

  test("a command waiting for input gets the answer typed in its card; Interrupt stops another", async () => {
    await h.send("ask my name");
    await h.answer("y");
    const ask = card("read -p");
    await ask.getByText("Waiting for input").waitFor({ timeout: 15_000 });
    await expect.poll(() => ask.locator(".xterm-rows").innerText()).toContain("Name?");
    await ask.getByLabel("Input for the command").fill("Ada");
    await ask.getByLabel("Input for the command").press("Enter");
    await expect.poll(() => ask.getAttribute("data-status"), { timeout: 15_000 }).toBe("done");
    // (xterm.js draws on its next frame.)
    await expect.poll(() => ask.locator(".xterm-rows").innerText()).toContain("hi Ada");
    // (The answer streams in: wait for all of it.)
    await expect.poll(() => h.transcript().getByText("Got:").innerText(), { timeout: 15_000 }).toContain("hi Ada");

    await h.send("interrupt me");
    await h.answer("y");
    const sleeper = card("sleep 30");
    await expect.poll(() => sleeper.getAttribute("data-status"), { timeout: 15_000 }).toBe("running");
    await page.screenshot({ path: join(shots, "terminal-input.png") });
    await sleeper.getByRole("button", { name: "Interrupt" }).click();
    await expect.poll(() => sleeper.getAttribute("data-status"), { timeout: 10_000 }).toBe("stopped");
    await h.transcript().getByText("Interrupted:").waitFor({ timeout: 15_000 });
    expect(await sleeper.locator(".xterm-rows").innerText()).not.toContain("never");
    await h.idle();
  }, 60_000);

  test("permission keys: s allows for the session, a saves the edited project rule", async () => {
    await newSession();
    const sessionId = await currentSessionId();
    await h.send("perm-s please");
    await h.permission().getByText("echo perm-s-ok").first().waitFor({ timeout: 15_000 });
    await h.answer("s");
    await h.transcript().getByText("s done").waitFor({ timeout: 15_000 });
    expect((await rules({ sessionId })).filter((r) => r.scope === "session" && r.tool === "bash")).toHaveLength(1);
    // The same command again in this session runs without asking.
    await h.send("perm-s again");
    await expect.poll(() => h.transcript().getByText("s done").count(), { timeout: 15_000 }).toBe(2);

    // (The session rule, "echo *", would allow the next command: a new session asks again.)
    await newSession();
    await h.send("perm-a please");
    await h.permission().getByText("echo perm-a-ok").first().waitFor({ timeout: 15_000 });
    await h.permission().getByRole("button", { name: "edit pattern" }).click();
    await h.permission().getByLabel("Rule pattern").fill("echo perm-a-*");
    await h.permission().getByLabel("Rule pattern").press("Escape");
    await h.answer("a");
    await h.transcript().getByText("a done").waitFor({ timeout: 15_000 });
    const saved = (await rules({ projectId })).filter((r) => r.scope === "project");
    expect(saved.map((r) => ({ tool: r.tool, pattern: r.pattern, action: r.action }))).toEqual([{ tool: "bash", pattern: "echo perm-a-*", action: "allow" }]);
  }, 60_000);

  test("menu commands; rename in History; edit and revoke a rule in Settings; automatic compaction off and on", async () => {
    e2e.host.services.hub.emit("app.command", { command: "show-history" });
    const rows = page.locator(".session-row");
    await expect.poll(() => rows.count(), { timeout: 10_000 }).toBe(3);
    await rows
      .first()
      .getByRole("button", { name: /^Rename/ })
      .click();
    await page.getByLabel("New title").fill("Renamed by the test");
    await page.getByLabel("New title").press("Enter");
    await rows.filter({ hasText: "Renamed by the test" }).waitFor();
    // Escape cancels a rename.
    const renamed = rows.filter({ hasText: "Renamed by the test" });
    await renamed.getByRole("button", { name: "Rename Renamed by the test" }).click();
    await page.getByLabel("New title").fill("Discarded title");
    await page.getByLabel("New title").press("Escape");
    await renamed.getByRole("button", { name: "Renamed by the test", exact: true }).waitFor();
    const listed = await call<{ sessions: Session[] }>(e2e.host, "sessions.list", { projectId });
    expect(listed.sessions.map((s) => s.title).filter((t) => t?.includes("title") || t?.includes("Renamed"))).toEqual(["Renamed by the test"]);

    e2e.host.services.hub.emit("app.command", { command: "show-settings" });
    const [rule] = (await rules({ projectId })).filter((r) => r.scope === "project");
    const pattern = page.getByLabel(`Pattern of rule ${rule!.id}`);
    expect(await page.getByLabel(`Meaning of rule ${rule!.id}`).innerText()).toContain('Allows exactly "echo perm-a-*"');
    await page.getByText("Deny rules match commands, not effects").waitFor();
    // A pattern edit saves only when told to: leaving the field keeps it unsaved and says so.
    await pattern.fill("echo perm-edited-*");
    await pattern.press("Tab");
    const ruleRow = page.locator("li", { has: pattern });
    await ruleRow.getByText("Not saved yet.").waitFor();
    expect((await rules({ projectId })).find((r) => r.id === rule!.id)?.pattern).toBe("echo perm-a-*");
    await ruleRow.getByRole("button", { name: "Save", exact: true }).click();
    await expect.poll(async () => (await rules({ projectId })).find((r) => r.id === rule!.id)?.pattern).toBe("echo perm-edited-*");
    await expect.poll(() => ruleRow.getByText("Not saved yet.").count()).toBe(0);
    await page.getByLabel(`Action of rule ${rule!.id}`).selectOption("deny");
    await expect.poll(async () => (await rules({ projectId })).find((r) => r.id === rule!.id)?.action).toBe("deny");
    await ruleRow.getByRole("button", { name: "Revoke" }).click();
    await expect.poll(async () => (await rules({ projectId })).some((r) => r.id === rule!.id)).toBe(false);
    await expect.poll(() => pattern.count()).toBe(0);
    // Undo puts the revoked rule back as it was.
    await page.getByRole("status").filter({ hasText: "Revoked" }).getByRole("button", { name: "Undo" }).click();
    await expect.poll(async () => (await rules({ projectId })).filter((r) => r.pattern === "echo perm-edited-*" && r.action === "deny" && r.scope === "project").length).toBe(1);
    await expect.poll(() => page.locator(".rule-row input").evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value))).toContain("echo perm-edited-*");

    const auto = page.getByRole("checkbox", { name: "Compact automatically" });
    expect(await auto.isChecked()).toBe(true);
    // The box follows the saved setting, so it changes once the host has answered.
    await auto.click();
    await expect.poll(async () => (await call<{ autoCompact: boolean }>(e2e.host, "settings.get", {})).autoCompact).toBe(false);
    await expect.poll(() => auto.isChecked()).toBe(false);
    await page.screenshot({ path: join(shots, "settings-compaction.png") });
    await auto.click();
    await expect.poll(async () => (await call<{ autoCompact: boolean }>(e2e.host, "settings.get", {})).autoCompact).toBe(true);
    const priority = page.getByRole("checkbox", { name: "Run parallel commands at a lower CPU priority" });
    expect(await priority.isChecked()).toBe(true);
    await priority.click();
    await expect.poll(async () => (await call<{ lowerCommandPriority: boolean }>(e2e.host, "settings.get", {})).lowerCommandPriority).toBe(false);
    await expect.poll(() => priority.isChecked()).toBe(false);
    await priority.click();
    await expect.poll(async () => (await call<{ lowerCommandPriority: boolean }>(e2e.host, "settings.get", {})).lowerCommandPriority).toBe(true);

    // In the browser host "open a project" shows the welcome screen's folder field.
    e2e.host.services.hub.emit("app.command", { command: "open-project" });
    await page.getByLabel("Project folder").waitFor();
  }, 60_000);

  test("the dialog says why it asks, what the proposed rule means, and warns about protected files", async () => {
    await newSession();
    await h.send("perm-why please");
    await h.permission().getByText("rm -rf build-none").first().waitFor({ timeout: 15_000 });
    expect(await h.permission().getByRole("list", { name: "Why Lathe asks" }).innerText()).toContain("command substitution");
    const proposed = h.permission().getByLabel("Proposed rule");
    expect(await proposed.innerText()).toContain('Allows exactly "rm -rf build-none", nothing added.');
    expect(await proposed.innerText()).toContain("rm destroys data: the rule allows only this exact command.");
    await page.screenshot({ path: join(shots, "permission-reasons.png") });
    await h.answer("n");
    await h.permission().getByRole("button", { name: "Deny" }).click();
    await h.transcript().getByText("why done").waitFor({ timeout: 15_000 });

    await h.send("perm-hook please");
    await h.permission().getByRole("note").filter({ hasText: ".git/hooks/pre-commit: files in .git/" }).waitFor({ timeout: 15_000 });
    expect(await h.permission().getByLabel("Proposed rule").innerText()).toContain("No rule can allow this: Lathe will ask each time.");
    expect(
      await h
        .permission()
        .getByRole("button", { name: /Always allow in this project/ })
        .isDisabled(),
    ).toBe(true);
    await h.answer("n");
    await h.permission().getByRole("button", { name: "Deny" }).click();
    await h.transcript().getByText("hook done").waitFor({ timeout: 15_000 });
    expect(readdirSync(join(e2e.project, ".git", "hooks"))).toEqual([]);
  }, 60_000);

  test("a provider retry notice shows in the status bar while the request is retried", async () => {
    await newSession();
    e2e.model.failNext(429, { "retry-after": "1" });
    await h.send("hello retry");
    const notice = page.locator(".statusbar .retry");
    await notice.waitFor({ timeout: 10_000 });
    expect(await notice.innerText()).toMatch(/retrying in 1 s \(attempt \d+ of \d+\)/);
    await h.transcript().getByText("Answer to: hello retry").waitFor({ timeout: 15_000 });
    await expect.poll(() => notice.count()).toBe(0);
  }, 60_000);

  test("context: instruction files, Compact now, edit the summary, undo; the model is sent each version", async () => {
    await newSession();
    await h.send("first topic alpha-marker");
    await h.transcript().getByText("Answer to: first topic").waitFor({ timeout: 15_000 });
    // The system prompt was built with the project's AGENTS.md: the status bar names it.
    const instructions = page.locator(".statusbar .instructions summary");
    await expect.poll(() => instructions.innerText()).toBe("Instructions: AGENTS.md");
    expect(await instructions.getAttribute("title")).toBe(join(e2e.project, "AGENTS.md"));
    await instructions.click();
    const popover = page.getByRole("group", { name: "Instruction files loaded into the system prompt" });
    expect(await popover.innerText()).toContain(join(e2e.project, "AGENTS.md"));
    expect(await popover.isVisible()).toBe(true);
    await page.screenshot({ path: join(shots, "instructions.png") });
    await instructions.click();
    await h.send("second topic");
    await h.transcript().getByText("Answer to: second topic").waitFor({ timeout: 15_000 });
    await h.idle();

    await page.getByRole("button", { name: "Compact now" }).click();
    await page.locator(".statusbar").getByRole("status").filter({ hasText: "Compacted:" }).waitFor({ timeout: 15_000 });
    const entries = page.locator("section.compaction");
    await expect.poll(() => entries.count()).toBe(1);
    expect(await entries.first().getAttribute("data-compaction-status")).toBe("active");
    expect(await entries.first().innerText()).toMatch(/Earlier context summarized \(.+ → .+ tokens, on request\)/);
    // The first exchange is summarized; it stays visible, marked as not sent.
    expect(await page.locator(".transcript-row.summarized").count()).toBe(2);
    await entries.first().getByText("Summary", { exact: true }).click();
    await entries.first().getByText("ORIGINAL-SUMMARY of the first exchange.").waitFor();
    await page.screenshot({ path: join(shots, "compaction.png") });

    await entries.first().getByRole("button", { name: "Edit summary" }).click();
    await page.getByLabel("Summary text").fill("## Goal\nEDITED-SUMMARY: the user asked about two topics.");
    await page.getByRole("button", { name: "Save summary" }).click();
    await expect.poll(() => entries.count(), { timeout: 10_000 }).toBe(2);
    expect(await entries.evaluateAll((els) => els.map((e) => e.getAttribute("data-compaction-status")))).toEqual(["replaced", "active"]);
    await h.send("third ask");
    await h.transcript().getByText("Answer to: third ask").waitFor({ timeout: 15_000 });
    const afterEdit = JSON.stringify(lastChat().messages);
    expect(afterEdit).toContain("EDITED-SUMMARY");
    expect(afterEdit).not.toContain("ORIGINAL-SUMMARY");
    expect(afterEdit).not.toContain("alpha-marker");
    expect(afterEdit).toContain("second topic");
    await h.idle();

    await entries.nth(1).getByRole("button", { name: "Undo compaction" }).click();
    await page.locator(".compaction-undo").waitFor({ timeout: 10_000 });
    expect(await entries.evaluateAll((els) => els.map((e) => e.getAttribute("data-compaction-status")))).toEqual(["replaced", "undone"]);
    expect(await page.locator(".transcript-row.summarized").count()).toBe(0);
    await h.send("fourth ask");
    await h.transcript().getByText("Answer to: fourth ask").waitFor({ timeout: 15_000 });
    const afterUndo = JSON.stringify(lastChat().messages);
    expect(afterUndo).toContain("alpha-marker");
    expect(afterUndo).not.toContain("<summary>");
  }, 60_000);
});
