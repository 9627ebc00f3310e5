// One writer per data folder, between real processes: the headless host (`npm run serve` from
// source) on a folder another host holds is refused, names the holder and exits, and the holder's
// run goes on untouched; --read-only serves the folder without writing; a holder killed with -9
// leaves a lock the next host takes over at once, and that host, now the holder, repairs the run
// the kill cut short, keeping the output the command had shown.
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentMessage, AssistantMessage, ToolResultMessage } from "../../app/shared/agent-types.ts";
import { createAppServices } from "../../app/main/app-services.ts";
import { noSecretStore } from "../../app/main/settings/settings-service.ts";
import { ABORTED_RESULT_TEXT, openStore } from "../../app/main/store/index.ts";
import { connectHost, sessionEventsOf, startHostProcess, type HostProcess } from "../support/host-process.ts";
import { MODEL_ID, startFakeModel, type FakeModel } from "../renderer/support/fake-model.ts";

let model: FakeModel;
const dirs: string[] = [];
const children: HostProcess[] = [];

beforeAll(async () => {
  model = await startFakeModel((user, results) => {
    if (user.includes("slow")) {
      return results.length === 0
        ? { calls: [{ name: "bash", args: { command: "printf '\\033[32mstarted\\033[0m\\n'; sleep 3; echo finished-well" } }] }
        : { text: "Slow task done." };
    }
    if (user.includes("hang"))
      return results.length === 0 ? { calls: [{ name: "bash", args: { command: "printf '\\033[35mshown-before-the-kill\\033[0m\\n'; sleep 60" } }] } : { text: "unexpected" };
    return { text: "ok" };
  });
});

afterAll(async () => {
  for (const child of children) child.child.kill("SIGKILL");
  await model?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A data folder whose settings point at the fake model, in full-auto mode (no dialogs). */
async function preparedDataDir(): Promise<{ dataDir: string; projectDir: string }> {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), "lathe-folder-")));
  dirs.push(root);
  const dataDir = path.join(root, "data");
  const services = createAppServices({ dataDir, secrets: noSecretStore, host: "browser", version: "test", env: {} });
  services.settings.setProvider({ id: "local", kind: "compatible", name: "Local", baseUrl: model.baseUrl, models: [{ id: MODEL_ID }] });
  services.settings.update({ defaultModel: `local/${MODEL_ID}`, permissionMode: "full-auto" });
  await services.close();
  return { dataDir, projectDir: root };
}

function host(dataDir: string, args: string[] = []): HostProcess {
  const h = startHostProcess(dataDir, args);
  children.push(h);
  return h;
}

const roles = (messages: AgentMessage[]) => messages.map((m) => m.role);

