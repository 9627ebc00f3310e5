// A compaction outside a run (by hand, or after a context overflow) against an OpenAI-compatible
// server that sends its headers and then only keep-alive comments, as the app wires it (Lathe's own
// providers over the wire). While it lasts the session reports itself running and refuses new
// messages; Stop (sessions.abort) and sessions.delete end it at once, the request cancelled and the
// transcript unchanged; a compaction after an overflow that is stopped ends the run as stopped,
// without the retry. (Left alone, keep-alives end it at five stall times: test/providers/faults.test.ts.)
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAppServices, type AppServices } from "../../app/main/app-services.ts";
import { noSecretStore } from "../../app/main/settings/settings-service.ts";
import { emptyUsage, type AssistantMessage } from "../../app/shared/agent-types.ts";
import type { SessionState } from "../../app/shared/ipc/contract.ts";
import { startServer, type ScriptedReply, type TestServer } from "../providers/support/sse-server.ts";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Headers, then a keep-alive comment every 100 ms for two minutes: never an answer. */
const keepAlivesOnly: ScriptedReply = { chunks: Array<string>(1200).fill(": keep-alive\n\n"), delayMs: 100 };
const overflow: ScriptedReply = {
  status: 400,
  body: JSON.stringify({ error: { code: 400, message: "the request exceeds the available context size, try increasing it", type: "exceed_context_size_error" } }),
};

const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(" ");

interface Harness {
  services: AppServices;
  server: TestServer;
  sessionId: number;
  /** Every session.state the services sent for the session. */
  states: SessionState[];
  notices: string[];
}

/**
 * The app against a compatible server ("slow/m"), with a session of 16 messages: by default long
 * ones for a 4,000-token window (enough to compact by hand); `short`, a few words each for a
 * 200,000-token window (no compaction before a request).
 */
async function appAgainst(replies: ScriptedReply[], stallTimeoutSeconds: number, short = false): Promise<Harness> {
  const server = await startServer(replies, "/v1");
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), "lathe-compaction-stop-")));
  const services = createAppServices({ dataDir: path.join(root, "data"), secrets: noSecretStore, host: "browser", version: "test", env: {} });
  cleanups.push(
    () => rmSync(root, { recursive: true, force: true }),
    () => server.close(),
    () => services.close(),
  );
  const states: SessionState[] = [];
  const notices: string[] = [];
  services.hub.add({
    sessionEvent: () => {},
    emit: (event, payload) => {
      if (event === "session.state") states.push(payload as SessionState);
      if (event === "app.notice") notices.push((payload as { message: string }).message);
    },
  });
  services.settings.setProvider({
    id: "slow",
    kind: "compatible",
    name: "Slow",
    baseUrl: server.baseUrl,
    models: [{ id: "m", contextWindow: short ? 200_000 : 4000, maxTokens: 1000 }],
  });
  services.settings.update({ stallTimeoutSeconds });
  const project = services.store.openProject(root);
  const sessionId = services.store.createSession({ projectId: project.id, model: "slow/m" }).id;
  const length = short ? 10 : 300;
  for (let i = 0; i < 8; i++) {
    services.store.appendMessage(sessionId, { role: "user", content: words(length, `u${i}_`), timestamp: Date.now() });
    const answer: AssistantMessage = {
      role: "assistant",
      content: [{ type: "text", text: words(length, `a${i}_`) }],
      api: "openai-completions",
      provider: "slow",
      model: "m",
      usage: emptyUsage(),
      stopReason: "stop",
      timestamp: Date.now(),
    };
    services.store.appendMessage(sessionId, answer);
  }
  return { services, server, sessionId, states, notices };
}

async function raw(services: AppServices, method: string, params: unknown) {
  return (await services.router.handle(method, params)) as { ok: boolean; data?: unknown; error?: { code: string; message: string } };
}

async function state(h: Harness): Promise<SessionState> {
  return (await raw(h.services, "sessions.state", { sessionId: h.sessionId })).data as SessionState;
}

