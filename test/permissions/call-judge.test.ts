// call-judge.ts driven directly, with an in-memory store (permission-fakes.ts): a judgement reads
// the rules of the call's session and project and the mode as they are at that moment, an MCP
// server's tool is judged under "mcp" rules and never placed in the sandbox, a later call of a
// batch is judged with the loop's preparation and validation (and only a call that would ask gets
// a question), the question's request says what the dialog shows, and its key tells calls judged
// differently apart. The bash grammar failing to load: call-judge-no-parser.test.ts.
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CallJudge, questionKey, type JudgedCall } from "../../app/main/permissions/call-judge.ts";
import { mcpProposedRule, mcpSummary } from "../../app/main/permissions/mcp-rules.ts";
import { callSubjects, decide, proposeRule, type PermissionMode } from "../../app/main/permissions/policy.ts";
import { planSandbox, requestInfo, sandboxDecision } from "../../app/main/permissions/sandbox-mode.ts";
import { loadShellParser } from "../../app/main/permissions/shell-parser.ts";
import type { AnyAgentTool } from "../../app/main/loop/index.ts";
import { assistant, fakeStore, inThreadPool, sandboxPort, toolCall, TOOLS } from "./permission-fakes.ts";

beforeAll(() => loadShellParser());

const projectDir = "/work/project";
const scope = { sessionId: 1, projectId: 2, projectDir };
const githubSearch = { server: "github", tool: "search", description: "Searches.", annotations: { readOnlyHint: true } };

function judgeWith(o: { mode?: PermissionMode; sandbox?: ReturnType<typeof sandboxPort>; mcp?: boolean } = {}) {
  const store = fakeStore();
  let mode: PermissionMode = o.mode ?? "ask";
  const pool = inThreadPool();
  const judge = new CallJudge({
    store,
    pool,
    mode: () => mode,
    sandbox: o.sandbox,
    describeMcpTool: o.mcp === false ? undefined : (name) => (name === "github__search" || name === "mcp_bash" ? githubSearch : undefined),
  });
  return { judge, store, pool, setMode: (m: PermissionMode) => (mode = m) };
}

const asJudged = (j: Awaited<ReturnType<CallJudge["judge"]>>): JudgedCall => {
  if (j.kind !== "judged") throw new Error(`not judged: ${j.reason}`);
  return j;
};

