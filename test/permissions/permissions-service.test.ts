// permissions-service.ts driven through its hooks with in-memory collaborators
// (permission-fakes.ts), no app harness: what a call is allowed, denied or asked, what the audit
// log records, the answers a person gives (once, for the session, for the project, denied, with
// edited rules; MCP rules kept to their server), questions covered by a saved rule, stopped runs,
// the rate limit on file writes, batches asked together and their kept answers, and the redaction
// of every tool's output. The whole-app flows stay in approval-flow.test.ts and dialogs.test.ts.
import { beforeAll, describe, expect, it } from "vitest";
import type { AssistantMessage, ToolCall } from "../../app/shared/agent-types.ts";
import type { PermissionRequest } from "../../app/shared/ipc/contract.ts";
import { ServiceError } from "../../app/shared/errors.ts";
import { PermissionsService } from "../../app/main/permissions/permissions-service.ts";
import { callSubjects, decide, type PermissionMode } from "../../app/main/permissions/policy.ts";
import { placementFor, planSandbox } from "../../app/main/permissions/sandbox-mode.ts";
import type { SecretScanner } from "../../app/main/permissions/redaction.ts";
import { loadShellParser } from "../../app/main/permissions/shell-parser.ts";
import { answeredAtOnce, assistant, fakeStore, inThreadPool, recordingHub, sandboxPort, toolCall, TOOLS } from "./permission-fakes.ts";

beforeAll(() => loadShellParser());

const projectDir = "/work/project";
const scope = { sessionId: 1, projectId: 2, projectDir };
const githubSearch = { server: "github", tool: "search", description: "Searches.", annotations: {} };

/** Redacts `tok_…` words as tokens. */
const scanner = {
  redact: (text: string) => {
    let n = 0;
    const out = text.replace(/\btok_\w+/g, () => (n++, "[REDACTED: token]"));
    return { text: out, found: n > 0 ? { token: n } : {} };
  },
} as unknown as SecretScanner;

/** Three calls of one answer, the first one's turn taken: all three questions asked at once (a batch). */
async function batchOfThreeAsked() {
  const t = setup();
  const calls = [ask("c0", "npm test"), ask("c1", "make"), ask("c2", "cargo build")];
  const message = assistant(calls);
  const r0 = t.before(message, calls[0]!);
  await t.asked(3);
  const [q0, q1, q2] = t.requests();
  return { t, calls, message, r0, q0: q0!, q1: q1!, q2: q2! };
}

function setup(o: { mode?: PermissionMode; sandbox?: ReturnType<typeof sandboxPort>; maxWrites?: number; rules?: Parameters<typeof fakeStore>[0]; mcpNames?: string[] } = {}) {
  const store = fakeStore(o.rules);
  const hub = recordingHub();
  let mode: PermissionMode = o.mode ?? "ask";
  const pending: number[] = [];
  let secretsRead = 0;
  const service = new PermissionsService({
    store,
    hub,
    mode: () => mode,
    secrets: () => (secretsRead++, scanner),
    onPendingChange: (id) => void pending.push(id),
    maxFileWritesPerTurn: o.maxWrites,
    sandbox: o.sandbox,
    describeMcpTool: (name) => (name === "github__search" || o.mcpNames?.includes(name) ? githubSearch : undefined),
    pool: inThreadPool(),
    fileSystem: answeredAtOnce,
  });
  const hooks = service.hooks(scope);
  const before = (message: AssistantMessage, call: ToolCall, o2: { signal?: AbortSignal; args?: unknown; s?: typeof scope } = {}) =>
    (o2.s ? service.hooks(o2.s) : hooks).beforeToolCall(
      { assistantMessage: message, toolCall: call, args: o2.args ?? call.arguments, context: { systemPrompt: "", messages: [], tools: TOOLS } },
      o2.signal,
    );
  const after = (message: AssistantMessage, call: ToolCall, result: { content: { type: "text"; text: string }[]; details: unknown }, isError = false) =>
    hooks.afterToolCall({ assistantMessage: message, toolCall: call, args: call.arguments, result, isError, context: { systemPrompt: "", messages: [], tools: TOOLS } });
  const requests = () => hub.events.filter((e) => e.event === "permission.request").map((e) => e.payload as PermissionRequest);
  const resolved = () => hub.events.filter((e) => e.event === "permission.resolved").map((e) => e.payload as { requestId: string; decision: string });
  /** Waits (a bounded number of turns of the event loop) until `n` requests were announced. */
  const asked = async (n: number) => {
    for (let i = 0; i < 500 && requests().length < n; i++) await new Promise((r) => setImmediate(r));
    expect(requests()).toHaveLength(n);
    return requests()[n - 1]!;
  };
  return { service, store, hub, pending, hooks, before, after, requests, resolved, asked, setMode: (m: PermissionMode) => (mode = m), secretsRead: () => secretsRead };
}