/** The promise's value, or "still waiting" if it takes longer than `ms`. */
function within<T>(ms: number, promise: Promise<T>): Promise<T | "still waiting"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"still waiting">((resolve) => (timer = setTimeout(() => resolve("still waiting"), ms)));
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** Starts a compaction by hand and waits until its summary request is at the server. */
async function compactionUnderWay(h: Harness) {
  const compacting = raw(h.services, "sessions.compact", { sessionId: h.sessionId });
  await expect.poll(() => h.server.requests.length, { timeout: 10_000 }).toBe(1);
  // Wrapped: an async function returning the promise itself would wait for it.
  return { compacting };
}

describe("stopping a compaction outside a run", () => {
  it("shows the session running while it compacts by hand, and Stop ends it at once, the transcript unchanged", async () => {
    const h = await appAgainst([keepAlivesOnly], 600);
    const { compacting } = await compactionUnderWay(h);
    expect(await state(h)).toMatchObject({ running: true, lastRun: null });
    expect(h.states.at(-1)).toMatchObject({ running: true, lastRun: null });
    expect(h.services.sessions.isRunning(h.sessionId)).toBe(true);
    // Meanwhile a message is refused: a run must not start under the compaction.
    const refused = await raw(h.services, "sessions.prompt", { sessionId: h.sessionId, text: "hello" });
    expect(refused).toMatchObject({ ok: false, error: { message: expect.stringContaining("summarizing its earlier context") } });
    expect(await raw(h.services, "sessions.steer", { sessionId: h.sessionId, text: "hello" })).toMatchObject({ ok: false, error: { message: refused.error!.message } });

    expect((await raw(h.services, "sessions.abort", { sessionId: h.sessionId })).ok).toBe(true);
    const ended = await within(10_000, compacting);
    expect(ended, "sessions.compact was still unanswered 10 s after Stop").not.toBe("still waiting");
    expect(ended).toEqual({ ok: true, data: { compacted: false, message: "Compaction stopped: the transcript is unchanged." } });
    await expect.poll(() => h.server.requests[0]!.closedByClient, { timeout: 5000 }).toBe(true);
    expect((await state(h)).running).toBe(false);
    expect(h.states.at(-1)!.running).toBe(false);
    expect(h.services.store.readMessages(h.sessionId)).toHaveLength(16);
    // A stop is no failure: no warning that the model could not summarize.
    expect(h.notices.filter((n) => n.includes("summarize"))).toEqual([]);
  });

  it("deleting the session ends its compaction at once", async () => {
    const h = await appAgainst([keepAlivesOnly], 600);
    const { compacting } = await compactionUnderWay(h);
    const deleted = await within(10_000, raw(h.services, "sessions.delete", { sessionId: h.sessionId }));
    expect(deleted, "sessions.delete was still unanswered 10 s later").toEqual({ ok: true, data: expect.anything() });
    const ended = await within(5_000, compacting);
    expect(ended).toEqual({ ok: true, data: { compacted: false, message: "Compaction stopped: the transcript is unchanged." } });
    await expect.poll(() => h.server.requests[0]!.closedByClient, { timeout: 5000 }).toBe(true);
    expect(h.services.store.readMessages(h.sessionId)).toHaveLength(16);
  });

  it("Stop during the compaction after a context overflow ends the run as stopped, without the retry", async () => {
    const h = await appAgainst([overflow, keepAlivesOnly], 600, true);
    expect((await raw(h.services, "sessions.prompt", { sessionId: h.sessionId, text: "one more question" })).ok).toBe(true);
    await expect.poll(() => h.server.requests.length, { timeout: 10_000 }).toBe(2);
    // The run has ended with the overflow; the summary request is under way, and the session shows it.
    await expect.poll(async () => (await state(h)).running, { timeout: 10_000 }).toBe(true);

    expect((await raw(h.services, "sessions.abort", { sessionId: h.sessionId })).ok).toBe(true);
    await expect.poll(async () => (await state(h)).running, { timeout: 10_000 }).toBe(false);
    expect((await state(h)).lastRun).toMatchObject({ outcome: "stopped" });
    await expect.poll(() => h.server.requests[1]!.closedByClient, { timeout: 5000 }).toBe(true);
    const stored = h.services.store.readMessages(h.sessionId);
    expect(stored.map((m) => m.role).slice(-2)).toEqual(["user", "assistant"]);
    expect(stored.at(-1)).toMatchObject({ stopReason: "error", contextOverflow: true });
    expect(stored.some((m) => m.role === "custom")).toBe(false);
    expect(h.server.requests).toHaveLength(2);
  });
});
