// MCP in sessions, through the IPC router as the renderer drives it, with the reference server
// from npm: tool_search finds and loads tools through addedToolNames (active from the next turn,
// the prompt before unchanged); reopening and forking rebuild the same active set; permissions
// (default ask, `mcp:` rules, deny beats allow, an answer saves rules for its own server only) and redaction apply to MCP calls; loadAllTools
// puts a small server's tools in new sessions from the start; abort cancels an MCP call.
import { afterEach, describe, expect, it } from "vitest";
import { createAppServices } from "../../app/main/app-services.ts";
import type { LlmContext } from "../../app/main/loop/index.ts";
import { noSecretStore } from "../../app/main/settings/settings-service.ts";
import type { AssistantMessage, ToolResultMessage } from "../../app/shared/agent-types.ts";
import type { PermissionRequest } from "../../app/shared/ipc/contract.ts";
import { startApp, type AppHarness } from "../support/app-harness.ts";
import { createScriptedModel, type ScriptStep } from "../../app/main/loop/test/scripted-model.ts";
import { EVERYTHING } from "./support/mcp-harness.ts";
import { fakeKeyring } from "./support/secrets.ts";

let app: AppHarness | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

const ECHO = "mcp__everything__echo";
const toolNames = (context: LlmContext) => (context.tools ?? []).map((t) => t.name);
const ended = (events: readonly { type: string }[] | undefined) => (events ?? []).filter((e) => e.type === "agent_end").length;
const resultText = (m: unknown) => (m as ToolResultMessage).content.map((c) => (c.type === "text" ? c.text : "")).join("");

async function withEverything(steps: ScriptStep[], server: Record<string, unknown> = {}, options: Parameters<typeof startApp>[0] = {}) {
  const h = await startApp({ steps, ...options });
  const imported = await h.call("mcp.import", { text: JSON.stringify({ mcpServers: { everything: { ...EVERYTHING, ...server } } }), scope: "user" });
  expect(imported).toMatchObject({ imported: ["everything"], skipped: [] });
  expect(imported.list.servers[0]!.status.state).toBe("connected");
  const project = await h.call("projects.open", { folder: h.projectDir });
  const session = await h.call("sessions.create", { projectId: project.id });
  return { h, session, project };
}

async function run(h: AppHarness, sessionId: number, text: string, runs: number) {
  await h.call("sessions.prompt", { sessionId, text });
  await h.waitFor(() => ended(h.sessionEvents.get(sessionId)) === runs, `run ${runs} to end`, 20_000);
  await h.waitFor(() => !h.services.sessions.isRunning(sessionId), "idle");
}