const ask = (id: string, command = "npm test") => toolCall(id, "bash", { command });

describe("decisions without a question", () => {
  it("allows a call a rule allows, records who decided, and finishes the record when the call ends", async () => {
    const t = setup({ rules: [{ tool: "bash", pattern: "npm test", action: "allow", scope: "project", scopeId: 2 }] });
    const call = ask("c1");
    const message = assistant([call]);
    const t0 = performance.now();
    expect(await t.before(message, call)).toBeUndefined();
    expect(t.store.auditRows).toEqual([
      { id: 1, sessionId: 1, toolCallId: "c1", toolName: "bash", args: { command: "npm test" }, decision: "allow", decidedBy: "rule #1", durationMs: null, outcome: null },
    ]);
    expect(await t.after(message, call, { content: [{ type: "text", text: "ok" }], details: {} })).toBeUndefined();
    const elapsed = performance.now() - t0;
    expect(t.store.auditRows[0]!.finished).toEqual({ durationMs: expect.any(Number), outcome: "ok" });
    // The time from the decision to the end, no more.
    expect(t.store.auditRows[0]!.finished!.durationMs).toBeLessThanOrEqual(Math.ceil(elapsed) + 1);
    expect(Number.isInteger(t.store.auditRows[0]!.finished!.durationMs)).toBe(true);
    expect(t.store.auditRows[0]!.finished!.durationMs).toBeGreaterThanOrEqual(0);
    expect(t.store.auditRows[0]!.finished!.durationMs).toBeLessThan(60_000);
    // Finished once: a second end of the same call finds nothing started.
    t.store.auditRows[0]!.finished = undefined;
    await t.after(message, call, { content: [], details: {} });
    expect(t.store.auditRows[0]!.finished).toBeUndefined();
    expect(t.requests()).toEqual([]);
  });

  it("records an error outcome, and the mode or the default as who decided", async () => {
    const t = setup({ mode: "full-auto" });
    const call = ask("c1", "make");
    const message = assistant([call]);
    expect(await t.before(message, call)).toBeUndefined();
    await t.after(message, call, { content: [], details: {} }, true);
    expect(t.store.auditRows[0]).toMatchObject({ decision: "allow", decidedBy: "mode: full-auto", finished: { outcome: "error" } });
    t.setMode("ask");
    const read = toolCall("r1", "read", { path: "src/a.ts" });
    expect(await t.before(assistant([read]), read)).toBeUndefined();
    expect(t.store.auditRows[1]).toMatchObject({ toolCallId: "r1", decision: "allow", decidedBy: "default" });
  });

  it("denies a call a rule denies, with the rule's reason, and finishes no record for it", async () => {
    const t = setup({ mode: "full-auto", rules: [{ tool: "bash", pattern: "rm *", action: "deny", scope: "global", scopeId: null }] });
    const call = ask("c1", "rm -rf /");
    const message = assistant([call]);
    const subjects = callSubjects("bash", call.arguments, projectDir);
    const expected = decide({ toolName: "bash", subjects, rules: t.store.rules, mode: "full-auto" });
    expect(await t.before(message, call)).toEqual({ block: true, reason: expected.reason, outcome: "denied" });
    expect(expected.reason).toMatch(/^Denied by the rule "bash: rm \*" \(global\)/);
    expect(t.store.auditRows).toEqual([
      { id: 1, sessionId: 1, toolCallId: "c1", toolName: "bash", args: { command: "rm -rf /" }, decision: "deny", decidedBy: "rule #1", durationMs: null, outcome: "blocked" },
    ]);
    await t.after(message, call, { content: [], details: {} });
    expect(t.store.auditRows[0]!.finished).toBeUndefined();
  });

  it("places an allowed bash call in the sandbox, and places nothing else", async () => {
    const port = sandboxPort();
    const t = setup({ mode: "sandboxed-auto", sandbox: port });
    const call = ask("c1", "npm test");
    expect(await t.before(assistant([call]), call)).toBeUndefined();
    const plan = planSandbox({ toolName: "bash", subjects: callSubjects("bash", call.arguments, projectDir), mode: "sandboxed-auto", scope, port });
    expect(port.placed).toEqual([{ sessionId: 1, toolCallId: "c1", placed: placementFor(plan, false) }]);
    const write = toolCall("w1", "write", { path: "a.txt", content: "x" });
    expect(await t.before(assistant([write]), write)).toBeUndefined();
    expect(port.placed).toHaveLength(1);
  });

  it("never places an MCP server's tool, even one named bash: it runs in the server's process", async () => {
    const port = sandboxPort();
    const t = setup({ mode: "full-auto", sandbox: port, mcpNames: ["bash"] });
    const call = ask("m1", "npm test");
    expect(await t.before(assistant([call]), call)).toBeUndefined();
    expect(t.store.auditRows[0]).toMatchObject({ toolName: "bash", decision: "allow", decidedBy: "mode: full-auto" });
    expect(port.placed).toEqual([]);
  });

  it("works without a pending-change listener", async () => {
    const service = new PermissionsService({
      store: fakeStore(),
      hub: recordingHub(),
      mode: () => "ask",
      secrets: () => scanner,
      pool: inThreadPool(),
      fileSystem: answeredAtOnce,
    });
    const call = ask("c1");
    const result = service
      .hooks(scope)
      .beforeToolCall({ assistantMessage: assistant([call]), toolCall: call, args: call.arguments, context: { systemPrompt: "", messages: [], tools: TOOLS } });
    for (let i = 0; i < 500 && service.allPending().length === 0; i++) await new Promise((r) => setImmediate(r));
    service.respond({ requestId: service.allPending()[0]!.id, decision: "allow-once" });
    expect(await result).toBeUndefined();
  });
});