describe("judge", () => {
  it("judges a call against the policy with the scope's project folder, no sandbox given: no plan", async () => {
    const { judge } = judgeWith();
    const args = { command: "npm test" };
    const j = asJudged(await judge.judge(scope, "bash", args));
    const subjects = callSubjects("bash", args, projectDir);
    expect(j).toMatchObject({ kind: "judged", toolName: "bash", args, mcp: undefined, ruleTool: "bash", plan: undefined });
    expect(j.args).toBe(args);
    expect(j.subjects.subjects).toEqual(["npm test"]);
    expect(j.subjects.parts).toEqual(subjects.parts);
    expect(j.decision).toEqual(decide({ toolName: "bash", subjects, rules: [], mode: "ask" }));
    expect(j.decision.action).toBe("ask");
    // Paths are read against the scope's project folder.
    expect(asJudged(await judge.judge({ ...scope, projectDir: "/elsewhere" }, "read", { path: "src/a.ts" })).subjects.absolutePaths).toEqual(["/elsewhere/src/a.ts"]);
    expect(asJudged(await judge.judge(scope, "read", { path: "src/a.ts" })).decision).toMatchObject({ action: "allow", by: "default" });
    expect(asJudged(await judge.judge(scope, "read", { path: "/etc/passwd" })).decision.action).toBe("ask");
  });

  it("reads the rules of the call's session and project, and global ones, at each judgement", async () => {
    const { judge, store } = judgeWith();
    const args = { command: "npm test" };
    const action = async (s = scope) => asJudged(await judge.judge(s, "bash", args)).decision;
    expect((await action()).action).toBe("ask");
    store.permissionRules.add({ tool: "bash", pattern: "npm test", action: "allow", scope: "session", scopeId: 9 });
    store.permissionRules.add({ tool: "bash", pattern: "npm test", action: "allow", scope: "project", scopeId: 9 });
    expect((await action()).action).toBe("ask");
    const mine = store.permissionRules.add({ tool: "bash", pattern: "npm test", action: "allow", scope: "project", scopeId: 2 });
    expect(await action()).toMatchObject({ action: "allow", by: "rule", rule: mine });
    // The same rule read from another project does not apply.
    expect((await action({ ...scope, projectId: 3 })).action).toBe("ask");
    const deny = store.permissionRules.add({ tool: "bash", pattern: "npm *", action: "deny", scope: "global", scopeId: null });
    expect(await action({ ...scope, projectId: 3 })).toMatchObject({ action: "deny", rule: deny });
  });

  it("reads the mode at each judgement", async () => {
    const { judge, setMode } = judgeWith();
    const edit = async () => asJudged(await judge.judge(scope, "write", { path: "notes.md", content: "x" })).decision;
    expect((await edit()).action).toBe("ask");
    setMode("auto-edit");
    expect(await edit()).toMatchObject({ action: "allow", by: "mode" });
    setMode("ask");
    expect((await edit()).action).toBe("ask");
  });

  it("judges an MCP server's tool under mcp rules by its server/tool name, whatever its arguments, and never in the sandbox", async () => {
    const port = sandboxPort();
    const { judge, store } = judgeWith({ sandbox: port, mode: "sandboxed-auto" });
    const args = { query: "x", path: "/etc/passwd", command: "rm -rf /" };
    const j = asJudged(await judge.judge(scope, "github__search", args));
    expect(j).toMatchObject({ toolName: "github__search", ruleTool: "mcp", mcp: githubSearch, plan: undefined, args });
    expect(j.subjects.subjects).toEqual(["github/search"]);
    expect(j.decision.action).toBe("ask");
    store.permissionRules.add({ tool: "mcp", pattern: "github/*", action: "allow", scope: "project", scopeId: 2 });
    expect(asJudged(await judge.judge(scope, "github__search", args)).decision).toMatchObject({ action: "allow", by: "rule" });
    // A rule for the tool's own name (not under mcp) does not apply to it.
    const other = judgeWith();
    other.store.permissionRules.add({ tool: "github__search", pattern: "*", action: "allow", scope: "global", scopeId: null });
    expect(asJudged(await other.judge.judge(scope, "github__search", args)).decision.action).toBe("ask");
    // An MCP tool that happens to be named like a built-in tool is still an MCP tool.
    const named = asJudged(await judge.judge(scope, "mcp_bash", { command: "ls" }));
    expect(named).toMatchObject({ ruleTool: "mcp", plan: undefined });
    expect(port.placed).toEqual([]);
  });

  it("a tool the MCP lookup does not know is judged as itself", async () => {
    const { judge } = judgeWith();
    expect(asJudged(await judge.judge(scope, "lookup", { q: 1 }))).toMatchObject({ ruleTool: "lookup", mcp: undefined });
    const plain = judgeWith({ mcp: false }).judge;
    expect(asJudged(await plain.judge(scope, "github__search", {}))).toMatchObject({ ruleTool: "github__search", mcp: undefined });
  });

  it("with a sandbox, plans where the call runs and adjusts the policy's decision", async () => {
    const port = sandboxPort();
    const { judge } = judgeWith({ sandbox: port, mode: "sandboxed-auto" });
    const args = { command: "npm test" };
    const j = asJudged(await judge.judge(scope, "bash", args));
    const subjects = callSubjects("bash", args, projectDir);
    const plan = planSandbox({ toolName: "bash", subjects, mode: "sandboxed-auto", scope, port });
    expect(j.plan).toEqual(plan);
    expect(j.plan?.placement).toBe("sandbox");
    expect(j.decision).toEqual(
      sandboxDecision(decide({ toolName: "bash", subjects, rules: [], mode: "sandboxed-auto" }), plan, { toolName: "bash", subjects, mode: "sandboxed-auto" }),
    );
    expect(j.decision.action).toBe("allow");
    // Without the sandbox, the same mode does not allow the command.
    expect(asJudged(await judgeWith({ mode: "sandboxed-auto" }).judge.judge(scope, "bash", args)).decision.action).not.toBe("allow");
    // Judging places nothing: only an allowed call's turn does.
    expect(port.placed).toEqual([]);
  });

  it("waits for the sandbox's background detection before reading its status (never probes on this thread)", async () => {
    let answer!: () => void;
    const detected = new Promise<void>((resolve) => (answer = resolve));
    let done = false;
    const port = {
      ...sandboxPort(),
      detectInBackground: () => detected,
      status: () => {
        if (!done) throw new Error("status read before the detection answered");
        return { kind: "bubblewrap" as const, available: true, message: "Commands run in a bubblewrap sandbox." };
      },
    };
    const { judge } = judgeWith({ sandbox: port, mode: "sandboxed-auto" });
    let judged: JudgedCall | undefined;
    const pending = judge.judge(scope, "bash", { command: "npm test" }).then((j) => (judged = asJudged(j)));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(judged).toBeUndefined();
    done = true;
    answer();
    await pending;
    expect(judged?.plan?.placement).toBe("sandbox");
    expect(judged?.decision.action).toBe("allow");
  });

  it("judges hostile arguments without throwing: a huge command, odd types, no arguments", async () => {
    const { judge } = judgeWith();
    const huge = asJudged(await judge.judge(scope, "bash", { command: `echo ${"a".repeat(200_000)}` }));
    expect(huge.decision.action).toBe("ask");
    for (const args of [null, undefined, 42, "ls", [], { command: 5 }, { path: { toString: 1 } }]) {
      for (const tool of ["bash", "read", "edit", "write", "unknown"]) {
        const j = await judge.judge(scope, tool, args);
        expect(j.kind, `${tool} ${JSON.stringify(args)}`).toBe("judged");
      }
    }
  });
});

