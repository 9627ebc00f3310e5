// Nothing acts unsaved, nothing is lost at a quit: through the router, as a renderer drives it.
// Writes fail here through SQLite's page limit (max_page_count: a commit that needs a new page
// fails with SQLITE_FULL, as on a full disk); test/app/tmpfs.test.ts does the same on a real
// 2 MB tmpfs. Also: retry of a failed turn, delete with undo across a quit, rule edits in one
// transaction, terminal logs through tools.output, numbered snapshots.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentMessage, AssistantMessage, ToolResultMessage } from "../../app/shared/agent-types.ts";
import { createAppServices } from "../../app/main/app-services.ts";
import { noSecretStore } from "../../app/main/settings/settings-service.ts";
import { prepareMessages } from "../../app/main/providers/transform-messages.ts";
import { startApp, type AppHarness } from "../support/app-harness.ts";

let app: AppHarness | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

const ended = (events: readonly { type: string }[] | undefined) => (events ?? []).filter((e) => e.type === "agent_end").length;
const roles = (messages: AgentMessage[]) => messages.map((m) => m.role);
const errorNotices = (h: AppHarness) => h.events.filter((e) => e.event === "app.notice" && (e.payload as { level: string }).level === "error");

async function newSession(h: AppHarness) {
  await h.call("settings.update", { permissionMode: "full-auto" });
  const project = await h.call("projects.open", { folder: h.projectDir });
  return h.call("sessions.create", { projectId: project.id });
}

/** Every tool call has exactly one result, after it: the transcript is valid for a provider. */
function expectValidTranscript(messages: AgentMessage[]): void {
  messages.forEach((m, i) => {
    if (m.role === "toolResult") {
      const owner = messages.slice(0, i).findLast((x): x is AssistantMessage => x.role === "assistant");
      expect(
        owner?.content.some((b) => b.type === "toolCall" && b.id === m.toolCallId),
        `result ${m.toolCallId} has its call before it`,
      ).toBe(true);
    }
    if (m.role !== "assistant") return;
    for (const c of m.content.filter((b) => b.type === "toolCall")) {
      expect(messages.filter((r) => r.role === "toolResult" && r.toolCallId === c.id)).toHaveLength(1);
    }
  });
}

