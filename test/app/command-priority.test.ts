// The setting "Run parallel commands at a lower CPU priority", from Settings to a session's bash
// calls: on by default (two commands at once: each session's group 3 nice steps below Lathe's
// where there are autogroups, and the second command's own nice 3 steps below Lathe's), off at
// once for the next commands (new groups keep nice 0, both commands Lathe's nice).
import { getPriority } from "node:os";
import { afterEach, expect } from "vitest";
import { lathesGroupNice, shareNice } from "../../app/main/tools/command-priority.ts";
import { startApp, type AppHarness } from "../support/app-harness.ts";
import { itWhen, needsLinux } from "../support/requirements.ts";

let app: AppHarness | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

const ownGroupNice = lathesGroupNice();
const ownNice = getPriority();
// Each reports its own nice and its group (none without autogroups) while the other still runs.
const REPORT = `sleep 0.5; echo "own $(cut -d' ' -f19 /proc/$$/stat)"; cat /proc/$$/autogroup 2>/dev/null; sleep 0.5`;
/** What a group reads on this machine once set to `nice` (nothing without autogroups). */
const group = (nice: number) => (ownGroupNice === undefined ? undefined : nice);
const both = (prefix: string) => ({ toolCalls: [0, 1].map((i) => ({ name: "bash", id: `${prefix}${i}`, args: { command: REPORT } })) });

itWhen(needsLinux(), "a session's commands follow the setting, read at each call", async () => {
  app = await startApp({ steps: [both("on"), { text: "ok" }, both("off"), { text: "ok" }], permissionMode: "full-auto" });
  const h = app;
  expect((await h.call("settings.get", {})).lowerCommandPriority).toBe(true);
  const project = await h.call("projects.open", { folder: h.projectDir });
  const session = await h.call("sessions.create", { projectId: project.id });
  const seenBy = async (prefix: string, runs: number) => {
    await h.waitFor(() => (h.sessionEvents.get(session.id) ?? []).filter((e) => e.type === "agent_end").length === runs, `run ${runs}`);
    const texts = (h.sessionEvents.get(session.id) ?? []).flatMap((e) =>
      e.type === "tool_execution_end" && e.toolCallId.startsWith(prefix) ? [e.result.content.map((c) => (c.type === "text" ? c.text : "")).join("")] : [],
    );
    const groups = texts.map((text) => / nice (-?\d+)/.exec(text)?.[1]).map((nice) => (nice === undefined ? undefined : Number(nice)));
    const own = texts.map((text) => Number(/own (-?\d+)/.exec(text)?.[1])).sort((a, b) => a - b);
    return { groups, own };
  };
  await h.call("sessions.prompt", { sessionId: session.id, text: "go" });
  expect(await seenBy("on", 1)).toEqual({
    groups: [1, 2].map(() => group(Math.min(19, (ownGroupNice ?? 0) + shareNice(2)))),
    own: [ownNice, Math.min(19, ownNice + shareNice(2))],
  });
  expect((await h.call("settings.update", { lowerCommandPriority: false })).lowerCommandPriority).toBe(false);
  await h.call("sessions.prompt", { sessionId: session.id, text: "again" });
  expect(await seenBy("off", 2)).toEqual({ groups: [group(0), group(0)], own: [ownNice, ownNice] });
});
