// A stored session's checkpoints (checkpoints.list, as the window asks when it opens a session from
// History) are read from each turn's one message, at the place the live session recorded when the
// turn's checkpoint was taken: never from the whole transcript, however long it is.
import { rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { SessionEvent } from "../../app/shared/agent-types.ts";
import { startApp, type AppHarness } from "../support/app-harness.ts";

let app: AppHarness | undefined;
const folders: string[] = [];
afterEach(async () => {
  await app?.close();
  app = undefined;
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

const ended = (events: SessionEvent[] | undefined) => (events ?? []).filter((e) => e.type === "agent_end").length;

async function runTurn(h: AppHarness, sessionId: number, text: string, runs: number) {
  await h.call("sessions.prompt", { sessionId, text });
  await h.waitFor(() => ended(h.sessionEvents.get(sessionId)) === runs && !h.services.sessions.isRunning(sessionId), "the run to end", 30_000);
}

describe("the checkpoints of a stored session", { timeout: 90_000 }, () => {
  it("are listed after a restart from one message per turn, as the live session listed them", async () => {
    const first = await startApp({
      permissionMode: "full-auto",
      steps: [{ text: "hello" }, { toolCalls: [{ name: "bash", args: { command: "echo changed > a.txt" } }] }, { text: "done" }],
    });
    folders.push(first.projectDir);
    writeFileSync(path.join(first.projectDir, "a.txt"), "original\n");
    const project = await first.call("projects.open", { folder: first.projectDir });
    const session = await first.call("sessions.create", { projectId: project.id });
    await runTurn(first, session.id, "just talk", 1);
    await runTurn(first, session.id, "change a", 2);
    await first.waitFor(() => first.events.some((e) => e.event === "checkpoints.changed"), "the after-checkpoint");
    const live = await first.call("checkpoints.list", { sessionId: session.id });
    // 0 "just talk", 1 "hello", 2 "change a", 3 the bash call, 4 its result, 5 "done".
    expect(live.turns.map((t) => [t.position, t.userPosition, t.files.map((f) => f.path)])).toEqual([[3, 2, ["a.txt"]]]);
    await first.services.close();

    app = await startApp({ dataDir: first.dataDir, permissionMode: "full-auto" });
    const reads = vi.spyOn(app.services.store, "readMessages");
    const opens = vi.spyOn(app.services.store, "openSession");
    const stored = await app.call("checkpoints.list", { sessionId: session.id });
    expect(stored.turns).toEqual(live.turns);
    expect(opens).not.toHaveBeenCalled();
    expect(reads.mock.calls.map(([, from, to]) => [from, to])).toEqual([[3, 4]]);
  });
});
