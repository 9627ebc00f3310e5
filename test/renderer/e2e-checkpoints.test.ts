// End to end, checkpoints in the window (headless Chromium, the real host, real git): a bash turn's
// "Files changed" list under its message with a file's diff; the rewind preview, grouped, listing
// a file you changed since (kept unless ticked) and your own new file (kept); the confirmation
// restoring the agent's changes; the note with Undo, and the undo's own preview.
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { chromiumMissing } from "../support/browser.ts";
import { describeWhen } from "../support/requirements.ts";
import { openProjectSession, screenshotIfFailed, sessionHelpers, shots, startE2e, useFakeModel, type E2e } from "./support/e2e-harness.ts";
import type { Brain } from "./support/fake-model.ts";

const brain: Brain = (user, results) => {
  if (user.includes("change the files") && results.length === 0)
    return { calls: [{ name: "bash", args: { command: "echo changed > a.txt && echo agent > made.txt && rm gone.txt" } }] };
  if (user.includes("change the files")) return { text: "Changed the files." };
  if (user.includes("make many files") && results.length === 0)
    return { calls: [{ name: "bash", args: { command: "mkdir many && for i in $(seq 1 1205); do echo $i > many/f-$i; done" } }] };
  if (user.includes("make many files")) return { text: "Made many files." };
  return { text: `Answer to: ${user.slice(0, 40)}` };
};

