// The setting "Run commands at a lower CPU priority" from Settings to a session's bash call: on by
// default (the command's nice is PRIORITY_STEP above Lathe's), off at once for the next command.
import { getPriority } from "node:os";
import { afterEach, expect } from "vitest";
import { PRIORITY_STEP } from "../../app/main/tools/command-priority.ts";
import { startApp, type AppHarness } from "../support/app-harness.ts";
import { itWhen, needsLinux } from "../support/requirements.ts";

let app: AppHarness | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

const REPORT = `sleep 0.3; echo "nice $(cut -d' ' -f19 /proc/$$/stat)"`;

itWhen(needsLinux(), "a session's commands follow the setting, read at each call", async () => {
  app = await startApp({
    steps: [
      { toolCalls: [{ name: "bash", id: "first", args: { command: REPORT } }] },
      { text: "ok" },
      { toolCalls: [{ name: "bash", id: "second", args: { command: REPORT } }] },
      { text: "ok" },
    ],
    permissionMode: "full-auto",
  });
  const h = app;
  expect((await h.call("settings.get", {})).lowerCommandPriority).toBe(true);
  const project = await h.call("projects.open", { folder: h.projectDir });
  const session = await h.call("sessions.create", { projectId: project.id });
  const niceOf = async (toolCallId: string) => {
    let text = "";
    await h.waitFor(() => {
      const end = (h.sessionEvents.get(session.id) ?? []).find((e) => e.type === "tool_execution_end" && e.toolCallId === toolCallId);
      if (end?.type === "tool_execution_end") text = end.result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
      return end !== undefined;
    }, `the call ${toolCallId}`);
    return Number(/nice (-?\d+)/.exec(text)?.[1]);
  };
  await h.call("sessions.prompt", { sessionId: session.id, text: "go" });
  expect(await niceOf("first")).toBe(Math.min(19, getPriority() + PRIORITY_STEP));
  await h.waitFor(() => (h.sessionEvents.get(session.id) ?? []).some((e) => e.type === "agent_end"), "the first run's end");
  expect((await h.call("settings.update", { lowerCommandPriority: false })).lowerCommandPriority).toBe(false);
  await h.call("sessions.prompt", { sessionId: session.id, text: "again" });
  expect(await niceOf("second")).toBe(getPriority());
});
