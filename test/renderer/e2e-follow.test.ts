// End to end, in headless Chromium against the real headless host: the transcript follows its
// bottom while an answer streams in and while cards are added, stays where the person scrolled
// to once they scrolled up, and follows again once they are back at the bottom (issue 16: the
// following is the virtualizer's own, from its row measurements, not a scroll to the end read
// from the layout every frame).
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { chromiumMissing } from "../support/browser.ts";
import { describeWhen } from "../support/requirements.ts";
import { openProjectSession, screenshotIfFailed, sessionHelpers, startE2e, useFakeModel, type E2e } from "./support/e2e-harness.ts";
import type { Brain } from "./support/fake-model.ts";

const tall = (name: string) => Array.from({ length: 160 }, (_, i) => `Paragraph ${i} of ${name}, long enough to take a line of its own.`).join("\n\n");

const brain: Brain = (user, results) => {
  if (user.includes("with a command")) return results.length === 0 ? { calls: [{ name: "bash", args: { command: "printf 'card output\\n'" } }] } : { text: tall(user) };
  return { text: tall(user) };
};

describeWhen(chromiumMissing(), "the transcript follows its bottom", () => {
  let e2e: E2e;
  let page: Page;
  let h: ReturnType<typeof sessionHelpers>;
  const distanceFromEnd = () => h.transcript().evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
  const streaming = () => page.locator('.msg.assistant[aria-busy="true"]').count();

  beforeAll(async () => {
    e2e = await startE2e(brain, "e2e-follow", { permissionMode: "full-auto" });
    page = e2e.page;
    h = sessionHelpers(page);
    await useFakeModel(e2e);
    await openProjectSession(e2e);
  }, 120_000);

  afterAll(() => e2e?.close());
  afterEach((context) => screenshotIfFailed(context, page, "follow"));

  test("while an answer streams and cards are added, the view stays at the end; scrolled up, it stays put; back at the end, it follows again", async () => {
    // 1. Following while the answer grows: seen at the end while it still streams, well past the
    // first screen, and at the end when it is done.
    await h.send("first answer");
    const seenWhileStreaming: number[] = [];
    await expect
      .poll(
        async () => {
          const [busy, distance, top] = await Promise.all([streaming(), distanceFromEnd(), h.transcript().evaluate((el) => el.scrollTop)]);
          if (busy > 0 && top > 0) seenWhileStreaming.push(distance);
          return busy === 0 && (await h.transcript().getByText("Paragraph 159 of first answer").count()) > 0;
        },
        { timeout: 30_000, interval: 50 },
      )
      .toBe(true);
    expect(seenWhileStreaming.some((d) => d < 40)).toBe(true);
    await h.idle();
    await expect.poll(distanceFromEnd).toBeLessThan(40);

    // 2. A card, then a tall answer after it: still at the end.
    await h.send("an answer with a command");
    await h.transcript().getByText("Paragraph 159 of an answer with a command").waitFor({ timeout: 30_000 });
    await h.idle();
    expect(await h.transcript().locator("section.card").count()).toBeGreaterThan(0);
    await expect.poll(distanceFromEnd).toBeLessThan(40);

    // 3. Scrolled up by the person (the wheel) while the next answer streams: the view stays put.
    await h.send("third answer");
    await expect.poll(streaming, { timeout: 15_000 }).toBeGreaterThan(0);
    const box = (await h.transcript().boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, -1500);
    await expect.poll(distanceFromEnd).toBeGreaterThan(1000);
    const scrolledTo = await h.transcript().evaluate((el) => el.scrollTop);
    await h.idle();
    expect(Math.abs((await h.transcript().evaluate((el) => el.scrollTop)) - scrolledTo)).toBeLessThan(2);
    expect(await distanceFromEnd()).toBeGreaterThan(1000);

    // 4. Back at the end: the next answer is followed again.
    await h.transcript().evaluate((el) => (el.scrollTop = el.scrollHeight));
    await expect.poll(distanceFromEnd).toBeLessThan(40);
    await h.send("fourth answer");
    await h.transcript().getByText("Paragraph 159 of fourth answer").waitFor({ timeout: 30_000 });
    await h.idle();
    await expect.poll(distanceFromEnd).toBeLessThan(40);
  }, 150_000);
});