describe("questions answered", () => {
  it("asks, and allows once: the next identical call asks again", async () => {
    const t = setup();
    const call = ask("c1");
    const pendingResult = t.before(assistant([call]), call);
    const request = await t.asked(1);
    expect(request).toMatchObject({ sessionId: 1, toolCallId: "c1", toolName: "bash", proposedRule: { tool: "bash", pattern: "npm test" } });
    expect(request.batch).toBeUndefined();
    expect(t.service.pendingFor(1)).toEqual([request]);
    expect(t.service.pendingFor(2)).toEqual([]);
    expect(t.service.allPending()).toEqual([request]);
    expect(t.pending).toEqual([1]);
    t.service.respond({ requestId: request.id, decision: "allow-once" });
    expect(await pendingResult).toBeUndefined();
    expect(t.store.auditRows).toEqual([expect.objectContaining({ decision: "allow", decidedBy: "user: allow-once", outcome: null })]);
    expect(t.store.rules).toEqual([]);
    expect(t.service.allPending()).toEqual([]);
    const again = ask("c2");
    void t.before(assistant([again]), again);
    expect((await t.asked(2)).toolCallId).toBe("c2");
  });

  it("denies with the person's reason, trimmed, or without one", async () => {
    for (const [reason, said] of [
      ["  too risky \n", "The user denied this call: too risky"],
      ["   ", "The user denied this call."],
      [undefined, "The user denied this call."],
    ] as const) {
      const t = setup();
      const call = ask("c1");
      const result = t.before(assistant([call]), call);
      t.service.respond({ requestId: (await t.asked(1)).id, decision: "deny", reason });
      expect(await result).toEqual({ block: true, reason: said, outcome: "denied" });
      expect(t.store.auditRows).toEqual([expect.objectContaining({ decision: "deny", decidedBy: "user", outcome: "blocked" })]);
    }
  });

  it("saves the proposed rule for the session or the project, and the next call is allowed by it", async () => {
    for (const [decision, ruleScope, scopeId] of [
      ["allow-session", "session", 1],
      ["allow-project", "project", 2],
    ] as const) {
      const t = setup();
      const call = ask("c1");
      const result = t.before(assistant([call]), call);
      t.service.respond({ requestId: (await t.asked(1)).id, decision });
      expect(await result).toBeUndefined();
      expect(t.store.rules).toEqual([{ id: 1, tool: "bash", pattern: "npm test", action: "allow", scope: ruleScope, scopeId, createdAt: 0 }]);
      expect(t.store.auditRows[0]).toMatchObject({ decidedBy: `user: ${decision}` });
      const next = ask("c2");
      expect(await t.before(assistant([next]), next)).toBeUndefined();
      expect(t.store.auditRows[1]).toMatchObject({ decidedBy: "rule #1" });
      expect(t.requests()).toHaveLength(1);
    }
  });

  it("saves edited rules one per line, trimmed, blank lines left out", async () => {
    const t = setup();
    const call = ask("c1");
    const result = t.before(assistant([call]), call);
    t.service.respond({ requestId: (await t.asked(1)).id, decision: "allow-project", rule: { tool: "bash", pattern: "  npm test *\n\n  \n npm run build  " } });
    expect(await result).toBeUndefined();
    expect(t.store.rules.map((r) => [r.tool, r.pattern, r.scope])).toEqual([
      ["bash", "npm test *", "project"],
      ["bash", "npm run build", "project"],
    ]);
  });

  it("refuses an answer's rule for another tool, or an empty project rule, and keeps the question open", async () => {
    const t = setup();
    const call = ask("c1");
    const result = t.before(assistant([call]), call);
    const request = await t.asked(1);
    const refused = (answer: Parameters<typeof t.service.respond>[0], message: string) => {
      let error: unknown;
      try {
        t.service.respond(answer);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ServiceError);
      expect(error).toMatchObject({ failure: "invalid", message });
    };
    refused({ requestId: request.id, decision: "allow-project", rule: { tool: "read", pattern: "**" } }, "The rule is for read, but the request is for bash.");
    refused({ requestId: request.id, decision: "allow-once", rule: { tool: "*", pattern: "*" } }, "The rule is for *, but the request is for bash.");
    refused({ requestId: request.id, decision: "allow-project", rule: { tool: "bash", pattern: " \n \n" } }, "The rule's pattern is empty.");
    expect(t.store.rules).toEqual([]);
    expect(t.service.pendingFor(1)).toEqual([request]);
    // An empty pattern for the session saves nothing and allows the call.
    t.service.respond({ requestId: request.id, decision: "allow-session", rule: { tool: "bash", pattern: "\n" } });
    expect(await result).toBeUndefined();
    expect(t.store.rules).toEqual([]);
  });

  it("refuses an answer to an unknown or already answered request", async () => {
    const t = setup();
    expect(() => t.service.respond({ requestId: "nope", decision: "allow-once" })).toThrow(/There is no pending permission request nope/);
    const call = ask("c1");
    const result = t.before(assistant([call]), call);
    const request = await t.asked(1);
    t.service.respond({ requestId: request.id, decision: "deny" });
    await result;
    expect(() => t.service.respond({ requestId: request.id, decision: "allow-once" })).toThrow(ServiceError);
  });

  it("keeps an MCP answer's rules to the question's server: never *, never another server's tools", async () => {
    const t = setup();
    const call = toolCall("m1", "github__search", { query: "x" });
    const result = t.before(assistant([call]), call);
    const request = await t.asked(1);
    expect(request.proposedRule).toEqual({ tool: "mcp", pattern: "github/search" });
    for (const pattern of ["*", "gitlab/*", "github/x\ngitlab/y", "github/a\u0007"]) {
      for (const decision of ["allow-session", "allow-project"] as const) {
        let error: unknown;
        try {
          t.service.respond({ requestId: request.id, decision, rule: { tool: "mcp", pattern } });
        } catch (e) {
          error = e;
        }
        expect(error, pattern).toBeInstanceOf(ServiceError);
        expect(error).toMatchObject({ failure: "invalid", message: expect.stringMatching(/control character|is not for the MCP server github/) });
      }
    }
    expect(t.store.rules).toEqual([]);
    t.service.respond({ requestId: request.id, decision: "allow-project", rule: { tool: "mcp", pattern: "github/*" } });
    expect(await result).toBeUndefined();
    expect(t.store.rules).toEqual([expect.objectContaining({ tool: "mcp", pattern: "github/*", scope: "project", scopeId: 2 })]);
  });

  it("lets an MCP question be answered once or denied whatever the rule text, since nothing is saved", async () => {
    const t = setup();
    const call = toolCall("m1", "github__search", { query: "x" });
    const result = t.before(assistant([call]), call);
    t.service.respond({ requestId: (await t.asked(1)).id, decision: "allow-once", rule: { tool: "mcp", pattern: "*" } });
    expect(await result).toBeUndefined();
    expect(t.store.rules).toEqual([]);
  });

  it("refuses to save MCP rules for a question that names no server", async () => {
    const t = setup();
    const call = toolCall("m1", "github__search", { query: "x" });
    void t.before(assistant([call]), call);
    const request = await t.asked(1);
    // The summary the renderer was sent is the service's own object: without its server, nothing may be saved.
    delete (request.summary as { mcp?: unknown }).mcp;
    expect(() => t.service.respond({ requestId: request.id, decision: "allow-session" })).toThrow("The question names no MCP server.");
    expect(t.store.rules).toEqual([]);
  });

  it("runs an answer allowed outside the sandbox there, and says so in the record", async () => {
    const port = sandboxPort();
    const t = setup({ mode: "ask", sandbox: port });
    const call = ask("c1", "npm test");
    const result = t.before(assistant([call]), call);
    const request = await t.asked(1);
    expect(request.sandbox).toBeDefined();
    t.service.respond({ requestId: request.id, decision: "allow-once", outsideSandbox: true });
    expect(await result).toBeUndefined();
    expect(t.store.auditRows[0]).toMatchObject({ decidedBy: "user: allow-once (outside the sandbox)" });
    const plan = planSandbox({ toolName: "bash", subjects: callSubjects("bash", call.arguments, projectDir), mode: "ask", scope, port });
    expect(port.placed).toEqual([{ sessionId: 1, toolCallId: "c1", placed: placementFor(plan, true) }]);
    // Answered without it: placed as planned.
    const second = ask("c2", "npm test");
    const r2 = t.before(assistant([second]), second);
    t.service.respond({ requestId: (await t.asked(2)).id, decision: "allow-once" });
    await r2;
    expect(port.placed[1]).toEqual({ sessionId: 1, toolCallId: "c2", placed: placementFor(plan, false) });
    expect(t.store.auditRows[1]).toMatchObject({ decidedBy: "user: allow-once" });
  });
});

