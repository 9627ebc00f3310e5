// Session store benchmark over 2.11 million messages (bench/support/big-db.ts: 10,000 sessions of
// 200 messages, one of 10,000 and one of 100,000; built once into a cache folder outside the
// repository and reused). Measured the way the app does it, as it ships (bundled, with the main
// process's V8 settings): opening the 10,000- and 100,000-message sessions at their newest page
// (SessionStore.openPage, what sessions.open serves), searching, listing; and recording messages
// through SessionRecorder (the live write path: one commit per message) into a fresh database.
// Every figure is a median of ROUNDS alternated rounds (each round runs every phase once), with
// the minimum and the main thread's CPU time beside it. Prints ONE JSON line on stdout; progress
// on stderr. BENCH_ROUNDS (default 7), BENCH_CACHE (default ~/.cache/lathe-bench).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AgentEvent } from "../app/shared/agent-types.ts";
import { openStore } from "../app/main/store/index.ts";
import { bigDatabase, COMMON, RARE, transcript } from "./support/big-db.ts";

const ROUNDS = Math.max(5, Number(process.env.BENCH_ROUNDS ?? 7));
const APPEND_MESSAGES = 10_000;
const log = (line: string) => process.stderr.write(`${line}\n`);
const round = (n: number, digits = 2) => Number(n.toFixed(digits));
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const median = (values: number[]) => sorted(values)[Math.floor(values.length / 2)]!;
const percentile = (values: number[], p: number) => sorted(values)[Math.min(values.length - 1, Math.floor(values.length * p))]!;
const summary = (values: number[], digits = 2) => ({ median: round(median(values), digits), min: round(Math.min(...values), digits) });
const cpuUs = () => {
  const u = process.threadCpuUsage();
  return u.user + u.system;
};
function rssMB(): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync("/proc/self/status", "utf8"));
  return m ? Number(m[1]) / 1024 : process.memoryUsage().rss / 1048576;
}

const db = await bigDatabase(log);
const { store } = openStore({ dataDir: db.dataDir });
if (store.pendingSearchIndex() !== 0) throw new Error("the cached database is not fully indexed");

// Queries: rare words, common words (the slow case of the prefix form, which exact-first avoids),
// two-word queries, and words being typed: a rare word's start, and a common word's ("functi",
// the worst case: no exact hit, so the prefix form merges the index of every word it starts);
// the History's page size (it asks for 100 hits).
const SEARCH_LIMIT = 100;
const queries = [
  RARE[3]!,
  RARE[777]!,
  "function",
  "error value",
  "return type",
  `${RARE[42]} ${COMMON[5]}`,
  RARE[5]!.slice(0, 4),
  "config",
  "module path",
  RARE[1234]!,
  "the",
  "async await",
  "import",
  "data user",
  "functi",
];

const open10k: number[] = [];
const open10kCpu: number[] = [];
const open100k: number[] = [];
const open100kCpu: number[] = [];
const open100kRss: number[] = [];
const searchTimes: number[] = [];
const searchCpu: number[] = [];
// "functi" both ways on the same database, alternated: as searched (its completions' exact words,
// search-words.ts) and as the FTS5 prefix query it was searched with before.
const typedForms = { completions: [] as number[], completionsCpu: [] as number[], ftsPrefix: [] as number[], ftsPrefixCpu: [] as number[] };
const ftsPrefixPage = store.db.prepare(
  "SELECT f.rowid FROM message_fts f JOIN sessions s ON s.id = (f.rowid >> 24) WHERE message_fts MATCH ? AND s.deleted_at IS NULL AND s.archived_at IS NULL ORDER BY f.rowid DESC LIMIT 101",
);
const listFirstPage: number[] = [];
const appendCpu: number[] = [];
const appendWall: number[] = [];
let hits = 0;

