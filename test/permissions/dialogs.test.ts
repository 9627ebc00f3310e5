// Permissions end to end through the router: dialogs as events, answers, scoped grants, denial
// reasons reaching the model, abort while a dialog is open, redaction and the audit log.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { computePool } from "../../app/main/workers/compute-pool.ts";
import type { ToolResultMessage } from "../../app/shared/agent-types.ts";
import type { PermissionRequest } from "../../app/shared/ipc/contract.ts";
import { startApp, type AppHarness } from "../support/app-harness.ts";
import type { ScriptStep } from "../../app/main/loop/test/scripted-model.ts";

let app: AppHarness | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

const requestsOf = (h: AppHarness) => h.events.filter((e) => e.event === "permission.request").map((e) => e.payload as PermissionRequest);
const ended = (events: readonly { type: string }[] | undefined) => (events ?? []).filter((e) => e.type === "agent_end").length;
const textOf = (m: ToolResultMessage) => m.content.map((c) => (c.type === "text" ? c.text : "")).join("");

async function run(steps: ScriptStep[], prompt = "go", options: Parameters<typeof startApp>[0] = {}) {
  app = await startApp({ steps, permissionMode: "ask", ...options });
  const project = await app.call("projects.open", { folder: app.projectDir });
  const session = await app.call("sessions.create", { projectId: project.id });
  await app.call("sessions.prompt", { sessionId: session.id, text: prompt });
  return { h: app, session, project };
}

async function nextRequest(h: AppHarness, count: number): Promise<PermissionRequest> {
  await h.waitFor(() => requestsOf(h).length >= count, `permission request #${count}`);
  return requestsOf(h)[count - 1]!;
}

/** The session's tool_call_phase events as "callId:phase[:reason]". */
function phases(h: AppHarness, sessionId: number): string[] {
  return (h.sessionEvents.get(sessionId) ?? []).flatMap((e) => (e.type === "tool_call_phase" ? [`${e.toolCallId}:${e.phase}${e.reason ? `:${e.reason}` : ""}`] : []));
}

async function results(h: AppHarness, sessionId: number): Promise<ToolResultMessage[]> {
  const { opened } = await h.call("sessions.open", { sessionId });
  return opened.messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
}

