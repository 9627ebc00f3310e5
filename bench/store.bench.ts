// Session store benchmark: builds 10,000 sessions of 200 messages (2 million messages, realistic
// JSON with tool calls and results) through the store's API in a temporary folder, records one
// 10,000-message session through SessionRecorder (the live write path, one commit per message),
// then measures listing, opening, searching. Prints ONE JSON line on stdout; progress (with where
// the resident memory is) on stderr. Runs with the main process's V8 settings (runtime-flags.ts).
// peakRssMB is the process's high-water mark (VmHWM) over the whole run, build included.
// appendPerSec counts the time spent in recorder.handle (message_start + message_end per message),
// not the bench generating the messages (logged separately).
// Scale down for a quick look: BENCH_SESSIONS=500 npm run bench:store
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AgentEvent, AgentMessage, AssistantMessage, ToolResultMessage, UserMessage } from "../app/shared/agent-types.ts";
import { applyMainProcessFlags } from "../app/main/runtime-flags.ts";
import { openStore } from "../app/main/store/index.ts";

// Measure the main process as it ships: same V8 settings as app/main/electron/main.ts.
applyMainProcessFlags();

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 10_000);
const MESSAGES_PER_SESSION = 200;
const BIG_SESSION_MESSAGES = 10_000;
const SESSIONS_PER_TRANSACTION = 50;

