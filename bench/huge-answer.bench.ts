// bench:huge-answer: a hostile or just verbose model streams one long answer (BENCH_ANSWER_MB,
// default 7.5 MB, under the providers' limit of 8 million characters) in small deltas (BENCH_DELTA_BYTES, default 100), through the real headless host
// in a process of its own (bench/support/ui-host-process.ts) to one WebSocket client that reads
// every batch as the browser renderer does (JSON.parse, then the streaming message's updates applied).
// The fake OpenAI-compatible server sends 200 deltas (20 KB) every 5 ms. A small first turn warms
// the host up (not measured).
// - hostCpuMs: the services process's main-thread CPU over the turn; hostBlockMaxMs: the longest
//   it computed in one piece (between two 1 ms ticks); hostLoopP99Ms: its event-loop delay p99.
// - wireMB: what the client received as session.events (JSON); batches: how many.
// - clientCpuMs / clientMaxMs: the client's time in parsing and applying batches (its total, its
//   longest batch), the renderer's share of the work; turnMs from the prompt to the run's end.
// - load: the load averages before and after (the machine is shared).
// BENCH_KIND=tool-args: the answer is one tool call whose arguments (BENCH_ANSWER_MB of JSON, a
// list of many small values) stream in the same pieces, then a short answer after its result.
// Prints one JSON line. Run: npm run bench:huge-answer (BENCH_RUNS, default 1).
import { fork } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import WebSocket from "ws";
import type { EventPayload } from "../app/shared/ipc/contract.ts";
import type { AssistantMessage } from "../app/shared/agent-types.ts";
import { applyStreamUpdate, streamingCopy } from "../app/shared/streaming-message.ts";
import { chunk, usageChunk } from "../test/providers/support/conversation.ts";
import { sseData, startServer } from "../test/providers/support/sse-server.ts";

// Under the providers' MAX_ANSWER_CHARS (8 million: a longer answer is stopped with an error).
const ANSWER_BYTES = Number(process.env.BENCH_ANSWER_MB ?? 7.5) * 1_000_000;
const DELTA = Number(process.env.BENCH_DELTA_BYTES ?? 100);
const RUNS = Number(process.env.BENCH_RUNS ?? 1);
const DELTAS_PER_PIECE = 200;
const root = process.cwd();
const round = (x: number) => Math.round(x * 10) / 10;

function reply(ANSWER_BYTES: number): string[] {
  const text = "abcdefghi ".repeat(Math.ceil(DELTA / 10)).slice(0, DELTA);
  const events: string[] = [chunk({ role: "assistant", content: "" })];
  for (let sent = 0; sent < ANSWER_BYTES; sent += DELTA) events.push(chunk({ content: sent % 5000 === 0 ? "\n\n" + text.slice(2) : text }));
  events.push(chunk({}, "stop"), usageChunk(5000, 0, ANSWER_BYTES / 4), sseData("[DONE]"));
  const pieces: string[] = [];
  for (let i = 0; i < events.length; i += DELTAS_PER_PIECE) pieces.push(events.slice(i, i + DELTAS_PER_PIECE).join(""));
  return pieces;
}

const dir = mkdtempSync(join(tmpdir(), "lathe-bench-huge-answer-"));
const project = join(dir, "project");
mkdirSync(project);
/** One tool call whose arguments (BENCH_ANSWER_MB of JSON: many small values) stream in DELTA-byte pieces. */
function toolCallReply(bytes: number): string[] {
  const args = `{"values":[${"1,".repeat(Math.max(1, Math.floor((bytes - 13) / 2)) - 1)}1]}`;
  const events: string[] = [chunk({ role: "assistant", content: null, tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "tally", arguments: "" } }] })];
  for (let at = 0; at < args.length; at += DELTA) events.push(chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(at, at + DELTA) } }] }));
  events.push(chunk({}, "tool_calls"), usageChunk(5000, 0, bytes / 4), sseData("[DONE]"));
  const pieces: string[] = [];
  for (let i = 0; i < events.length; i += DELTAS_PER_PIECE) pieces.push(events.slice(i, i + DELTAS_PER_PIECE).join(""));
  return pieces;
}

// BENCH_KIND=tool-args: the model's answer is one tool call (of a tool that does not exist: the
// run answers it with an error result and asks the model again, which then says "done").
const KIND = process.env.BENCH_KIND ?? "text";
const pieces = KIND === "tool-args" ? toolCallReply(ANSWER_BYTES) : reply(ANSWER_BYTES);
let posts = 0;
let followUp = false;
const model = await startServer((request) => {
  if (request.method === "GET")
    return { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify({ data: [{ id: "fake-coder", context_length: 200000 }] }) };
  // The first turn warms the host up (its modules load on first use); it is not measured.
  if (posts++ === 0 || followUp) {
    followUp = false;
    return { chunks: reply(100_000), delayMs: 5 };
  }
  followUp = KIND === "tool-args";
  return { chunks: pieces, delayMs: 5 };
}, "/v1");