describe("permission dialogs", () => {
  // A dialog's diff gets PREVIEW_TIMEOUT_MS (2 s), counted from the request; the pool's first job
  // also starts its worker thread, which on a loaded machine can take longer than that. Start it
  // beforehand, so the test that expects a diff measures the diff (the worker stays 30 s idle).
  beforeAll(async () => {
    await computePool()
      .run({ kind: "fileDiff", path: path.join(import.meta.dirname, "no-such-file"), shown: "x", content: "x", oldName: "a/x", newName: "b/x" }, { timeoutMs: 120_000 })
      .catch(() => undefined);
  });

  it("asks before bash, shows the exact command, runs it once allowed", async () => {
    const { h, session } = await run([{ toolCalls: [{ name: "bash", args: { command: "echo hello from bash" } }] }, { text: "done" }]);
    const request = await nextRequest(h, 1);
    expect(request).toMatchObject({
      sessionId: session.id,
      toolName: "bash",
      summary: { title: "Run a command", command: "echo hello from bash" },
      proposedRule: { tool: "bash", pattern: "echo *" },
    });
    expect((await h.call("sessions.state", { sessionId: session.id })).pendingPermissions.map((p) => p.id)).toEqual([request.id]);
    // A reloaded renderer finds the request still pending.
    expect((await h.call("permissions.pending", {})).map((p) => p.id)).toEqual([request.id]);
    await h.call("permissions.respond", { requestId: request.id, decision: "allow-once" });
    await h.waitFor(() => ended(h.sessionEvents.get(session.id)) === 1, "the run");
    const [result] = await results(h, session.id);
    expect(result!.isError).toBe(false);
    expect(textOf(result!)).toContain("hello from bash");
    // Answering again is refused, as is an unknown request.
    expect(await h.raw("permissions.respond", { requestId: request.id, decision: "allow-once" })).toMatchObject({ ok: false, error: { code: "not-found" } });
    expect(await h.raw("permissions.respond", { requestId: "no-such-request", decision: "deny" })).toMatchObject({ ok: false, error: { code: "not-found" } });
    expect(h.events.some((e) => e.event === "permission.resolved" && (e.payload as { requestId: string }).requestId === request.id)).toBe(true);
  });

  it("shows an edit's diff; a denial's reason goes back to the model and nothing is written", async () => {
    const steps: ScriptStep[] = [{ toolCalls: [{ name: "edit", args: { path: "notes.txt", edits: [{ oldText: "alpha", newText: "beta" }] } }] }, { text: "understood" }];
    app = await startApp({ steps, permissionMode: "ask" });
    writeFileSync(path.join(app.projectDir, "notes.txt"), "one\nalpha\nthree\n");
    const project = await app.call("projects.open", { folder: app.projectDir });
    const session = await app.call("sessions.create", { projectId: project.id });
    await app.call("sessions.prompt", { sessionId: session.id, text: "rename alpha" });
    const request = await nextRequest(app, 1);
    expect(request.summary).toMatchObject({ title: "Edit notes.txt", path: "notes.txt", outsideProject: false });
    expect(request.summary.diff).toMatch(/^--- a\/notes.txt\n\+\+\+ b\/notes.txt\n@@ /);
    expect(request.summary.diff).toContain("-alpha");
    expect(request.summary.diff).toContain("+beta");
    await app.call("permissions.respond", { requestId: request.id, decision: "deny", reason: "keep alpha, it is a product name" });
    await app.waitFor(() => ended(app!.sessionEvents.get(session.id)) === 1, "the run");
    const [result] = await results(app, session.id);
    expect(result).toMatchObject({ isError: true });
    expect(textOf(result!)).toBe("The user denied this call: keep alpha, it is a product name");
    const sentToModel = app.scripted.requests[1]!.context.messages.find((m) => m.role === "toolResult") as ToolResultMessage;
    expect(textOf(sentToModel)).toContain("keep alpha, it is a product name");
    expect(readFileSync(path.join(app.projectDir, "notes.txt"), "utf8")).toBe("one\nalpha\nthree\n");
  });

  it("asks a batch's calls together, in source order; each answer applies when its call's turn comes", async () => {
    const { h, session } = await run([
      {
        toolCalls: [
          { name: "bash", id: "first", args: { command: "echo 1" } },
          { name: "ls", id: "listing", args: {} },
          { name: "bash", id: "second", args: { command: "echo 2" } },
          { name: "bash", id: "third", args: { command: "echo 3" } },
        ],
      },
      { text: "ok" },
    ]);
    await nextRequest(h, 3);
    await new Promise((r) => setTimeout(r, 100));
    const asked = requestsOf(h);
    expect(asked.map((r) => r.toolCallId)).toEqual(["first", "second", "third"]);
    const batchId = asked[0]!.batch!.id;
    expect(asked.map((r) => r.batch)).toEqual([
      { id: batchId, position: 0, asking: 3 },
      { id: batchId, position: 2, asking: 3 },
      { id: batchId, position: 3, asking: 3 },
    ]);
    // A reloaded window finds the whole batch pending.
    expect((await h.call("permissions.pending", {})).map((p) => p.toolCallId)).toEqual(["first", "second", "third"]);
    // Answered out of order: the last first. Nothing runs before the first call's answer.
    await h.call("permissions.respond", { requestId: asked[2]!.id, decision: "deny", reason: "not three" });
    await h.call("permissions.respond", { requestId: asked[1]!.id, decision: "allow-once" });
    await new Promise((r) => setTimeout(r, 100));
    expect(phases(h, session.id)).toEqual([]);
    await h.call("permissions.respond", { requestId: asked[0]!.id, decision: "allow-once" });
    await h.waitFor(() => ended(h.sessionEvents.get(session.id)) === 1, "the run");
    expect(requestsOf(h)).toHaveLength(3);
    const r = await results(h, session.id);
    expect(r.map((x) => [x.toolCallId, x.isError])).toEqual([
      ["first", false],
      ["listing", false],
      ["second", false],
      ["third", true],
    ]);
    expect(textOf(r[3]!)).toBe("The user denied this call: not three");
    // The session says when each call began executing, and which one a decision denied.
    expect(phases(h, session.id).sort()).toEqual(["first:executing", "listing:executing", "second:executing", "third:denied:The user denied this call: not three"]);
  });

  it("allow all of these once answers the whole batch with one request", async () => {
    const calls = [0, 1, 2].map((i) => ({ name: "bash", id: `c${i}`, args: { command: `sleep 0.${i}; echo done-${i}` } }));
    const { h, session } = await run([{ toolCalls: calls }, { text: "ok" }]);
    await nextRequest(h, 3);
    const [first] = requestsOf(h);
    // One line per part, never one rule glued across them.
    expect(first!.proposedRule.pattern).toBe("sleep *\necho *");
    expect(await h.call("permissions.respondBatch", { batchId: first!.batch!.id, decision: "allow-once" })).toEqual({ answered: 3 });
    await h.waitFor(() => ended(h.sessionEvents.get(session.id)) === 1, "the run");
    expect((await results(h, session.id)).map((x) => x.isError)).toEqual([false, false, false]);
    expect(await h.raw("permissions.respondBatch", { batchId: first!.batch!.id, decision: "deny" })).toMatchObject({ ok: false, error: { code: "not-found" } });
  });

  it("an always-allow answer closes the batch's other questions its rules now cover", async () => {
    const calls = [0, 1, 2].map((i) => ({ name: "bash", id: `c${i}`, args: { command: `sleep 0.${i}; echo done-${i}` } }));
    const { h, session, project } = await run([{ toolCalls: calls }, { text: "ok" }]);
    await nextRequest(h, 3);
    const asked = requestsOf(h);
    await h.call("permissions.respond", { requestId: asked[1]!.id, decision: "allow-project" });
    const resolved = h.events.filter((e) => e.event === "permission.resolved").map((e) => e.payload as { requestId: string; decision: string });
    expect(resolved.map((r) => [asked.findIndex((a) => a.id === r.requestId), r.decision]).sort()).toEqual([
      [0, "covered"],
      [1, "allow-project"],
      [2, "covered"],
    ]);
    expect(await h.call("permissions.pending", {})).toEqual([]);
    await h.waitFor(() => ended(h.sessionEvents.get(session.id)) === 1, "the run");
    expect((await results(h, session.id)).map((x) => x.isError)).toEqual([false, false, false]);
    const rules = await h.call("permissions.rules", { projectId: project.id });
    expect(rules.map((x) => x.pattern).sort()).toEqual(["echo *", "sleep *"]);
  });

  it("a kept answer is not used when its call is judged differently at its turn: a new deny rule wins", async () => {
    const { h, session, project } = await run([
      {
        toolCalls: [
          { name: "bash", id: "a", args: { command: "echo a" } },
          { name: "bash", id: "b", args: { command: "touch b.txt" } },
        ],
      },
      { text: "ok" },
    ]);
    await nextRequest(h, 2);
    const asked = requestsOf(h);
    await h.call("permissions.respond", { requestId: asked[1]!.id, decision: "allow-once" });
    await h.call("permissions.addRule", { tool: "bash", pattern: "touch *", action: "deny", scope: "project", scopeId: project.id });
    await h.call("permissions.respond", { requestId: asked[0]!.id, decision: "allow-once" });
    await h.waitFor(() => ended(h.sessionEvents.get(session.id)) === 1, "the run");
    const r = await results(h, session.id);
    expect(r.map((x) => x.isError)).toEqual([false, true]);
    expect(textOf(r[1]!)).toMatch(/Denied by the rule "bash: touch \*"/);
    expect(() => readFileSync(path.join(h.projectDir, "b.txt"))).toThrow();
  });

  it("stopping the run closes every question of the batch", async () => {
    const { h, session } = await run([
      {
        toolCalls: [
          { name: "bash", args: { command: "touch x1" } },
          { name: "bash", args: { command: "touch x2" } },
        ],
      },
      { text: "never" },
    ]);
    await nextRequest(h, 2);
    await h.call("sessions.abort", { sessionId: session.id });
    await h.waitFor(() => ended(h.sessionEvents.get(session.id)) === 1, "the run to end");
    const resolved = h.events.filter((e) => e.event === "permission.resolved").map((e) => (e.payload as { decision: string }).decision);
    expect(resolved).toEqual(["aborted", "aborted"]);
    expect(await h.call("permissions.pending", {})).toEqual([]);
    expect(phases(h, session.id)[0]).toMatch(/:stopped:The run was aborted/);
  });

  it("allow for this session and always allow in this project save scoped rules", async () => {
    const { h, session, project } = await run([
      { toolCalls: [{ name: "bash", args: { command: "echo a" } }] },
      { toolCalls: [{ name: "bash", args: { command: "echo b" } }] },
      { toolCalls: [{ name: "bash", args: { command: "printf b" } }] },
      { toolCalls: [{ name: "bash", args: { command: "npm run lint" } }] },
      { toolCalls: [{ name: "bash", args: { command: "npm run lint --fix" } }] },
      { text: "ok" },
    ]);
    const first = await nextRequest(h, 1);
    expect(first.proposedRule.pattern).toBe("echo *");
    await h.call("permissions.respond", { requestId: first.id, decision: "allow-session" });
    // "echo b" runs under the session rule "echo *" without a question.
    const second = await nextRequest(h, 2);
    expect(second.summary.command).toBe("printf b");
    await h.call("permissions.respond", { requestId: second.id, decision: "allow-project", rule: { tool: "bash", pattern: "printf *" } });
    const third = await nextRequest(h, 3);
    expect(third.proposedRule).toMatchObject({ tool: "bash", pattern: "npm run *" });
    await h.call("permissions.respond", { requestId: third.id, decision: "allow-project" });
    await h.waitFor(() => ended(h.sessionEvents.get(session.id)) === 1, "the run");
    expect(requestsOf(h)).toHaveLength(3); // "npm run lint --fix" ran under the saved rule
    const sessionRules = await h.call("permissions.rules", { sessionId: session.id });
    expect(sessionRules.filter((r) => r.scope === "session").map((r) => r.pattern)).toEqual(["echo *"]);
    const projectRules = await h.call("permissions.rules", { projectId: project.id });
    expect(
      projectRules
        .filter((r) => r.scope === "project")
        .map((r) => r.pattern)
        .sort(),
    ).toEqual(["npm run *", "printf *"]);
    // Rules can be edited and revoked.
    const printfRule = projectRules.find((r) => r.pattern === "printf *")!;
    const edited = await h.call("permissions.updateRule", { id: printfRule.id, action: "deny" });
    expect(edited).toMatchObject({ pattern: "printf *", action: "deny", scope: "project" });
    await h.call("permissions.removeRule", { id: edited.id });
    expect((await h.call("permissions.rules", {})).some((r) => r.id === edited.id)).toBe(false);
  });

  it("an abort while a dialog is open closes it and ends the run", async () => {
    const { h, session } = await run([{ toolCalls: [{ name: "bash", args: { command: "touch should-not-exist" } }] }, { text: "never" }]);
    const request = await nextRequest(h, 1);
    await h.call("sessions.abort", { sessionId: session.id });
    await h.waitFor(() => ended(h.sessionEvents.get(session.id)) === 1, "the run to end");
    const resolved = h.events.find((e) => e.event === "permission.resolved")!.payload as { requestId: string; decision: string };
    expect(resolved).toMatchObject({ requestId: request.id, decision: "aborted" });
    expect(await h.call("permissions.pending", {})).toEqual([]);
    const [result] = await results(h, session.id);
    expect(result).toMatchObject({ isError: true });
    expect(() => readFileSync(path.join(h.projectDir, "should-not-exist"))).toThrow();
  });

  it("redacts secrets from tool output before the model or the store sees them, and says so", async () => {
    const token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
    const { h, session } = await run([{ toolCalls: [{ name: "bash", args: { command: `echo "token=${token}"` } }] }, { text: "ok" }]);
    const request = await nextRequest(h, 1);
    await h.call("permissions.respond", { requestId: request.id, decision: "allow-once" });
    await h.waitFor(() => ended(h.sessionEvents.get(session.id)) === 1, "the run");
    const [result] = await results(h, session.id);
    const text = textOf(result!);
    expect(text).not.toContain(token);
    expect(text).toContain("[REDACTED: GitHub token]");
    expect(text).toContain("[Lathe redacted 1 GitHub token from this output.]");
    const sent = h.scripted.requests[1]!.context.messages.find((m) => m.role === "toolResult");
    expect(JSON.stringify(sent)).not.toContain(token);
    expect(JSON.stringify(result!.details)).not.toContain(token);
  });

  it("redacts the full output bash saved for the model to read later", async () => {
    const token = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2";
    const command = `seq 1 3000; echo "token=${token}"; seq 1 10`;
    const { h, session } = await run([{ toolCalls: [{ name: "bash", args: { command } }] }, { text: "ok" }]);
    await h.call("permissions.respond", { requestId: (await nextRequest(h, 1)).id, decision: "allow-once" });
    await h.waitFor(() => ended(h.sessionEvents.get(session.id)) === 1, "the run");
    const [result] = await results(h, session.id);
    const file = (result!.details as { outputFile?: string }).outputFile;
    expect(file, "a truncated output is saved to a file").toBeTypeOf("string");
    const saved = readFileSync(file!, "utf8");
    expect(saved).toContain("token=[REDACTED: GitHub token]");
    expect(saved).not.toContain(token);
    expect(saved).toContain("2999\n3000\n");
  });

  it("limits file writes per turn", async () => {
    const writes = Array.from({ length: 3 }, (_, i) => ({ name: "write", args: { path: `f${i}.txt`, content: "x" } }));
    const { h, session } = await run([{ toolCalls: writes }, { text: "ok" }], "write files", { maxFileWritesPerTurn: 2 });
    await h.call("settings.update", { permissionMode: "auto-edit" });
    await h.waitFor(() => ended(h.sessionEvents.get(session.id)) === 1, "the run");
    const r = await results(h, session.id);
    expect(r.map((x) => x.isError)).toEqual([false, false, true]);
    expect(textOf(r[2]!)).toMatch(/Rate limit: at most 2 file writes/);
  });

  it("audits every decision: who made it, how long the call ran, how it ended", async () => {
    const { h, session } = await run([
      {
        toolCalls: [
          { name: "ls", args: {} },
          { name: "bash", args: { command: "exit 3" } },
          { name: "bash", args: { command: "echo no" } },
        ],
      },
      { text: "ok" },
    ]);
    await h.call("permissions.respond", { requestId: (await nextRequest(h, 1)).id, decision: "allow-once" });
    await h.call("permissions.respond", { requestId: (await nextRequest(h, 2)).id, decision: "deny" });
    await h.waitFor(() => ended(h.sessionEvents.get(session.id)) === 1, "the run");
    const audit = h.services.store.audit.list({ sessionId: session.id }).sort((a, b) => a.id - b.id);
    expect(audit.map((a) => [a.toolName, a.decision, a.decidedBy, a.outcome])).toEqual([
      ["ls", "allow", "default", "ok"],
      ["bash", "allow", "user: allow-once", "error"],
      ["bash", "deny", "user", "blocked"],
    ]);
    expect(audit[1]!.durationMs).toBeGreaterThanOrEqual(0);
    expect(audit[1]!.args).toEqual({ command: "exit 3" });
  });
});
