// Failed turns over the real wire, through Lathe's own providers (no scripted stream), as the app
// wires them: an Anthropic stream cut mid-answer ends with "The connection to Anthropic was lost
// mid-answer" (not a network error code), keeps the part that arrived, and sessions.retry asks
// again without sending that part; a stream silent for the stall limit set in Settings (10 s here,
// not the default 120) is stopped, saying so.
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAppServices, type AppServices } from "../../app/main/app-services.ts";
import { noSecretStore } from "../../app/main/settings/settings-service.ts";
import type { AssistantMessage } from "../../app/shared/agent-types.ts";
import { anthropicText } from "../providers/support/conversation.ts";
import { startServer, type ScriptedReply, type TestServer } from "../providers/support/sse-server.ts";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The first events of an Anthropic answer (message_start, the text block's start, two deltas). */
const firstEventsOf = (text: string) =>
  anthropicText(text)
    .split(/(?<=\n\n)/)
    .slice(0, 4);

async function appAgainst(replies: ScriptedReply[]): Promise<{ services: AppServices; server: TestServer; sessionId: number }> {
  const server = await startServer(replies);
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), "lathe-wire-")));
  const services = createAppServices({
    dataDir: path.join(root, "data"),
    secrets: noSecretStore,
    host: "browser",
    version: "test",
    env: { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: server.baseUrl },
  });
  cleanups.push(
    () => rmSync(root, { recursive: true, force: true }),
    () => server.close(),
    () => services.close(),
  );
  services.settings.update({ defaultModel: "anthropic/claude-sonnet-5-5" });
  const project = services.store.openProject(root);
  const sessionId = services.store.createSession({ projectId: project.id }).id;
  return { services, server, sessionId };
}

async function call(services: AppServices, method: string, params: unknown): Promise<unknown> {
  const result = (await services.router.handle(method, params)) as { ok: boolean; data?: unknown; error?: { message: string } };
  if (!result.ok) throw new Error(`${method}: ${result.error!.message}`);
  return result.data;
}

/** Waits for the run to end (the session not running any more), up to 60 s. */
async function runEnds(services: AppServices, sessionId: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 50));
  for (let i = 0; i < 1200 && services.sessions.isRunning(sessionId); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  expect(services.sessions.isRunning(sessionId)).toBe(false);
}

describe("failed turns over the real wire", () => {
  it("a connection lost mid-answer says so in words, keeps the part, and Retry asks again without it", async () => {
    const { services, server, sessionId } = await appAgainst([
      { chunks: firstEventsOf("PARTIAL-ANSWER and the rest that never came"), destroyAfter: 4 },
      { body: anthropicText("The whole answer.") },
    ]);
    await call(services, "sessions.prompt", { sessionId, text: "explain" });
    await runEnds(services, sessionId);
    const failed = services.store.readMessages(sessionId)[1] as AssistantMessage;
    expect(failed.stopReason).toBe("error");
    expect(failed.errorMessage).toBe("The connection to Anthropic was lost mid-answer; the part that had arrived is kept.");
    expect(failed.content).toEqual([{ type: "text", text: expect.stringMatching(/^PARTIAL-ANSWER/) }]);

    await call(services, "sessions.retry", { sessionId });
    await runEnds(services, sessionId);
    const stored = services.store.readMessages(sessionId);
    expect(stored.map((m) => m.role)).toEqual(["user", "assistant", "assistant"]);
    expect(stored[1]).toEqual(failed);
    expect((stored[2] as AssistantMessage).content).toEqual([{ type: "text", text: "The whole answer." }]);
    expect(server.requests).toHaveLength(2);
    const resent = JSON.stringify(server.requests[1]!.body);
    expect(resent).toContain("explain");
    expect(resent).not.toContain("PARTIAL-ANSWER");
  });

  it("stops a stream silent for the stall limit set in Settings, saying how long", async () => {
    const { services, sessionId } = await appAgainst([{ chunks: firstEventsOf("Starting, then silence"), stallAfter: 4 }]);
    await call(services, "settings.update", { stallTimeoutSeconds: 10 });
    await call(services, "sessions.prompt", { sessionId, text: "answer slowly" });
    await runEnds(services, sessionId);
    const stalled = services.store.readMessages(sessionId)[1] as AssistantMessage;
    expect(stalled.stopReason).toBe("error");
    expect(stalled.errorMessage).toBe("The stream stalled: no data for 10 s.");
    expect(stalled.content).toEqual([{ type: "text", text: expect.stringMatching(/^Starting/) }]);
  }, 90_000);
});
