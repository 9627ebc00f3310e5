// What a renderer can make the main process hold, bounded, through the router: tools.input to a
// command that does not read its input (app/main/tools/pty-input-bound.ts), and steering and
// follow-ups while the agent works (app/main/loop/agent.ts). Past a bound the request fails with
// "unavailable" and a message that says why; what was taken before is kept and delivered.
import { existsSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ToolResultMessage } from "../../app/shared/agent-types.ts";
import { MAX_QUEUED_MESSAGES } from "../../app/main/loop/agent.ts";
import { QUEUED_PREVIEW_CHARS } from "../../app/main/sessions/queued-preview.ts";
import { MAX_PENDING_INPUT_BYTES } from "../../app/main/tools/pty-input-bound.ts";
import { startApp, type AppHarness } from "../support/app-harness.ts";

let app: AppHarness | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

const ended = (events: readonly { type: string }[] | undefined) => (events ?? []).filter((e) => e.type === "agent_end").length;

async function newSession(h: AppHarness) {
  const project = await h.call("projects.open", { folder: h.projectDir });
  return h.call("sessions.create", { projectId: project.id });
}

/** Writes `text` to the project's file `name` at once (the commands poll for it). */
function release(h: AppHarness, name: string, text: string): void {
  writeFileSync(path.join(h.projectDir, `${name}.tmp`), text);
  renameSync(path.join(h.projectDir, `${name}.tmp`), path.join(h.projectDir, name));
}

describe("bounded input through the router", () => {
  it("tools.input to a command that does not read is refused past the bound, with the reason; what was taken reaches the command", async () => {
    // Reads nothing until told how much to read, then counts it.
    const command = 'stty -icanon -echo; touch ready; while [ ! -s go ]; do sleep 0.05; done; head -c "$(cat go)" | wc -c';
    app = await startApp({ steps: [{ toolCalls: [{ name: "bash", id: "idle", args: { command } }] }, { text: "done" }], permissionMode: "full-auto" });
    const session = await newSession(app);
    await app.call("sessions.prompt", { sessionId: session.id, text: "go" });
    await app.waitFor(() => existsSync(path.join(app!.projectDir, "ready")), "the command to start");
    const data = "y".repeat(65_536);
    let taken = 0;
    let refusal: { ok: boolean; error?: { code: string; message: string } } | undefined;
    for (let i = 0; i < 2 * (MAX_PENDING_INPUT_BYTES / data.length) && !refusal; i++) {
      const result = await app.raw("tools.input", { sessionId: session.id, toolCallId: "idle", data });
      if (result.ok) taken += data.length;
      else refusal = result;
    }
    expect(refusal).toEqual({ ok: false, error: { code: "unavailable", message: expect.stringMatching(/^The command is not reading its input: [\d,]+ KiB are waiting\./) } });
    // The bound, and what the pty itself holds (12 KB on the test machine's kernel).
    expect(taken).toBeLessThanOrEqual(MAX_PENDING_INPUT_BYTES + 128 * 1024);
    for (let i = 0; i < 20; i++) {
      expect(await app.raw("tools.input", { sessionId: session.id, toolCallId: "idle", data })).toMatchObject({ ok: false, error: { code: "unavailable" } });
    }
    release(app, "go", String(taken));
    // A megabyte through a pty the command reads: about a second here, longer on a loaded machine.
    await app.waitFor(() => ended(app!.sessionEvents.get(session.id)) === 1, "the run to end", 45_000);
    const result = (await app.call("sessions.open", { sessionId: session.id })).opened.messages[2] as ToolResultMessage;
    expect(JSON.stringify(result.content)).toContain(String(taken));
  }, 60_000);

  it(`steering and follow-ups past ${MAX_QUEUED_MESSAGES} waiting are refused, with the reason; the earlier ones are all delivered`, async () => {
    const half = MAX_QUEUED_MESSAGES / 2;
    app = await startApp({
      steps: [
        { toolCalls: [{ name: "bash", args: { command: "touch ready; while [ ! -e go ]; do sleep 0.05; done; echo released" } }] },
        ...Array.from({ length: MAX_QUEUED_MESSAGES }, (_, i) => ({ text: `answer ${i}` })),
      ],
      permissionMode: "full-auto",
    });
    const session = await newSession(app);
    await app.call("sessions.prompt", { sessionId: session.id, text: "go" });
    await app.waitFor(() => existsSync(path.join(app!.projectDir, "ready")), "the command to start");
    for (let i = 0; i < half; i++) await app.call("sessions.steer", { sessionId: session.id, text: `steer ${i}` });
    for (let i = 0; i < half; i++) await app.call("sessions.followUp", { sessionId: session.id, text: `follow ${i}` });
    const states = app.events.filter((e) => e.event === "session.state").length;
    const full = {
      ok: false,
      error: { code: "unavailable", message: expect.stringMatching(new RegExp(`^${MAX_QUEUED_MESSAGES} messages are already waiting for the agent: this one does not fit\\.`)) },
    };
    expect(await app.raw("sessions.steer", { sessionId: session.id, text: "one too many" })).toEqual(full);
    expect(await app.raw("sessions.followUp", { sessionId: session.id, text: "one too many" })).toEqual(full);
    // A prompt while the agent runs is steering: refused alike.
    expect(await app.raw("sessions.prompt", { sessionId: session.id, text: "one too many" })).toEqual(full);
    // Nothing changed: no state event was sent for them.
    expect(app.events.filter((e) => e.event === "session.state").length).toBe(states);
    const state = await app.call("sessions.state", { sessionId: session.id });
    expect(state.queued.steering).toHaveLength(half);
    expect(state.queued.followUp).toHaveLength(half);
    release(app, "go", "");
    await app.waitFor(() => ended(app!.sessionEvents.get(session.id)) === 1, "the run to end");
    const userTexts = app.sessionEvents
      .get(session.id)!
      .filter((e) => e.type === "message_end" && e.message.role === "user")
      .map((e) => (e as { message: { content: unknown } }).message.content);
    expect(userTexts).toEqual(["go", ...Array.from({ length: half }, (_, i) => `steer ${i}`), ...Array.from({ length: half }, (_, i) => `follow ${i}`)]);
  });

  it("lists a long queued message by its start (every state event carries the queue), and delivers it whole", async () => {
    app = await startApp({
      steps: [{ toolCalls: [{ name: "bash", args: { command: "touch ready; while [ ! -e go ]; do sleep 0.05; done; echo released" } }] }, { text: "done" }],
      permissionMode: "full-auto",
    });
    const session = await newSession(app);
    await app.call("sessions.prompt", { sessionId: session.id, text: "go" });
    await app.waitFor(() => existsSync(path.join(app!.projectDir, "ready")), "the command to start");
    // An emoji across the cut: its two halves stay together.
    const long = `${"x".repeat(QUEUED_PREVIEW_CHARS - 1)}😀${"y".repeat(100_000)}`;
    await app.call("sessions.steer", { sessionId: session.id, text: long });
    const [shown] = (await app.call("sessions.state", { sessionId: session.id })).queued.steering;
    expect(shown).toBe(`${"x".repeat(QUEUED_PREVIEW_CHARS - 1)}… (100,002 more characters)`);
    release(app, "go", "");
    await app.waitFor(() => ended(app!.sessionEvents.get(session.id)) === 1, "the run to end");
    const delivered = app.sessionEvents
      .get(session.id)!
      .filter((e) => e.type === "message_end" && e.message.role === "user")
      .map((e) => (e as { message: { content: unknown } }).message.content);
    expect(delivered).toEqual(["go", long]);
  });
});
