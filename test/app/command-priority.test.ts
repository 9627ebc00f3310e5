// The setting "Run parallel commands at a lower CPU priority", from Settings to a session's bash
// calls: on by default (two commands at once: each session's group 3 nice steps below Lathe's),
// off at once for the next commands (new groups keep nice 0).
import { afterEach, expect } from "vitest";
import { autogroupNice, shareNice } from "../../app/main/tools/command-priority.ts";
import { startApp, type AppHarness } from "../support/app-harness.ts";
import { itWhen, needsLinux } from "../support/requirements.ts";

let app: AppHarness | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

const ownGroupNice = autogroupNice("self");
// Each reports its group while the other still runs.
const REPORT = `sleep 0.5; cat /proc/$$/autogroup; sleep 0.5`;
const both = (prefix: string) => ({ toolCalls: [0, 1].map((i) => ({ name: "bash", id: `${prefix}${i}`, args: { command: REPORT } })) });

itWhen(needsLinux() ?? (ownGroupNice === undefined ? "needs a kernel with autogroups" : null), "a session's commands follow the setting, read at each call", async () => {
  app = await startApp({ steps: [both("on"), { text: "ok" }, both("off"), { text: "ok" }], permissionMode: "full-auto" });
  const h = app;
  expect((await h.call("settings.get", {})).lowerCommandPriority).toBe(true);
  const project = await h.call("projects.open", { folder: h.projectDir });
  const session = await h.call("sessions.create", { projectId: project.id });
  const groupsOf = async (prefix: string, runs: number) => {
    await h.waitFor(() => (h.sessionEvents.get(session.id) ?? []).filter((e) => e.type === "agent_end").length === runs, `run ${runs}`);
    return (h.sessionEvents.get(session.id) ?? []).flatMap((e) =>
      e.type === "tool_execution_end" && e.toolCallId.startsWith(prefix)
        ? [Number(/ nice (-?\d+)/.exec(e.result.content.map((c) => (c.type === "text" ? c.text : "")).join(""))?.[1])]
        : [],
    );
  };
  await h.call("sessions.prompt", { sessionId: session.id, text: "go" });
  expect(await groupsOf("on", 1)).toEqual([1, 2].map(() => Math.min(19, ownGroupNice! + shareNice(2))));
  expect((await h.call("settings.update", { lowerCommandPriority: false })).lowerCommandPriority).toBe(false);
  await h.call("sessions.prompt", { sessionId: session.id, text: "again" });
  expect(await groupsOf("off", 2)).toEqual([0, 0]);
});