describe("one writer per data folder, between processes", () => {
  it("refuses a second host while the first runs, which goes on untouched; --read-only only reads", async () => {
    const { dataDir, projectDir } = await preparedDataDir();
    const first = host(dataDir);
    const c1 = await connectHost(await first.url);
    const project = (await c1.call<{ id: number }>("projects.open", { folder: projectDir })).data!;
    const session = (await c1.call<{ id: number }>("sessions.create", { projectId: project.id })).data!;
    expect((await c1.call("sessions.prompt", { sessionId: session.id, text: "slow task" })).ok).toBe(true);
    await c1.waitFor(() => sessionEventsOf(c1, session.id).some((e) => e.type === "tool_execution_start"), "the command to start");

    // Mid-command, a second host on the same folder: refused, with the holder named.
    const second = host(dataDir);
    expect(await second.exited).toBe(3);
    expect(second.stderr()).toContain(`is in use by the headless host (pid ${first.child.pid} on `);
    expect(second.stderr()).toMatch(/Quit it first, or add --read-only/);
    await expect(second.url).rejects.toThrow(/exited/);

    // Read-only: serves what is there, refuses every change, writes nothing.
    const reader = host(dataDir, ["--read-only"]);
    const c3 = await connectHost(await reader.url);
    expect((await c3.call("app.info")).data).toMatchObject({ readOnly: true, notices: [expect.stringMatching(/^Read-only: The data folder .* is in use by the headless host/)] });
    expect((await c3.call<{ opened: { messages: AgentMessage[] } }>("sessions.open", { sessionId: session.id })).data!.opened.messages[0]).toMatchObject({ role: "user" });
    expect(await c3.call("sessions.prompt", { sessionId: session.id, text: "no" })).toMatchObject({
      ok: false,
      error: { code: "unavailable", message: expect.stringMatching(/read-only/) },
    });
    expect((await c3.call("sessions.delete", { sessionId: session.id })).ok).toBe(false);
    c3.close();
    reader.child.kill("SIGTERM");
    expect(await reader.exited).toBe(0);

    // The first host's run finished as if alone: one real result per call, nothing aborted.
    await c1.waitFor(() => sessionEventsOf(c1, session.id).some((e) => e.type === "agent_end"), "the run to end");
    const opened = (await c1.call<{ opened: { messages: AgentMessage[] } }>("sessions.open", { sessionId: session.id })).data!.opened;
    expect(roles(opened.messages)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    const result = opened.messages[2] as ToolResultMessage;
    expect(result.isError).toBe(false);
    expect(JSON.stringify(result.content)).toContain("finished-well");
    expect(JSON.stringify(opened.messages)).not.toContain(ABORTED_RESULT_TEXT);
    c1.close();
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);

    // And once it has quit, the folder is free; nothing was left to repair.
    const { store, notices } = openStore({ dataDir });
    expect(notices).toEqual([]);
    expect(store.listRuns(session.id).map((r) => r.status)).toEqual(["completed"]);
    store.close();
  }, 180_000);

  it("takes over a lock left by kill -9 at once; the new holder repairs the cut run and keeps the output shown", async () => {
    const { dataDir, projectDir } = await preparedDataDir();
    const doomed = host(dataDir);
    const c1 = await connectHost(await doomed.url);
    const project = (await c1.call<{ id: number }>("projects.open", { folder: projectDir })).data!;
    const session = (await c1.call<{ id: number }>("sessions.create", { projectId: project.id })).data!;
    await c1.call("sessions.prompt", { sessionId: session.id, text: "hang here" });
    await c1.waitFor(
      () => sessionEventsOf(c1, session.id).some((e) => e.type === "tool_execution_update" && JSON.stringify(e).includes("shown-before-the-kill")),
      "the output to be shown",
    );
    // The terminal log is written every 200 ms while the command runs.
    await new Promise((resolve) => setTimeout(resolve, 600));
    doomed.child.kill("SIGKILL");
    expect(await doomed.exited).toBe("SIGKILL");

    const next = host(dataDir);
    const c2 = await connectHost(await next.url);
    expect(next.stdout()).toMatch(/notice: 1 session was interrupted when Lathe last stopped; 1 unfinished tool call was marked aborted\./);
    const opened = (await c2.call<{ opened: { messages: AgentMessage[]; outputs: { toolCallId: string }[] } }>("sessions.open", { sessionId: session.id })).data!.opened;
    expect(roles(opened.messages)).toEqual(["user", "assistant", "toolResult"]);
    const call = (opened.messages[1] as AssistantMessage).content.find((b) => b.type === "toolCall")!;
    expect(opened.messages[2]).toMatchObject({ toolCallId: call.id, isError: true, content: [{ text: ABORTED_RESULT_TEXT }] });
    expect(opened.outputs.map((o) => o.toolCallId)).toEqual([call.id]);
    const output = await c2.call<{ text: string }>("tools.output", { sessionId: session.id, toolCallId: call.id });
    expect(output.data!.text).toContain("\x1b[35mshown-before-the-kill\x1b[0m");
    c2.close();
    next.child.kill("SIGTERM");
    expect(await next.exited).toBe(0);
  }, 180_000);
});