describe("questions ended otherwise", () => {
  it("blocks a call whose run stops while it waits, as stopped, not denied", async () => {
    const t = setup();
    const controller = new AbortController();
    const call = ask("c1");
    const result = t.before(assistant([call]), call, { signal: controller.signal });
    await t.asked(1);
    controller.abort();
    expect(await result).toEqual({ block: true, reason: "The run was aborted before the user answered this permission request.", outcome: "stopped" });
    expect(t.store.auditRows).toEqual([expect.objectContaining({ decision: "deny", decidedBy: "aborted", outcome: "blocked" })]);
    expect(t.service.allPending()).toEqual([]);
  });

  it("asks nothing for a run already stopped", async () => {
    const t = setup();
    const controller = new AbortController();
    controller.abort();
    const call = ask("c1");
    expect(await t.before(assistant([call]), call, { signal: controller.signal })).toMatchObject({ block: true, outcome: "stopped" });
    expect(t.requests()).toEqual([]);
    // Nothing was pending, so nothing is said to have changed.
    expect(t.pending).toEqual([]);
  });

  it("blocks as stopped when the session's questions are cancelled", async () => {
    const t = setup();
    const call = ask("c1");
    const result = t.before(assistant([call]), call);
    await t.asked(1);
    t.service.cancelSession(2);
    expect(t.service.allPending()).toHaveLength(1);
    t.service.cancelSession(1);
    expect(await result).toMatchObject({ block: true, outcome: "stopped" });
  });

  it("closes as covered another question a saved rule now answers, and that call runs by the rule", async () => {
    const t = setup();
    const first = ask("c1");
    const second = ask("c2");
    const r1 = t.before(assistant([first]), first);
    const q1 = await t.asked(1);
    const r2 = t.before(assistant([second]), second);
    const q2 = await t.asked(2);
    const other = ask("c3", "make");
    const r3 = t.before(assistant([other]), other);
    const q3 = await t.asked(3);
    t.service.respond({ requestId: q1.id, decision: "allow-session" });
    expect(await r1).toBeUndefined();
    expect(await r2).toBeUndefined();
    expect(t.resolved()).toEqual([
      { requestId: q1.id, sessionId: 1, decision: "allow-session" },
      { requestId: q2.id, sessionId: 1, decision: "covered" },
    ]);
    expect(t.store.auditRows.find((r) => r.toolCallId === "c2")).toMatchObject({ decision: "allow", decidedBy: "rule #1" });
    // A question the rule does not answer stays open.
    expect(t.service.allPending()).toEqual([q3]);
    t.service.respond({ requestId: q3.id, decision: "deny" });
    expect(await r3).toMatchObject({ block: true, outcome: "denied" });
  });

  it("closes covered questions after a project rule too, and after no answer that saves nothing", async () => {
    const t = setup();
    const calls = ["c1", "c2", "c3", "c4"].map((id) => ask(id));
    const results = calls.map((c) => t.before(assistant([c]), c));
    await t.asked(4);
    const [q1, q2, q3, q4] = t.requests();
    // The mode now allows every open question, but answers that save no rule close none of them.
    t.setMode("full-auto");
    t.service.respond({ requestId: q1!.id, decision: "allow-once" });
    t.service.respond({ requestId: q2!.id, decision: "deny" });
    expect(await results[0]).toBeUndefined();
    expect(await results[1]).toMatchObject({ block: true });
    expect(t.service.allPending()).toEqual([q3, q4]);
    t.setMode("ask");
    t.service.respond({ requestId: q3!.id, decision: "allow-project" });
    expect(await results[2]).toBeUndefined();
    expect(await results[3]).toBeUndefined();
    expect(t.resolved().at(-1)).toEqual({ requestId: q4!.id, sessionId: 1, decision: "covered" });
    expect(t.store.auditRows.find((r) => r.toolCallId === "c4")).toMatchObject({ decidedBy: "rule #1" });
  });

  it("asks anew when a covered call is judged to ask again, and gives up after a few times", async () => {
    const t = setup();
    const target = ask("t", "npm test");
    const result = t.before(assistant([target]), target);
    let n = 1;
    await t.asked(n);
    // Each round: a rule that allows the call is saved by answering another question, which covers
    // the call's question; the rule is gone by the time the call is judged again, so it asks anew.
    for (let round = 0; round < 4; round++) {
      const helper = ask(`h${round}`, "make");
      void t.before(assistant([helper]), helper);
      const q = await t.asked(++n);
      t.service.respond({ requestId: q.id, decision: "allow-session", rule: { tool: "bash", pattern: "npm test\nmake" } });
      t.store.rules.splice(0);
      if (round < 3) expect((await t.asked(++n)).toolCallId).toBe("t");
    }
    expect(await result).toEqual({ block: true, reason: "Its permission request was closed before the user answered it; ask again if it is still needed.", outcome: "denied" });
    expect(t.store.auditRows.find((r) => r.toolCallId === "t")).toMatchObject({ decision: "deny", decidedBy: "question closed", outcome: "blocked" });
    expect(t.resolved().filter((r) => r.decision === "covered")).toHaveLength(4);
  });
});

