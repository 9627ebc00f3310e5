// Context management with the scripted model: compaction at the threshold, never between a tool
// call and its result, off means off, overflow then one retry, the summary entry replayed on
// reopen, edit and undo; and the pure pieces (cut, model view, token accounting).
import { afterEach, describe, expect, it } from "vitest";
import { activeCompaction, contextTokens, findCut, modelView, estimateTokens } from "../../app/main/sessions/context.ts";
import type { AgentMessage, AssistantMessage, CustomMessage, Message } from "../../app/shared/agent-types.ts";
import { emptyUsage } from "../../app/shared/agent-types.ts";
import { startApp, type AppHarness } from "../support/app-harness.ts";
import type { ScriptStep } from "../../app/main/loop/test/scripted-model.ts";

let app: AppHarness | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(" ");
const ended = (events: readonly { type: string }[] | undefined) => (events ?? []).filter((e) => e.type === "agent_end").length;
const user = (text: string): Message => ({ role: "user", content: text, timestamp: 1 });
const answer = (text: string, extra: Partial<AssistantMessage> = {}): AssistantMessage => ({
  role: "assistant",
  content: [{ type: "text", text }],
  api: "x",
  provider: "x",
  model: "x",
  usage: emptyUsage(),
  stopReason: "stop",
  timestamp: 1,
  ...extra,
});

/** A small model: 4,000-token window, 1,000 reserved for the answer, ~1,200 kept verbatim. */
const small = { contextWindow: 4000, maxTokens: 1000 };

async function session(h: AppHarness) {
  const project = await h.call("projects.open", { folder: h.projectDir });
  return h.call("sessions.create", { projectId: project.id });
}

async function promptAndWait(h: AppHarness, sessionId: number, text: string, runs: number) {
  await h.waitFor(() => !h.services.sessions.isRunning(sessionId), "idle");
  await h.call("sessions.prompt", { sessionId, text });
  await h.waitFor(() => ended(h.sessionEvents.get(sessionId)) >= runs, `run ${runs}`);
  await h.waitFor(() => !h.services.sessions.isRunning(sessionId), "idle");
}

describe("the cut and the model's view", () => {
  it("cuts only at a user message, keeping tool calls with their results", () => {
    const call = (id: string): AssistantMessage => ({
      ...answer(""),
      content: [{ type: "toolCall", id, name: "read", arguments: { path: words(300, "p") } }],
      stopReason: "toolUse",
    });
    const result = (id: string): Message => ({
      role: "toolResult",
      toolCallId: id,
      toolName: "read",
      content: [{ type: "text", text: words(300, "r") }],
      isError: false,
      timestamp: 1,
    });
    const transcript: AgentMessage[] = [
      user(words(300, "a")),
      call("1"),
      result("1"),
      answer(words(300, "b")),
      user(words(300, "c")),
      call("2"),
      result("2"),
      call("3"),
      result("3"),
      answer("done"),
    ];
    for (const keep of [1, 100, 1000, 2000, 5000]) {
      const cut = findCut(transcript, keep);
      if (cut === undefined) continue;
      expect(transcript[cut]!.role).toBe("user");
      expect(cut).toBeGreaterThan(0);
    }
    expect(findCut(transcript, 10)).toBe(4);
    expect(findCut([user("only one turn"), answer("ok")], 1)).toBeUndefined();
  });

  it("applies the newest compaction not undone, edits included", () => {
    const base: AgentMessage[] = [user("one"), answer("a"), user("two"), answer("b")];
    const entry = (content: string, details: object): CustomMessage => ({ role: "custom", customType: "compaction", content, display: true, details, timestamp: 2 });
    const compacted = [...base, entry("S1", { firstKeptIndex: 2, trigger: "manual" })];
    expect(modelView(compacted).map((m) => m.role)).toEqual(["user", "user", "assistant"]);
    expect(JSON.stringify(modelView(compacted)[0])).toContain("S1");
    const edited = [...compacted, entry("S1 edited", { firstKeptIndex: 2, trigger: "edit", replaces: 4 })];
    expect(activeCompaction(edited)!.entry.content).toBe("S1 edited");
    const undone: AgentMessage[] = [...edited, { role: "custom", customType: "compaction_undo", content: "", display: true, details: { undoes: 5 }, timestamp: 3 }];
    expect(activeCompaction(undone)).toBeUndefined();
    expect(modelView(undone)).toEqual(base);
  });

  it("counts tokens from the provider's usage, estimating only what came after", () => {
    const usage = { ...emptyUsage(), input: 1000, output: 200, totalTokens: 1200 };
    const transcript: AgentMessage[] = [user("x".repeat(400)), answer("y", { usage }), user("z".repeat(400))];
    expect(contextTokens(transcript)).toBe(1200 + 100);
    expect(contextTokens([user("x".repeat(400))])).toBe(estimateTokens(user("x".repeat(400))));
  });
});

