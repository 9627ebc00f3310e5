// A data folder on a real 2 MB tmpfs that fills in the middle of a 60-turn run (each turn a bash
// call): the run stops with one notice saying how much to free, no command runs whose assistant
// message is not stored, nothing is stored out of order; once the tmpfs is grown (remount), what
// was held back is written and a retry finishes the run. Needs mount(8) and root: where tmpfs
// cannot be mounted the suite is skipped (test/app/durability.test.ts covers the same logic with
// SQLite's page limit, everywhere).
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { describeWhen } from "../support/requirements.ts";
import { scratchTmpfs } from "../support/tmpfs.ts";
import type { AgentMessage, AssistantMessage } from "../../app/shared/agent-types.ts";
import { startApp, type AppHarness } from "../support/app-harness.ts";
import type { ScriptStep } from "../../app/main/loop/test/scripted-model.ts";

const tmpfs = scratchTmpfs("lathe-tmpfs-", "2m");
const mountPoint = tmpfs.dir;

const TURNS = 60;
const ended = (events: readonly { type: string }[] | undefined) => (events ?? []).filter((e) => e.type === "agent_end").length;

describeWhen(tmpfs.missing, "a data folder on a 2 MB tmpfs that fills mid-run", () => {
  let app: AppHarness | undefined;
  afterAll(async () => {
    await app?.close();
  });

  it("stops with one notice, runs nothing unsaved, resumes once the disk has room", async () => {
    const dataDir = path.join(mountPoint, "data");
    mkdirSync(dataDir);
    let turn = 0;
    let markerFile = "";
    const step: ScriptStep = () => {
      turn++;
      if (turn > TURNS) return { text: "All turns done." };
      // About 24 KB per answer: the tmpfs fills after some tens of turns.
      return {
        text: `Turn ${turn}. ${"Some long reasoning about the task. ".repeat(700)}`,
        toolCalls: [{ name: "bash", args: { command: `echo ${turn} >> ${markerFile}` } }],
        chunkSize: 4096,
      };
    };
    app = await startApp({ dataDir, steps: Array.from({ length: TURNS * 2 }, () => step) });
    const h = app;
    markerFile = path.join(h.projectDir, "marker.txt");
    await h.call("settings.update", { permissionMode: "full-auto" });
    const project = await h.call("projects.open", { folder: h.projectDir });
    const session = await h.call("sessions.create", { projectId: project.id });
    await h.call("sessions.prompt", { sessionId: session.id, text: `run the ${TURNS} turns` });
    await h.waitFor(() => ended(h.sessionEvents.get(session.id)) === 1, "the run to stop or end", 120_000);
    await h.waitFor(() => !h.services.sessions.isRunning(session.id), "idle");

    const errors = h.events.filter((e) => e.event === "app.notice" && (e.payload as { level: string }).level === "error");
    const ran = () => (existsSync(markerFile) ? readFileSync(markerFile, "utf8").trim().split("\n").map(Number) : []);
    const executed = ran();
    expect(executed.length, "the disk filled before the run's end").toBeLessThan(TURNS);
    expect(errors).toHaveLength(1);
    expect((errors[0]!.payload as { message: string }).message).toMatch(
      /could not save session .*The run was stopped, so nothing runs unsaved.*Free at least [\d.]+ (KB|MB) there/,
    );

    // Every command that ran has its assistant message stored, and the store holds a prefix of the run, in order.
    const stored = h.services.store.readMessages(session.id);
    const storedCalls = new Set(
      stored.flatMap((m) => (m.role === "assistant" ? m.content.filter((b) => b.type === "toolCall").map((b) => (b.arguments as { command: string }).command) : [])),
    );
    for (const n of executed) expect(storedCalls.has(`echo ${n} >> ${markerFile}`), `turn ${n} ran, so its call is stored`).toBe(true);
    const { opened } = await h.call("sessions.open", { sessionId: session.id });
    expect(opened.messages.slice(0, stored.length)).toEqual(stored);
    // Usually the write that fails is a message's, held back and shown; when it is a terminal log's
    // or an index batch's, every message may be stored already.
    expect(opened.messages.length).toBeGreaterThanOrEqual(stored.length);
    expectValid(stored);
    // Nothing runs after the stop.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(ran()).toEqual(executed);

    // Room again: everything held back is written, in order, and the retry finishes the run.
    tmpfs.resize("64m");
    await h.waitFor(() => h.events.some((e) => e.event === "app.notice" && /is saved again/.test((e.payload as { message: string }).message)), "the recovery", 20_000);
    expect(h.services.store.readMessages(session.id)).toEqual(opened.messages);
    await h.call("sessions.retry", { sessionId: session.id });
    await h.waitFor(() => ended(h.sessionEvents.get(session.id)) === 2, "the retried run", 120_000);
    await h.waitFor(() => !h.services.sessions.isRunning(session.id), "idle");
    const final = h.services.store.readMessages(session.id);
    expectValid(final);
    expect((final.at(-1) as AssistantMessage).content[0]).toMatchObject({ text: "All turns done." });
    const all = ran();
    expect(new Set(all).size).toBe(all.length);
    const finalCalls = new Set(
      final.flatMap((m) => (m.role === "assistant" ? m.content.filter((b) => b.type === "toolCall").map((b) => (b.arguments as { command: string }).command) : [])),
    );
    for (const n of all) expect(finalCalls.has(`echo ${n} >> ${markerFile}`)).toBe(true);
    expect(h.events.filter((e) => e.event === "app.notice" && (e.payload as { level: string }).level === "error")).toHaveLength(1);
  }, 240_000);
});

function expectValid(messages: AgentMessage[]): void {
  messages.forEach((m, i) => {
    if (m.role === "toolResult") {
      const owner = messages.slice(0, i).findLast((x): x is AssistantMessage => x.role === "assistant");
      expect(owner?.content.some((b) => b.type === "toolCall" && b.id === m.toolCallId)).toBe(true);
    }
  });
}