describe("the rate limit on file writes", () => {
  it("blocks writes and edits past the limit within one assistant message, and starts again with the next", async () => {
    const t = setup({ mode: "auto-edit", maxWrites: 2 });
    const calls = [
      toolCall("w1", "write", { path: "a.txt", content: "1" }),
      toolCall("r1", "read", { path: "a.txt" }),
      toolCall("e1", "edit", { path: "a.txt", edits: [{ oldText: "1", newText: "2" }] }),
      toolCall("w2", "write", { path: "b.txt", content: "1" }),
    ];
    const message = assistant(calls);
    for (const c of calls.slice(0, 3)) expect(await t.before(message, c), c.id).toBeUndefined();
    expect(await t.before(message, calls[3]!)).toEqual({
      block: true,
      reason: "Rate limit: at most 2 file writes and edits per turn. Check the work so far, then continue in the next turn.",
      outcome: "denied",
    });
    expect(t.store.auditRows.at(-1)).toMatchObject({ toolCallId: "w2", decision: "deny", decidedBy: "policy: rate limit", outcome: "blocked" });
    const next = toolCall("w3", "write", { path: "c.txt", content: "1" });
    expect(await t.before(assistant([next]), next)).toBeUndefined();
  });

  it("counts a write that asked once, and no write a rule denied; 25 by default", async () => {
    const t = setup({ mode: "auto-edit", rules: [{ tool: "write", pattern: "secret.txt", action: "deny", scope: "global", scopeId: null }] });
    const calls = Array.from({ length: 26 }, (_, i) => toolCall(`w${i}`, "write", { path: `f${i}.txt`, content: "x" }));
    const denied = toolCall("d", "write", { path: "secret.txt", content: "x" });
    const message = assistant([denied, ...calls]);
    expect(await t.before(message, denied)).toMatchObject({ block: true, outcome: "denied" });
    for (const c of calls.slice(0, 25)) expect(await t.before(message, c), c.id).toBeUndefined();
    expect(await t.before(message, calls[25]!)).toMatchObject({ block: true, reason: expect.stringContaining("at most 25 file writes") });

    // A write that asks, is covered and judged again counts once.
    const u = setup({ mode: "ask", maxWrites: 1 });
    const w = toolCall("w", "write", { path: "a.txt", content: "x" });
    const r = u.before(assistant([w]), w);
    const q = await u.asked(1);
    const helper = toolCall("h", "write", { path: "a.txt", content: "y" });
    const rh = u.before(assistant([helper]), helper);
    const qh = await u.asked(2);
    u.service.respond({ requestId: qh.id, decision: "allow-session" });
    expect(await rh).toBeUndefined();
    expect(await r).toBeUndefined();
    expect(u.resolved().find((x) => x.requestId === q.id)?.decision).toBe("covered");
  });
});