describe("prejudge", () => {
  const later = async (call: ReturnType<typeof toolCall>, o: { tools?: AnyAgentTool[]; mode?: PermissionMode; rules?: boolean } = {}) => {
    const { judge, store } = judgeWith({ mode: o.mode });
    if (o.rules) store.permissionRules.add({ tool: "bash", pattern: "rm *", action: "deny", scope: "global", scopeId: null });
    const message = assistant([toolCall("first", "bash", { command: "ls" }), call]);
    return { spec: await judge.prejudge(scope, message, 1, call, o.tools ?? TOOLS, undefined), message };
  };

  it("gives a question for a later call that would ask, with its place in the batch", async () => {
    const call = toolCall("c2", "bash", { command: "npm test" });
    const { spec, message } = await later(call);
    expect(spec).toBeDefined();
    expect(spec!.position).toBe(1);
    expect(spec!.message).toBe(message);
    expect(spec!.request).toMatchObject({ toolCallId: "c2", toolName: "bash", args: { command: "npm test" }, sessionId: 1 });
    expect(spec!.projectId).toBe(2);
    expect(spec!.ruleTool).toBe("bash");
  });

  it("gives none for a call the loop would not run or that would not ask", async () => {
    // Arguments the loop refused before.
    expect((await later(toolCall("c", "bash", {}, "the arguments are not valid JSON"))).spec).toBeUndefined();
    expect((await later(toolCall("c", "bash", { command: "npm test" }, ""))).spec).toBeUndefined();
    // No such tool.
    expect((await later(toolCall("c", "nope", { command: "npm test" }))).spec).toBeUndefined();
    // Arguments that fail validation.
    expect((await later(toolCall("c", "bash", { cmd: "npm test" }))).spec).toBeUndefined();
    // Allowed now (read inside the project) or denied by a rule.
    expect((await later(toolCall("c", "read", { path: "src/a.ts" }))).spec).toBeUndefined();
    expect((await later(toolCall("c", "bash", { command: "rm -rf x" }), { rules: true })).spec).toBeUndefined();
    // Allowed by the mode.
    expect((await later(toolCall("c", "bash", { command: "npm test" }), { mode: "full-auto" })).spec).toBeUndefined();
  });

  it("prepares and validates the arguments as the loop will, and judges what the loop would run", async () => {
    const prepared: AnyAgentTool = { ...TOOLS[0]!, prepareArguments: (a) => ({ command: (a as { cmd: string }).cmd }) };
    const { spec } = await later(toolCall("c", "bash", { cmd: "npm test" }), { tools: [prepared] });
    expect(spec!.request.args).toEqual({ command: "npm test" });
    // Validated as the loop validates: a command that is no string is refused, nothing asked.
    expect((await later(toolCall("c", "bash", { command: ["npm", "test"] }))).spec).toBeUndefined();
    // A preparation that throws: the loop will refuse the call, nothing is asked.
    const throwing: AnyAgentTool = {
      ...TOOLS[0]!,
      prepareArguments: () => {
        throw new Error("bad");
      },
    };
    expect((await later(toolCall("c", "bash", { command: "npm test" }), { tools: [throwing] })).spec).toBeUndefined();
    // A write would ask: arguments the loop refuses or a preparation that throws must still give none
    // (never a judgement of arguments the loop would not run).
    const write = TOOLS.find((t) => t.name === "write")!;
    expect((await later(toolCall("c", "write", { path: "a.txt", content: "x" }))).spec).toBeDefined();
    expect((await later(toolCall("c", "write", { path: "a.txt" }))).spec).toBeUndefined();
    expect((await later(toolCall("c", "write", { path: "a.txt", content: 5 }))).spec).toBeUndefined();
    const throwingWrite: AnyAgentTool = {
      ...write,
      prepareArguments: () => {
        throw new Error("bad");
      },
    };
    expect((await later(toolCall("c", "write", { path: "a.txt", content: "x" }), { tools: [throwingWrite] })).spec).toBeUndefined();
    expect((await later(toolCall("c", "nope", { path: "a.txt", content: "x" }), { tools: [throwingWrite] })).spec).toBeUndefined();
    // The tool found by the call's name, not the first.
    const { spec: read } = await later(toolCall("c", "read", { path: "/etc/passwd" }));
    expect(read!.request.toolName).toBe("read");
  });
});