describe("compaction in sessions", () => {
  it("compacts automatically before a request that would not fit, keeping the full history stored", async () => {
    const steps: ScriptStep[] = [
      { text: words(250, "answerA") },
      { text: words(250, "answerB") },
      { text: "## Goal\nThe summary of turns A and B" }, // the summarization request
      { text: "answer C, from the compacted context" },
    ];
    app = await startApp({ steps, model: small });
    const s = await session(app);
    await promptAndWait(app, s.id, words(250, "questionA"), 1);
    await promptAndWait(app, s.id, words(250, "questionB"), 2);
    expect(app.scripted.requests).toHaveLength(2);
    await promptAndWait(app, s.id, words(250, "questionC"), 3);
    expect(app.scripted.requests).toHaveLength(4);
    const summarizing = app.scripted.requests[2]!;
    expect(summarizing.context.tools ?? []).toHaveLength(0);
    expect(JSON.stringify(summarizing.context.messages)).toContain("questionA0");
    const after = app.scripted.requests[3]!.context.messages;
    expect(JSON.stringify(after[0])).toContain("The summary of turns A and B");
    expect(JSON.stringify(after)).not.toContain("answerA0");
    expect(JSON.stringify(after.at(-1))).toContain("questionC0");
    const { opened, state } = await app.call("sessions.open", { sessionId: s.id });
    expect(opened.messages.map((m) => (m.role === "custom" ? m.customType : m.role))).toEqual(["user", "assistant", "user", "assistant", "user", "compaction", "assistant"]);
    expect(state.contextTokens).toBeLessThan(3000);
  });

  it("never compacts when turned off: the overflow is reported instead", async () => {
    const steps: ScriptStep[] = [{ text: words(600, "a") }, { text: words(600, "b") }, { error: "prompt is too long: 5000 tokens > 4000 maximum", contextOverflow: true }];
    app = await startApp({ steps, model: small });
    await app.call("settings.update", { autoCompact: false });
    const s = await session(app);
    await promptAndWait(app, s.id, words(600, "q"), 1);
    await promptAndWait(app, s.id, words(600, "r"), 2);
    await promptAndWait(app, s.id, words(600, "t"), 3);
    // Well over the threshold, and an overflow: still no summarization request, no retry.
    expect((await app.call("sessions.state", { sessionId: s.id })).contextTokens).toBeGreaterThan(3000);
    expect(app.scripted.requests).toHaveLength(3);
    const { opened } = await app.call("sessions.open", { sessionId: s.id });
    expect(opened.messages.some((m) => m.role === "custom")).toBe(false);
    expect((opened.messages.at(-1) as AssistantMessage).stopReason).toBe("error");
  });

  it("on a context overflow compacts and retries the turn once", async () => {
    const overflow: ScriptStep = { error: "This model's maximum context length is 4000 tokens", contextOverflow: true };
    const steps: ScriptStep[] = [{ text: "a" }, { text: "b" }, overflow, { text: "summary after overflow" }, { text: "retried answer" }];
    app = await startApp({ steps, model: { contextWindow: 200_000, maxTokens: 1000 } });
    const s = await session(app);
    await promptAndWait(app, s.id, words(10, "q"), 1);
    await promptAndWait(app, s.id, words(10, "r"), 2);
    await app.call("sessions.prompt", { sessionId: s.id, text: "t" });
    await app.waitFor(() => ended(app!.sessionEvents.get(s.id)) >= 4, "the retried run");
    await app.waitFor(() => !app!.services.sessions.isRunning(s.id), "idle");
    const { opened } = await app.call("sessions.open", { sessionId: s.id });
    const kinds = opened.messages.map((m) => (m.role === "custom" ? m.customType : m.role));
    expect(kinds.slice(-3)).toEqual(["assistant", "compaction", "assistant"]);
    expect((opened.messages.at(-1) as AssistantMessage).content[0]).toEqual({ type: "text", text: "retried answer" });
    // The retry did not send the failed answer.
    expect(JSON.stringify(app.scripted.requests[4]!.context.messages)).not.toContain("maximum context length");
  });

  it("retries an overflowed turn only once: a second overflow ends the run with the error", async () => {
    const overflow: ScriptStep = { error: "This model's maximum context length is 4000 tokens", contextOverflow: true };
    // A second compaction and retry would take "answer to u" as its summary, and prompt u would
    // then find no response left.
    const steps: ScriptStep[] = [{ text: "a" }, { text: "b" }, overflow, { text: "summary after overflow" }, overflow, { text: "answer to u" }];
    app = await startApp({ steps, model: { contextWindow: 200_000, maxTokens: 1000 } });
    const s = await session(app);
    await promptAndWait(app, s.id, words(10, "q"), 1);
    await promptAndWait(app, s.id, words(10, "r"), 2);
    await app.call("sessions.prompt", { sessionId: s.id, text: "t" });
    await app.waitFor(() => ended(app!.sessionEvents.get(s.id)) >= 4, "the retried run");
    await app.waitFor(() => !app!.services.sessions.isRunning(s.id), "idle");
    let { opened } = await app.call("sessions.open", { sessionId: s.id });
    expect(opened.messages.at(-1)).toMatchObject({ role: "assistant", stopReason: "error", contextOverflow: true });
    await promptAndWait(app, s.id, "u", 5);
    ({ opened } = await app.call("sessions.open", { sessionId: s.id }));
    expect((opened.messages.at(-1) as AssistantMessage).content[0]).toEqual({ type: "text", text: "answer to u" });
    expect(app.scripted.remaining()).toBe(0);
  });

  it("after a restart, a resumed session sends the stored summary, not what it stands in for", async () => {
    app = await startApp({ steps: [{ text: "first" }, { text: "second" }, { text: "Stored summary: keep tabs" }] });
    const s = await session(app);
    await promptAndWait(app, s.id, "question one", 1);
    await promptAndWait(app, s.id, "question two", 2);
    expect((await app.call("sessions.compact", { sessionId: s.id })).compacted).toBe(true);
    await app.services.close();

    const { createAppServices } = await import("../../app/main/app-services.ts");
    const { noSecretStore } = await import("../../app/main/settings/settings-service.ts");
    const { createScriptedModel } = await import("../../app/main/loop/test/scripted-model.ts");
    const scripted = createScriptedModel([{ text: "resumed" }]);
    const reopened = createAppServices({ dataDir: app.dataDir, secrets: noSecretStore, host: "browser", version: "test", env: {}, streamFn: scripted.streamFn });
    let done = false;
    reopened.hub.add({ sessionEvent: (_id, e) => void (e.type === "agent_end" && (done = true)), emit: () => {} });
    try {
      await reopened.router.handle("sessions.prompt", { sessionId: s.id, text: "question three" });
      await app.waitFor(() => done, "the resumed run");
      const sent = JSON.stringify(scripted.requests[0]!.context.messages);
      expect(JSON.stringify(scripted.requests[0]!.context.messages[0])).toContain("Stored summary: keep tabs");
      expect(sent).not.toContain("question one");
      expect(sent).toContain("question two");
      expect(sent).toContain("question three");
    } finally {
      await reopened.close();
    }
    app.services.close = async () => {};
  });

  it("replays the summary on reopen, and the user can edit or undo it", async () => {
    app = await startApp({ steps: [{ text: "first" }, { text: "second" }, { text: "Original summary" }, { text: "after edit" }, { text: "after undo" }] });
    const s = await session(app);
    await promptAndWait(app, s.id, "question one", 1);
    await promptAndWait(app, s.id, "question two", 2);
    const manual = await app.call("sessions.compact", { sessionId: s.id });
    expect(manual).toMatchObject({ compacted: true, message: expect.stringContaining("Compacted") });
    let opened = (await app.call("sessions.open", { sessionId: s.id })).opened;
    const index = opened.messages.findIndex((m) => m.role === "custom" && m.customType === "compaction");
    expect(opened.messages[index]).toMatchObject({ content: "Original summary", details: { firstKeptIndex: 2, trigger: "manual" } });

    await app.call("sessions.editCompaction", { sessionId: s.id, index, summary: "Edited summary: keep tabs" });
    await promptAndWait(app, s.id, "question three", 3);
    expect(JSON.stringify(app.scripted.requests[3]!.context.messages[0])).toContain("Edited summary: keep tabs");
    expect(JSON.stringify(app.scripted.requests[3]!.context.messages)).not.toContain("question one");

    opened = (await app.call("sessions.open", { sessionId: s.id })).opened;
    const editedIndex = opened.messages.findLastIndex((m) => m.role === "custom" && m.customType === "compaction");
    await app.call("sessions.undoCompaction", { sessionId: s.id, index: editedIndex });
    await promptAndWait(app, s.id, "question four", 4);
    const full = JSON.stringify(app.scripted.requests[4]!.context.messages);
    expect(full).toContain("question one");
    expect(full).not.toContain("summary");

    expect(await app.raw("sessions.undoCompaction", { sessionId: s.id, index: 0 })).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining("not a compaction summary") },
    });
    // Replayed from the store, the view is the same.
    const stored = app.services.store.openSession(s.id)!.messages;
    expect(activeCompaction(stored)).toBeUndefined();
    expect(stored.filter((m) => m.role === "custom").map((m) => (m as CustomMessage).customType)).toEqual(["compaction", "compaction", "compaction_undo"]);
  });
});
