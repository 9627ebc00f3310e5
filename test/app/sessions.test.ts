// The sessions service through the router, as a renderer uses it: prompt, several sessions at
// once, steer, follow-up, abort, resume from the store, fork.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent, AgentMessage, AssistantMessage, ToolResultMessage } from "../../app/shared/agent-types.ts";
import { startApp, type AppHarness } from "../support/app-harness.ts";
import type { ScriptedResponse } from "../../app/main/loop/test/scripted-model.ts";
import type { LlmContext } from "../../app/main/loop/index.ts";

let app: AppHarness | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

const lastUserText = (context: LlmContext): string => {
  const user = context.messages.findLast((m) => m.role === "user");
  if (!user) return "";
  return typeof user.content === "string" ? user.content : user.content.map((c) => (c.type === "text" ? c.text : "")).join("");
};
const roles = (messages: AgentMessage[]) => messages.map((m) => m.role);
const ended = (events: readonly { type: string }[] | undefined) => (events ?? []).filter((e) => e.type === "agent_end").length;

async function newSession(h: AppHarness) {
  const project = await h.call("projects.open", { folder: h.projectDir });
  return h.call("sessions.create", { projectId: project.id });
}

describe("sessions through the router", () => {
  it("runs a prompt: streamed events, stored transcript, title from the prompt", async () => {
    app = await startApp({ steps: [{ text: "Hello! I can help with that." }] });
    const session = await newSession(app);
    expect(session.model).toBe("local/scripted");
    expect(await app.call("sessions.prompt", { sessionId: session.id, text: "Explain the build" })).toEqual({ delivery: "prompt" });
    await app.waitFor(() => ended(app!.sessionEvents.get(session.id)) === 1, "the run to end");
    const types = app.sessionEvents.get(session.id)!.map((e) => e.type);
    expect(types[0]).toBe("agent_start");
    expect(types).toContain("message_update");
    const { opened, state } = await app.call("sessions.open", { sessionId: session.id });
    expect(roles(opened.messages)).toEqual(["user", "assistant"]);
    expect(opened.session.title).toBe("Explain the build");
    await app.waitFor(() => !app!.services.sessions.isRunning(session.id), "idle");
    expect(state.model).toBe("local/scripted");
    const updated = app.events.filter((e) => e.event === "session.updated");
    expect(updated.length).toBeGreaterThan(0);
  });

  it("runs several sessions at once without crosstalk", async () => {
    const echo = (context: LlmContext): ScriptedResponse => ({ text: `echo: ${lastUserText(context)}`, deltaDelayMs: 2, chunkSize: 3 });
    app = await startApp({ steps: [echo, echo, echo] });
    const sessions = [await newSession(app), await newSession(app), await newSession(app)];
    await Promise.all(sessions.map((s, i) => app!.call("sessions.prompt", { sessionId: s.id, text: `task number ${i}` })));
    await app.waitFor(() => sessions.every((s) => ended(app!.sessionEvents.get(s.id)) === 1), "all runs to end");
    for (const [i, s] of sessions.entries()) {
      const texts = app.sessionEvents
        .get(s.id)!
        .filter((e): e is Extract<AgentEvent, { type: "message_end" }> => e.type === "message_end" && e.message.role === "assistant")
        .map((e) => ((e.message as AssistantMessage).content[0] as { text: string }).text);
      expect(texts).toEqual([`echo: task number ${i}`]);
      const { opened } = await app.call("sessions.open", { sessionId: s.id });
      expect(opened.messages).toHaveLength(2);
      expect(opened.messages[0]).toMatchObject({ role: "user", content: `task number ${i}` });
    }
  });

  it("steers after the current tools and queues follow-ups until the agent would stop", async () => {
    app = await startApp({
      steps: [
        { toolCalls: [{ name: "bash", args: { command: "sleep 0.3; echo slept" } }] },
        (context) => ({ text: `saw: ${lastUserText(context)}` }),
        (context) => ({ text: `then: ${lastUserText(context)}` }),
      ],
    });
    await app.call("settings.update", { permissionMode: "full-auto" });
    const session = await newSession(app);
    await app.call("sessions.prompt", { sessionId: session.id, text: "wait a bit" });
    await app.waitFor(() => (app!.sessionEvents.get(session.id) ?? []).some((e) => e.type === "tool_execution_start"), "the tool to start");
    expect(await app.call("sessions.prompt", { sessionId: session.id, text: "use tabs" })).toEqual({ delivery: "steer" });
    const image = { type: "image" as const, data: "iVBORw0KGgo=", mimeType: "image/png" };
    await app.call("sessions.followUp", { sessionId: session.id, text: "write the changelog", images: [image] });
    const state = await app.call("sessions.state", { sessionId: session.id });
    expect(state).toMatchObject({ running: true, queued: { steering: ["use tabs"], followUp: ["write the changelog [image]"] } });
    await app.waitFor(() => ended(app!.sessionEvents.get(session.id)) === 1, "the run to end");
    const { opened } = await app.call("sessions.open", { sessionId: session.id });
    expect(roles(opened.messages)).toEqual(["user", "assistant", "toolResult", "user", "assistant", "user", "assistant"]);
    expect(opened.messages[4]).toMatchObject({ content: [{ type: "text", text: "saw: use tabs" }] });
    expect(opened.messages[6]).toMatchObject({ content: [{ type: "text", text: "then: write the changelog" }] });
    expect(opened.messages[5]).toMatchObject({ role: "user", content: [{ type: "text", text: "write the changelog" }, image] });
    expect((opened.messages[2] as ToolResultMessage).isError).toBe(false);
  });

  it("aborts a running command: the run ends aborted and every call has a result", async () => {
    app = await startApp({ steps: [{ toolCalls: [{ name: "bash", args: { command: "sleep 30" } }] }, { text: "never" }] });
    await app.call("settings.update", { permissionMode: "full-auto" });
    const session = await newSession(app);
    await app.call("sessions.prompt", { sessionId: session.id, text: "run forever" });
    await app.waitFor(() => (app!.sessionEvents.get(session.id) ?? []).some((e) => e.type === "tool_execution_start"), "the tool to start");
    await new Promise((r) => setTimeout(r, 200));
    await app.call("sessions.abort", { sessionId: session.id });
    await app.waitFor(() => ended(app!.sessionEvents.get(session.id)) === 1, "the run to end", 5_000);
    const { opened } = await app.call("sessions.open", { sessionId: session.id });
    expect(roles(opened.messages)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(opened.messages[2]).toMatchObject({ isError: true });
    expect((opened.messages[3] as AssistantMessage).stopReason).toBe("aborted");
    await app.waitFor(() => !app!.services.sessions.isRunning(session.id), "idle");
    expect((await app.call("sessions.state", { sessionId: session.id })).running).toBe(false);
  });

  it("resumes a session from the store after a restart, with its whole history", async () => {
    app = await startApp({ steps: [{ text: "first answer" }] });
    const session = await newSession(app);
    await app.call("sessions.prompt", { sessionId: session.id, text: "first question" });
    await app.waitFor(() => ended(app!.sessionEvents.get(session.id)) === 1, "the first run");
    await app.services.close();

    const { createAppServices } = await import("../../app/main/app-services.ts");
    const { noSecretStore } = await import("../../app/main/settings/settings-service.ts");
    const { createScriptedModel } = await import("../../app/main/loop/test/scripted-model.ts");
    const scripted = createScriptedModel([{ text: "second answer" }]);
    const reopened = createAppServices({ dataDir: app.dataDir, secrets: noSecretStore, host: "browser", version: "test", env: {}, streamFn: scripted.streamFn });
    let done = false;
    reopened.hub.add({ sessionEvent: (_id, e) => void (e.type === "agent_end" && (done = true)), emit: () => {} });
    try {
      expect(await reopened.router.handle("sessions.prompt", { sessionId: session.id, text: "second question" })).toEqual({ ok: true, data: { delivery: "prompt" } });
      await app.waitFor(() => done, "the resumed run");
      expect(roles(scripted.requests[0]!.context.messages)).toEqual(["user", "assistant", "user"]);
      const opened = reopened.store.openSession(session.id)!;
      expect(roles(opened.messages)).toEqual(["user", "assistant", "user", "assistant"]);
    } finally {
      await reopened.close();
    }
    app.services.close = async () => {};
  });

  it("forks at a message: same history up to it, a link back, and runs on its own", async () => {
    app = await startApp({ steps: [{ text: "one" }, { text: "two" }, { text: "forked answer" }] });
    const session = await newSession(app);
    await app.call("sessions.prompt", { sessionId: session.id, text: "q1" });
    await app.waitFor(() => ended(app!.sessionEvents.get(session.id)) === 1, "run 1");
    await app.waitFor(() => !app!.services.sessions.isRunning(session.id), "idle");
    await app.call("sessions.prompt", { sessionId: session.id, text: "q2" });
    await app.waitFor(() => ended(app!.sessionEvents.get(session.id)) === 2, "run 2");
    const fork = await app.call("sessions.fork", { sessionId: session.id, position: 1 });
    expect(fork).toMatchObject({ parentSessionId: session.id, forkPosition: 1, messageCount: 2 });
    await app.call("sessions.prompt", { sessionId: fork.id, text: "q2 differently" });
    await app.waitFor(() => ended(app!.sessionEvents.get(fork.id)) === 1, "the fork's run");
    const original = (await app.call("sessions.open", { sessionId: session.id })).opened.messages;
    const forked = (await app.call("sessions.open", { sessionId: fork.id })).opened.messages;
    expect(original).toHaveLength(4);
    expect(forked.map((m) => (m.role === "user" ? m.content : (m as AssistantMessage).content[0]))).toEqual([
      "q1",
      { type: "text", text: "one" },
      "q2 differently",
      { type: "text", text: "forked answer" },
    ]);
  });

  it("types into a command waiting for input", async () => {
    app = await startApp({ steps: [{ toolCalls: [{ name: "bash", id: "ask", args: { command: 'read -p "Name? " name; echo "hello $name"' } }] }, { text: "done" }] });
    await app.call("settings.update", { permissionMode: "full-auto" });
    const session = await newSession(app);
    await app.call("sessions.prompt", { sessionId: session.id, text: "greet me" });
    await app.waitFor(
      () =>
        (app!.sessionEvents.get(session.id) ?? []).some(
          (e) => e.type === "tool_execution_update" && (e.partialResult.details as { waitingForInput?: boolean }).waitingForInput === true,
        ),
      "the command to wait for input",
    );
    await app.call("tools.input", { sessionId: session.id, toolCallId: "ask", data: "Ada\r" });
    await app.waitFor(() => ended(app!.sessionEvents.get(session.id)) === 1, "the run to end");
    const result = (await app.call("sessions.open", { sessionId: session.id })).opened.messages[2] as ToolResultMessage;
    expect(JSON.stringify(result.content)).toContain("hello Ada");
    const stale = await app.raw("tools.input", { sessionId: session.id, toolCallId: "ask", data: "x" });
    expect(stale).toMatchObject({ ok: false, error: { code: "not-found" } });
  });

  it("switches a session's model: the next request goes to the new one", async () => {
    app = await startApp({ steps: [{ text: "from the first" }, { text: "from the second" }] });
    app.services.settings.setProvider({ id: "other", kind: "compatible", name: "Other", baseUrl: "http://127.0.0.1:9/v1", models: [{ id: "big", contextWindow: 64_000 }] });
    const session = await newSession(app);
    await app.call("sessions.prompt", { sessionId: session.id, text: "one" });
    await app.waitFor(() => ended(app!.sessionEvents.get(session.id)) === 1, "run 1");
    await app.waitFor(() => !app!.services.sessions.isRunning(session.id), "idle");
    const state = await app.call("sessions.setModel", { sessionId: session.id, model: "other/big" });
    expect(state).toMatchObject({ model: "other/big", contextWindow: 64_000 });
    await app.call("sessions.prompt", { sessionId: session.id, text: "two" });
    await app.waitFor(() => ended(app!.sessionEvents.get(session.id)) === 2, "run 2");
    expect(app.scripted.requests.map((r) => `${r.model.provider}/${r.model.id}`)).toEqual(["local/scripted", "other/big"]);
    expect((await app.call("sessions.open", { sessionId: session.id })).opened.session.model).toBe("other/big");
  });

  it("reports a missing model, a missing project folder and a missing session clearly", async () => {
    app = await startApp();
    expect(await app.raw("projects.open", { folder: path.join(app.projectDir, "nope") })).toMatchObject({ ok: false, error: { code: "not-found" } });
    writeFileSync(path.join(app.projectDir, "file.txt"), "x");
    expect(await app.raw("projects.open", { folder: path.join(app.projectDir, "file.txt") })).toMatchObject({ ok: false, error: { code: "invalid-request" } });
    expect(await app.raw("sessions.open", { sessionId: 999 })).toMatchObject({ ok: false, error: { code: "not-found" } });
    const session = await newSession(app);
    expect(await app.raw("sessions.setModel", { sessionId: session.id, model: "nobody/nothing" })).toMatchObject({ ok: false, error: { code: "not-found" } });
  });
});