describe("questionSpec", () => {
  it("asks with the summary, the reasons, the proposed rule and its meaning, and a key", async () => {
    const { judge } = judgeWith();
    const args = { command: "npm test" };
    const j = asJudged(await judge.judge(scope, "bash", args));
    const message = assistant([]);
    const before = Date.now();
    const spec = await judge.questionSpec(scope, message, "call-1", 0, j, undefined);
    const proposed = proposeRule("bash", j.subjects);
    expect(spec.request).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      sessionId: 1,
      toolCallId: "call-1",
      toolName: "bash",
      args,
      summary: { title: "Run a command", command: "npm test", outsideProject: false },
      reasons: j.decision.reasons,
      proposedRule: { tool: "bash", pattern: "npm test", meaning: proposed.meaning },
      createdAt: expect.any(Number),
    });
    expect(j.decision.reasons!.length).toBeGreaterThan(0);
    expect(proposed.meaning!.length).toBeGreaterThan(0);
    expect(spec.request.createdAt).toBeGreaterThanOrEqual(before);
    expect(spec.request.createdAt).toBeLessThanOrEqual(Date.now());
    expect(spec).toMatchObject({ projectId: 2, message, position: 0, key: questionKey(j), ruleTool: "bash" });
    // Each question its own id.
    expect((await judge.questionSpec(scope, message, "call-1", 0, j, undefined)).request.id).not.toBe(spec.request.id);
  });

  it("lists warnings and the proposed rule's warning when there are any, and leaves out empty lists", async () => {
    const { judge } = judgeWith();
    const write = asJudged(await judge.judge(scope, "write", { path: ".git/config", content: "[core]" }));
    expect(write.decision.warnings!.length).toBeGreaterThan(0);
    const spec = await judge.questionSpec(scope, assistant([]), "w", 0, write, undefined);
    expect(spec.request.warnings).toEqual(write.decision.warnings);
    const rm = asJudged(await judge.judge(scope, "bash", { command: "rm -rf build" }));
    const rmSpec = await judge.questionSpec(scope, assistant([]), "r", 0, rm, undefined);
    expect(rmSpec.request.proposedRule.warning).toBe(proposeRule("bash", rm.subjects).warning);
    expect(rmSpec.request.proposedRule.warning).toBeTruthy();
    expect("warnings" in rmSpec.request).toBe(false);
    // A call without reasons (asked only for its path outside the project, by a tool without reasons) has no reasons field.
    const outside = asJudged(await judge.judge(scope, "read", { path: "/etc/hosts" }));
    const o = await judge.questionSpec(scope, assistant([]), "o", 0, outside, undefined);
    if ((outside.decision.reasons ?? []).length === 0) expect("reasons" in o.request).toBe(false);
    else expect(o.request.reasons).toEqual(outside.decision.reasons);
    expect(o.request.summary).toEqual({ title: "Read /etc/hosts (outside the project)", path: "/etc/hosts", outsideProject: true });
  });

  it("leaves the reasons and warnings out of the request when there are none, or when they are missing", async () => {
    const { judge } = judgeWith();
    const j = asJudged(await judge.judge(scope, "bash", { command: "npm test" }));
    for (const decision of [
      { action: "ask" as const, by: "default" as const, reasons: [], warnings: [] },
      { action: "ask" as const, by: "default" as const },
    ]) {
      const spec = await judge.questionSpec(scope, assistant([]), "x", 0, { ...j, decision }, undefined);
      expect("reasons" in spec.request, JSON.stringify(decision)).toBe(false);
      expect("warnings" in spec.request, JSON.stringify(decision)).toBe(false);
    }
    const spec = await judge.questionSpec(scope, assistant([]), "x", 0, { ...j, decision: { action: "ask", by: "default", reasons: ["r"], warnings: ["w"] } }, undefined);
    expect(spec.request).toMatchObject({ reasons: ["r"], warnings: ["w"] });
  });

  it("for an MCP tool, shows the server's call and proposes the escaped mcp rule, without meaning lines", async () => {
    const { judge } = judgeWith();
    const j = asJudged(await judge.judge(scope, "github__search", { query: "x" }));
    const spec = await judge.questionSpec(scope, assistant([]), "m", 3, j, undefined);
    expect(spec.request.summary).toEqual(mcpSummary(githubSearch));
    expect(spec.request.proposedRule).toEqual(mcpProposedRule(githubSearch));
    expect(spec.ruleTool).toBe("mcp");
    expect(spec.position).toBe(3);
    expect(spec.request.toolName).toBe("github__search");
  });

  it("says where the call would run when a sandbox is configured", async () => {
    const port = sandboxPort({ available: false });
    const { judge } = judgeWith({ sandbox: port });
    const j = asJudged(await judge.judge(scope, "bash", { command: "npm test" }));
    expect(j.plan).toBeDefined();
    const spec = await judge.questionSpec(scope, assistant([]), "s", 0, j, undefined);
    expect(spec.request.sandbox).toEqual(requestInfo(j.plan!));
    const noPort = await judgeWith().judge.questionSpec(scope, assistant([]), "s", 0, asJudged(await judgeWith().judge.judge(scope, "bash", { command: "npm test" })), undefined);
    expect("sandbox" in noPort.request).toBe(false);
  });

  it("allowedNow judges again with the rules as they are then, and says no when judging fails", async () => {
    const { judge, store } = judgeWith();
    const j = asJudged(await judge.judge(scope, "bash", { command: "npm test" }));
    const spec = await judge.questionSpec(scope, assistant([]), "a", 0, j, undefined);
    expect(spec.allowedNow()).toBe(false);
    store.permissionRules.add({ tool: "bash", pattern: "npm test", action: "allow", scope: "session", scopeId: 1 });
    expect(spec.allowedNow()).toBe(true);
    // A rule of another session changes nothing for it.
    const other = await judge.questionSpec({ ...scope, sessionId: 5 }, assistant([]), "a", 0, j, undefined);
    expect(other.allowedNow()).toBe(false);
    // The store failing: no.
    store.permissionRules.applicable = () => {
      throw new Error("database is closed");
    };
    expect(spec.allowedNow()).toBe(false);
  });

  it("shows an edit's diff in the dialog, computed in the pool it was given", async () => {
    const dir = path.join(import.meta.dirname, "..", "..");
    const { judge, pool } = judgeWith();
    const j = asJudged(await judge.judge({ ...scope, projectDir: dir }, "edit", { path: "package.json", edits: [{ oldText: '"name"', newText: '"title"' }] }));
    const spec = await judge.questionSpec({ ...scope, projectDir: dir }, assistant([]), "e", 0, j, undefined);
    expect(spec.request.summary.title).toBe("Edit package.json");
    expect(spec.request.summary.diff).toContain('+  "title"');
    expect(pool.jobs).toEqual([expect.objectContaining({ kind: "edit", path: path.join(dir, "package.json") })]);
  });
});

