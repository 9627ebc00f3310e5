// End to end in Chromium: Settings › MCP servers against real stdio servers (the misbehaving
// fixture, one that exits on start): adding servers by pasting JSON, their status with stderr,
// their tools (annotations, unusable schemas), disable and enable, restart, remove, importing the
// project's .mcp.json; then a session that loads a tool with tool_search and calls it, with the
// tool's server, hints and arguments in the permission dialog.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect, test } from "vitest";
import { chromiumMissing } from "../support/browser.ts";
import { describeWhen } from "../support/requirements.ts";
import { FIXTURE } from "../mcp/support/mcp-harness.ts";
import { call, openProjectSession, sessionHelpers, shots, startE2e, useFakeModel, type E2e } from "./support/e2e-harness.ts";
import type { Brain } from "./support/fake-model.ts";

const DELETE = "mcp__fixture__delete_everything";
const brain: Brain = (user, results) => {
  if (user.includes("clean up")) {
    if (results.length === 0) return { calls: [{ name: "tool_search", args: { query: "delete", load: [DELETE] } }] };
    if (results.length === 1) return { calls: [{ name: DELETE, args: {} }] };
    return { text: `Result: ${results[1]}` };
  }
  return { text: `Answer to: ${user.slice(0, 60)}` };
};

