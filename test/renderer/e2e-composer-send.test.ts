// The composer while a message is on its way: a prompt is answered only once the project's
// instruction files were read (off the event loop: seconds on a slow mount), and meanwhile a
// second Enter must not send the message again, nor may what was typed meanwhile be wiped. The
// host's answer to sessions.prompt is held back here (Playwright's WebSocket routing) to make the
// wait long and certain.
import type { Page, WebSocketRoute } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import { chromiumMissing } from "../support/browser.ts";
import { describeWhen } from "../support/requirements.ts";
import { openProjectSession, sessionHelpers, startE2e, useFakeModel, type E2e } from "./support/e2e-harness.ts";

describeWhen(chromiumMissing(), "the composer while a message is being sent", () => {
  let e2e: E2e;
  let page: Page;
  /** Answers to sessions.prompt held back until released. */
  const held: (() => void)[] = [];
  let holdPrompts = false;
  /** Methods of the requests the page sent with the message's text, in order. */
  const sentWithText: string[] = [];

  beforeAll(async () => {
    e2e = await startE2e((user) => ({ text: `Answer to: ${user.slice(0, 40)}` }), "e2e-composer-send");
    page = e2e.page;
    await useFakeModel(e2e);
    await page.routeWebSocket(/\/ws/, (ws: WebSocketRoute) => {
      const server = ws.connectToServer();
      const promptIds = new Set<unknown>();
      ws.onMessage((message) => {
        const request = typeof message === "string" ? (JSON.parse(message) as { id?: unknown; method?: string; params?: { text?: string } }) : {};
        if (request.method === "sessions.prompt") promptIds.add(request.id);
        if (request.params?.text === "first message") sentWithText.push(request.method!);
        server.send(message);
      });
      server.onMessage((message) => {
        const answer = typeof message === "string" ? (JSON.parse(message) as { id?: unknown }) : {};
        if (holdPrompts && answer.id !== undefined && promptIds.has(answer.id)) held.push(() => ws.send(message));
        else ws.send(message);
      });
    });
    await openProjectSession(e2e);
  }, 120_000);
  afterAll(() => e2e?.close());

  test("a second Enter while the first is on its way sends nothing, and text typed meanwhile stays", async () => {
    const h = sessionHelpers(page);
    holdPrompts = true;
    await h.send("first message");
    await expect.poll(() => held.length, { timeout: 10_000 }).toBe(1);
    // Enter again while the answer is held: nothing more is sent.
    await h.composer().press("Enter");
    await page.waitForTimeout(300);
    expect(held).toHaveLength(1);
    expect(sentWithText).toEqual(["sessions.prompt"]);
    // Typed while it is on its way.
    await h.composer().fill("typed meanwhile");
    holdPrompts = false;
    held.splice(0).forEach((release) => release());
    await h.idle();
    await expect.poll(() => h.composer().inputValue()).toBe("typed meanwhile");
    const asked = e2e.model.chatRequests().map((r) => JSON.stringify(r.body));
    expect(asked.filter((body) => body.includes("first message"))).toHaveLength(1);
  }, 60_000);
});
