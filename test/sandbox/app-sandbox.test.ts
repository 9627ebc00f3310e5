// The sandbox through the app's router, with the scripted model and real bubblewrap: sandboxed auto
// as the default, a refusal reaching the model with its explanation, "run again outside the
// sandbox" asking first, the network dialog, ask and full auto composing with the sandbox, a
// machine without a sandbox, the sandbox settings, and provider keys found in the environment.
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { describeWhen } from "../support/requirements.ts";
import type { LlmContext } from "../../app/main/loop/index.ts";
import type { SecretStore } from "../../app/main/settings/settings-service.ts";
import type { ToolResultMessage } from "../../app/shared/agent-types.ts";
import type { PermissionRequest } from "../../app/shared/ipc/contract.ts";
import type { BashResultDetails } from "../../app/shared/tool-details.ts";
import { detectSandbox } from "../../app/main/sandbox/detect.ts";
import { startApp, type AppHarness, type StartAppOptions } from "../support/app-harness.ts";
import type { ScriptStep } from "../../app/main/loop/test/scripted-model.ts";

const sandbox = detectSandbox();
const available = process.platform === "linux" && sandbox.available;
let app: AppHarness | undefined;
let scratch: string;
let server: Server;
let port: number;

beforeAll(async () => {
  scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "lathe-app-sandbox-")));
  server = createServer((_req, res) => res.end("hello-from-127"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => {
  server?.close();
  rmSync(scratch, { recursive: true, force: true });
});
afterEach(async () => {
  await app?.close();
  app = undefined;
});

const requestsOf = (h: AppHarness) => h.events.filter((e) => e.event === "permission.request").map((e) => e.payload as PermissionRequest);
const lastToolText = (context: LlmContext) => {
  const result = context.messages.findLast((m) => m.role === "toolResult") as ToolResultMessage | undefined;
  return result?.content.map((c) => (c.type === "text" ? c.text : "")).join("") ?? "";
};

async function start(steps: ScriptStep[], options: StartAppOptions = {}) {
  app = await startApp({ steps, ...options });
  const project = await app.call("projects.open", { folder: app.projectDir });
  const session = await app.call("sessions.create", { projectId: project.id });
  return { h: app, session, project };
}

async function runs(h: AppHarness, sessionId: number, count: number) {
  await h.waitFor(() => (h.sessionEvents.get(sessionId) ?? []).filter((e) => e.type === "agent_end").length >= count, `run #${count}`, 20_000);
}

async function results(h: AppHarness, sessionId: number) {
  const { opened } = await h.call("sessions.open", { sessionId });
  return opened.messages.filter((m): m is ToolResultMessage => m.role === "toolResult");
}
const detailsOf = (m: ToolResultMessage | undefined) => m?.details as BashResultDetails;

describeWhen(available ? null : `needs a working sandbox on Linux: ${sandbox.message}`, "the sandbox in the app", () => {
  it("defaults to sandboxed auto; a refusal reaches the model explained; running it outside asks first", async () => {
    const target = path.join(scratch, "made-outside.txt");
    let seenByModel = "";
    // A script of the project writes outside it: nothing in the command line says so.
    const { h, session } = await start([
      { toolCalls: [{ name: "bash", id: "first", args: { command: "bash make-file.sh" } }] },
      (context) => ((seenByModel = lastToolText(context)), { text: "The sandbox blocked it." }),
      { toolCalls: [{ name: "bash", id: "again", args: { command: "bash make-file.sh" } }] },
      { text: "Done outside." },
    ]);
    writeFileSync(path.join(h.projectDir, "make-file.sh"), `touch '${target}'\n`);
    expect((await h.call("settings.get", {})).permissionMode).toBe("sandboxed-auto");
    await h.call("sessions.prompt", { sessionId: session.id, text: "make the file" });
    await runs(h, session.id, 1);
    expect(requestsOf(h)).toHaveLength(0);
    expect(existsSync(target)).toBe(false);
    expect(seenByModel).toContain("Read-only file system");
    expect(seenByModel).toContain("[Sandbox: this command ran in Lathe's sandbox, which blocked it");
    expect(detailsOf((await results(h, session.id))[0]).sandbox).toMatchObject({ placement: "sandbox", blocked: { rule: "read-only" } });

    expect(await h.call("tools.rerunOutsideSandbox", { sessionId: session.id, toolCallId: "first" })).toEqual({ delivery: "prompt" });
    await h.waitFor(() => requestsOf(h).length === 1, "the permission request");
    const request = requestsOf(h)[0]!;
    expect(request.sandbox).toMatchObject({ available: true, placement: "outside", crossing: { rule: "requested-outside" } });
    expect(existsSync(target)).toBe(false);
    await h.call("permissions.respond", { requestId: request.id, decision: "allow-once" });
    await runs(h, session.id, 2);
    expect(existsSync(target)).toBe(true);
    const again = (await results(h, session.id))[1];
    expect(detailsOf(again).sandbox).toMatchObject({ placement: "outside", outsideReason: "You chose to run this command outside the sandbox." });
    // A call that did not run in the sandbox cannot be "run again outside".
    expect(await h.raw("tools.rerunOutsideSandbox", { sessionId: session.id, toolCallId: "again" })).toMatchObject({ ok: false, error: { code: "invalid-request" } });
  });

  it("asks before a network command, then runs it in the sandbox with network", async () => {
    const command = `curl -sS http://127.0.0.1:${port}/`;
    const { h, session } = await start([{ toolCalls: [{ name: "bash", args: { command } }] }, { text: "fetched" }]);
    await h.call("sessions.prompt", { sessionId: session.id, text: "fetch" });
    await h.waitFor(() => requestsOf(h).length === 1, "the permission request");
    const request = requestsOf(h)[0]!;
    expect(request.sandbox).toMatchObject({ placement: "sandbox-network", crossing: { rule: "network" } });
    await h.call("permissions.respond", { requestId: request.id, decision: "allow-once" });
    await runs(h, session.id, 1);
    const [result] = await results(h, session.id);
    expect(result!.content.map((c) => (c.type === "text" ? c.text : "")).join("")).toContain("hello-from-127");
    expect(detailsOf(result).sandbox?.placement).toBe("sandbox-network");
  });

  it("ask mode: an approved command runs in the sandbox; outside only when chosen in the dialog", async () => {
    const touch = (id: string) => ({ toolCalls: [{ name: "bash", id, args: { command: `touch ${path.join(scratch, `ask-${id}.txt`)}` } }] });
    const { h, session } = await start([touch("boxed"), touch("outside"), { text: "done" }], { permissionMode: "ask" });
    await h.call("sessions.prompt", { sessionId: session.id, text: "make two files" });
    await h.waitFor(() => requestsOf(h).length === 1, "request 1");
    expect(requestsOf(h)[0]!.sandbox).toMatchObject({ available: true, placement: "sandbox" });
    expect(requestsOf(h)[0]!.sandbox!.crossing).toMatchObject({ rule: "outside-path" });
    await h.call("permissions.respond", { requestId: requestsOf(h)[0]!.id, decision: "allow-once" });
    await h.waitFor(() => requestsOf(h).length === 2, "request 2");
    await h.call("permissions.respond", { requestId: requestsOf(h)[1]!.id, decision: "allow-once", outsideSandbox: true });
    await runs(h, session.id, 1);
    const [boxed, outside] = await results(h, session.id);
    expect(detailsOf(boxed).sandbox).toMatchObject({ placement: "sandbox", blocked: { rule: "read-only" } });
    expect(existsSync(path.join(scratch, "ask-boxed.txt"))).toBe(false);
    expect(detailsOf(outside).sandbox).toMatchObject({ placement: "outside", outsideReason: "You chose to run this command outside the sandbox." });
    expect(existsSync(path.join(scratch, "ask-outside.txt"))).toBe(true);
    expect(h.services.store.audit.list({ sessionId: session.id }).map((a) => a.decidedBy)).toContain("user: allow-once (outside the sandbox)");
  });

  it("the session's temporary folder ($TMPDIR) goes when the session ends, with what commands left in it", async () => {
    const command = 'mkdir -p "$TMPDIR/ro/deep" && echo x > "$TMPDIR/ro/deep/f" && chmod -R a-w "$TMPDIR/ro" && echo "tmp=$TMPDIR"';
    const { h, session } = await start([{ toolCalls: [{ name: "bash", args: { command } }] }, { text: "ok" }]);
    await h.call("sessions.prompt", { sessionId: session.id, text: "go" });
    await runs(h, session.id, 1);
    const [result] = await results(h, session.id);
    const tmp = /tmp=(\S+)/.exec(result!.content.map((c) => (c.type === "text" ? c.text : "")).join(""))?.[1];
    expect(tmp && existsSync(path.join(tmp, "ro/deep/f"))).toBe(true);
    const sessionFolder = path.dirname(tmp!);
    expect(path.basename(sessionFolder)).toMatch(/^lathe-session-/);
    await h.close();
    app = undefined;
    expect(existsSync(sessionFolder)).toBe(false);
  });

  it("full auto: no question, no sandbox, and the result says so", async () => {
    const target = path.join(scratch, "full-auto.txt");
    const { h, session } = await start([{ toolCalls: [{ name: "bash", args: { command: `touch ${target}` } }] }, { text: "ok" }], { permissionMode: "full-auto" });
    await h.call("sessions.prompt", { sessionId: session.id, text: "go" });
    await runs(h, session.id, 1);
    const [result] = await results(h, session.id);
    expect(requestsOf(h)).toHaveLength(0);
    expect(existsSync(target)).toBe(true);
    expect(detailsOf(result).sandbox).toMatchObject({ placement: "outside", outsideReason: "Full auto: commands run outside the sandbox, without a question." });
  });
});

describe("without a sandbox", () => {
  const missing = () => ({ kind: "bubblewrap" as const, available: false, userNamespace: false, message: "No sandbox: bubblewrap (bwrap) is not installed." });

  it("defaults to ask, and every command asks, saying it would run with full rights", async () => {
    const { h, session } = await start([{ toolCalls: [{ name: "bash", args: { command: "echo hi" } }] }, { text: "ok" }], { detectSandbox: missing });
    const settings = await h.call("settings.get", {});
    expect(settings.permissionMode).toBe("ask");
    expect(settings.sandbox).toMatchObject({ kind: "bubblewrap", available: false, message: "No sandbox: bubblewrap (bwrap) is not installed." });
    await h.call("settings.update", { permissionMode: "sandboxed-auto" });
    await h.call("sessions.prompt", { sessionId: session.id, text: "go" });
    await h.waitFor(() => requestsOf(h).length === 1, "the permission request");
    const request = requestsOf(h)[0]!;
    expect(request.sandbox).toMatchObject({ available: false, placement: "outside", crossing: { rule: "no-sandbox" } });
    expect(request.sandbox!.crossing!.message).toContain("with your full rights");
    await h.call("permissions.respond", { requestId: request.id, decision: "allow-once" });
    await runs(h, session.id, 1);
    expect(detailsOf((await results(h, session.id))[0]).sandbox).toMatchObject({ placement: "outside", outsideReason: "No sandbox: bubblewrap (bwrap) is not installed." });
  });
});

describe("sandbox settings and keys in the environment", () => {
  it("keeps network per project, the real-machine list and extra hidden paths, refusing a relative path", async () => {
    const { h, project } = await start([]);
    let s = await h.call("settings.update", {
      sandbox: { projectNetwork: { projectId: project.id, allowed: true }, realMachineCommands: ["make  deploy *", " "], hiddenPaths: ["~/secrets", "/srv/keys"] },
    });
    expect(s.sandbox).toMatchObject({ networkProjects: [project.id], realMachineCommands: ["make deploy *"], hiddenPaths: ["~/secrets", "/srv/keys"] });
    expect(s.sandbox.defaultHiddenPaths).toContain(h.dataDir);
    expect(h.services.sandbox.hiddenPaths()).toContain("/srv/keys");
    s = await h.call("settings.update", { sandbox: { projectNetwork: { projectId: project.id, allowed: false } } });
    expect(s.sandbox.networkProjects).toEqual([]);
    expect(await h.raw("settings.update", { sandbox: { hiddenPaths: ["relative/path"] } })).toMatchObject({
      ok: false,
      error: { code: "invalid-request", message: expect.stringContaining('"relative/path"') },
    });
    expect(await h.raw("settings.update", { sandbox: { unknown: true } })).toMatchObject({ ok: false, error: { code: "invalid-request" } });
  });

  it("names provider keys the app was started with, and moves them into the keyring when there is one", async () => {
    const env = { ANTHROPIC_API_KEY: "sk-ant-env-key-0123456789", PATH: process.env.PATH ?? "" };
    let h = (await start([], { env })).h;
    expect((await h.call("settings.get", {})).environmentKeys).toEqual([{ variable: "ANTHROPIC_API_KEY", provider: "anthropic", storedInKeyring: false }]);
    expect(await h.raw("settings.storeEnvironmentKeys", {})).toMatchObject({
      ok: false,
      error: { code: "unavailable", message: expect.stringContaining("commands run outside the sandbox can read them") },
    });
    await h.close();
    app = undefined;

    const sealed: string[] = [];
    const keyring: SecretStore = {
      available: true,
      encrypt: (plain) => (sealed.push(plain), `sealed:${Buffer.from(plain).toString("base64")}`),
      decrypt: (s) => Buffer.from(s.slice(7), "base64").toString(),
    };
    h = (await start([], { env, secrets: keyring })).h;
    const moved = await h.call("settings.storeEnvironmentKeys", {});
    expect(moved.environmentKeys).toEqual([{ variable: "ANTHROPIC_API_KEY", provider: "anthropic", storedInKeyring: true }]);
    expect(moved.providers.find((p) => p.id === "anthropic")?.keySource).toBe("settings");
    expect(sealed).toEqual(["sk-ant-env-key-0123456789"]);
    expect(h.services.settings.providerSettings().anthropic?.apiKey).toBe("sk-ant-env-key-0123456789");
  });
});