let seed = 42;
function random(): number {
  seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff;
  return seed / 0x7fffffff;
}
function pick<T>(items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

// A Zipf-like vocabulary: a few hundred common words, thousands of rarer generated ones.
const COMMON = (
  "the a to of and in is for that it with on this be as are was we can file function test error value type " +
  "return import export const let data user config build run should need make use add fix update change line code " +
  "module package path option result check call method class interface string number list map set async await"
).split(" ");
const SYLLABLES = "ka lo mi ne ru sa ti vo ze pa qu ri sto tra ble fen dor gal hin jux lem mor nix".split(" ");
const RARE: string[] = [];
for (let i = 0; i < 20_000; i++) RARE.push(pick(SYLLABLES) + pick(SYLLABLES) + pick(SYLLABLES) + (i % 7 === 0 ? String(i % 100) : ""));

function sentence(minBytes: number, maxBytes: number): string {
  const target = minBytes + Math.floor(random() * (maxBytes - minBytes));
  const words: string[] = [];
  let length = 0;
  while (length < target) {
    const word = random() < 0.7 ? pick(COMMON) : RARE[Math.floor(random() ** 2 * RARE.length)]!;
    words.push(word);
    length += word.length + 1;
  }
  return words.join(" ");
}

const usage = (n: number) => ({
  input: n,
  output: 200,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: n + 200,
  cost: { input: n * 3e-6, output: 6e-4, cacheRead: 0, cacheWrite: 0, total: n * 3e-6 + 6e-4 },
});

let callCounter = 0;
function userMessage(): UserMessage {
  return { role: "user", content: sentence(150, 400), timestamp: Date.now() };
}
function assistantMessage(withTool: boolean): AssistantMessage {
  const content: AssistantMessage["content"] = [{ type: "text", text: sentence(120, 300) }];
  if (withTool)
    content.push({ type: "toolCall", id: `call_${++callCounter}`, name: pick(["read", "bash", "edit", "grep"]), arguments: { path: `src/${pick(RARE)}.ts`, limit: 200 } });
  return {
    role: "assistant",
    content,
    api: "anthropic-messages",
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    usage: usage(1000 + Math.floor(random() * 5000)),
    stopReason: withTool ? "toolUse" : "stop",
    timestamp: Date.now(),
  };
}
function toolResult(call: AssistantMessage): ToolResultMessage {
  const tool = call.content.find((b) => b.type === "toolCall")!;
  return {
    role: "toolResult",
    toolCallId: tool.id,
    toolName: tool.name,
    content: [{ type: "text", text: sentence(200, 500) }],
    details: { exitCode: 0 },
    isError: false,
    timestamp: Date.now(),
  };
}
/** user, then (assistant with a tool call, its result) pairs, then a final assistant answer. */
function transcript(count: number): AgentMessage[] {
  const messages: AgentMessage[] = [userMessage()];
  while (messages.length < count - 1) {
    const a = assistantMessage(true);
    messages.push(a, toolResult(a));
  }
  while (messages.length < count) messages.push(assistantMessage(false));
  return messages;
}

function peakRssMB(): number {
  try {
    const hwm = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync("/proc/self/status", "utf8"));
    if (hwm) return Number(hwm[1]) / 1024;
  } catch {
    // not Linux: fall back to the current RSS
  }
  return process.memoryUsage().rss / 1024 / 1024;
}
const walMB = () => {
  try {
    return fs.statSync(path.join(dataDir, "lathe.db-wal")).size / 1048576;
  } catch {
    return 0;
  }
};
const log = (line: string) => process.stderr.write(`${line}\n`);
/** Where the resident memory is: anonymous (heaps, SQLite caches), file-backed, shared (WAL index). */
function rssBreakdown(): string {
  try {
    const status = fs.readFileSync("/proc/self/status", "utf8");
    const kb = (key: string) => Math.round(Number(new RegExp(`${key}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024);
    const m = process.memoryUsage();
    return `rss ${kb("VmRSS")} (anon ${kb("RssAnon")}, file ${kb("RssFile")}, shmem ${kb("RssShmem")}), peak ${kb("VmHWM")} MB, heap ${Math.round(m.heapUsed / 1048576)}/${Math.round(m.heapTotal / 1048576)}, external ${Math.round(m.external / 1048576)}`;
  } catch {
    return `rss ${Math.round(process.memoryUsage().rss / 1048576)} MB`;
  }
}
const round = (n: number, digits = 2) => Number(n.toFixed(digits));
function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "lathe-store-bench-"));
try {
  let { store } = openStore({ dataDir });
  const project = store.openProject("/home/dev/project", "project");
  const otherProject = store.openProject("/home/dev/other", "other");
  // A project with one old session: listing it is the worst case for the shared list index.
  const tinyProject = store.openProject("/home/dev/tiny", "tiny");
  store.appendMessages(store.createSession({ projectId: tinyProject.id }).id, transcript(4));

  // 1. Bulk build through the public API, SESSIONS_PER_TRANSACTION sessions per transaction.
  const buildStart = performance.now();
  for (let s = 0; s < SESSIONS; s += SESSIONS_PER_TRANSACTION) {
    store.db.transaction(() => {
      for (let i = s; i < Math.min(SESSIONS, s + SESSIONS_PER_TRANSACTION); i++) {
        const session = store.createSession({ projectId: i % 10 === 0 ? otherProject.id : project.id, model: "anthropic/claude-sonnet-4-5", baseToolNames: ["read", "bash", "edit"] });
        store.appendMessages(session.id, transcript(MESSAGES_PER_SESSION));
      }
    })();
    store.flushSearchIndex();
    // Yield like the app would between bursts of work, so the background checkpoint can run.
    await new Promise((resolve) => setTimeout(resolve, 0));
    globalThis.gc?.();
    if (s % 250 === 0) store.checkpoint();
    if (s % 1000 === 0) {
      log(`built ${s}/${SESSIONS} sessions, ${round((performance.now() - buildStart) / 1000, 1)} s, ${rssBreakdown()}, wal ${round(walMB(), 0)} MB`);
    }
  }
  const buildSeconds = (performance.now() - buildStart) / 1000;
  // After a bulk import the app checkpoints (SessionStore.checkpoint's purpose) and the import's
  // garbage is collected; the phases below start from that state, not from a 500 MB WAL.
  if (!store.checkpoint()) throw new Error("the checkpoint after the build did not complete");
  globalThis.gc?.();
  log(`built, ${rssBreakdown()}, wal ${round(walMB(), 0)} MB`);

  // 2. The live write path: a 10,000-message session recorded event by event, one commit per message.
  const big = store.createSession({ projectId: project.id, model: "anthropic/claude-sonnet-4-5", baseToolNames: ["read", "bash", "edit"] });
  const recorder = store.recorder(big.id);
  const endLatencies: number[] = [];
  // Only the recorder's calls are timed (generating the bench's messages is not the store's
  // cost; its time is logged). Between chunks of 200 messages the bench yields, as the live loop
  // does between events, so the store's timers (search indexing, background checkpoint) can run.
  let appendMs = 0;
  let generateMs = 0;
  // Also the main thread's CPU time in those calls and each chunk's rate: on this shared machine
  // other processes' bursts stretch wall time, and these show what the store itself costs.
  let appendCpuMicros = 0;
  const chunkRates: number[] = [];
  let t = performance.now();
  recorder.handle({ type: "agent_start" });
  appendMs += performance.now() - t;
  for (let written = 0; written < BIG_SESSION_MESSAGES; written += MESSAGES_PER_SESSION) {
    t = performance.now();
    const chunk = transcript(MESSAGES_PER_SESSION);
    generateMs += performance.now() - t;
    t = performance.now();
    const cpu = process.threadCpuUsage();
    for (const message of chunk) {
      recorder.handle({ type: "message_start", message });
      const event: AgentEvent = { type: "message_end", message };
      const end = performance.now();
      recorder.handle(event);
      endLatencies.push(performance.now() - end);
    }
    const used = process.threadCpuUsage(cpu);
    appendCpuMicros += used.user + used.system;
    const chunkMs = performance.now() - t;
    appendMs += chunkMs;
    chunkRates.push((chunk.length * 1000) / chunkMs);
    await new Promise((resolve) => setImmediate(resolve));
  }
  t = performance.now();
  recorder.handle({ type: "agent_end", messages: [] });
  appendMs += performance.now() - t;
  const appendSeconds = appendMs / 1000;
  log(`recorded ${BIG_SESSION_MESSAGES} messages in ${round(appendMs)} ms (+${round(generateMs)} ms generating them), ${rssBreakdown()}, wal ${round(walMB(), 0)} MB`);
  if (recorder.lastError) throw recorder.lastError;
  endLatencies.sort((a, b) => a - b);

  // 3. Reads, on a freshly opened connection.
  store.flushSearchIndex();
  store.close();
  log(`closed, ${rssBreakdown()}`);
  ({ store } = openStore({ dataDir, quickCheckMaxBytes: 0 }));
  t = performance.now();
  const firstPage = store.listSessions({ limit: 50 });
  const listFirstPageMs = performance.now() - t;
  if (firstPage.sessions.length !== 50 || firstPage.sessions[0]!.id !== big.id) throw new Error("unexpected first page");

  t = performance.now();
  const tinyPage = store.listSessions({ projectId: tinyProject.id, limit: 50 });
  const listSmallProjectMs = performance.now() - t;
  if (tinyPage.sessions.length !== 1) throw new Error("unexpected small project page");

  t = performance.now();
  const opened = store.openSession(big.id)!;
  const openSessionMs = performance.now() - t;
  if (opened.messages.length !== BIG_SESSION_MESSAGES) throw new Error("unexpected session size");
  log(`opened, ${rssBreakdown()}`);

  const queries = [pick(RARE), pick(RARE), "function", "error value", "return type", `${pick(RARE)} ${pick(COMMON)}`, RARE[5]!.slice(0, 4), "config", "module path", pick(RARE), "the", "async await"];
  const searchTimes: number[] = [];
  let hits = 0;
  for (const query of queries) {
    t = performance.now();
    hits += store.search(query, { limit: 20 }).hits.length;
    searchTimes.push(performance.now() - t);
  }
  const totalMessages = SESSIONS * MESSAGES_PER_SESSION + BIG_SESSION_MESSAGES + 4;
  store.close();
  const bytes = fs.statSync(path.join(dataDir, "lathe.db")).size;

  console.log(
    JSON.stringify({
      listFirstPageMs: round(listFirstPageMs),
      openSessionMs: round(openSessionMs),
      searchMedianMs: round(median(searchTimes)),
      appendPerSec: Math.round(BIG_SESSION_MESSAGES / appendSeconds),
      peakRssMB: round(peakRssMB(), 1),
      bytesPerMessage: Math.round(bytes / totalMessages),
      messages: totalMessages,
      buildSeconds: round(buildSeconds, 1),
      appendMedianChunkPerSec: Math.round(median(chunkRates)),
      appendCpuUsPerMessage: round(appendCpuMicros / BIG_SESSION_MESSAGES, 1),
      appendP99Ms: round(endLatencies[Math.floor(endLatencies.length * 0.99)]!, 3),
      appendMaxMs: round(endLatencies[endLatencies.length - 1]!, 3),
      searchMaxMs: round(Math.max(...searchTimes)),
      listSmallProjectMs: round(listSmallProjectMs),
      searchHits: hits,
    }),
  );
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}