describe("batches", () => {
  it("asks a message's later calls that would ask together with the first, each with its place, and uses their answers at their turn", async () => {
    const t = setup();
    const calls = [ask("c0", "npm test"), toolCall("c1", "read", { path: "src/a.ts" }), ask("c2", "make"), toolCall("c3", "bash", {}, "not JSON")];
    const message = assistant(calls);
    const r0 = t.before(message, calls[0]!);
    await t.asked(2);
    const [q0, q2] = t.requests();
    expect(q0).toMatchObject({ toolCallId: "c0", batch: { position: 0, asking: 2 } });
    expect(q2).toMatchObject({ toolCallId: "c2", batch: { position: 2, asking: 2 } });
    expect(q0!.batch!.id).toBe(q2!.batch!.id);
    expect(t.pending).toEqual([1]);
    expect(t.service.respondBatch({ batchId: q0!.batch!.id, decision: "allow-once" })).toEqual({ answered: 2 });
    expect(await r0).toBeUndefined();
    expect(await t.before(message, calls[1]!)).toBeUndefined();
    expect(await t.before(message, calls[2]!)).toBeUndefined();
    expect(t.requests()).toHaveLength(2);
    expect(t.store.auditRows.map((r) => [r.toolCallId, r.decidedBy])).toEqual([
      ["c0", "user: allow-once"],
      ["c1", "default"],
      ["c2", "user: allow-once"],
    ]);
  });

  it("denies a whole batch with one reason, and refuses a batch with nothing open", async () => {
    const t = setup();
    const calls = [ask("c0", "npm test"), ask("c1", "make")];
    const message = assistant(calls);
    const r0 = t.before(message, calls[0]!);
    const q = await t.asked(2);
    t.service.respondBatch({ batchId: q.batch!.id, decision: "deny", reason: "not now" });
    expect(await r0).toEqual({ block: true, reason: "The user denied this call: not now", outcome: "denied" });
    expect(await t.before(message, calls[1]!)).toEqual({ block: true, reason: "The user denied this call: not now", outcome: "denied" });
    expect(() => t.service.respondBatch({ batchId: q.batch!.id, decision: "allow-once" })).toThrow(
      `There is no pending permission request in batch ${q.batch!.id}: they were already answered or cancelled.`,
    );
    let error: unknown;
    try {
      t.service.respondBatch({ batchId: "nope", decision: "deny" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ failure: "not-found" });
  });

  it("asks a batch once: a later call that asks on its own turn is asked alone", async () => {
    const { t, calls, message, r0, q0, q1, q2 } = await batchOfThreeAsked();
    t.service.respond({ requestId: q0!.id, decision: "allow-once" });
    t.service.respond({ requestId: q2!.id, decision: "allow-once" });
    await r0;
    // Judged differently at its turn (other arguments): the kept question is dropped, a new one asked
    // alone, and the later calls are not judged again (c2's answer stands).
    const r1 = t.before(message, calls[1]!, { args: { command: "make install" } });
    const again = await t.asked(4);
    expect(again).toMatchObject({ toolCallId: "c1", args: { command: "make install" } });
    expect(again.batch).toBeUndefined();
    expect(t.resolved().find((r) => r.requestId === q1!.id)?.decision).toBe("dropped");
    t.service.respond({ requestId: again.id, decision: "deny" });
    expect(await r1).toMatchObject({ block: true });
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(t.requests()).toHaveLength(4);
    expect(await t.before(message, calls[2]!)).toBeUndefined();
    expect(t.requests()).toHaveLength(4);
  });

  it("finds a call's place by its id when the loop hands a copy of it", async () => {
    const t = setup();
    const calls = [ask("c0", "npm test"), ask("c1", "make")];
    const message = assistant(calls);
    void t.before(message, { ...calls[0]! });
    await t.asked(2);
    expect(t.requests().map((r) => r.batch?.position)).toEqual([0, 1]);
  });

  it("finds a later call's place by its id too: the questions of the calls before it are passed, those after it asked with it", async () => {
    const t = setup();
    const calls = [ask("c0", "cargo build"), ask("c1", "npm test"), ask("c2", "make")];
    const message = assistant(calls);
    void t.before(message, { ...calls[1]! });
    await t.asked(2);
    expect(t.requests().map((r) => [r.toolCallId, r.batch?.position])).toEqual([
      ["c1", 1],
      ["c2", 2],
    ]);
  });

  it("a call not in its message is asked alone, without judging the batch", async () => {
    const t = setup();
    const message = assistant([ask("c0", "make")]);
    const stray = ask("x", "npm test");
    void t.before(message, stray);
    const q = await t.asked(1);
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(t.requests()).toEqual([q]);
    expect(q.batch).toBeUndefined();
  });

  it("drops a later call's open question when its batch ends, and an earlier one's when a later call's turn comes", async () => {
    const { t, calls, message, r0, q0, q1, q2 } = await batchOfThreeAsked();
    // c1's turn comes while c0's question is still open (its result is awaited elsewhere): c0's is dropped.
    const r1 = t.before(message, calls[1]!);
    expect(await r0).toMatchObject({ block: true, outcome: "denied" });
    expect(t.resolved()).toContainEqual({ requestId: q0!.id, sessionId: 1, decision: "dropped" });
    t.service.respond({ requestId: q1!.id, decision: "allow-once" });
    expect(await r1).toBeUndefined();
    t.hooks.afterBatch(message);
    expect(t.resolved()).toContainEqual({ requestId: q2!.id, sessionId: 1, decision: "dropped" });
    expect(t.service.allPending()).toEqual([]);
  });

  it("drops a call's open question when it is allowed, denied or rate limited at its turn without one", async () => {
    const t = setup({ maxWrites: 1 });
    const calls = [
      ask("c0", "npm test"),
      ask("c1", "make"),
      ask("c2", "cargo build"),
      toolCall("w0", "write", { path: "a.txt", content: "1" }),
      toolCall("w1", "write", { path: "b.txt", content: "1" }),
    ];
    const message = assistant(calls);
    const r0 = t.before(message, calls[0]!);
    await t.asked(5);
    const [q0, q1, q2, , qw1] = t.requests();
    t.service.respond({ requestId: q0!.id, decision: "allow-once" });
    await r0;
    t.store.permissionRules.add({ tool: "bash", pattern: "make", action: "deny", scope: "global", scopeId: null });
    expect(await t.before(message, calls[1]!)).toMatchObject({ block: true, outcome: "denied" });
    expect(t.resolved()).toContainEqual({ requestId: q1!.id, sessionId: 1, decision: "dropped" });
    t.setMode("full-auto");
    expect(await t.before(message, calls[2]!)).toBeUndefined();
    expect(t.resolved()).toContainEqual({ requestId: q2!.id, sessionId: 1, decision: "dropped" });
    expect(await t.before(message, calls[3]!)).toBeUndefined();
    expect(await t.before(message, calls[4]!)).toMatchObject({ block: true, reason: expect.stringContaining("Rate limit") });
    expect(t.resolved()).toContainEqual({ requestId: qw1!.id, sessionId: 1, decision: "dropped" });
    expect(t.service.allPending()).toEqual([]);
  });
});

describe("rules screen and output", () => {
  it("notes old rules once at start, and lists rules with their meaning and note", () => {
    const t = setup({
      rules: [
        { tool: "bash", pattern: "npm run test:*", action: "allow", scope: "project", scopeId: 2 },
        { tool: "read", pattern: "src/**", action: "allow", scope: "session", scopeId: 1 },
        { tool: "bash", pattern: "make", action: "deny", scope: "project", scopeId: 5 },
      ],
    });
    expect(JSON.parse(t.store.settingsValues.get("permissions.rulesFormat")!)).toBe(2);
    const all = t.service.rules({});
    expect(all.map((r) => r.id)).toEqual([1, 2, 3]);
    expect(all[0]!.note).toMatch(/allows less than it did/);
    expect(all[0]!.meaning).toMatch(/npm run test:/);
    expect("note" in all[1]!).toBe(false);
    expect(all[1]!.meaning).toMatch(/src/);
    expect(t.service.rules({ projectId: 2 }).map((r) => r.id)).toEqual([1]);
    expect(t.service.rules({ sessionId: 1 }).map((r) => r.id)).toEqual([2]);
    expect(t.service.rules({ sessionId: 1, projectId: 5 }).map((r) => r.id)).toEqual([2, 3]);
    expect(t.service.explained({ ...t.store.rules[0]!, pattern: "npm run test:unit" }).note).toBeUndefined();
  });

  it("redacts every tool's output with the scanner as it is at that moment", async () => {
    const t = setup();
    const call = toolCall("x", "read", { path: "a" });
    const message = assistant([call]);
    const result = await t.after(message, call, { content: [{ type: "text", text: "key tok_abc" }], details: { path: "tok_p" } });
    expect(result).toEqual({
      content: [
        { type: "text", text: "key [REDACTED: token]" },
        { type: "text", text: "\n[Lathe redacted 1 token from this output.]" },
      ],
      details: { path: "[REDACTED: token]", redactions: { token: 1 } },
    });
    expect(await t.after(message, call, { content: [{ type: "text", text: "clean" }], details: {} })).toBeUndefined();
    expect(t.secretsRead()).toBe(2);
  });
});
