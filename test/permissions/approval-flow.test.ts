// Issue 13 end to end through the app's services: bash output redacted before it is shown, sent,
// saved to its file or the database, checked while the command runs (a secret written in two
// halves with a pause between them never shows); saved-output folders deleted with their session
// and at start; permission requests carrying reasons, warnings and what the proposed rule means;
// stored rules from an older version annotated, and every rule's meaning on the rules screen.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ToolResultMessage } from "../../app/shared/agent-types.ts";
import type { PermissionRequest } from "../../app/shared/ipc/contract.ts";
import { createAppServices } from "../../app/main/app-services.ts";
import { noSecretStore } from "../../app/main/settings/settings-service.ts";
import { openStore } from "../../app/main/store/index.ts";
import { startApp, type AppHarness } from "../support/app-harness.ts";
import type { ScriptStep } from "../../app/main/loop/test/scripted-model.ts";

let app: AppHarness | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

const requestsOf = (h: AppHarness) => h.events.filter((e) => e.event === "permission.request").map((e) => e.payload as PermissionRequest);
const ended = (events: readonly { type: string }[] | undefined) => (events ?? []).filter((e) => e.type === "agent_end").length;

async function session(steps: ScriptStep[], options: Parameters<typeof startApp>[0] = {}) {
  app = await startApp({ steps, ...options });
  const project = await app.call("projects.open", { folder: app.projectDir });
  const created = await app.call("sessions.create", { projectId: project.id });
  return { h: app, sessionId: created.id, projectId: project.id };
}

const TOKEN = `ghp_${"Qw3Er5Ty7Ui9Op1As2Df4Gh6Jk8Lz0Xc1Vb3N"}`.slice(0, 40);