describe("durable before acting", () => {
  it("runs no tool for an assistant message that could not be stored; one notice; resumes once there is room", async () => {
    let fill = () => {};
    app = await startApp({
      steps: [
        // The model is asked after the prompt is stored; the disk fills before its answer is saved.
        () => {
          fill();
          return {
            text: `I will touch the marker. ${"(a long explanation) ".repeat(1000)}`,
            toolCalls: [{ name: "bash", args: { command: "echo ran >> marker.txt" } }],
            chunkSize: Infinity,
          };
        },
        { text: "Touching it now.", toolCalls: [{ name: "bash", args: { command: "echo ran >> marker.txt" } }], chunkSize: Infinity },
        { text: "Done." },
      ],
    });
    const h = app;
    const db = h.services.store.db;
    fill = () => db.pragma(`max_page_count = ${db.pragma("page_count", { simple: true }) as number}`);
    const session = await newSession(h);
    await h.call("sessions.prompt", { sessionId: session.id, text: "touch the marker" });
    await h.waitFor(() => ended(h.sessionEvents.get(session.id)) === 1, "the stopped run");
    await h.waitFor(() => !h.services.sessions.isRunning(session.id), "idle");

    const marker = path.join(h.projectDir, "marker.txt");
    expect(existsSync(marker)).toBe(false);
    expect(errorNotices(h)).toHaveLength(1);
    const notice = (errorNotices(h)[0]!.payload as { message: string }).message;
    expect(notice).toMatch(/Lathe could not save session \d+ .*the disk holding .* is full\. The run was stopped, so nothing runs unsaved/);
    expect(notice).toMatch(/Free at least \d+(\.\d)? (KB|MB) there \(.* free now\)\./);
    // Only the prompt reached the store; the view still has everything, in order.
    expect(roles(h.services.store.readMessages(session.id))).toEqual(["user"]);
    const { opened } = await h.call("sessions.open", { sessionId: session.id });
    expect(roles(opened.messages)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect((opened.messages[2] as ToolResultMessage).content[0]).toMatchObject({ text: expect.stringMatching(/^Not run: Lathe could not save/) });
    expect((opened.messages[3] as AssistantMessage).stopReason).toBe("aborted");
    // A new prompt is refused with the same explanation while nothing can be written.
    const refused = await h.raw("sessions.prompt", { sessionId: session.id, text: "again" });
    expect(refused).toMatchObject({ ok: false, error: { code: "unavailable", message: notice } });
    expect(errorNotices(h)).toHaveLength(1);

    db.pragma("max_page_count = 1073741823");
    await h.waitFor(() => h.events.some((e) => e.event === "app.notice" && /is saved again/.test((e.payload as { message: string }).message)), "the recovery", 10_000);
    const stored = h.services.store.readMessages(session.id);
    expect(roles(stored)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expectValidTranscript(stored);

    // Retry: the stopped turn runs again; now the call is stored first, then runs.
    await h.call("sessions.retry", { sessionId: session.id });
    await h.waitFor(() => ended(h.sessionEvents.get(session.id)) === 2, "the retried run");
    await h.waitFor(() => !h.services.sessions.isRunning(session.id), "idle");
    expect(readFileSync(marker, "utf8")).toBe("ran\n");
    const final = h.services.store.readMessages(session.id);
    expect(roles(final)).toEqual(["user", "assistant", "toolResult", "assistant", "assistant", "toolResult", "assistant"]);
    expectValidTranscript(final);
    expect(errorNotices(h)).toHaveLength(1);
  });
});

describe("failed turns", () => {
  it("retries the last failed turn: the partial answer stays in the transcript and is not sent", async () => {
    app = await startApp({
      steps: [{ text: "Half an answer", error: "The connection to Local was lost mid-answer; the part that had arrived is kept." }, { text: "A whole answer." }],
    });
    const h = app;
    const session = await newSession(h);
    await h.call("sessions.prompt", { sessionId: session.id, text: "explain" });
    await h.waitFor(() => ended(h.sessionEvents.get(session.id)) === 1, "the failed run");
    await h.waitFor(() => !h.services.sessions.isRunning(session.id), "idle");
    await h.call("sessions.retry", { sessionId: session.id });
    await h.waitFor(() => ended(h.sessionEvents.get(session.id)) === 2, "the retry");
    await h.waitFor(() => !h.services.sessions.isRunning(session.id), "idle");
    const stored = h.services.store.readMessages(session.id);
    expect(roles(stored)).toEqual(["user", "assistant", "assistant"]);
    expect(stored[1]).toMatchObject({ stopReason: "error", content: [{ type: "text", text: "Half an answer" }] });
    expect(stored[2]).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "A whole answer." }] });
    // What every provider adapter sends (prepareMessages drops failed answers).
    const resent = prepareMessages(h.scripted.requests[1]!.context.messages);
    expect(JSON.stringify(resent)).not.toContain("Half an answer");
    expect(resent.map((m) => m.role)).toEqual(["user"]);
    // Nothing to retry after a good answer.
    expect(await h.raw("sessions.retry", { sessionId: session.id })).toMatchObject({ ok: false, error: { message: expect.stringMatching(/nothing to retry/) } });
  });

  it("keeps the stall limit as a setting, 120 s by default", async () => {
    app = await startApp();
    expect((await app.call("settings.get", {})).stallTimeoutSeconds).toBe(120);
    expect((await app.call("settings.update", { stallTimeoutSeconds: 45 })).stallTimeoutSeconds).toBe(45);
    expect(app.services.settings.stallTimeoutSeconds).toBe(45);
    expect((await app.raw("settings.update", { stallTimeoutSeconds: 2 })).ok).toBe(false);
  });
});

