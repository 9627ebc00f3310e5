// End to end, in headless Chromium against the real headless host: a bash card that leaves the
// virtualized transcript (scrolled far away) and comes back takes its terminal back (issue 16:
// opening a terminal builds its renderer and measures its font, a cost paid again on every remount
// before): the same terminal element, with its coloured output complete, not opened and replayed.
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { chromiumMissing } from "../support/browser.ts";
import { describeWhen } from "../support/requirements.ts";
import { openProjectSession, screenshotIfFailed, sessionHelpers, startE2e, useFakeModel, type E2e } from "./support/e2e-harness.ts";
import type { Brain } from "./support/fake-model.ts";

const COLOURED = "for i in $(seq 1 12); do printf '\\033[3%dmcolour line %d\\033[0m\\n' $((i % 7 + 1)) $i; done";

// 120 lines, a few per update: the terminal (16 rows) scrolls in many frames while it streams.
const STREAMING = "for i in $(seq 1 120); do echo streamed line $i; sleep 0.02; done";

const brain: Brain = (user, results) => {
  if (user.includes("streaming")) return results.length === 0 ? { calls: [{ name: "bash", args: { command: STREAMING } }] } : { text: "Streaming done." };
  if (user.includes("coloured"))
    return results.length === 0 ? { calls: [{ name: "bash", args: { command: COLOURED } }] } : { text: user.includes("again") ? "Coloured again done." : "Coloured done." };
  // Answers taller than the window: a few of them put the card far outside the rendered rows.
  return { text: Array.from({ length: 60 }, (_, i) => `Paragraph ${i} of ${user}.`).join("\n\n") };
};