describe("questionKey", () => {
  const judged = (o: Partial<JudgedCall> = {}): JudgedCall => ({
    kind: "judged",
    toolName: "bash",
    args: { command: "ls" },
    mcp: undefined,
    ruleTool: "bash",
    subjects: callSubjects("bash", { command: "ls" }, projectDir),
    plan: undefined,
    decision: { action: "ask", by: "default", reasons: ["r"], warnings: ["w"] },
    ...o,
  });

  it("is the same for calls judged the same way, and differs in tool, arguments, reasons, warnings or sandbox crossing", () => {
    const base = questionKey(judged());
    expect(questionKey(judged())).toBe(base);
    expect(questionKey(judged({ toolName: "read" }))).not.toBe(base);
    expect(questionKey(judged({ args: { command: "ls -a" } }))).not.toBe(base);
    expect(questionKey(judged({ decision: { action: "ask", by: "default", reasons: ["other"], warnings: ["w"] } }))).not.toBe(base);
    expect(questionKey(judged({ decision: { action: "ask", by: "default", reasons: ["r"], warnings: [] } }))).not.toBe(base);
    const plan = { available: true, status: "ok", placement: "sandbox" as const };
    expect(questionKey(judged({ plan }))).not.toBe(base);
    expect(questionKey(judged({ plan }))).toBe(questionKey(judged({ plan })));
    expect(questionKey(judged({ plan: { ...plan, placement: "outside" as const } }))).not.toBe(questionKey(judged({ plan })));
    // Missing lists read as empty ones.
    expect(questionKey(judged({ decision: { action: "ask", by: "default" } }))).toBe(
      questionKey(judged({ decision: { action: "ask", by: "default", reasons: [], warnings: [] } })),
    );
    expect(JSON.parse(questionKey(judged({ decision: { action: "ask", by: "default" } })))).toEqual(["bash", { command: "ls" }, [], [], null]);
    expect(JSON.parse(questionKey(judged({ plan })))).toEqual(["bash", { command: "ls" }, ["r"], ["w"], requestInfo(plan)]);
  });
});