describe("nothing lost at a quit", () => {
  it("a delete is stored at once: a quit in the undo window keeps the delete and the session; purged later", async () => {
    app = await startApp({ steps: [{ text: "kept answer" }] });
    const h = app;
    const session = await newSession(h);
    await h.call("sessions.prompt", { sessionId: session.id, text: "remember me" });
    await h.waitFor(() => ended(h.sessionEvents.get(session.id)) === 1, "the run");
    await h.waitFor(() => !h.services.sessions.isRunning(session.id), "idle");
    await h.call("sessions.delete", { sessionId: session.id });
    expect((await h.call("sessions.list", {})).sessions.map((s) => s.id)).not.toContain(session.id);
    // Quit during the undo window.
    await h.services.close();
    h.services.close = async () => {};

    const reopen = (purgeAfterMs?: number) =>
      createAppServices({ dataDir: h.dataDir, secrets: noSecretStore, host: "browser", version: "test", env: {}, streamFn: h.scripted.streamFn, purgeAfterMs });
    const again = reopen();
    try {
      expect((await again.router.handle("sessions.list", {})) as { data: { sessions: unknown[] } }).toMatchObject({ ok: true, data: { sessions: [] } });
      expect(await again.router.handle("sessions.open", { sessionId: session.id })).toMatchObject({ ok: false, error: { code: "not-found" } });
      expect(await again.router.handle("sessions.search", { query: "remember" })).toMatchObject({ ok: true, data: { hits: [] } });
      // Undo still works after the restart: the session and its messages are all there.
      expect(await again.router.handle("sessions.restore", { sessionId: session.id })).toMatchObject({ ok: true, data: { id: session.id, messageCount: 2 } });
      expect(again.store.readMessages(session.id).map((m) => m.role)).toEqual(["user", "assistant"]);
      expect(await again.router.handle("sessions.delete", { sessionId: session.id })).toMatchObject({ ok: true });
    } finally {
      await again.close();
    }
    // Past the undo period it is removed for good.
    await new Promise((resolve) => setTimeout(resolve, 30));
    const later = reopen(10);
    try {
      expect(later.store.db.prepare("SELECT count(*) FROM sessions WHERE id = ?").pluck().get(session.id)).toBe(0);
      expect(later.store.readMessages(session.id)).toEqual([]);
      expect(await later.router.handle("sessions.restore", { sessionId: session.id })).toMatchObject({ ok: false, error: { code: "not-found" } });
    } finally {
      await later.close();
    }
  });

  it("edits a permission rule in one transaction: a failed edit leaves the old rule", async () => {
    app = await startApp();
    const rule = await app.call("permissions.addRule", { tool: "bash", pattern: "npm test", action: "allow", scope: "global" });
    const edited = await app.call("permissions.updateRule", { id: rule.id, pattern: "npm run test" });
    expect(edited).toMatchObject({ tool: "bash", pattern: "npm run test", action: "allow" });
    expect((await app.call("permissions.rules", {})).map((r) => r.pattern)).toEqual(["npm run test"]);
    app.services.store.db.exec("CREATE TEMP TRIGGER no_new_rules BEFORE INSERT ON permission_rules BEGIN SELECT RAISE(ABORT, 'injected failure'); END");
    expect((await app.raw("permissions.updateRule", { id: edited.id, action: "deny" })).ok).toBe(false);
    expect(await app.call("permissions.rules", {})).toEqual([edited]);
  });

  it("stores each command's terminal output with the call, colours included, and serves it on reopen", async () => {
    app = await startApp({
      steps: [{ toolCalls: [{ name: "bash", args: { command: "printf '\\033[31mred-line\\033[0m\\n'; echo plain-line" } }] }, { text: "ok" }],
    });
    const h = app;
    const session = await newSession(h);
    await h.call("sessions.prompt", { sessionId: session.id, text: "colours" });
    await h.waitFor(() => ended(h.sessionEvents.get(session.id)) === 1, "the run");
    const { opened } = await h.call("sessions.open", { sessionId: session.id });
    const callId = (opened.messages[1] as AssistantMessage).content.find((b) => b.type === "toolCall")!.id;
    expect(opened.outputs.map((o) => o.toolCallId)).toEqual([callId]);
    const output = await h.call("tools.output", { sessionId: session.id, toolCallId: callId });
    expect(output.text).toContain("\x1b[31mred-line\x1b[0m");
    expect(output.text).toContain("plain-line");
    expect(output.truncated).toBe(false);
    expect(await h.raw("tools.output", { sessionId: session.id, toolCallId: "nope" })).toMatchObject({ ok: false, error: { code: "not-found" } });
  });
});

describe("numbered snapshots", () => {
  it("sessions.open says which event it reflects and what is live: the streaming answer", async () => {
    app = await startApp({ steps: [{ text: "a slowly streamed answer", deltaDelayMs: 30, chunkSize: 2 }] });
    const h = app;
    const session = await newSession(h);
    const first = await h.call("sessions.open", { sessionId: session.id });
    expect(first.seq).toBe(0);
    expect(first.live).toBeNull();
    await h.call("sessions.prompt", { sessionId: session.id, text: "stream" });
    await h.waitFor(() => (h.sessionEvents.get(session.id) ?? []).filter((e) => e.type === "message_update").length >= 3, "streaming");
    const mid = await h.call("sessions.open", { sessionId: session.id });
    expect(mid.seq).toBe(h.services.hub.seqOf(session.id));
    expect(mid.seq).toBe(h.sessionEvents.get(session.id)!.length);
    expect(mid.live?.streaming?.content[0]).toMatchObject({ type: "text", text: expect.stringMatching(/^a s/) });
    expect(roles(mid.opened.messages)).toEqual(["user"]);
    await h.waitFor(() => ended(h.sessionEvents.get(session.id)) === 1, "the run");
  });
});