for (let r = 0; r < ROUNDS; r++) {
  // Opening: the page the view gets, with the length, tool set and compaction entries.
  for (const [id, size, times, cpus] of [
    [db.medium, 10_000, open10k, open10kCpu],
    [db.large, 100_000, open100k, open100kCpu],
  ] as const) {
    globalThis.gc?.();
    const rssBefore = rssMB();
    const c = cpuUs();
    const t = performance.now();
    const page = store.openPage(id)!;
    times.push(performance.now() - t);
    cpus.push((cpuUs() - c) / 1000);
    if (page.total !== size || page.messages.length !== 200) throw new Error(`unexpected page of session ${id}`);
    if (size === 100_000) open100kRss.push(rssMB() - rssBefore);
  }
  let t = performance.now();
  store.listSessions({ limit: 50 });
  listFirstPage.push(performance.now() - t);

  for (const query of queries) {
    const c = cpuUs();
    t = performance.now();
    hits += store.search(query, { limit: SEARCH_LIMIT }).hits.length;
    searchTimes.push(performance.now() - t);
    searchCpu.push((cpuUs() - c) / 1000);
  }

  for (const form of r % 2 === 0 ? (["completions", "ftsPrefix"] as const) : (["ftsPrefix", "completions"] as const)) {
    const c = cpuUs();
    t = performance.now();
    if (form === "completions") store.search("functi", { limit: SEARCH_LIMIT });
    else ftsPrefixPage.all('"functi"*');
    typedForms[form].push(performance.now() - t);
    typedForms[`${form}Cpu`].push((cpuUs() - c) / 1000);
  }

  // The live write path into a fresh database: message_start + message_end per message, one commit each.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lathe-append-bench-"));
  try {
    const fresh = openStore({ dataDir: dir }).store;
    const project = fresh.openProject("/p");
    for (let i = 0; i < 20; i++) fresh.appendMessages(fresh.createSession({ projectId: project.id }).id, transcript(50));
    const session = fresh.createSession({ projectId: project.id });
    const recorder = fresh.recorder(session.id);
    recorder.handle({ type: "agent_start" });
    let cpu = 0;
    let wall = 0;
    for (let written = 0; written < APPEND_MESSAGES; written += 200) {
      const chunk = transcript(200);
      const c = cpuUs();
      const start = performance.now();
      for (const message of chunk) {
        recorder.handle({ type: "message_start", message });
        recorder.handle({ type: "message_end", message } as AgentEvent);
      }
      wall += performance.now() - start;
      cpu += cpuUs() - c;
      // Yield as the loop does between events: the store's timers (counters, index, checkpoint) run.
      await new Promise((resolve) => setImmediate(resolve));
    }
    recorder.handle({ type: "agent_end", messages: [] });
    if (recorder.lastError) throw recorder.lastError;
    appendCpu.push(cpu / APPEND_MESSAGES);
    appendWall.push((wall * 1000) / APPEND_MESSAGES);
    fresh.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  log(
    `round ${r + 1}/${ROUNDS}: open 10k ${round(open10k.at(-1)!)} ms, 100k ${round(open100k.at(-1)!)} ms (+${round(open100kRss.at(-1)!, 1)} MB), search median so far ${round(median(searchTimes))} ms, append ${round(appendCpu.at(-1)!, 1)} us CPU per message`,
  );
}
store.close();
const bytes = fs.statSync(path.join(db.dataDir, "lathe.db")).size;

console.log(
  JSON.stringify({
    openSessionMs: summary(open10k).median,
    openSession100kMs: summary(open100k).median,
    openSessionRssMB: round(median(open100kRss), 1),
    searchMedianMs: round(median(searchTimes)),
    searchP95Ms: round(percentile(searchTimes, 0.95)),
    appendCpuUs: round(median(appendCpu), 1),
    listFirstPageMs: round(median(listFirstPage)),
    detail: {
      rounds: ROUNDS,
      messages: db.messages,
      databaseMB: Math.round(bytes / 1048576),
      bytesPerMessage: Math.round(bytes / db.messages),
      openSession10k: { ...summary(open10k), cpuMs: summary(open10kCpu) },
      openSession100k: { ...summary(open100k), cpuMs: summary(open100kCpu), rssMB: summary(open100kRss, 1) },
      search: {
        queries: queries.length,
        limit: SEARCH_LIMIT,
        ...summary(searchTimes),
        p95: round(percentile(searchTimes, 0.95)),
        max: round(Math.max(...searchTimes)),
        cpuMedianMs: round(median(searchCpu)),
        cpuP95Ms: round(percentile(searchCpu, 0.95)),
        hits,
      },
      // The same without "functi" (the one query whose whole words find nothing and whose prefix is a
      // common word's): what every other query costs.
      searchWithoutTypedCommonPrefix: (() => {
        const rest = searchTimes.filter((_, j) => queries[j % queries.length] !== "functi");
        return { median: round(median(rest)), p95: round(percentile(rest, 0.95)) };
      })(),
      typedFunctiForms: {
        completions: { ...summary(typedForms.completions), cpuMs: summary(typedForms.completionsCpu) },
        ftsPrefix: { ...summary(typedForms.ftsPrefix), cpuMs: summary(typedForms.ftsPrefixCpu) },
      },
      searchByQueryCpu: Object.fromEntries(queries.map((q, i) => [q, round(median(searchCpu.filter((_, j) => j % queries.length === i)))])),
      searchByQuery: Object.fromEntries(queries.map((q, i) => [q, round(median(searchTimes.filter((_, j) => j % queries.length === i)))])),
      append: { cpuUsPerMessage: summary(appendCpu, 1), wallUsPerMessage: summary(appendWall, 1) },
      loadAverage: os.loadavg().map((l) => round(l, 1)),
    },
  }),
);
