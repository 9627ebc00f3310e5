// A model that sends tool arguments nested 5,000 levels deep (more than JSON.stringify can print):
// the call gets an error result telling the model why, the assistant message and the result are
// stored, and the browser connected to the host stays attached and sees the run to its end.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startHost, type RunningHost } from "../../app/main/host/start-host.ts";
import type { AgentMessage } from "../../app/shared/agent-types.ts";
import { createScriptedModel } from "../../app/main/loop/test/scripted-model.ts";

let host: RunningHost;
let dir: string;
const reports: string[] = [];
const scripted = createScriptedModel();

beforeAll(async () => {
  dir = realpathSync(mkdtempSync(path.join(tmpdir(), "lathe-deep-args-")));
  mkdirSync(path.join(dir, "renderer"));
  mkdirSync(path.join(dir, "project"));
  writeFileSync(path.join(dir, "renderer", "index.html"), "<title>Lathe</title>");
  host = await startHost({ dataDir: path.join(dir, "data"), rendererDir: path.join(dir, "renderer"), env: {}, streamFn: scripted.streamFn, report: (what) => reports.push(what) });
  host.services.settings.setProvider({ id: "local", kind: "compatible", name: "Local", baseUrl: "http://127.0.0.1:9/v1", models: [{ id: "scripted" }] });
  host.services.settings.update({ defaultModel: "local/scripted" });
});
afterAll(async () => {
  await host?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Browser {
  call(method: string, params: unknown): Promise<{ ok: boolean; data?: unknown; error?: unknown }>;
  events: { event: string; payload: { sessionId?: number; events?: { type: string; message?: AgentMessage }[] } }[];
  ws: WebSocket;
}

function connect(): Promise<Browser> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}/ws`, { origin: host.origin });
    let id = 0;
    const waiting = new Map<number, (r: never) => void>();
    const browser: Browser = {
      ws,
      events: [],
      call: (method, params) =>
        new Promise((res) => {
          waiting.set(++id, res as never);
          ws.send(JSON.stringify({ id, method, params }));
        }),
    };
    ws.on("open", () => ws.send(JSON.stringify({ token: host.token })));
    ws.on("message", (data) => {
      const msg = JSON.parse(String(data));
      if (msg.authenticated) resolve(browser);
      else if (msg.event) browser.events.push(msg);
      else waiting.get(msg.id)?.(msg.result as never);
    });
    ws.on("error", reject);
  });
}

describe("tool arguments nested 5,000 levels deep from the model", () => {
  it("become a stored error result, and the connected browser sees the whole run", async () => {
    const deep = "[".repeat(5000) + "]".repeat(5000);
    scripted.push({ toolCalls: [{ name: "write", rawArgs: `{"path":"a.txt","content":${deep}}` }] }, { text: "I will not do that again." });
    const browser = await connect();
    const listeners = host.services.hub.size;
    const project = (await browser.call("projects.open", { folder: path.join(dir, "project") })).data as { id: number };
    const session = (await browser.call("sessions.create", { projectId: project.id })).data as { id: number };
    expect(await browser.call("sessions.prompt", { sessionId: session.id, text: "write it" })).toMatchObject({ ok: true });

    const ended = () => browser.events.some((e) => e.event === "session.events" && e.payload.events!.some((x) => x.type === "agent_end"));
    for (let i = 0; i < 400 && !ended(); i++) await new Promise((r) => setTimeout(r, 25));
    expect(ended()).toBe(true);

    // The browser saw the refused call's result and the answer after it.
    const seen = browser.events
      .flatMap((e) => e.payload.events ?? [])
      .filter((x) => x.type === "message_end")
      .map((x) => x.message!);
    expect(seen.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    const result = seen[2] as Extract<AgentMessage, { role: "toolResult" }>;
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/Tool write was not run: the arguments were refused: they are nested deeper than 64 levels\./);

    // All of it is stored, the call with {} and the reason, and reopens.
    const { opened } = (await browser.call("sessions.open", { sessionId: session.id })).data as { opened: { messages: AgentMessage[] } };
    expect(opened.messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    const call = (opened.messages[1] as Extract<AgentMessage, { role: "assistant" }>).content.find((c) => c.type === "toolCall");
    expect(call).toMatchObject({ name: "write", arguments: {}, argumentsError: expect.stringMatching(/nested deeper than 64 levels/) });
    expect((opened.messages[2] as { isError: boolean }).isError).toBe(true);

    // The model was told, and the browser is still attached.
    expect(JSON.stringify(scripted.requests.at(-1)!.context.messages.at(-1))).toMatch(/nested deeper than 64 levels/);
    expect(host.services.hub.size).toBe(listeners);
    expect(browser.ws.readyState).toBe(WebSocket.OPEN);
    expect(reports).toEqual([]);
    browser.ws.close();
  });
});
