// Checkpoints through the app, as the window drives them: a real session whose scripted model runs
// a real bash command; the turn's files-changed list; a rewind keeping the conversation (the model
// is told), a rewind forking it, the undo, refusals while running, and hostile ids.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { SessionEvent } from "../../app/shared/agent-types.ts";
import type { LlmContext } from "../../app/main/loop/types.ts";
import { startApp, type AppHarness } from "../support/app-harness.ts";
import { createAppServices } from "../../app/main/app-services.ts";
import { noSecretStore } from "../../app/main/settings/settings-service.ts";
import { execFileSync } from "node:child_process";

let app: AppHarness | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

const ended = (events: SessionEvent[] | undefined) => (events ?? []).filter((e) => e.type === "agent_end").length;
const contexts: LlmContext[] = [];

async function runTurn(h: AppHarness, sessionId: number, text: string, runs: number) {
  await h.call("sessions.prompt", { sessionId, text });
  await h.waitFor(() => ended(h.sessionEvents.get(sessionId)) === runs && !h.services.sessions.isRunning(sessionId), "the run to end", 30_000);
}

describe("checkpoints through the app", { timeout: 90_000 }, () => {
  it("lists a bash turn's files, rewinds keeping the conversation (the model is told), and undoes it", async () => {
    contexts.length = 0;
    app = await startApp({
      permissionMode: "full-auto",
      steps: [
        { toolCalls: [{ name: "bash", args: { command: "echo changed > a.txt && rm b.txt && echo new > c.txt" } }] },
        { text: "done" },
        (context) => {
          contexts.push(context);
          return { text: "noted" };
        },
      ],
    });
    writeFileSync(path.join(app.projectDir, "a.txt"), "original\n");
    writeFileSync(path.join(app.projectDir, "b.txt"), "b\n");
    const project = await app.call("projects.open", { folder: app.projectDir });
    const session = await app.call("sessions.create", { projectId: project.id });
    await runTurn(app, session.id, "change the files", 1);
    await app.waitFor(() => app!.events.some((e) => e.event === "checkpoints.changed"), "the after-checkpoint");

    const list = await app.call("checkpoints.list", { sessionId: session.id });
    expect(list.available).toBe(true);
    expect(list.turns).toHaveLength(1);
    const files = Object.fromEntries(list.turns[0]!.files.map((f) => [f.path, f]));
    expect(files["a.txt"]).toMatchObject({ status: "modified", certain: true });
    expect(files["b.txt"]).toMatchObject({ status: "deleted" });
    expect(files["c.txt"]).toMatchObject({ status: "added" });
    const diff = await app.call("checkpoints.diff", { sessionId: session.id, fromId: list.turns[0]!.beforeId, toId: list.turns[0]!.afterId!, fileId: files["a.txt"]!.id });
    expect(diff.diff).toContain("-original\n+changed");

    const preview = await app.call("checkpoints.preview", { sessionId: session.id, position: 0 });
    expect(preview.files.map((f) => `${f.path}:${f.action}`).sort()).toEqual(["a.txt:restore", "b.txt:restore", "c.txt:remove"]);
    const result = await app.call("checkpoints.rewind", { sessionId: session.id, previewId: preview.previewId, restore: [], conversation: "keep", destination: "project" });
    expect(result.outcome).toMatchObject({ written: 2, removed: 1 });
    expect(readFileSync(path.join(app.projectDir, "a.txt"), "utf8")).toBe("original\n");
    expect(existsSync(path.join(app.projectDir, "c.txt"))).toBe(false);

    const { opened } = await app.call("sessions.open", { sessionId: session.id });
    expect(opened.messages.at(-1)).toMatchObject({ role: "custom", customType: "checkpoint-rewind" });
    await runTurn(app, session.id, "what happened?", 2);
    const told = contexts[0]!.messages.map((m) => (typeof m.content === "string" ? m.content : "")).join("\n");
    expect(told).toContain("[Lathe] The project's files were restored to how they were before message 1");

    const again = await app.call("checkpoints.list", { sessionId: session.id });
    expect(again.rewinds).toHaveLength(1);
    const undo = await app.call("checkpoints.preview", { sessionId: session.id, undoOf: again.rewinds[0]!.id });
    await app.call("checkpoints.rewind", { sessionId: session.id, previewId: undo.previewId, restore: [], conversation: "keep", destination: "project" });
    expect(readFileSync(path.join(app.projectDir, "a.txt"), "utf8")).toBe("changed\n");
    expect(existsSync(path.join(app.projectDir, "b.txt"))).toBe(false);
    expect(readFileSync(path.join(app.projectDir, "c.txt"), "utf8")).toBe("new\n");
    expect((await app.call("checkpoints.list", { sessionId: session.id })).rewinds[0]!.undoneBy).not.toBeNull();
  });

  it("forks the conversation from before the message and restores the files", async () => {
    app = await startApp({
      permissionMode: "full-auto",
      steps: [{ text: "hi" }, { toolCalls: [{ name: "write", args: { path: "w.txt", content: "agent\n" } }] }, { text: "written" }],
    });
    const project = await app.call("projects.open", { folder: app.projectDir });
    const session = await app.call("sessions.create", { projectId: project.id });
    await runTurn(app, session.id, "hello", 1);
    await runTurn(app, session.id, "write a file", 2);
    expect(readFileSync(path.join(app.projectDir, "w.txt"), "utf8")).toBe("agent\n");
    await app.waitFor(() => app!.events.some((e) => e.event === "checkpoints.changed"), "the after-checkpoint");
    const list = await app.call("checkpoints.list", { sessionId: session.id });
    expect(list.turns[0]!.files[0]).toMatchObject({ path: "w.txt", status: "added", certain: true });
    const preview = await app.call("checkpoints.preview", { sessionId: session.id, position: 2 });
    const result = await app.call("checkpoints.rewind", { sessionId: session.id, previewId: preview.previewId, restore: [], conversation: "fork", destination: "project" });
    expect(result.session).toMatchObject({ parentSessionId: session.id, messageCount: 2 });
    expect(existsSync(path.join(app.projectDir, "w.txt"))).toBe(false);
    // The original conversation is untouched.
    expect((await app.call("sessions.open", { sessionId: session.id })).opened.messages).toHaveLength(6);
  });

  it("records files over the size limit set in Settings without storing them", async () => {
    app = await startApp({
      permissionMode: "full-auto",
      steps: [{ toolCalls: [{ name: "bash", args: { command: "head -c 1500000 /dev/zero > big.bin && echo s > small.txt" } }] }, { text: "made" }],
    });
    expect((await app.call("settings.update", { checkpointMaxFileMB: 1 })).checkpointMaxFileMB).toBe(1);
    const project = await app.call("projects.open", { folder: app.projectDir });
    const session = await app.call("sessions.create", { projectId: project.id });
    await runTurn(app, session.id, "make files", 1);
    await app.waitFor(() => app!.events.some((e) => e.event === "checkpoints.changed"), "the after-checkpoint");
    const list = await app.call("checkpoints.list", { sessionId: session.id });
    expect(list.maxFileBytes).toBe(1024 * 1024);
    const files = Object.fromEntries(list.turns[0]!.files.map((f) => [f.path, f]));
    expect(files["big.bin"]).toMatchObject({ status: "added", large: true });
    expect(files["small.txt"]).toMatchObject({ status: "added", large: false });
  });

  it("a read-only Lathe lists the changes, refuses to rewind, and writes nothing", async () => {
    app = await startApp({ permissionMode: "full-auto", steps: [{ toolCalls: [{ name: "bash", args: { command: "echo x > x.txt" } }] }, { text: "ok" }] });
    const project = await app.call("projects.open", { folder: app.projectDir });
    const session = await app.call("sessions.create", { projectId: project.id });
    await runTurn(app, session.id, "make x", 1);
    await app.waitFor(() => app!.events.some((e) => e.event === "checkpoints.changed"), "the after-checkpoint");
    const listing = () => execFileSync("find", [path.join(app!.dataDir, "checkpoints"), "-newer", path.join(app!.dataDir, "checkpoints", "checkpoints.db")], { encoding: "utf8" });
    const before = listing();
    const reader = createAppServices({ dataDir: app.dataDir, secrets: noSecretStore, host: "browser", version: "test", env: {}, readOnly: true });
    try {
      const list = await reader.router.handle("checkpoints.list", { sessionId: session.id });
      expect(list.ok && (list.data as { turns: { files: { path: string }[] }[] }).turns[0]!.files.map((f) => f.path)).toEqual(["x.txt"]);
      const preview = await reader.router.handle("checkpoints.preview", { sessionId: session.id, position: 0 });
      expect(!preview.ok && preview.error.message).toMatch(/read-only/);
    } finally {
      await reader.close();
    }
    expect(listing()).toBe(before);
  });

  it("refuses bad requests with clear errors", async () => {
    app = await startApp({ steps: [] });
    const project = await app.call("projects.open", { folder: app.projectDir });
    const session = await app.call("sessions.create", { projectId: project.id });
    const nothing = await app.raw("checkpoints.preview", { sessionId: session.id, position: 0 });
    expect(nothing.ok).toBe(false);
    expect(nothing.error!.message).toMatch(/not one of your messages/);
    const bad = await app.raw("checkpoints.diff", { sessionId: session.id, fromId: 1, toId: 2, fileId: "../../etc" });
    expect(bad.ok).toBe(false);
    const expired = await app.raw("checkpoints.rewind", { sessionId: session.id, previewId: "nope", restore: [], conversation: "keep", destination: "project" });
    expect(expired.error!.message).toMatch(/expired/);
  });
});
