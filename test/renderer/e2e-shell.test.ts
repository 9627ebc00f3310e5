// End to end, the app shell in Chromium through the headless host: opening a folder (a relative
// path from home; the home folder asks first), the sidebar with live badges, the session header
// (rename, model, fork origin), the address and the tab title, the keyboard model (Esc from
// anywhere and after answering, focus back to the composer, terminals that take keys only while
// waiting, Tab and Esc out of them, the `?` sheet, visible focus rings), a search hit in tool
// output opened at its card, desktop notifications, and an axe-core scan of every screen in both
// themes. Screenshots of each screen go to screenshots/shell/.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import type { Session } from "../../app/shared/ipc/contract.ts";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { chromiumMissing } from "../support/browser.ts";
import { describeWhen } from "../support/requirements.ts";
import { startHostProcess, type HostProcess } from "../support/host-process.ts";
import { seriousViolations } from "./support/axe.ts";
import { call, sessionHelpers, shots, startE2e, type E2e } from "./support/e2e-harness.ts";
import { MODEL_ID, type Brain } from "./support/fake-model.ts";

const dir = join(shots, "shell");
/** expect.poll with room for a loaded machine (its default gives up after 1 s). */
const poll = <T>(check: () => T | Promise<T>) => expect.poll(check, { timeout: 15_000 });

const bashThen = (command: string, results: string[], done: (result: string) => string) =>
  results.length === 0 ? { calls: [{ name: "bash", args: { command } }] } : { text: done(results[0]!) };

const brain: Brain = (user, results) => {
  if (user.includes("say hi")) return bashThen("echo shell-ok", results, () => "Said hi.");
  if (user.includes("slow")) return bashThen("sleep 30; echo too-late", results, () => "unexpected");
  if (user.includes("my name")) return bashThen('read -p "Name? " n; echo "hi $n"', results, (r) => `Got: ${r}`);
  if (user.includes("read the notes")) return results.length === 0 ? { calls: [{ name: "read", args: { path: "notes.txt" } }] } : { text: "Read them." };
  return { text: `Answer to: ${user.slice(0, 60)}\n\nA second paragraph so the answer has some body to it.` };
};

/** Records desktop notifications instead of showing them; the window's focus is the test's to set. */
function notificationStub() {
  const w = window as unknown as { __shown: { title: string; body: string }[]; __focused: boolean; __clickLast: () => void; __asked?: number };
  w.__shown = [];
  w.__focused = true;
  const made: { onclick: (() => void) | null }[] = [];
  class FakeNotification {
    // Like the browser's, the answer outlives a reload.
    static get permission(): NotificationPermission {
      return (sessionStorage.getItem("__permission") as NotificationPermission | null) ?? "default";
    }
    static requestPermission(): Promise<NotificationPermission> {
      w.__asked = (w.__asked ?? 0) + 1;
      sessionStorage.setItem("__permission", "granted");
      return Promise.resolve("granted");
    }
    onclick: (() => void) | null = null;
    constructor(title: string, options?: { body?: string }) {
      w.__shown.push({ title, body: options?.body ?? "" });
      made.push(this);
    }
    close() {}
  }
  Object.defineProperty(window, "Notification", { value: FakeNotification, configurable: true });
  Document.prototype.hasFocus = () => w.__focused;
  w.__clickLast = () => made.at(-1)?.onclick?.();
}

