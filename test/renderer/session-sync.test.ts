// The renderer's session model fed the way the UI feeds it (SessionSync over the WebSocket client,
// in Node, against the real headless host): opened at 100 random moments of a streaming run with
// bash calls, every view ends equal to the stored transcript (no doubled or missing message, same
// tool cards, same terminal output); the same after dropped connections (events missed while
// disconnected), after a batch lost on the way (a gap in the numbers), with a permission request
// raised while the view was away, and across a restart of the host in the middle of a run. Half the views open paged (2 messages a page), mid-run, and
// then scroll up to the first message: the same transcript, cards and output as the full views.
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startHost, type RunningHost } from "../../app/main/host/start-host.ts";
import type { LatheApi } from "../../app/shared/ipc/contract.ts";
import { createWsApi } from "../../app/renderer/src/api/ws-client.ts";
import { applyEvents, visibleItems, type SessionModel } from "../../app/renderer/src/state/session-model.ts";
import { SessionSync, type ConnectionStatus } from "../../app/renderer/src/state/session-sync.ts";
import { createScriptedModel, type ScriptStep } from "../../app/main/loop/test/scripted-model.ts";
import { usePageWebSocket } from "./support/page-websocket.ts";

usePageWebSocket();

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(predicate: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

interface Setup {
  host: RunningHost;
  dataDir: string;
  projectDir: string;
  rendererDir: string;
  token: string;
}

async function setUp(steps: ScriptStep[], mode: "full-auto" | "ask" = "full-auto", reuse?: Setup): Promise<Setup> {
  const root = reuse ? undefined : realpathSync(mkdtempSync(path.join(tmpdir(), "lathe-sync-")));
  const dataDir = reuse?.dataDir ?? path.join(root!, "data");
  const projectDir = reuse?.projectDir ?? root!;
  const rendererDir = reuse?.rendererDir ?? path.join(root!, "renderer-stub");
  if (!reuse) {
    writeFileSync(path.join(root!, "index.html"), "");
    cleanups.push(() => rmSync(root!, { recursive: true, force: true }));
  }
  const scripted = createScriptedModel(steps);
  const host = await startHost({
    dataDir,
    rendererDir,
    env: { PATH: process.env.PATH },
    streamFn: scripted.streamFn,
    token: reuse?.token,
    port: reuse?.host.port,
  });
  cleanups.push(() => host.close());
  host.services.settings.setProvider({ id: "local", kind: "compatible", name: "Local", baseUrl: "http://127.0.0.1:9/v1", models: [{ id: "scripted" }] });
  host.services.settings.update({ defaultModel: "local/scripted", permissionMode: mode });
  return { host, dataDir, projectDir, rendererDir, token: host.token };
}

function apiTo(port: number, token: string, onStatus?: (s: ConnectionStatus) => void): LatheApi {
  const statusListeners = new Set<(s: ConnectionStatus) => void>();
  const api = createWsApi({
    url: `ws://127.0.0.1:${port}/ws`,
    token,
    onStatus: (s) => {
      onStatus?.(s);
      statusListeners.forEach((l) => l(s));
    },
    requestTimeoutMs: 30_000,
  });
  (api as unknown as { statusListeners: typeof statusListeners }).statusListeners = statusListeners;
  return api;
}

function follow(api: LatheApi, sessionId: number, pageSize?: number): SessionSync {
  const listeners = (api as unknown as { statusListeners: Set<(s: ConnectionStatus) => void> }).statusListeners;
  const sync = new SessionSync(api, sessionId, () => {}, {
    ...(pageSize ? { pageSize } : {}),
    onConnectionStatus: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  });
  sync.start();
  cleanups.push(() => sync.dispose());
  return sync;
}

/** A TCP proxy in front of the host whose connections the test can cut (a dropped network). */
async function proxyTo(port: number): Promise<{ port: number; drop(): void; refuse(on: boolean): void; close(): void }> {
  const sockets = new Set<net.Socket>();
  let refusing = false;
  const server = net.createServer((client) => {
    if (refusing) return client.destroy();
    const upstream = net.connect(port, "127.0.0.1");
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => s.destroy());
    }
    client.pipe(upstream).pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const proxy = {
    port: (server.address() as net.AddressInfo).port,
    drop: () => sockets.forEach((s) => s.destroy()),
    refuse: (on: boolean) => void (refusing = on),
    close: () => {
      proxy.drop();
      server.close();
    },
  };
  cleanups.push(() => proxy.close());
  return proxy;
}

function outputOf(model: SessionModel, toolCallId: string): string | undefined {
  const card = model.tools.get(toolCallId)!;
  return card.chunkCount > 0 ? card.chunks.slice(0, card.chunkCount).join("") : undefined;
}

/** Scrolls a view up to the session's first message, page by page. */
async function loadAll(sync: SessionSync): Promise<number> {
  let pages = 0;
  while (await sync.loadOlder()) pages++;
  expect(sync.view.model.first).toBe(0);
  return pages;
}

/** The view equals the stored transcript, and shows the same cards and output as `reference`. */
function expectViewEqualsStore(sync: SessionSync, setup: Setup, sessionId: number, reference?: SessionSync): void {
  const view = sync.view.model;
  const stored = setup.host.services.store.readMessages(sessionId);
  expect(view.first).toBe(0);
  expect(view.total).toBe(stored.length);
  expect(view.messages).toEqual(stored);
  expect(view.streaming).toBeNull();
  expect(view.running).toBe(false);
  const ref = reference?.view.model;
  if (!ref) return;
  expect(visibleItems(view).map((i) => i.key)).toEqual(visibleItems(ref).map((i) => i.key));
  for (const [id, card] of ref.tools) {
    const mine = view.tools.get(id);
    expect(mine, `card ${id}`).toBeDefined();
    expect(mine!.status).toBe(card.status);
    expect(mine!.result).toEqual(card.result);
    const expected = outputOf(ref, id) ?? "";
    const shown = outputOf(view, id) ?? (mine!.storedOutput ? setup.host.services.store.toolOutput(sessionId, id)!.text : "");
    expect(shown, `output of ${id}`).toBe(expected);
  }
}

async function newSession(api: LatheApi, projectDir: string): Promise<number> {
  const project = await api.projects.open({ folder: projectDir });
  if (!project.ok) throw new Error(project.error.message);
  const session = await api.sessions.create({ projectId: project.data.id });
  if (!session.ok) throw new Error(session.error.message);
  return session.data.id;
}

/** A turn that streams thinking and text in small pieces, then runs one or two bash commands. */
function turn(n: number): ScriptStep {
  const command = (tag: string) => `for i in 1 2 3; do printf '\\033[3${n % 7}m${tag} ${n} line %s\\033[0m\\n' $i; sleep 0.02; done`;
  return {
    thinking: `Thinking about step ${n}. `.repeat(3),
    text: `Step ${n}: ${"streaming words ".repeat(6)}`,
    toolCalls:
      n % 4 === 0
        ? [
            { name: "bash", args: { command: command("a") } },
            { name: "bash", args: { command: command("b") } },
          ]
        : [{ name: "bash", args: { command: command("c") } }],
    deltaDelayMs: 2,
    chunkSize: 3,
  };
}

describe("the session view against the host", () => {
  it("opened at 100 random moments while it streams, every view ends equal to the stored transcript", async () => {
    const TURNS = 40;
    const setup = await setUp([...Array.from({ length: TURNS }, (_, i) => turn(i + 1)), { text: "All done.", deltaDelayMs: 2, chunkSize: 3 }]);
    const apis = Array.from({ length: 4 }, () => apiTo(setup.host.port, setup.token));
    const sessionId = await newSession(apis[0]!, setup.projectDir);
    const reference = follow(apis[0]!, sessionId);
    await until(() => !reference.view.loading, "the reference view");
    const prompt = await apis[0]!.sessions.prompt({ sessionId, text: "do the steps" });
    expect(prompt.ok).toBe(true);

    const views: SessionSync[] = [];
    let openedWhileRunning = 0;
    while (views.length < 100) {
      await sleep(Math.random() * 40);
      const running = setup.host.services.sessions.isRunning(sessionId);
      views.push(follow(apis[views.length % apis.length]!, sessionId, views.length % 2 === 1 ? 2 : undefined));
      if (running) openedWhileRunning++;
    }
    await until(() => !setup.host.services.sessions.isRunning(sessionId), "the run to end", 120_000);
    const last = setup.host.services.hub.seqOf(sessionId);
    await until(() => [reference, ...views].every((v) => !v.view.loading && v.seq === last && !v.view.model.running), "every view to catch up");
    expect(openedWhileRunning).toBeGreaterThanOrEqual(90);
    expect(reference.view.model.messages.length).toBe(2 + TURNS * 2 + TURNS / 4);
    expectViewEqualsStore(reference, setup, sessionId);
    // The paged views hold a window; many opened after the first pages were written (how many
    // depends on how fast a loaded machine streams).
    const paged = views.filter((_, i) => i % 2 === 1);
    expect(paged.filter((v) => v.view.model.first > 0).length).toBeGreaterThanOrEqual(10);
    for (const view of paged) expect(view.view.model.messages).toEqual(setup.host.services.store.readMessages(sessionId, view.view.model.first));
    // Scrolled up page by page (2 messages a page, 200 for the others) to the first message.
    for (const [i, view] of views.entries()) {
      const first = view.view.model.first;
      expect(await loadAll(view)).toBe(Math.ceil(first / (i % 2 === 1 ? 2 : 200)));
    }
    for (const view of views) expectViewEqualsStore(view, setup, sessionId, reference);
    // The snapshots were taken mid-run: some while text streamed, some while commands ran.
    expect(views.every((v) => v.snapshots === 1)).toBe(true);
  }, 180_000);

  it("views opened while answers stream rebuild each answer from its updates exactly, with no fresh snapshot", async () => {
    // Updates carry only what changed: a view opened mid-answer starts from the snapshot's
    // message (numbered) and appends the deltas after it. Just before each message_end, every
    // view's streaming message must have the final message's content.
    const TURNS = 8;
    const setup = await setUp([
      ...Array.from({ length: TURNS }, (_, i) => ({ ...turn(i + 1), text: `Answer ${i}: ${"with some words, ".repeat(40)}` })),
      { text: "All done.", deltaDelayMs: 2, chunkSize: 3 },
    ]);
    const apis = Array.from({ length: 3 }, () => apiTo(setup.host.port, setup.token));
    const sessionId = await newSession(apis[0]!, setup.projectDir);
    const views: SessionSync[][] = apis.map(() => []);
    let checked = 0;
    let outOfStep = 0;
    // Registered before the views' own listeners: sees each batch before they apply it.
    apis.forEach((api, a) =>
      api.events.onSessionEvents((batch) => {
        if (batch.sessionId !== sessionId) return;
        for (const view of views[a]!) {
          if (view.view.loading || batch.toSeq <= view.seq) continue;
          let model = view.view.model;
          let pending: typeof batch.events = [];
          batch.events.forEach((event, i) => {
            if (batch.seqs[i]! <= view.seq) return;
            if (event.type === "message_end" && event.message.role === "assistant") {
              model = applyEvents(model, pending, 0);
              pending = [];
              if (model.outOfStep) outOfStep++;
              expect(model.streaming?.content).toEqual(event.message.content);
              checked++;
            }
            pending.push(event);
          });
        }
      }),
    );
    const reference = follow(apis[0]!, sessionId);
    views[0]!.push(reference);
    await until(() => !reference.view.loading, "the reference view");
    expect((await apis[0]!.sessions.prompt({ sessionId, text: "do the steps" })).ok).toBe(true);
    let opened = 0;
    while (setup.host.services.sessions.isRunning(sessionId) && opened < 40) {
      await sleep(10 + Math.random() * 60);
      const a = opened++ % apis.length;
      views[a]!.push(follow(apis[a]!, sessionId));
    }
    await until(() => !setup.host.services.sessions.isRunning(sessionId), "the run to end", 120_000);
    const last = setup.host.services.hub.seqOf(sessionId);
    const all = views.flat();
    await until(() => all.every((v) => !v.view.loading && v.seq === last && !v.view.model.running), "every view to catch up");
    expect(opened).toBeGreaterThanOrEqual(10);
    expect(outOfStep).toBe(0);
    expect(checked).toBeGreaterThan(TURNS + opened / 2);
    expect(all.every((v) => v.snapshots === 1)).toBe(true);
    for (const view of all) expectViewEqualsStore(view, setup, sessionId);
  }, 180_000);

  it("asks for a fresh snapshot when a batch of events was lost (a gap in the numbers), and ends equal to the store", async () => {
    const setup = await setUp([turn(1), turn(2), { text: "Finished.", deltaDelayMs: 2, chunkSize: 3 }]);
    const api = apiTo(setup.host.port, setup.token);
    const sessionId = await newSession(api, setup.projectDir);
    // The transport loses the batch that ends the first assistant message (its number is skipped).
    let lost = 0;
    const lossy: LatheApi = {
      ...api,
      events: {
        ...api.events,
        onSessionEvents: (listener) =>
          api.events.onSessionEvents((batch) => {
            const endsAnswer = batch.events.some((e) => e.type === "message_end" && e.message.role === "assistant");
            if (batch.sessionId === sessionId && endsAnswer && lost++ === 0) return;
            listener(batch);
          }),
      },
    };
    const view = follow(lossy, sessionId);
    await until(() => !view.view.loading, "the view");
    await api.sessions.prompt({ sessionId, text: "go" });
    await until(() => !setup.host.services.sessions.isRunning(sessionId), "the run to end", 60_000);
    const last = setup.host.services.hub.seqOf(sessionId);
    await until(() => !view.view.loading && view.seq === last && !view.view.model.running, "the view to catch up");
    expect(lost).toBeGreaterThan(1);
    expect(view.snapshots).toBe(2);
    expectViewEqualsStore(view, setup, sessionId);
  }, 90_000);

  it("comes back after dropped connections, with a permission request raised while it was away", async () => {
    const setup = await setUp([turn(1), { ...turn(2), delayMs: 800 }, { text: "Finished.", deltaDelayMs: 2, chunkSize: 3 }], "ask");
    const proxy = await proxyTo(setup.host.port);
    const direct = apiTo(setup.host.port, setup.token);
    const api = apiTo(proxy.port, setup.token);
    const sessionId = await newSession(direct, setup.projectDir);
    const view = follow(api, sessionId);
    await until(() => !view.view.loading, "the view");
    await direct.sessions.prompt({ sessionId, text: "go" });
    const pending = () => setup.host.services.permissions.pendingFor(sessionId);

    // A drop while a request waits: the view comes back with it.
    await until(() => pending().length === 1, "the first request");
    const first = pending()[0]!;
    await until(() => view.view.permissions.some((p) => p.id === first.id), "the first request in the view");
    proxy.drop();
    await until(() => view.snapshots >= 2 && !view.view.loading, "the view back after the first drop");
    expect(view.view.permissions.map((p) => p.id)).toEqual([first.id]);

    // Cut off (reconnects refused) before the next request is raised: only the resync can bring it.
    proxy.refuse(true);
    proxy.drop();
    await direct.permissions.respond({ requestId: first.id, decision: "allow-once" });
    await until(() => pending().length === 1 && pending()[0]!.id !== first.id, "the second request");
    const second = pending()[0]!;
    expect(view.view.permissions.map((p) => p.id)).not.toContain(second.id);
    proxy.refuse(false);
    await until(() => view.view.permissions.some((p) => p.id === second.id), "the second request in the view after reconnecting", 30_000);
    expect(view.snapshots).toBeGreaterThanOrEqual(3);
    await direct.permissions.respond({ requestId: second.id, decision: "allow-once" });

    await until(() => !setup.host.services.sessions.isRunning(sessionId), "the run to end");
    const last = setup.host.services.hub.seqOf(sessionId);
    await until(() => !view.view.loading && view.seq === last && !view.view.model.running, "the view to catch up");
    expectViewEqualsStore(view, setup, sessionId);
    expect(view.view.model.messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant", "toolResult", "assistant"]);
    expect(view.view.permissions).toEqual([]);
  }, 120_000);

  it("comes back after the host restarts mid-run, without a reload", async () => {
    const first = await setUp([{ text: "Starting a long command.", toolCalls: [{ name: "bash", args: { command: "printf 'long-running\\n'; sleep 30" } }] }]);
    const api = apiTo(first.host.port, first.token);
    const sessionId = await newSession(api, first.projectDir);
    const view = follow(api, sessionId);
    await until(() => !view.view.loading, "the view");
    await api.sessions.prompt({ sessionId, text: "run it" });
    await until(() => [...view.view.model.tools.values()].some((c) => c.status === "running" && c.chunkCount > 0), "the command's output in the view");

    // The host goes away mid-command and comes back on the same address.
    await first.host.close();
    cleanups.pop();
    const second = await setUp([{ text: "Resumed fine." }], "full-auto", first);
    await until(() => view.snapshots >= 2 && !view.view.loading, "the view back", 30_000);
    expectViewEqualsStore(view, second, sessionId);
    expect(view.view.model.messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);

    // And it goes on live: a new prompt on the new host streams into the same view.
    await api.sessions.prompt({ sessionId, text: "again" });
    await until(() => view.view.model.messages.length === 6 && !view.view.model.running, "the new answer in the view");
    expectViewEqualsStore(view, second, sessionId);
  }, 90_000);
});
