// The settings screen's MCP requests through the router: list with status and tools, import from
// pasted JSON and from Claude's files, project servers shadowing user servers, disable and enable
// (a session's tools follow), restart, remove, and the refusals a hostile or mistaken request gets.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startApp, type AppHarness } from "../support/app-harness.ts";
import { FIXTURE } from "./support/mcp-harness.ts";

let app: AppHarness | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

const paste = (servers: Record<string, unknown>) => JSON.stringify({ mcpServers: servers });

describe("MCP settings requests", () => {
  it("imports pasted servers, lists their status and tools, and emits a change event per step", async () => {
    app = await startApp();
    const result = await app.call("mcp.import", { text: paste({ fixture: FIXTURE, "bad one": { type: "sse", url: "http://x" } }), scope: "user" });
    expect(result.imported).toEqual(["fixture"]);
    expect(result.skipped).toEqual([{ name: "bad one", reason: expect.stringMatching(/SSE transport/) }]);
    const server = result.list.servers[0]!;
    expect(server).toMatchObject({
      id: "user/fixture",
      scope: "user",
      projectId: null,
      transport: "stdio",
      command: process.execPath,
      disabled: false,
      loadAllTools: false,
      timeoutMs: 60_000,
    });
    expect(server.status).toMatchObject({ state: "connected", toolCount: 20 });
    expect(server.status.stderrTail).toMatch(/fixture server starting/);
    expect(server.tools.find((t) => t.name === "delete_everything")).toMatchObject({ modelName: "mcp__fixture__delete_everything", annotations: { destructiveHint: true } });
    expect(server.tools.find((t) => t.name === "bad_schema")!.error).toMatch(/not valid JSON Schema/);
    const changes = app.events.filter((e) => e.event === "mcp.changed").map((e) => (e.payload as { id: string }).id);
    expect(changes.length).toBeGreaterThanOrEqual(2);
    expect(new Set(changes)).toEqual(new Set(["user/fixture"]));
  });

  it("refuses what is not a configuration, unknown servers and unknown fields", async () => {
    app = await startApp();
    expect(await app.raw("mcp.import", { text: "{ nope", scope: "user" })).toMatchObject({
      ok: false,
      error: { code: "invalid-request", message: expect.stringMatching(/not valid JSON/) },
    });
    expect(await app.raw("mcp.import", { scope: "user" })).toMatchObject({ ok: false, error: { code: "invalid-request" } });
    expect(await app.raw("mcp.import", { text: paste({ a: { command: "x" } }), scope: "project" })).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/needs an open project/) },
    });
    expect(await app.raw("mcp.import", { text: "{}", scope: "user", extra: 1 })).toMatchObject({
      ok: false,
      error: { code: "invalid-request", message: expect.stringMatching(/extra/) },
    });
    expect(await app.raw("mcp.restart", { id: "user/none" })).toMatchObject({ ok: false, error: { code: "not-found" } });
    expect(await app.raw("mcp.update", { id: "user/none", disabled: true })).toMatchObject({ ok: false, error: { code: "not-found" } });
    expect(await app.raw("mcp.import", { path: path.join(app.projectDir, "missing.json"), scope: "user" })).toMatchObject({
      ok: false,
      error: { code: "not-found", message: expect.stringMatching(/There is no file/) },
    });
  });

  it("finds and imports Claude Code's configurations, showing what each server runs; a project's file replaces a server only when confirmed, and its servers start only when enabled", async () => {
    const home = path.join(process.env.TMPDIR ?? "/tmp", `lathe-home-${process.pid}-${Date.now()}`);
    app = await startApp({ env: { HOME: home } });
    const project = await app.call("projects.open", { folder: app.projectDir });
    mkdirSync(home, { recursive: true });
    writeFileSync(path.join(home, ".claude.json"), JSON.stringify({ mcpServers: { tools: { ...FIXTURE, env: { WHO: "user" } } } }));
    writeFileSync(
      path.join(app.projectDir, ".mcp.json"),
      JSON.stringify({ mcpServers: { tools: { ...FIXTURE, env: { WHO: "project" } }, other: { command: "x", disabled: true } } }),
    );
    await app.call("mcp.import", { path: "~/.claude.json", scope: "user" });
    const found = await app.call("mcp.findConfigs", { projectId: project.id });
    expect(found.map((f) => [f.label, f.servers, f.localProject, f.fromProject])).toEqual([
      ["Claude Code (user servers)", ["tools"], false, false],
      ["This project's .mcp.json", ["tools", "other"], false, true],
    ]);
    // What each server runs, its env names (never values), and that "tools" would replace the user's server.
    expect(found[1]!.details).toEqual([
      {
        name: "tools",
        transport: "stdio",
        command: FIXTURE.command,
        args: FIXTURE.args,
        envNames: ["WHO"],
        headerNames: [],
        variables: [],
        secretVariables: [],
        existing: "for every project",
      },
      { name: "other", transport: "stdio", command: "x", envNames: [], headerNames: [], variables: [], secretVariables: [] },
    ]);
    const projectFile = { path: path.join(app.projectDir, ".mcp.json"), scope: "project" as const, projectId: project.id };
    // Never replaced silently: without confirmation "tools" is skipped, and nothing from the file starts.
    const first = await app.call("mcp.import", projectFile);
    expect(first.imported).toEqual(["other"]);
    expect(first.skipped).toEqual([{ name: "tools", reason: "A server named tools already exists (for every project): Lathe replaces it only when you confirm the replacement." }]);
    const imported = await app.call("mcp.import", { ...projectFile, replace: ["tools"] });
    expect(imported.list.servers.map((s) => [s.id, s.status.state])).toEqual([
      ["user/tools", "connected"],
      [`project/${project.id}/other`, "disabled"],
      [`project/${project.id}/tools`, "disabled"],
    ]);
    const enabled = await app.call("mcp.update", { id: `project/${project.id}/tools`, disabled: false, projectId: project.id });
    expect(enabled.servers.map((s) => [s.id, s.status.state])).toEqual([
      ["user/tools", "connected"],
      [`project/${project.id}/other`, "disabled"],
      [`project/${project.id}/tools`, "connected"],
    ]);
    expect((await app.call("mcp.list", {})).servers.map((s) => s.id)).toEqual(["user/tools"]);
    const scope = { sessionId: 1, projectId: project.id, projectDir: app.projectDir };
    const envTool = app.services.mcp.externalTools(scope, []).filter((t) => t.name === "mcp__tools__env_token");
    expect(envTool).toHaveLength(1);
    const text = (await envTool[0]!.execute("1", {}, undefined, undefined)).content[0] as { text: string };
    expect(text.text).toMatch(/^token=\(none\) who=project /);
    const described = app.services.mcp.describeTool("mcp__tools__env_token");
    expect(described).toMatchObject({ server: "tools", tool: "env_token" });
    rmHome(home);
  });

  it("disabling a server stops it and turns its tools in sessions into stand-ins; enabling brings them back", async () => {
    app = await startApp();
    const project = await app.call("projects.open", { folder: app.projectDir });
    await app.call("mcp.import", { text: paste({ fixture: FIXTURE }), scope: "user" });
    const scope = { sessionId: 1, projectId: project.id, projectDir: app.projectDir };
    const echo = () => app!.services.mcp.externalTools(scope, ["mcp__fixture__echo"]).find((t) => t.name === "mcp__fixture__echo")!;
    expect(echo().description).toBe("Echoes the text back.\nSecond line of the description.");
    const disabled = await app.call("mcp.update", { id: "user/fixture", disabled: true });
    expect(disabled.servers[0]).toMatchObject({ disabled: true, status: { state: "disabled" } });
    await expect(echo().execute("1", { text: "x" }, undefined, undefined)).rejects.toThrow(/not configured for this project \(any more\), or is disabled/);
    const enabled = await app.call("mcp.update", { id: "user/fixture", disabled: false, loadAllTools: true, timeoutMs: 5 });
    expect(enabled.servers[0]).toMatchObject({ disabled: false, loadAllTools: true, timeoutMs: 1_000, status: { state: "connected" } });
    expect(((await echo().execute("1", { text: "back" }, undefined, undefined)).content[0] as { text: string }).text).toBe("echo: back");
  });

  it("restarts a server (a new process) and removes one (its process stops)", async () => {
    app = await startApp();
    const project = await app.call("projects.open", { folder: app.projectDir });
    await app.call("mcp.import", { text: paste({ fixture: FIXTURE }), scope: "user" });
    const scope = { sessionId: 1, projectId: project.id, projectDir: app.projectDir };
    const pid = async () => {
      const tool = app!.services.mcp.externalTools(scope, []).find((t) => t.name === "mcp__fixture__pid")!;
      return Number(((await tool.execute("1", {}, undefined, undefined)).content[0] as { text: string }).text);
    };
    const first = await pid();
    const restarted = await app.call("mcp.restart", { id: "user/fixture" });
    expect(restarted.servers[0]!.status.state).toBe("connected");
    const second = await pid();
    expect(second).not.toBe(first);
    expect(alive(first)).toBe(false);
    expect((await app.call("mcp.remove", { id: "user/fixture" })).servers).toEqual([]);
    await app.waitFor(() => !alive(second), "the removed server's process to end", 10_000);
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function rmHome(home: string): void {
  void import("node:fs").then((fs) => fs.rmSync(home, { recursive: true, force: true }));
}
