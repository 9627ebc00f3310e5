// What the person is told at start-up: a damaged database was moved aside and a fresh one started
// (the store's notice reaches the window even though it happened before the window connected).
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { chromiumMissing } from "../support/browser.ts";
import { describeWhen } from "../support/requirements.ts";
import { startE2e, type E2e } from "./support/e2e-harness.ts";

let e2e: E2e | undefined;

describeWhen(chromiumMissing(), "start-up notices", () => {
  beforeAll(async () => {
    e2e = await startE2e(() => ({ text: "unused" }), "startup", {
      prepareData: (dataDir) => writeFileSync(join(dataDir, "lathe.db"), "this is not a SQLite database, it is damaged ".repeat(200)),
    });
  }, 120_000);
  afterAll(async () => e2e?.close());

  it("says that a damaged database was moved aside, and keeps the file", async () => {
    const { page, host, dir } = e2e!;
    await page.goto(host.url);
    const notice = page.getByRole("status").filter({ hasText: "moved" });
    await notice.waitFor({ timeout: 15_000 });
    expect(await notice.innerText()).toMatch(/damaged|corrupt/i);
    expect(readdirSync(join(dir, "data")).some((f) => f.startsWith("lathe.db.corrupt-"))).toBe(true);
  });
});