describe("bash output is redacted as it streams", () => {
  it("never shows, sends, saves or stores a secret, even one written in two halves", async () => {
    const half = TOKEN.length / 2;
    const reversed = (s: string) => [...s].reverse().join("");
    // 3,000 lines first, so the full output is being saved to its file while the secret streams.
    // The command writes the token reversed (the command itself is shown as typed).
    const command =
      `seq 1 3000; printf 'token=%s' "$(printf %s '${reversed(TOKEN.slice(0, half))}' | rev)"; sleep 0.6; ` +
      `printf '%s end\\n' "$(printf %s '${reversed(TOKEN.slice(half))}' | rev)"; sleep 0.6; echo finished`;
    const { h, sessionId } = await session([{ toolCalls: [{ name: "bash", args: { command } }] }, { text: "ok" }]);
    await h.call("settings.update", { permissionMode: "full-auto" });
    await h.call("sessions.prompt", { sessionId, text: "go" });
    const outputDir = path.join(h.dataDir, "bash-output", String(sessionId));
    const leaks: string[] = [];
    const secretParts = [TOKEN.slice(0, half), TOKEN.slice(half), TOKEN.slice(4, 14)];
    const look = (where: string, text: string) => {
      for (const part of secretParts) if (text.includes(part)) leaks.push(`${where}: ${part}`);
    };
    let sawFileWhileRunning = false;
    let sawIdleFlush = false;
    while (ended(h.sessionEvents.get(sessionId)) === 0) {
      for (const event of h.sessionEvents.get(sessionId) ?? []) if (event.type === "tool_execution_update") look("update", JSON.stringify(event.partialResult));
      if (existsSync(outputDir)) {
        for (const file of readdirSync(outputDir)) {
          const text = readFileSync(path.join(outputDir, file), "utf8");
          look("saved file", text);
          sawFileWhileRunning ||= text.includes("2999");
          sawIdleFlush ||= text.includes("token=");
        }
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(leaks).toEqual([]);
    expect(sawFileWhileRunning, "the saved file was checked while the command ran").toBe(true);
    const updates = (h.sessionEvents.get(sessionId) ?? []).filter((e) => e.type === "tool_execution_update");
    const shown = updates.map((e) => JSON.stringify(e.type === "tool_execution_update" ? e.partialResult : "")).join("");
    expect(shown).toContain("token=");
    expect(shown).toContain("[REDACTED: GitHub token]");
    expect(sawIdleFlush || shown.includes("token=")).toBe(true);
    // The terminal view gets everything, what redaction held back until the end included.
    const terminal = updates.map((e) => (e.type === "tool_execution_update" ? ((e.partialResult as { details?: { chunk?: string } }).details?.chunk ?? "") : "")).join("");
    expect(terminal).toContain("token=[REDACTED: GitHub token] end\nfinished");

    const { opened } = await h.call("sessions.open", { sessionId });
    const result = opened.messages.find((m): m is ToolResultMessage => m.role === "toolResult")!;
    const text = result.content.map((c) => (c.type === "text" ? c.text : "")).join("");
    expect(text).toContain("token=[REDACTED: GitHub token] end");
    expect(text).toContain("[Lathe redacted 1 GitHub token from this output.]");
    look("result", JSON.stringify(result));
    look("sent to the model", JSON.stringify(h.scripted.requests[1]!.context.messages));
    const file = (result.details as { outputFile?: string }).outputFile!;
    expect(path.dirname(file)).toBe(outputDir);
    const saved = readFileSync(file, "utf8");
    expect(saved).toContain("token=[REDACTED: GitHub token] end\nfinished");
    look("saved file", saved);
    h.services.store.db.pragma("wal_checkpoint(TRUNCATE)");
    for (const name of readdirSync(h.dataDir).filter((f) => f.startsWith("lathe.db"))) look(name, readFileSync(path.join(h.dataDir, name)).toString("latin1"));
    expect(leaks).toEqual([]);
  });
});

describe("saved-output folders", () => {
  it("are deleted when their session is removed for good, and at start for sessions that no longer exist", async () => {
    const { h, sessionId } = await session([{ toolCalls: [{ name: "bash", args: { command: "seq 1 5000" } }] }, { text: "ok" }], { purgeAfterMs: 50 });
    await h.call("settings.update", { permissionMode: "full-auto" });
    await h.call("sessions.prompt", { sessionId, text: "go" });
    await h.waitFor(() => ended(h.sessionEvents.get(sessionId)) === 1, "the run");
    const root = path.join(h.dataDir, "bash-output");
    const folder = path.join(root, String(sessionId));
    expect(readdirSync(folder)).toHaveLength(1);
    // Deleted, the session can still be restored with its outputs; removed for good, they go.
    await h.call("sessions.delete", { sessionId });
    expect(existsSync(folder)).toBe(true);
    await new Promise((r) => setTimeout(r, 80));
    // The service's own purge timer may have run first on a slow machine; either way it is gone.
    h.services.sessions.purge();
    expect(h.services.store.sessionStored(sessionId)).toBe(false);
    await h.waitFor(() => !existsSync(folder), "the folder to be deleted");

    // A folder left behind by a session removed while the app was not running goes at start;
    // a stored session's stays.
    mkdirSync(path.join(root, "9999"));
    writeFileSync(path.join(root, "9999", "bash-1.log"), "old output");
    const kept = await h.call("sessions.create", { projectId: (await h.call("projects.list", {}))[0]!.id });
    mkdirSync(path.join(root, String(kept.id)));
    await h.services.close();
    const again = createAppServices({ dataDir: h.dataDir, secrets: noSecretStore, host: "browser", version: "test", env: {} });
    try {
      await again.sessions.swept;
      expect(existsSync(path.join(root, "9999"))).toBe(false);
      expect(existsSync(path.join(root, String(kept.id)))).toBe(true);
    } finally {
      await again.close();
      rmSync(h.dataDir, { recursive: true, force: true });
      rmSync(h.projectDir, { recursive: true, force: true });
      app = undefined;
    }
  });
});

describe("permission requests", () => {
  it("say why they ask, warn about protected files, and say what the proposed rule means", async () => {
    const { h, sessionId } = await session([
      { toolCalls: [{ name: "bash", args: { command: 'echo "$(id -u)" && rm -rf dist' } }] },
      { toolCalls: [{ name: "write", args: { path: ".git/hooks/pre-commit", content: "#!/bin/sh\n" } }] },
      { text: "ok" },
    ]);
    await h.call("settings.update", { permissionMode: "auto-edit" });
    await h.call("sessions.prompt", { sessionId, text: "go" });
    await h.waitFor(() => requestsOf(h).length === 1, "the first request");
    const first = requestsOf(h)[0]!;
    expect(first.reasons?.join("\n")).toContain("command substitution");
    expect(first.proposedRule.pattern).toBe("rm -rf dist");
    expect(first.proposedRule.meaning).toEqual(['Allows exactly "rm -rf dist", nothing added.']);
    expect(first.proposedRule.warning).toContain("No rule can allow this command line");
    await h.call("permissions.respond", { requestId: first.id, decision: "deny" });
    await h.waitFor(() => requestsOf(h).length === 2, "the second request");
    const second = requestsOf(h)[1]!;
    expect(second.warnings?.join()).toContain(".git/hooks/pre-commit: files in .git/");
    expect(second.proposedRule.pattern).toBe("");
    await h.call("permissions.respond", { requestId: second.id, decision: "deny" });
    await h.waitFor(() => ended(h.sessionEvents.get(sessionId)) === 1, "the run");
  });
});

describe("stored rules", () => {
  it("rules saved by an older version get a note where their meaning changed; every rule says what it means", async () => {
    app = await startApp();
    const dataDir = app.dataDir;
    await app.close();
    app = undefined;
    // Rules as an older version saved them, before the migration has run.
    const { store } = openStore({ dataDir });
    store.settings.delete("permissions.rulesFormat");
    store.settings.delete("permissions.ruleNotes");
    const kept = store.permissionRules.add({ tool: "bash", pattern: "npm test *", action: "allow", scope: "global", scopeId: null });
    const glob = store.permissionRules.add({ tool: "bash", pattern: "git * --dry-run", action: "allow", scope: "global", scopeId: null });
    const compound = store.permissionRules.add({ tool: "bash", pattern: "make && make install", action: "allow", scope: "global", scopeId: null });
    const deny = store.permissionRules.add({ tool: "bash", pattern: "*rm -rf*", action: "deny", scope: "global", scopeId: null });
    store.close();
    const services = createAppServices({ dataDir, secrets: noSecretStore, host: "browser", version: "test", env: {} });
    try {
      const rules = services.permissions.rules({});
      const byId = (id: number) => rules.find((r) => r.id === id)!;
      expect(byId(kept.id).note).toBeUndefined();
      expect(byId(kept.id).meaning).toContain('Allows "npm test" followed by any arguments');
      expect(byId(glob.id).note).toContain("allows less than it did");
      expect(byId(compound.id).note).toContain("allows nothing");
      expect(byId(deny.id).note).toContain("word by word");
      // The old text match still holds for a deny rule.
      expect(services.store.settings.get("permissions.rulesFormat", 1)).toBe(2);
      // A rule saved now is not annotated, and an edit drops the note.
      const fresh = services.router.handle("permissions.addRule", { tool: "bash", pattern: "git * --x", action: "allow", scope: "global" });
      expect(((await fresh) as { data: { note?: string; meaning: string } }).data).toMatchObject({ meaning: expect.stringContaining("of that word only") });
      expect(((await fresh) as { data: { note?: string } }).data.note).toBeUndefined();
    } finally {
      await services.close();
    }
  });
});