describeWhen(chromiumMissing(), "app shell end to end", () => {
  let e2e: E2e;
  let page: Page;
  let h: ReturnType<typeof sessionHelpers>;
  const card = (text: string) => page.locator("section.card").filter({ hasText: text });
  const sidebar = () => page.getByRole("complementary", { name: "Sidebar" });
  const sidebarSession = (id: number) => sidebar().locator(`.sidebar-session[data-session-id="${id}"]`);
  const shownSessionId = async () => Number(await page.evaluate(() => document.querySelector(".session")?.getAttribute("data-session-id") ?? "0"));
  const activeIs = (selector: string) => page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector);
  const activeInside = (selector: string) => page.evaluate((s) => document.activeElement?.closest(s) !== null && document.activeElement?.closest(s) !== undefined, selector);
  const shot = (name: string) => page.screenshot({ path: join(dir, `${name}.png`) });
  async function scan(name: string) {
    await shot(name);
    expect(await seriousViolations(page), name).toEqual([]);
  }

  beforeAll(async () => {
    mkdirSync(dir, { recursive: true });
    e2e = await startE2e(brain, "e2e-shell");
    page = e2e.page;
    h = sessionHelpers(page);
    writeFileSync(join(e2e.project, "notes.txt"), "alpha\nthe zanzibar line\nomega\n");
    await page.addInitScript(notificationStub);
  }, 90_000);

  afterEach(async (context) => {
    if (context.task.result?.state === "fail") await shot(`failure-${context.task.name.slice(0, 40).replace(/\W+/g, "-")}`).catch(() => undefined);
  });

  afterAll(() => e2e?.close());

  test("welcome: the first-run screen; the home folder asks first; a relative path opens from home", async () => {
    await page.goto(e2e.host.url);
    await page.getByRole("form", { name: "Set up a provider" }).waitFor();
    await scan("welcome-setup");
    // The provider, set up through the API (the setup form has its own suite).
    e2e.host.services.settings.setProvider({ id: "local", kind: "compatible", name: "Local server", baseUrl: e2e.model.baseUrl, models: [{ id: MODEL_ID }] });
    await call(e2e.host, "settings.update", { defaultModel: `local/${MODEL_ID}` });
    await page.reload();
    await page.getByLabel("Project folder").waitFor();
    expect(await page.locator("#folder-hint").innerText()).toContain(`relative path starts at your home folder (${e2e.dir})`);

    // "~" is the home folder (the host's HOME is the scratch folder): a confirmation, and No keeps it closed.
    await page.getByLabel("Project folder").fill("~");
    await page.getByRole("button", { name: "Open", exact: true }).click();
    const confirm = page.getByRole("alertdialog", { name: "Open this whole folder as a project?" });
    await confirm.waitFor();
    expect(await confirm.innerText()).toContain(`${e2e.dir} is your home folder`);
    expect(await activeIs("dialog button:not(.danger)")).toBe(true);
    await scan("confirm-home-folder");
    await page.keyboard.press("Escape");
    await confirm.waitFor({ state: "detached" });
    expect(await call<unknown[]>(e2e.host, "projects.list", {})).toEqual([]);
    // The host refuses it without the confirmation, whatever the page does.
    expect((await e2e.host.services.router.handle("projects.open", { folder: e2e.dir })).ok).toBe(false);
    expect((await e2e.host.services.router.handle("projects.open", { folder: "/" })).ok).toBe(false);

    // "project" is taken from the home folder, not from wherever the host was started.
    await page.getByLabel("Project folder").fill("project");
    await page.getByRole("button", { name: "Open", exact: true }).click();
    await page.getByRole("heading", { name: /^project/ }).waitFor();
    expect((await call<{ folder: string }[]>(e2e.host, "projects.list", {}))[0]!.folder).toBe(e2e.project);
    expect(new URL(page.url()).search).toMatch(/^\?project=\d+$/);
    expect(await page.title()).toBe("project · Lathe");
    // Opened: typing the first message is the next step, no click needed.
    await poll(() => activeIs("#first-message")).toBe(true);
    await scan("project-page");
  }, 90_000);

  test("a session: started from the project page, in the address and the tab title, in the sidebar, with its header", async () => {
    await page.getByLabel("What should Lathe do in project?").fill("hello shell");
    await page.keyboard.press("Enter");
    await h.transcript().getByText("Answer to: hello shell").waitFor({ timeout: 15_000 });
    const id = await shownSessionId();
    expect(new URL(page.url()).search).toBe(`?session=${id}`);
    const header = page.getByRole("region", { name: "Session" });
    await poll(() => header.getByRole("heading").innerText()).toContain("hello shell");
    expect(await header.innerText()).toContain(MODEL_ID);
    await poll(() => page.title()).toBe("hello shell · Lathe");
    await poll(() => sidebarSession(id).getAttribute("aria-current")).toBe("page");
    await scan("session-idle");

    // A reload lands on the same session.
    await page.reload();
    await h.transcript().getByText("Answer to: hello shell").waitFor({ timeout: 15_000 });
    expect(await shownSessionId()).toBe(id);

    // Waiting for an answer: the tab title, the header and the sidebar say so.
    await h.send("say hi");
    await h.permission().waitFor({ timeout: 15_000 });
    await poll(() => page.title()).toBe("● hello shell — waiting for you · Lathe");
    await poll(() => sidebarSession(id).getAttribute("data-badge")).toBe("approval");
    expect(await header.locator(".badge").innerText()).toBe("needs approval");
    await scan("session-permission");
    // After the answer, the focus is back in the composer.
    await h.answer("y");
    await expect.poll(() => activeIs("textarea[data-composer]"), { timeout: 10_000 }).toBe(true);
    await h.idle();
    await poll(() => page.title()).toBe("hello shell · Lathe");
    expect(await sidebarSession(id).getAttribute("data-badge")).toBeNull();

    // Rename in the header: Enter saves, and the sidebar and the title follow.
    await header.getByRole("button", { name: /hello shell/ }).click();
    await page.getByLabel("Session title").fill("Shell tour");
    await page.keyboard.press("Enter");
    await poll(() => sidebarSession(id).innerText()).toContain("Shell tour");
    await poll(() => page.title()).toBe("Shell tour · Lathe");
    // Esc cancels a rename (and does nothing else).
    await header.getByRole("button", { name: /Shell tour/ }).click();
    await page.getByLabel("Session title").fill("Not this");
    await page.keyboard.press("Escape");
    await poll(() => header.getByRole("heading").innerText()).toContain("Shell tour");
    // Leaving the field saves nothing (as a rule's pattern in Settings): a changed title stays in
    // the field, "Not saved yet.", with Save and Cancel; an unchanged one just closes.
    await header.getByRole("button", { name: /Shell tour/ }).click();
    await page.getByLabel("Session title").fill("Typed then left");
    await h.transcript().click({ position: { x: 5, y: 5 } });
    await header.getByText("Not saved yet.").waitFor();
    await shot("session-rename-pending");
    expect((await call<Session>(e2e.host, "sessions.get", { sessionId: id })).title).toBe("Shell tour");
    expect(await page.getByLabel("Session title").inputValue()).toBe("Typed then left");
    await header.getByRole("button", { name: "Cancel" }).click();
    await poll(() => header.getByRole("heading").innerText()).toContain("Shell tour");
    await header.getByRole("button", { name: /Shell tour/ }).click();
    await h.transcript().click({ position: { x: 5, y: 5 } });
    await poll(() => page.getByLabel("Session title").count()).toBe(0);
    // Save saves.
    await header.getByRole("button", { name: /Shell tour/ }).click();
    await page.getByLabel("Session title").fill("Shell tour, saved");
    await header.getByRole("button", { name: "Save" }).click();
    await poll(() => sidebarSession(id).innerText()).toContain("Shell tour, saved");
    await poll(async () => (await call<Session>(e2e.host, "sessions.get", { sessionId: id })).title).toBe("Shell tour, saved");

    // A fork says where it came from, and the link opens the original at that message.
    await h.transcript().getByText("Answer to: hello shell").hover();
    await page.getByRole("button", { name: "Fork from here: a new session from message 2" }).click();
    await poll(async () => ![0, id].includes(await shownSessionId())).toBe(true);
    const fork = await shownSessionId();
    const origin = page.getByRole("region", { name: "Session" }).getByText("forked from");
    await poll(() => origin.innerText()).toMatch(/forked from “Shell tour, saved” at message 2/);
    await scan("session-fork");
    await origin.getByRole("button", { name: "“Shell tour, saved”" }).click();
    await poll(shownSessionId).toBe(id);
    expect(new URL(page.url()).search).toBe(`?session=${id}&at=1`);
    // Back returns to the fork.
    await page.goBack();
    await poll(shownSessionId).toBe(fork);
    // Alt+↑ / Alt+↓ walk the sidebar's sessions (newest first).
    const order = await sidebar()
      .locator(".sidebar-session")
      .evaluateAll((els) => els.map((e) => Number(e.getAttribute("data-session-id"))));
    expect(order.slice(0, 2)).toEqual([fork, id]);
    await page.keyboard.press("Alt+ArrowDown");
    await poll(shownSessionId).toBe(id);
    await page.keyboard.press("Alt+ArrowUp");
    await poll(shownSessionId).toBe(fork);
  }, 120_000);

  test("keyboard: Esc stops the run after answering and from anywhere, but first closes the sheet; ? opens the sheet", async () => {
    // Esc after answering a permission request, with the focus where the answer left it.
    await h.send("something slow");
    await h.answer("y");
    await expect.poll(() => card("sleep 30").getAttribute("data-status"), { timeout: 15_000 }).toBe("running");
    await poll(() => activeIs("textarea[data-composer]")).toBe(true);
    await page.keyboard.press("Escape");
    await h.idle();
    expect(await card("sleep 30").getAttribute("data-status")).not.toBe("running");

    // Esc from the sidebar stops a run too; with the sheet open, Esc closes the sheet first.
    await h.send("something slow again");
    await h.answer("y");
    await expect.poll(() => card("slow again").count(), { timeout: 15_000 }).toBe(0);
    await expect.poll(() => page.locator(".session").getAttribute("data-running"), { timeout: 15_000 }).toBe("true");
    await sidebar().getByRole("button", { name: "History" }).focus();
    await page.keyboard.press("?");
    const sheet = page.getByRole("dialog", { name: "Keyboard shortcuts" });
    await sheet.waitFor();
    expect(await sheet.innerText()).toContain("Stop the agent");
    await scan("shortcuts-sheet");
    await page.keyboard.press("Escape");
    await sheet.waitFor({ state: "detached" });
    expect(await page.locator(".session").getAttribute("data-running")).toBe("true");
    // The focus went back where it was.
    expect(await activeIs(".sidebar-nav button")).toBe(true);
    await page.keyboard.press("Escape");
    await h.idle();
    // `?` typed in the composer is text, not the sheet.
    await h.composer().focus();
    await page.keyboard.type("why?");
    expect(await h.composer().inputValue()).toBe("why?");
    expect(await page.getByRole("dialog", { name: "Keyboard shortcuts" }).count()).toBe(0);
    await h.composer().fill("");
  }, 90_000);

  test("keyboard: a terminal takes keys only while its command waits for input; Tab and Esc leave it", async () => {
    await h.send("ask my name");
    await h.answer("y");
    const ask = card("read -p");
    await ask.getByText("Waiting for input").waitFor({ timeout: 15_000 });
    const input = ask.locator(".xterm-helper-textarea");
    await poll(() => input.getAttribute("tabindex")).toBe("0");
    // Tab reaches the waiting terminal; what is typed goes to the command.
    await input.focus();
    await page.keyboard.type("Bob");
    await page.keyboard.press("Enter");
    await expect.poll(() => ask.getAttribute("data-status"), { timeout: 15_000 }).toBe("done");
    await poll(() => ask.locator(".xterm-rows").innerText()).toContain("hi Bob");
    // Finished: out of the Tab order, and keys typed at it go nowhere.
    await poll(() => input.getAttribute("tabindex")).toBe("-1");
    await h.idle();

    // Tab leaves a terminal, and so does Esc (to the composer) without stopping anything.
    await h.send("ask my name again");
    await h.answer("y");
    const again = card("read -p").last();
    await again.getByText("Waiting for input").waitFor({ timeout: 15_000 });
    await again.locator(".xterm-helper-textarea").focus();
    await page.keyboard.press("Tab");
    expect(await activeInside(".terminal")).toBe(false);
    await again.locator(".xterm-helper-textarea").focus();
    await page.keyboard.press("Escape");
    await poll(() => activeIs("textarea[data-composer]")).toBe(true);
    expect(await page.locator(".session").getAttribute("data-running")).toBe("true");
    await shot("terminal-waiting");
    // Shift+Tab from the composer never lands in a finished terminal.
    await page.keyboard.press("Escape");
    await h.idle();
    await h.composer().focus();
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press("Shift+Tab");
      expect(await activeInside(".terminal"), `Shift+Tab ${i + 1}`).toBe(false);
    }
  }, 90_000);

  test("focus is always visible: every control reached with Tab shows a ring", async () => {
    await h.composer().focus();
    const missing: string[] = [];
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press("Tab");
      const ring = await page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        if (!el || el === document.body) return null;
        const style = getComputedStyle(el);
        const own = style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2;
        const within = el.closest(".terminal") !== null && getComputedStyle(el.closest(".terminal")!).outlineStyle !== "none";
        return {
          ok: own || within || style.boxShadow !== "none",
          what: `${el.tagName.toLowerCase()}${el.className ? `.${String(el.className).split(" ")[0]}` : ""} ${el.getAttribute("aria-label") ?? el.textContent?.slice(0, 30) ?? ""}`,
        };
      });
      if (ring && !ring.ok) missing.push(ring.what);
    }
    expect(missing).toEqual([]);
  }, 60_000);

  test("desktop notifications: offered once; shown when a run ends, asks or fails while the window is not focused", async () => {
    type Shown = { title: string; body: string }[];
    const shown = () => page.evaluate(() => (window as unknown as { __shown: Shown }).__shown);
    const offer = page.getByRole("region", { name: "Desktop notifications" });
    await offer.getByRole("button", { name: "Turn on" }).click();
    await offer.waitFor({ state: "detached" });
    await page.reload();
    await h.transcript().waitFor({ timeout: 15_000 });
    // A reload lands at the end of the transcript, and it follows from there.
    const atEnd = () => h.transcript().evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight < 40);
    await poll(atEnd).toBe(true);
    expect(await offer.count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __asked?: number }).__asked ?? 0)).toBe(0);
    const id = await shownSessionId();
    const title = (await call<Session>(e2e.host, "sessions.get", { sessionId: id })).title!;

    // In front: nothing is shown.
    await h.send("hello while focused");
    await h.transcript().getByText("Answer to: hello while focused").waitFor({ timeout: 15_000 });
    await h.idle();
    await poll(atEnd).toBe(true);
    expect(await shown()).toEqual([]);

    // In the background: a finished run, a question (click it: the session comes forward), a failure.
    await page.evaluate(() => ((window as unknown as { __focused: boolean }).__focused = false));
    await h.send("hello in the background");
    await expect.poll(shown, { timeout: 15_000 }).toEqual([{ title: `${title} — finished`, body: "The run finished." }]);
    await h.send("say hi");
    await expect.poll(async () => (await shown()).at(-1), { timeout: 15_000 }).toEqual({ title: `${title} — needs your approval`, body: "bash: echo shell-ok" });
    await sidebar().getByRole("button", { name: "History" }).click();
    await page.evaluate(() => (window as unknown as { __clickLast: () => void }).__clickLast());
    await poll(shownSessionId).toBe(id);
    await h.answer("y");
    await expect.poll(async () => (await shown()).length, { timeout: 15_000 }).toBe(3);
    e2e.model.failNext(401);
    await h.send("this one fails");
    await expect.poll(async () => (await shown()).at(-1)?.title, { timeout: 20_000 }).toBe(`${title} — failed`);
    await poll(() => sidebarSession(id).getAttribute("data-badge")).toBe("failed");
    await poll(() => page.title()).toBe(`${title} — failed · Lathe`);
    await scan("session-failed");
    // History and the project's page wear the same badge.
    await sidebar().getByRole("button", { name: "History" }).click();
    await expect.poll(() => page.locator(`.session-row[data-session-id="${id}"] .badge`).innerText(), { timeout: 10_000 }).toBe("failed");
    await sidebar().getByRole("button", { name: "project", exact: true }).click();
    await expect.poll(() => page.locator(`.list-button[data-session-id="${id}"] .badge`).innerText(), { timeout: 10_000 }).toBe("failed");
    await sidebarSession(id).click();
    await h.transcript().waitFor();
    await page.evaluate(() => ((window as unknown as { __focused: boolean }).__focused = true));
  }, 90_000);

  test("a search hit in tool output opens the session at that call's card, expanded and marked", async () => {
    await h.send("read the notes");
    await h.transcript().getByText("Read them.").waitFor({ timeout: 15_000 });
    for (let i = 0; i < 6; i++) {
      await h.send(`filler ${i}`);
      await h.transcript().getByText(`Answer to: filler ${i}`).waitFor({ timeout: 15_000 });
    }
    await h.idle();
    const id = await shownSessionId();
    await sidebar().getByRole("button", { name: "History" }).click();
    await page.getByRole("searchbox").fill("zanzibar");
    const hit = page.locator(".hit").filter({ hasText: "zanzibar" }).first();
    await hit.waitFor({ timeout: 15_000 });
    await scan("history-search");
    await hit.getByRole("button").first().click();
    await poll(shownSessionId).toBe(id);
    expect(new URL(page.url()).search).toMatch(new RegExp(`^\\?session=${id}&at=\\d+$`));
    const target = page.locator(".transcript-row[data-jump-target]");
    await target.waitFor({ timeout: 10_000 });
    // The read call's card, opened (read cards start closed), with the line in view.
    await poll(() => target.locator("section.card").innerText()).toContain("the zanzibar line");
    const inView = () =>
      target.evaluate((row) => {
        const box = row.getBoundingClientRect();
        const view = row.closest(".transcript")!.getBoundingClientRect();
        return box.top >= view.top - 1 && box.top < view.bottom;
      });
    await poll(inView).toBe(true);
    await shot("history-hit-opened");
  }, 90_000);

  test("every screen passes axe (no serious or critical violations) in the dark theme too", async () => {
    await scanScreens("light");
    await call(e2e.host, "settings.update", { theme: "dark" });
    await page.reload();
    await h.transcript().waitFor({ timeout: 15_000 });
    await poll(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");
    await scanScreens("dark");
    await call(e2e.host, "settings.update", { theme: "system" });
  }, 120_000);

  test("host restarts: with --token-file an open tab reconnects by itself; without, it says to open the new address", async () => {
    const dataDir = join(e2e.dir, "restart-data");
    const tokenFile = join(e2e.dir, "host-token");
    const args = ["--token-file", tokenFile, "--renderer-dir", join(e2e.dir, "renderer")];
    const hosts: HostProcess[] = [];
    const start = (extra: string[]) => {
      const host = startHostProcess(dataDir, [...args.slice(extra.includes("--no-token") ? 2 : 0), ...extra.filter((a) => a !== "--no-token")]);
      hosts.push(host);
      return host;
    };
    const stop = async (host: HostProcess) => {
      host.child.kill("SIGTERM");
      await host.exited;
    };
    const tab = await e2e.browser.newPage({ viewport: { width: 1280, height: 860 } });
    try {
      const first = start([]);
      const url = await first.url;
      const port = new URL(url).port;
      await tab.goto(url);
      const home = tab.getByRole("complementary", { name: "Sidebar" }).getByRole("button", { name: "Home" });
      await home.waitFor();
      const banner = tab.locator("[data-connection]");
      await stop(first);
      await expect.poll(() => banner.getAttribute("data-connection"), { timeout: 15_000 }).toMatch(/closed|connecting/);

      // The same token on the same port: the tab reconnects and works, without being touched.
      const second = start(["--port", port]);
      expect(await second.url).toBe(url);
      await expect.poll(() => banner.count(), { timeout: 20_000 }).toBe(0);
      await tab.getByLabel("Project folder").fill(e2e.project);
      await tab.getByRole("button", { name: "Open", exact: true }).click();
      await tab.getByRole("heading", { name: /^project/ }).waitFor({ timeout: 15_000 });
      await tab.screenshot({ path: join(dir, "restart-reconnected.png") });
      // A new session is not a blank page: it says what to do.
      await tab.getByRole("button", { name: "New session" }).click();
      await tab.getByRole("heading", { name: "What should Lathe do in project?" }).waitFor({ timeout: 15_000 });
      expect(await tab.locator(".session-empty").innerText()).toContain("Press ? for keyboard shortcuts");
      expect(await seriousViolations(tab)).toEqual([]);
      await tab.screenshot({ path: join(dir, "session-empty.png") });

      // Without the token file the next start has a new token: the tab says what to do.
      await stop(second);
      const third = start(["--no-token", "--port", port]);
      expect(await third.url).not.toBe(url);
      await expect.poll(() => banner.getAttribute("data-connection"), { timeout: 20_000 }).toBe("refused");
      expect(await banner.innerText()).toContain("start the host with --token-file");
      await tab.screenshot({ path: join(dir, "restart-refused.png") });
      expect(await seriousViolations(tab)).toEqual([]);
      // The new address pasted into this tab (only its fragment differs): the tab takes the new token.
      const fresh = new URL(await third.url).hash;
      await tab.evaluate((hash) => (window.location.hash = hash), fresh);
      await expect.poll(() => banner.count(), { timeout: 20_000 }).toBe(0);
      await tab.getByRole("heading", { name: "What should Lathe do in project?" }).waitFor({ timeout: 15_000 });
      expect(new URL(tab.url()).hash).toBe("");
    } finally {
      await tab.close();
      for (const host of hosts) host.child.kill("SIGKILL");
    }
  }, 90_000);

  async function scanScreens(theme: string) {
    await scan(`${theme}-session`);
    await sidebar().getByRole("button", { name: "History" }).click();
    await page.getByRole("searchbox").waitFor();
    await scan(`${theme}-history`);
    await sidebar().getByRole("button", { name: "Settings" }).click();
    await page.getByRole("heading", { name: "Settings" }).waitFor();
    await scan(`${theme}-settings`);
    await sidebar().getByRole("button", { name: "Home" }).click();
    await page.getByRole("heading", { name: "Welcome to Lathe" }).waitFor();
    await scan(`${theme}-welcome`);
    await sidebar().getByRole("button", { name: "project", exact: true }).click();
    await page.getByLabel("What should Lathe do in project?").waitFor();
    await scan(`${theme}-project`);
    // The first-message field has the focus (`?` there is text): from a button, `?` is the sheet.
    await page.getByRole("button", { name: "New session" }).focus();
    await page.keyboard.press("?");
    await page.getByRole("dialog", { name: "Keyboard shortcuts" }).waitFor();
    await scan(`${theme}-shortcuts`);
    await page.keyboard.press("Escape");
    await sidebar().locator(".sidebar-session").first().click();
    await h.transcript().waitFor();
  }
});