describe("MCP tools in sessions", () => {
  it("loads tools on demand: found and loaded by tool_search, usable from the next turn, the earlier prompt unchanged", async () => {
    const { h, session } = await withEverything([
      {
        toolCalls: [
          { name: ECHO, args: { message: "too early" } },
          { name: "tool_search", args: { query: "echo message" } },
        ],
      },
      { toolCalls: [{ name: "tool_search", args: { load: [ECHO] } }] },
      { toolCalls: [{ name: ECHO, args: { message: "hello" } }] },
      { text: "done" },
    ]);
    app = h;
    await h.call("settings.update", { permissionMode: "full-auto" });
    expect(session.baseToolNames).toContain("tool_search");
    expect(session.baseToolNames.some((n) => n.startsWith("mcp__"))).toBe(false);
    await run(h, session.id, "use the echo tool", 1);

    const [first, second, third, fourth] = h.scripted.requests.map((r) => r.context);
    expect(toolNames(first!)).toEqual([...session.baseToolNames]);
    expect(toolNames(second!)).toEqual(toolNames(first!));
    expect(toolNames(third!)).toEqual([...session.baseToolNames, ECHO]);
    expect(toolNames(fourth!)).toEqual(toolNames(third!));
    // Loading a tool changes nothing before it: same system prompt, same tool definitions first.
    expect(third!.systemPrompt).toBe(first!.systemPrompt);
    expect(first!.systemPrompt).toContain("- tool_search: Find and load tools from the user's MCP servers");
    expect(first!.systemPrompt).not.toContain("mcp__");
    expect(first!.systemPrompt).not.toContain("Echoes");

    const { opened } = await h.call("sessions.open", { sessionId: session.id });
    const results = opened.messages.filter((m) => m.role === "toolResult") as ToolResultMessage[];
    expect(resultText(results[0])).toBe(`Tool ${ECHO} not found`);
    expect(resultText(results[1])).toMatch(new RegExp(`1 tool match "echo message":\\n- ${ECHO}: Echoes back the input string \\[everything; read-only\\]`));
    expect(results[2]).toMatchObject({ addedToolNames: [ECHO] });
    expect(resultText(results[2])).toBe(`Loaded ${ECHO}. It can be called from your next turn on.`);
    expect(resultText(results[3])).toBe("Echo: hello");
    const loadedAt = opened.messages.indexOf(results[2]!);
    // The tools active after each message (the whole session, read in full), and at the end (what opening says).
    const active = h.services.store.openSession(session.id)!.activeToolNames;
    expect(active[loadedAt - 1]).not.toContain(ECHO);
    expect(active[loadedAt]).toContain(ECHO);
    expect(opened.activeToolNames).toEqual(active.at(-1));
    expect(opened.activeToolNames).toContain(ECHO);
  });

  it("reopening after a restart and forking rebuild the same active tools at every message", async () => {
    const { h, session } = await withEverything([{ toolCalls: [{ name: "tool_search", args: { load: [ECHO] } }] }, { text: "loaded" }]);
    app = h;
    await h.call("settings.update", { permissionMode: "full-auto" });
    await run(h, session.id, "load echo", 1);
    const before = (await h.call("sessions.open", { sessionId: session.id })).opened;
    const activeBefore = h.services.store.openSession(session.id)!.activeToolNames;
    const loadedAt = before.messages.findIndex((m) => m.role === "toolResult");
    await h.services.close();

    // A restart: new services on the same data; the server starts again.
    const scripted = createScriptedModel([{ toolCalls: [{ name: ECHO, args: { message: "after restart" } }] }, { text: "ok" }, { text: "forked early" }, { text: "forked late" }]);
    const reopened = createAppServices({ dataDir: h.dataDir, secrets: noSecretStore, host: "browser", version: "test", env: {}, streamFn: scripted.streamFn });
    h.services.close = async () => {};
    const events = new Map<number, number>();
    reopened.hub.add({ sessionEvent: (id, e) => void (e.type === "agent_end" && events.set(id, (events.get(id) ?? 0) + 1)), emit: () => {} });
    const call = async (name: string, params: unknown) => {
      const r = await reopened.router.handle(name, params);
      if (!r.ok) throw new Error(r.error.message);
      return r.data as never;
    };
    const waitRuns = async (id: number, n: number) => {
      const deadline = Date.now() + 20_000;
      while ((events.get(id) ?? 0) < n || reopened.sessions.isRunning(id)) {
        if (Date.now() > deadline) throw new Error("timed out");
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    try {
      const list = (await call("mcp.list", {})) as { servers: { status: { state: string } }[] };
      expect(["connecting", "connected"]).toContain(list.servers[0]!.status.state);
      await reopened.mcp.catalog.ready(before.session.projectId);
      const after = (await call("sessions.open", { sessionId: session.id })) as { opened: typeof before };
      expect(after.opened.activeToolNames).toEqual(before.activeToolNames);
      await call("settings.update", { permissionMode: "full-auto" });
      await call("sessions.prompt", { sessionId: session.id, text: "echo again" });
      await waitRuns(session.id, 1);
      expect(toolNames(scripted.requests[0]!.context)).toContain(ECHO);
      const messages = reopened.store.openSession(session.id)!.messages;
      expect(resultText(messages.findLast((m) => m.role === "toolResult"))).toBe("Echo: after restart");

      // A fork before the load (at the prompt) has only the base tools; a fork after it has echo too.
      const early = (await call("sessions.fork", { sessionId: session.id, position: 0 })) as { id: number };
      const late = (await call("sessions.fork", { sessionId: session.id, position: loadedAt })) as { id: number };
      expect(reopened.store.openSession(early.id)!.activeToolNames.at(-1)).not.toContain(ECHO);
      expect(reopened.store.openSession(late.id)!.activeToolNames).toEqual(activeBefore.slice(0, loadedAt + 1));
      await call("sessions.prompt", { sessionId: early.id, text: "early" });
      await waitRuns(early.id, 1);
      await call("sessions.prompt", { sessionId: late.id, text: "late" });
      await waitRuns(late.id, 1);
      expect(toolNames(scripted.requests[2]!.context)).not.toContain(ECHO);
      expect(toolNames(scripted.requests[3]!.context)).toContain(ECHO);
    } finally {
      await reopened.close();
    }
  });

  it("asks before an MCP call by default, with the server's hints; mcp: rules allow, and deny beats allow", async () => {
    const { h, session, project } = await withEverything(
      [
        { toolCalls: [{ name: "tool_search", args: { load: [ECHO, "mcp__everything__get-sum"] } }] },
        { toolCalls: [{ name: ECHO, args: { message: "first" } }] },
        { toolCalls: [{ name: ECHO, args: { message: "second" } }] },
        { toolCalls: [{ name: "mcp__everything__get-sum", args: { a: 1, b: 2 } }] },
        { text: "done" },
      ],
      { loadAllTools: false },
    );
    app = h;
    await h.call("permissions.addRule", { tool: "mcp", pattern: "everything/get-*", action: "allow", scope: "project", scopeId: project.id });
    await h.call("permissions.addRule", { tool: "mcp", pattern: "everything/get-sum", action: "deny", scope: "global" });
    await h.call("sessions.prompt", { sessionId: session.id, text: "go" });
    await h.waitFor(() => h.events.some((e) => e.event === "permission.request"), "a permission request");
    const request = h.events.find((e) => e.event === "permission.request")!.payload as PermissionRequest;
    expect(request).toMatchObject({
      toolName: ECHO,
      args: { message: "first" },
      summary: { title: "Call everything/echo (MCP server everything)", mcp: { server: "everything", tool: "echo", annotations: { readOnlyHint: true, destructiveHint: false } } },
      proposedRule: { tool: "mcp", pattern: "everything/echo" },
    });
    // An answer about everything/echo cannot save rules for another server's tools, nor for all tools.
    for (const pattern of ["everything/echo\ngithub/*", "*", "github/delete_repository"]) {
      await expect(h.call("permissions.respond", { requestId: request.id, decision: "allow-project", rule: { tool: "mcp", pattern } })).rejects.toThrow(
        /not for the MCP server everything/,
      );
    }
    expect((await h.call("permissions.rules", { projectId: project.id })).some((r) => !r.pattern.startsWith("everything/"))).toBe(false);
    await h.call("permissions.respond", { requestId: request.id, decision: "allow-project", rule: { tool: "mcp", pattern: "everything/echo" } });
    await h.waitFor(() => ended(h.sessionEvents.get(session.id)) === 1, "the run to end", 20_000);
    expect(h.events.filter((e) => e.event === "permission.request")).toHaveLength(1);
    const rules = await h.call("permissions.rules", { projectId: project.id });
    expect(rules.map((r) => `${r.action} ${r.tool}: ${r.pattern}`)).toEqual(expect.arrayContaining(["allow mcp: everything/echo", "deny mcp: everything/get-sum"]));
    const results = (await h.call("sessions.open", { sessionId: session.id })).opened.messages.filter((m) => m.role === "toolResult");
    expect(results.map(resultText).slice(1)).toEqual(["Echo: first", "Echo: second", 'Denied by the rule "mcp: everything/get-sum" (global).']);
  });

  it("redacts secrets from MCP results, the server's own configured values among them", async () => {
    const token = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB";
    const { h, session } = await withEverything(
      [{ toolCalls: [{ name: "tool_search", args: { load: ["mcp__everything__get-env"] } }] }, { toolCalls: [{ name: "mcp__everything__get-env", args: {} }] }, { text: "done" }],
      { env: { SERVICE_TOKEN: token, PLAIN_SECRET: "not-a-known-format-but-configured" } },
      { secrets: fakeKeyring },
    );
    app = h;
    await h.call("settings.update", { permissionMode: "full-auto" });
    await run(h, session.id, "show env", 1);
    const { opened } = await h.call("sessions.open", { sessionId: session.id });
    const text = resultText(opened.messages.findLast((m) => m.role === "toolResult"));
    expect(text).toContain("SERVICE_TOKEN");
    expect(text).not.toContain(token);
    expect(text).not.toContain("not-a-known-format-but-configured");
    expect(text).toMatch(/\[Lathe redacted .*configured secret/);
    expect(JSON.stringify(h.scripted.requests.at(-1)!.context.messages)).not.toContain(token);
    const view = (await h.call("mcp.list", {})).servers[0]!;
    expect(view.env).toEqual([
      { name: "SERVICE_TOKEN", encrypted: true },
      { name: "PLAIN_SECRET", encrypted: true },
    ]);
  });

  it("a server set to load all its tools up front puts them in new sessions from the first request", async () => {
    const { h, session } = await withEverything([{ text: "hi" }], { loadAllTools: true });
    app = h;
    expect(session.baseToolNames).toEqual(expect.arrayContaining(["tool_search", ECHO, "mcp__everything__get-sum"]));
    await run(h, session.id, "hello", 1);
    expect(toolNames(h.scripted.requests[0]!.context)).toEqual(session.baseToolNames);
  });

  it("Stop cancels a running MCP call and the run ends aborted", async () => {
    const { h, session } = await withEverything(
      [{ toolCalls: [{ name: "mcp__everything__trigger-long-running-operation", args: { duration: 60, steps: 60 } }] }, { text: "never" }],
      { loadAllTools: true },
    );
    app = h;
    await h.call("settings.update", { permissionMode: "full-auto" });
    await h.call("sessions.prompt", { sessionId: session.id, text: "long" });
    await h.waitFor(() => (h.sessionEvents.get(session.id) ?? []).some((e) => e.type === "tool_execution_update"), "a progress update", 20_000);
    await h.call("sessions.abort", { sessionId: session.id });
    await h.waitFor(() => ended(h.sessionEvents.get(session.id)) === 1, "the run to end", 10_000);
    const { opened } = await h.call("sessions.open", { sessionId: session.id });
    expect(resultText(opened.messages.find((m) => m.role === "toolResult"))).toMatch(/^Cancelled: the run was stopped before everything\/trigger-long-running-operation answered/);
    expect((opened.messages.at(-1) as AssistantMessage).stopReason).toBe("aborted");
  });
});