const hostChild = fork(join(root, "bench/support/ui-host-process.ts"), [], { execArgv: [], stdio: ["ignore", "inherit", "inherit", "ipc"] });
const replies = new Map<number, (reply: { ok: boolean; data?: unknown; error?: string }) => void>();
hostChild.on("message", (r: { id: number; ok: boolean; data?: unknown; error?: string }) => {
  replies.get(r.id)?.(r);
  replies.delete(r.id);
});
let nextRequest = 0;
const ask = <T>(op: string, fields: Record<string, unknown> = {}): Promise<T> =>
  new Promise((resolve, reject) => {
    const id = ++nextRequest;
    replies.set(id, (r) => (r.ok ? resolve(r.data as T) : reject(new Error(r.error))));
    hostChild.send({ id, op, ...fields });
  });
const call = <T = { id: number }>(method: string, params: unknown): Promise<T> => ask<T>("call", { method, params });
const host = await ask<{ url: string; origin: string; token: string }>("start", { dataDir: join(dir, "data"), rendererDir: dir, env: { PATH: process.env.PATH, HOME: dir } });
await call("settings.setProvider", { id: "local", kind: "compatible", name: "Local", baseUrl: model.baseUrl });
await call("models.refresh", { provider: "local" });
await call("settings.update", { permissionMode: "full-auto", defaultModel: "local/fake-coder" });
const { id: projectId } = await call("projects.open", { folder: project });

interface Client {
  ws: WebSocket;
  bytes: number;
  batches: number;
  cpuMs: number;
  maxMs: number;
  ended: boolean;
  sessionId: number;
}

function connect(sessionId: number): Promise<Client> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://${new URL(host.url).host}/ws`, { origin: host.origin });
    const client: Client = { ws, bytes: 0, batches: 0, cpuMs: 0, maxMs: 0, ended: false, sessionId };
    // The renderer's part of applying a batch (session-model.ts's applyEvents, which this bench,
    // type-checked for Node, cannot import): a copy of the streaming message per batch, the updates
    // applied to it.
    let streaming: AssistantMessage | null = null;
    ws.on("open", () => ws.send(JSON.stringify({ token: host.token })));
    ws.on("message", (data) => {
      const t0 = performance.now();
      const text = String(data);
      const message = JSON.parse(text) as { authenticated?: boolean; event?: string; payload?: unknown };
      if (message.authenticated) return resolve(client);
      if (message.event !== "session.events") return;
      const batch = message.payload as EventPayload<"session.events">;
      if (batch.sessionId !== sessionId) return;
      client.bytes += text.length;
      client.batches++;
      let own = false;
      for (const event of batch.events) {
        if (event.type === "message_start" && event.message.role === "assistant") [streaming, own] = [event.message, false];
        else if (event.type === "message_end") streaming = null;
        else if (event.type === "message_update" && streaming) {
          if (!own) [streaming, own] = [streamingCopy(streaming), true];
          applyStreamUpdate(streaming, event);
        }
      }
      if (batch.events.some((e) => e.type === "agent_end")) client.ended = true;
      const ms = performance.now() - t0;
      client.cpuMs += ms;
      client.maxMs = Math.max(client.maxMs, ms);
    });
    ws.on("error", reject);
  });
}

const runs: Record<string, number>[] = [];
const loadBefore = loadavg().map(round);
for (let run = -1; run < RUNS; run++) {
  const { id: sessionId } = await call("sessions.create", { projectId });
  const client = await connect(sessionId);
  await call("sessions.open", { sessionId });
  await ask("monitorStart");
  const started = performance.now();
  await call("sessions.prompt", { sessionId, text: "write a very long answer" });
  while (!client.ended) await new Promise((r) => setTimeout(r, 20));
  while (await ask<boolean>("isRunning", { sessionId })) await new Promise((r) => setTimeout(r, 20));
  const turnMs = performance.now() - started;
  const host = await ask<{ p99Ms: number; maxMs: number; blockMaxMs: number; cpuMs: number }>("monitorStop");
  client.ws.close();
  if (run < 0) continue;
  runs.push({
    hostCpuMs: round(host.cpuMs),
    hostBlockMaxMs: round(host.blockMaxMs),
    hostLoopP99Ms: round(host.p99Ms),
    wireMB: round(client.bytes / 1e6),
    batches: client.batches,
    clientCpuMs: round(client.cpuMs),
    clientMaxMs: round(client.maxMs),
    turnMs: Math.round(turnMs),
  });
}
const median = (key: string) => [...runs.map((r) => r[key]!)].sort((a, b) => a - b)[Math.floor(runs.length / 2)]!;
console.log(
  JSON.stringify({
    kind: KIND,
    answerMB: ANSWER_BYTES / 1e6,
    deltaBytes: DELTA,
    runs: runs.length,
    ...Object.fromEntries(Object.keys(runs[0]!).map((k) => [k, median(k)])),
    all: runs,
    load: { before: loadBefore, after: loadavg().map(round) },
  }),
);
await ask("close").catch(() => {});
await model.close();
rmSync(dir, { recursive: true, force: true });
