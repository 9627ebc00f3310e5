// Keys typed straight into the terminal of a command waiting for input: when the host refuses
// them (the command has not read the input already waiting: app/main/tools/pty-input-bound.ts),
// the card says so rather than dropping the error. The host's answer is replaced here (Playwright's WebSocket
// routing), since filling a megabyte of input by keyboard is not a test.
import type { Page, WebSocketRoute } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import { chromiumMissing } from "../support/browser.ts";
import { describeWhen } from "../support/requirements.ts";
import { openProjectSession, sessionHelpers, startE2e, useFakeModel, type E2e } from "./support/e2e-harness.ts";

const REFUSAL = "The command is not reading its input: 1,024 KiB are waiting. Nothing more is taken until it reads some (or is interrupted).";

describeWhen(chromiumMissing(), "keys typed into a command's terminal", () => {
  let e2e: E2e;
  let page: Page;
  let refuseInput = false;

  beforeAll(async () => {
    e2e = await startE2e(
      (user, results) => (results.length === 0 ? { calls: [{ name: "bash", args: { command: 'read -p "Name? " n; echo "hi $n"' } }] } : { text: "done" }),
      "e2e-terminal-input",
      {
        permissionMode: "full-auto",
      },
    );
    page = e2e.page;
    await useFakeModel(e2e);
    await page.routeWebSocket(/\/ws/, (ws: WebSocketRoute) => {
      const server = ws.connectToServer();
      const inputIds = new Set<unknown>();
      ws.onMessage((message) => {
        const request = typeof message === "string" ? (JSON.parse(message) as { id?: unknown; method?: string }) : {};
        if (request.method === "tools.input") inputIds.add(request.id);
        server.send(message);
      });
      server.onMessage((message) => {
        const answer = typeof message === "string" ? (JSON.parse(message) as { id?: unknown }) : {};
        if (refuseInput && answer.id !== undefined && inputIds.has(answer.id)) {
          ws.send(JSON.stringify({ id: answer.id, result: { ok: false, error: { code: "unavailable", message: REFUSAL } } }));
        } else ws.send(message);
      });
    });
    await openProjectSession(e2e);
  }, 120_000);
  afterAll(() => e2e?.close());

  test("a refusal of keys typed into a waiting command is shown in its card", async () => {
    const h = sessionHelpers(page);
    await h.send("run it");
    const card = page.locator("section.card").filter({ hasText: "read -p" });
    await card.getByText("Waiting for input").waitFor({ timeout: 15_000 });
    refuseInput = true;
    // Typed into the terminal itself (it takes keys while its command waits for input).
    await card.locator(".xterm-helper-textarea").focus();
    await page.keyboard.type("x");
    await expect.poll(() => card.locator(".error-text").allInnerTexts(), { timeout: 10_000 }).toEqual([REFUSAL]);
    refuseInput = false;
    await card.getByRole("button", { name: "Interrupt" }).click();
  }, 60_000);
});