describeWhen(chromiumMissing(), "MCP servers in the window", () => {
  let e2e: E2e;
  let page: Page;
  const server = (name: string) => page.getByRole("listitem", { name: `MCP server ${name}` });
  const status = (name: string) => page.getByRole("status", { name: `Status of ${name}` });

  beforeAll(async () => {
    e2e = await startE2e(brain, "e2e-mcp");
    page = e2e.page;
    await useFakeModel(e2e);
    writeFileSync(
      join(e2e.project, ".mcp.json"),
      JSON.stringify({ mcpServers: { shared: { ...FIXTURE, env: { WHO: "shared" } }, fixture: { type: "http", url: "http://127.0.0.1:9/mcp?k=${GH_TOKEN}" } } }),
    );
    await openProjectSession(e2e);
  }, 120_000);

  afterEach(async (context) => {
    if (context.task.result?.state === "fail") await page.screenshot({ path: join(shots, "failure-mcp.png") }).catch(() => undefined);
  });

  afterAll(() => e2e?.close());

  test("adding servers: status, stderr of a failed one, tools, disable and enable, restart, remove, import", async () => {
    e2e.host.services.hub.emit("app.command", { command: "show-settings" });
    await page.getByRole("heading", { name: "MCP servers" }).waitFor();
    await page.getByText("No MCP servers yet.").waitFor();
    await page
      .getByLabel("MCP servers JSON")
      .fill(JSON.stringify({ mcpServers: { fixture: FIXTURE, dies: { ...FIXTURE, env: { FIXTURE_MODE: "exit-on-start" } }, old: { type: "sse", url: "http://x" } } }));
    await page.getByRole("button", { name: "Add servers" }).click();
    await expect.poll(() => page.getByRole("status", { name: "Import result" }).innerText(), { timeout: 30_000 }).toMatch(/^Added fixture, dies\. Skipped old: The SSE transport/);
    await expect.poll(() => status("fixture").innerText(), { timeout: 30_000 }).toBe("Connected · 20 tools");
    await expect.poll(() => status("dies").innerText()).toMatch(/^Failed: The server exited with code 1 before it was ready/);
    expect(await server("dies").getByLabel("Output of dies").innerText()).toContain("fatal: cannot open the database: permission denied");

    await server("fixture").getByRole("button", { name: "Show tools (23)" }).click();
    const tools = page.getByRole("list", { name: "Tools of fixture" });
    expect(await tools.getByRole("listitem").filter({ hasText: "delete_everything" }).innerText()).toMatch(/Deletes every record\. · destructive/);
    expect(await tools.getByRole("listitem").filter({ hasText: "bad_schema" }).innerText()).toMatch(/Unusable: Its input schema is not valid JSON Schema/);
    await page.screenshot({ path: join(shots, "settings-mcp.png"), fullPage: true });

    const enabled = server("fixture").getByRole("checkbox", { name: "Enabled" });
    await enabled.click();
    await expect.poll(() => status("fixture").innerText()).toBe("Disabled");
    expect(await enabled.isChecked()).toBe(false);
    await enabled.click();
    await expect.poll(() => status("fixture").innerText(), { timeout: 30_000 }).toBe("Connected · 20 tools");

    await server("dies").getByRole("button", { name: "Restart" }).click();
    await expect.poll(() => status("dies").innerText(), { timeout: 30_000 }).toMatch(/^Failed: The server exited with code 1/);
    await server("dies").getByRole("button", { name: "Remove" }).click();
    await expect.poll(() => server("dies").count()).toBe(0);

    await page.getByRole("button", { name: "Find existing configurations…" }).click();
    const found = page.getByRole("list", { name: "Configurations found" }).getByRole("listitem").filter({ hasText: "This project's .mcp.json" });
    // Each server with what it runs, its env names and variables; a project's file defaults to this project.
    const shown = found.getByRole("listitem", { name: "Server shared" });
    expect(await shown.innerText()).toContain(`${FIXTURE.command} ${FIXTURE.args.join(" ")}`);
    expect(await shown.innerText()).toContain("env WHO");
    expect(await found.getByRole("listitem", { name: "Server fixture" }).innerText()).toContain("uses ${GH_TOKEN}");
    expect(await found.getByRole("combobox").inputValue()).toBe("project");
    expect(await found.getByRole("checkbox", { name: "Replace my existing server fixture (for every project)" }).isChecked()).toBe(false);
    expect(await found.getByRole("checkbox", { name: /Pass \$\{GH_TOKEN\} \(looks like a secret\)/ }).isChecked()).toBe(false);
    await found.getByRole("button", { name: "Import" }).click();
    await expect
      .poll(() => page.getByRole("status", { name: "Import result" }).innerText(), { timeout: 30_000 })
      .toMatch(/^Added shared\. Not started: enable shared to start it\. Skipped fixture: A server named fixture already exists/);
    expect(await status("shared").innerText()).toBe("Disabled");
    await server("shared").getByRole("checkbox", { name: "Enabled" }).click();
    await expect.poll(() => status("shared").innerText(), { timeout: 30_000 }).toBe("Connected · 20 tools");
    expect(await server("shared").innerText()).toContain("(this project, stdio)");
    const listed = await call<{ servers: { id: string }[] }>(e2e.host, "mcp.list", {});
    expect(listed.servers.map((s) => s.id)).toEqual(["user/fixture"]);
  }, 120_000);

  test("a session loads a tool with tool_search; the dialog shows the server, its hints and the arguments", async () => {
    const h = sessionHelpers(page);
    e2e.host.services.hub.emit("app.command", { command: "new-session" });
    await h.transcript().waitFor();
    await h.send("clean up the records");
    await h.permission().waitFor({ timeout: 20_000 });
    const dialog = h.permission();
    expect(await dialog.getByRole("heading").innerText()).toBe(`Allow ${DELETE}: Call fixture/delete_everything (MCP server fixture)?`);
    expect(await dialog.getByLabel("MCP call").innerText()).toMatch(/Tool delete_everything of the MCP server fixture: Deletes every record\./);
    expect(await dialog.getByLabel("Server's hints").innerText()).toMatch(/The server says this tool is destructive \(a claim by the server, not checked by Lathe\)/);
    expect(await dialog.getByLabel("Arguments").innerText()).toBe("{}");
    expect(await dialog.innerText()).toMatch(/Always allow saves a rule for project .*: mcp\s+fixture\/delete_everything/);
    await page.screenshot({ path: join(shots, "permission-mcp.png") });
    await h.answer("y");
    await h.transcript().getByText("Result: deleted").waitFor({ timeout: 20_000 });
    await h.idle();
    const card = (name: string) => page.locator("section.card").filter({ has: page.locator(".card-head .name", { hasText: new RegExp(`^${name}$`) }) });
    expect(await card("tool_search").getAttribute("data-status")).toBe("done");
    expect(await card(DELETE).getAttribute("data-status")).toBe("done");
  }, 60_000);
});
