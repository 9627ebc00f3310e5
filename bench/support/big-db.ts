// The large database the store and start benchmarks read: 10,000 sessions of 200 messages plus one
// of 10,000 and one of 100,000 (2.11 million messages, realistic JSON with tool calls and results,
// a Zipf-like vocabulary), built once through the store's API and kept in a cache folder outside
// the repository (BENCH_CACHE, default ~/.cache/lathe-bench), since building it takes minutes.
// A marker file says it is complete and which generator and schema made it; anything else is
// rebuilt. Benchmarks open it in place and must not write to it (they measure writes elsewhere).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AgentMessage, AssistantMessage, ToolResultMessage, UserMessage } from "../../app/shared/agent-types.ts";
import { LATEST_VERSION } from "../../app/main/store/migrations.ts";
import { openStore } from "../../app/main/store/index.ts";

const GENERATOR = 2;
export const SESSIONS = 10_000;
export const MESSAGES_PER_SESSION = 200;
export const MEDIUM_SESSION = 10_000;
export const LARGE_SESSION = 100_000;

export interface BigDatabase {
  dataDir: string;
  /** Session ids of the 10,000- and 100,000-message sessions. */
  medium: number;
  large: number;
  messages: number;
  buildSeconds: number;
}

let seed = 42;
function random(): number {
  seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff;
  return seed / 0x7fffffff;
}
function pick<T>(items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

export const COMMON = (
  "the a to of and in is for that it with on this be as are was we can file function test error value type " +
  "return import export const let data user config build run should need make use add fix update change line code " +
  "module package path option result check call method class interface string number list map set async await"
).split(" ");
const SYLLABLES = "ka lo mi ne ru sa ti vo ze pa qu ri sto tra ble fen dor gal hin jux lem mor nix".split(" ");
export const RARE: string[] = [];
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
export function transcript(count: number): AgentMessage[] {
  const messages: AgentMessage[] = [userMessage()];
  while (messages.length < count - 1) {
    const a = assistantMessage(true);
    messages.push(a, toolResult(a));
  }
  while (messages.length < count) messages.push(assistantMessage(false));
  return messages;
}

export function cacheDir(): string {
  return process.env.BENCH_CACHE ?? path.join(os.homedir(), ".cache", "lathe-bench");
}

/** The cached database, built first if missing or made by another generator or schema. */
export async function bigDatabase(log: (line: string) => void): Promise<BigDatabase> {
  const dataDir = path.join(cacheDir(), "store-2m");
  const marker = path.join(dataDir, "complete.json");
  try {
    const made = JSON.parse(fs.readFileSync(marker, "utf8")) as BigDatabase & { generator: number; schema: number };
    if (made.generator === GENERATOR && made.schema === LATEST_VERSION) return { ...made, dataDir };
  } catch {
    // not built yet
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.mkdirSync(dataDir, { recursive: true });
  log(`building the benchmark database in ${dataDir} (once; minutes)`);
  const start = performance.now();
  const { store } = openStore({ dataDir });
  try {
    const project = store.openProject("/home/dev/project", "project");
    const other = store.openProject("/home/dev/other", "other");
    for (let s = 0; s < SESSIONS; s += 50) {
      store.db.transaction(() => {
        for (let i = s; i < Math.min(SESSIONS, s + 50); i++) {
          const session = store.createSession({ projectId: i % 10 === 0 ? other.id : project.id, model: "anthropic/claude-sonnet-4-5", baseToolNames: ["read", "bash", "edit"] });
          store.appendMessages(session.id, transcript(MESSAGES_PER_SESSION));
        }
      })();
      store.flushSearchIndex();
      await new Promise((resolve) => setTimeout(resolve, 0));
      if (s % 250 === 0) store.checkpoint();
      if (s % 1000 === 0) log(`built ${s}/${SESSIONS} sessions, ${Math.round((performance.now() - start) / 1000)} s`);
    }
    const ids: number[] = [];
    for (const size of [MEDIUM_SESSION, LARGE_SESSION]) {
      const session = store.createSession({ projectId: project.id, model: "anthropic/claude-sonnet-4-5", baseToolNames: ["read", "bash", "edit"] });
      for (let n = 0; n < size; n += 2000) {
        store.appendMessages(session.id, transcript(Math.min(2000, size - n)));
        store.flushSearchIndex();
        await new Promise((resolve) => setTimeout(resolve, 0));
        if (n % 20_000 === 0) store.checkpoint();
      }
      ids.push(session.id);
    }
    store.flushSearchIndex();
    if (!store.checkpoint(60_000)) throw new Error("the checkpoint after the build did not complete");
    const made = {
      generator: GENERATOR,
      schema: LATEST_VERSION,
      medium: ids[0]!,
      large: ids[1]!,
      messages: SESSIONS * MESSAGES_PER_SESSION + MEDIUM_SESSION + LARGE_SESSION,
      buildSeconds: Math.round((performance.now() - start) / 1000),
    };
    store.close();
    fs.writeFileSync(marker, `${JSON.stringify(made)}\n`);
    log(`built in ${made.buildSeconds} s, ${Math.round(fs.statSync(path.join(dataDir, "lathe.db")).size / 1048576)} MB`);
    return { ...made, dataDir };
  } catch (error) {
    store.close();
    throw error;
  }
}