describeWhen(chromiumMissing(), "checkpoints in the window", () => {
  let e2e: E2e;
  let page: Page;
  let h: ReturnType<typeof sessionHelpers>;

  beforeAll(async () => {
    e2e = await startE2e(brain, "e2e-checkpoints", { permissionMode: "full-auto" });
    page = e2e.page;
    h = sessionHelpers(page);
    writeFileSync(join(e2e.project, "a.txt"), "original\n");
    writeFileSync(join(e2e.project, "gone.txt"), "to be deleted\n");
    await useFakeModel(e2e);
    await openProjectSession(e2e);
  }, 90_000);

  afterEach((context) => screenshotIfFailed(context, page, "checkpoints"));
  afterAll(() => e2e?.close());

  test("files changed per turn, the rewind preview and its confirmation, and the undo", async () => {
    await h.send("please change the files");
    await h.transcript().getByText("Changed the files.").waitFor({ timeout: 20_000 });
    await h.idle();

    // The turn's files, each with its diff.
    const changed = page.locator("details.files-changed");
    await changed.waitFor({ timeout: 15_000 });
    expect(await changed.locator("summary").innerText()).toBe("Files changed (3)");
    await changed.locator("summary").click();
    expect(await changed.innerText()).toContain("by bash");
    await changed.getByRole("button", { name: "modified a.txt" }).click();
    const diff = changed.getByLabel("Diff of a.txt");
    await diff.waitFor();
    // (The diff view shows the sign and the line in their own columns.)
    expect(await diff.locator(".diff-row.del").innerText()).toContain("original");
    expect(await diff.locator(".diff-row.add").innerText()).toContain("changed");
    await page.screenshot({ path: join(shots, "checkpoints-files-changed.png") });

    // Meanwhile you change the agent's new file and create one of your own.
    writeFileSync(join(e2e.project, "made.txt"), "agent\nand my edit\n");
    writeFileSync(join(e2e.project, "mine.txt"), "mine\n");

    const first = page.locator('.msg.user[data-position="0"]');
    await first.hover();
    await first.getByRole("button", { name: "Rewind files to before message 1" }).click();
    const dialog = page.getByRole("dialog", { name: "Rewind preview" });
    await dialog.locator(".rewind-group").first().waitFor({ timeout: 15_000 });
    const text = await dialog.innerText();
    expect(text).toContain("Changed outside Lathe since then: kept unless you choose");
    expect(text).toContain("Restored to how they were");
    expect(text).toContain("Your new files: kept");
    const conflict = dialog.locator('li[data-file="made.txt"]');
    expect(await conflict.getByRole("checkbox").isChecked()).toBe(false);
    expect(await dialog.locator('li[data-file="mine.txt"]').count()).toBe(1);
    await page.screenshot({ path: join(shots, "checkpoints-rewind-preview.png") });
    await dialog.getByRole("button", { name: "Rewind 2 files" }).click();

    await page.getByRole("status").filter({ hasText: "Files rewound: 2 restored, 0 removed." }).waitFor({ timeout: 15_000 });
    expect(readFileSync(join(e2e.project, "a.txt"), "utf8")).toBe("original\n");
    expect(readFileSync(join(e2e.project, "gone.txt"), "utf8")).toBe("to be deleted\n");
    expect(readFileSync(join(e2e.project, "made.txt"), "utf8")).toBe("agent\nand my edit\n");
    expect(readFileSync(join(e2e.project, "mine.txt"), "utf8")).toBe("mine\n");
    await page.getByRole("status").getByRole("button", { name: "Dismiss" }).click();

    // The note in the transcript offers Undo, which has its own preview.
    const note = page.locator(".rewind-note");
    await note.waitFor({ timeout: 10_000 });
    expect(await note.innerText()).toContain("restored to how they were before message 1");
    await note.getByRole("button", { name: "Undo" }).click();
    await dialog.getByRole("heading", { name: "Undo the rewind" }).waitFor();
    await dialog.locator(".rewind-group").first().waitFor({ timeout: 15_000 });
    await dialog.getByRole("button", { name: /^Undo \(2 files\)/ }).click();
    await page.getByRole("status").filter({ hasText: "Files rewound: 1 restored, 1 removed." }).waitFor({ timeout: 15_000 });
    await page.screenshot({ path: join(shots, "checkpoints-undone.png") });
    expect(readFileSync(join(e2e.project, "a.txt"), "utf8")).toBe("changed\n");
    expect(existsSync(join(e2e.project, "gone.txt"))).toBe(false);
    expect(readFileSync(join(e2e.project, "made.txt"), "utf8")).toBe("agent\nand my edit\n");

    // The session's changes, with its rewinds.
    await page.getByRole("button", { name: "Review the changes of this session" }).click();
    const panel = page.getByRole("region", { name: "Changes of this session" });
    await panel.waitFor();
    expect(await panel.innerText()).toContain("3 files in 1 turn");
    expect(await panel.innerText()).toContain("undone");
  }, 90_000);

  test("a turn that changed more files than are listed: the totals, the rest named in a line, and a rewind of every file", async () => {
    await h.send("please make many files");
    await h.transcript().getByText("Made many files.").waitFor({ timeout: 30_000 });
    await h.idle();
    // The turn's list, named by its title (the first test's turn has one too).
    const changed = page.locator("details.files-changed").filter({ has: page.locator("summary", { hasText: "Files changed (1,205)" }) });
    await changed.waitFor({ timeout: 15_000 });
    // Opened with a click (again if the click landed while the view was still following the end).
    await expect
      .poll(async () => {
        if (!(await changed.evaluate((d) => (d as HTMLDetailsElement).open))) await changed.locator("summary").click();
        return changed.locator("li.not-listed").innerText();
      })
      .toBe("…and 205 more changes, not listed (a turn lists its first 1,000)");

    const asked = page.locator(".msg.user").last();
    await asked.hover();
    await asked.getByRole("button", { name: /^Rewind files to before message/ }).click();
    const dialog = page.getByRole("dialog", { name: "Rewind preview" });
    await dialog.locator(".rewind-group").first().waitFor({ timeout: 15_000 });
    expect(await dialog.getByRole("note").innerText()).toBe("205 more files are not listed: 0 will be restored, 205 removed, 0 kept as they are.");
    await dialog.getByRole("button", { name: "Rewind 1205 files" }).click();
    await page.getByRole("status").filter({ hasText: "Files rewound: 0 restored, 1205 removed." }).waitFor({ timeout: 30_000 });
    expect(existsSync(join(e2e.project, "many"))).toBe(false);
  }, 90_000);
});
