// What the session says about a tool call beyond the loop's events (tool_call_phase): when its
// execute began (so a card's timer counts the run, not the wait for an answer), and whether it was
// stopped: by the run's Stop or by the person's Interrupt. Also in a snapshot taken mid-run, and in
// the stored tool call a reopened session reads.
import { afterEach, describe, expect, it, vi } from "vitest";
import { startApp, type AppHarness } from "../support/app-harness.ts";

let app: AppHarness | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
  vi.restoreAllMocks();
});

const phases = (h: AppHarness, sessionId: number) =>
  (h.sessionEvents.get(sessionId) ?? []).flatMap((e) => (e.type === "tool_call_phase" ? [`${e.phase}${e.reason ? `:${e.reason}` : ""}`] : []));
const ended = (h: AppHarness, sessionId: number) => (h.sessionEvents.get(sessionId) ?? []).some((e) => e.type === "agent_end");

async function running(command: string) {
  app = await startApp({ steps: [{ toolCalls: [{ name: "bash", id: "long", args: { command } }] }, { text: "ok" }], permissionMode: "full-auto" });
  const project = await app.call("projects.open", { folder: app.projectDir });
  const session = await app.call("sessions.create", { projectId: project.id });
  await app.call("sessions.prompt", { sessionId: session.id, text: "go" });
  const h = app;
  await h.waitFor(() => phases(h, session.id).includes("executing"), "the command to start");
  return { h, sessionId: session.id };
}

describe("tool call phases", () => {
  it("a call running when the run is stopped ends as stopped; a snapshot says when it began executing", async () => {
    // A clock that moves on at every reading: the snapshot's times equal the stored ones only
    // if the session reads the clock once per event for both.
    const realNow = Date.now.bind(Date);
    let readings = 0;
    vi.spyOn(Date, "now").mockImplementation(() => realNow() + readings++);
    const { h, sessionId } = await running("sleep 30");
    const { live } = await h.call("sessions.open", { sessionId });
    const tool = live!.tools.find((t) => t.toolCallId === "long")!;
    expect(tool.executingAt).toBeTypeOf("number");
    expect(tool.executingAt!).toBeGreaterThanOrEqual(tool.startedAt);
    expect(tool.phase).toBeUndefined();
    await h.call("sessions.abort", { sessionId });
    await h.waitFor(() => ended(h, sessionId), "the run to end");
    expect(phases(h, sessionId)).toEqual(["executing", "stopped:Stopped with the run."]);
    // The store keeps them with the call, for a reopened session.
    await h.waitFor(() => h.services.store.openSession(sessionId)!.toolCalls.some((t) => t.outcome !== null), "the call's outcome to be stored");
    const stored = h.services.store.openSession(sessionId)!.toolCalls.find((t) => t.toolCallId === "long")!;
    expect(stored).toMatchObject({ outcome: "stopped", reason: "Stopped with the run.", startedAt: tool.startedAt, executingAt: tool.executingAt });
  });

  it("a command the person interrupts ends as stopped, saying so", async () => {
    const { h, sessionId } = await running("sleep 30");
    await h.call("tools.interrupt", { sessionId, toolCallId: "long" });
    await h.waitFor(() => ended(h, sessionId), "the run to end");
    expect(phases(h, sessionId)).toEqual(["executing", "stopped:Interrupted by you."]);
  });

  it("a call that fails on its own is not called stopped", async () => {
    const { h, sessionId } = await running("sleep 0.3; exit 4");
    await h.waitFor(() => ended(h, sessionId), "the run to end");
    expect(phases(h, sessionId)).toEqual(["executing"]);
  });
});