describeWhen(chromiumMissing(), "terminal cards in the virtualized transcript", () => {
  let e2e: E2e;
  let page: Page;
  let h: ReturnType<typeof sessionHelpers>;

  beforeAll(async () => {
    e2e = await startE2e(brain, "e2e-terminal-reuse", { permissionMode: "full-auto" });
    page = e2e.page;
    h = sessionHelpers(page);
    await useFakeModel(e2e);
    await openProjectSession(e2e);
  }, 120_000);

  afterAll(() => e2e?.close());
  afterEach((context) => screenshotIfFailed(context, page, "terminal-reuse"));

  test("a card scrolled out of the transcript and back shows the same terminal, output complete and coloured", async () => {
    await h.send("coloured output please");
    await h.transcript().getByText("Coloured done.").waitFor({ timeout: 20_000 });
    await h.idle();
    const box = () => page.locator("section.card .term-box");
    await expect.poll(() => box().locator(".xterm-rows").innerText()).toContain("colour line 12");
    await box()
      .locator(".xterm")
      .evaluate((el) => el.setAttribute("data-test-mark", "same-terminal"));

    for (const n of [1, 2, 3, 4]) {
      await h.send(`tall answer ${n}`);
      await h.transcript().getByText(`Paragraph 59 of tall answer ${n}.`).waitFor({ timeout: 20_000 });
      await h.idle();
    }
    // Following the bottom, the card's row is no longer rendered.
    await expect.poll(() => page.locator("section.card").count(), { timeout: 10_000 }).toBe(0);

    await h.transcript().evaluate((el) => (el.scrollTop = 0));
    await box().waitFor({ timeout: 10_000 });
    expect(await box().locator(".xterm").getAttribute("data-test-mark")).toBe("same-terminal");
    const rows = box().locator(".xterm-rows");
    await expect.poll(() => rows.innerText()).toContain("colour line 12");
    expect(await rows.innerText()).toContain("colour line 1\n");
    // Coloured: xterm's DOM renderer gives each coloured run a foreground class.
    expect(await rows.locator("span[class*='xterm-fg-']").count()).toBeGreaterThan(0);
  }, 120_000);

  test("a streaming terminal does not rebuild its rows for a selection it does not have; a selection is still drawn and cleared", async () => {
    // The test before left the view at the top: back to the end, where the new turn shows.
    await h.transcript().evaluate((el) => (el.scrollTop = el.scrollHeight));
    // xterm's DOM renderer builds a row with replaceChildren; every scroll of the terminal also
    // asked for a selection redraw, which rebuilt every row (RenderService.handleSelectionChanged
    // calling the renderer's; app/renderer/src/session/xterm-selection-redraw.ts). Counted by
    // where each row build comes from (xterm keeps its method names in its bundle).
    await page.evaluate(() => {
      const w = window as unknown as { __rowBuilds: { all: number; forSelection: number } };
      const counts = (w.__rowBuilds = { all: 0, forSelection: 0 });
      const replaceChildren = Element.prototype.replaceChildren;
      Element.prototype.replaceChildren = function (...nodes) {
        if (this.parentElement?.classList.contains("xterm-rows")) {
          counts.all++;
          const callers = new Error().stack!.split("\n").slice(2, 5).join("\n");
          if (/handleSelectionChanged[^\n]*\n[^\n]*handleSelectionChanged/.test(callers)) counts.forSelection++;
        }
        return replaceChildren.apply(this, nodes);
      };
    });
    await h.send("streaming output please");
    await h.transcript().getByText("Streaming done.").waitFor({ timeout: 20_000 });
    await h.idle();
    const card = page.locator("section.card").filter({ hasText: "streamed line" }).last();
    const rows = card.locator(".xterm-rows");
    await expect.poll(() => rows.innerText()).toContain("streamed line 120");
    const builds = await page.evaluate(() => (window as unknown as { __rowBuilds: { all: number; forSelection: number } }).__rowBuilds);
    // The stream scrolled the terminal in several frames (each rebuilding its 16 rows: how many
    // frames depends on the machine's load; 97 builds were seen under load), never for a selection.
    expect(builds.all).toBeGreaterThan(2 * 16);
    expect(builds.forSelection).toBe(0);

    // A selection made with the mouse is drawn, then cleared by a click.
    const screen = card.locator(".xterm-screen");
    const area = (await screen.boundingBox())!;
    await page.mouse.move(area.x + 4, area.y + 4);
    await page.mouse.down();
    await page.mouse.move(area.x + area.width / 3, area.y + area.height / 4, { steps: 5 });
    await page.mouse.up();
    const selection = card.locator(".xterm-selection div");
    await expect.poll(() => selection.count()).toBeGreaterThan(0);
    await page.mouse.click(area.x + (area.width * 3) / 4, area.y + (area.height * 3) / 4);
    await expect.poll(() => selection.count()).toBe(0);
  }, 120_000);

  test("a new terminal measures no character width an earlier terminal measured and reads no computed style of its box; its rows are spaced as the earlier one's", async () => {
    // xterm's DOM renderer measures a character by a span's offsetWidth (a forced layout of the
    // page), per terminal (app/renderer/src/session/xterm-width-cache.ts shares the measures).
    await page.evaluate(() => {
      const w = window as unknown as { __widthMeasures: number };
      w.__widthMeasures = 0;
      const offsetWidth = Object.getOwnPropertyDescriptor(HTMLElement.prototype, "offsetWidth")!;
      Object.defineProperty(HTMLElement.prototype, "offsetWidth", {
        configurable: true,
        get(this: HTMLElement) {
          if (this.classList.contains("xterm-char-measure-element")) w.__widthMeasures++;
          return offsetWidth.get!.call(this);
        },
      });
      // The columns: a new terminal takes the width the last terminal's box had, then its own from
      // the ResizeObserver: the box's computed style (a forced layout) is never read.
      const styleReads = new Map<Element, number>();
      (window as unknown as { __boxStyleReads: Map<Element, number> }).__boxStyleReads = styleReads;
      const getComputedStyle = window.getComputedStyle.bind(window);
      window.getComputedStyle = (el: Element, pseudo?: string | null) => {
        if (el.classList.contains("term-box")) styleReads.set(el, (styleReads.get(el) ?? 0) + 1);
        return getComputedStyle(el, pseudo);
      };
    });
    await h.send("coloured output please, again");
    await h.transcript().getByText("Coloured again done.").waitFor({ timeout: 20_000 });
    await h.idle();
    const cards = page.locator("section.card").filter({ hasText: "colour line 12" });
    const rows = cards.last().locator(".xterm-rows");
    await expect.poll(() => rows.innerText()).toContain("colour line 12");
    expect(await page.evaluate(() => (window as unknown as { __widthMeasures: number }).__widthMeasures)).toBe(0);
    const styleReads = await page.evaluate(() => [...(window as unknown as { __boxStyleReads: Map<Element, number> }).__boxStyleReads.values()]);
    expect(styleReads).toEqual([]);
    // The first coloured card (scrolled back into view) and the new one space their characters alike.
    await h.transcript().evaluate((el) => (el.scrollTop = 0));
    await expect.poll(() => cards.count(), { timeout: 10_000 }).toBeGreaterThan(0);
    const spacing = (card: ReturnType<typeof cards.first>) => card.locator(".xterm-rows").evaluate((el) => (el as HTMLElement).style.letterSpacing);
    const first = await spacing(cards.first());
    await h.transcript().evaluate((el) => (el.scrollTop = el.scrollHeight));
    await expect.poll(() => spacing(cards.last())).toBe(first);
  }, 120_000);
});
