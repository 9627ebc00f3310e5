// npm run bench:loop: the loop's own overhead per tool call, side by side with pi's agent core.
// Both loops run the identical scenario in this process, alternated over ROUNDS rounds: the same
// scripted model (app/main/loop/test/scripted-model.ts), the same tool, 2,000
// single-tool turns, without and with no-op beforeToolCall/afterToolCall hooks. pi's agent core
// is a dependency of the bench only (bench/pi, installed on demand: bench/support/pi-agent-core.ts).
// Prints one JSON line:
// - usPerToolCall / usPerToolCallWithHooks: median over rounds of the per-turn median (µs);
// - meanUsPerToolCall / meanUsPerToolCallWithHooks: whole run time / tool calls (µs), median and
//   min over rounds, with the run's CPU time; the same figures for pi (pi*);
// - ratioVsPi / ratioVsPiWithHooks: Lathe's whole-run time / pi's (target <= 0.7), the median of
//   each round's ratio, in wall and in CPU time (*Cpu, steadier on a shared machine). Each loop
//   converts the transcript with its own default convertToLlm; *SameConvert gives pi Lathe's;
// - parallelBatchMs: one batch of 8 parallel tools that each sleep 50 ms;
// - semiSpaceFlag: whole runs of Lathe's scenario in fresh processes, alternated with and without
//   V8's --semi-space-growth-factor=1 (wall ms, CPU ms, peak RSS); peakRssMB is the shipped
//   (no flag) median;
// - requestBuild10kMs / requestBuild100kMs: main-thread CPU ms to build one model request per turn
//   in a session of 10,000 / 100,000 messages (compaction check, model view, request body:
//   bench/support/request-build.ts), median over the turns of REQUEST_ROUNDS alternated rounds,
//   with the minimum; requestSerialize*Ms: that body to the text sent (providers/request-body.ts);
//   requestBuildCold*Ms: the first request after opening built at once (everything converted and
//   serialized: what a session did before its first request was prepared in slices);
// - firstRequestAfterOpen10k / 100k: that request as a session makes it now (prepared in slices,
//   sessions/request-preparation.ts): wallMs from opening to its body, blockMaxMs, the longest the
//   main thread computed in one piece meanwhile, cpuMs, the main thread's CPU for all of it,
//   requestCpuMs, the build after the preparation;
//   `npm run bench:loop -- request` runs only the request figures (with the load average).
import { Type } from "@sinclair/typebox";
import { spawnSync } from "node:child_process";
import os from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { runAgentLoop, defaultConvertToLlm, type AgentContext, type AgentLoopConfig, type AgentTool } from "../app/main/loop/index.ts";
import { createScriptedModel, type ScriptStep } from "../app/main/loop/test/scripted-model.ts";
import { setFlagsFromString } from "node:v8";
import { loadPiAgentCore, type PiRunAgentLoop } from "./support/pi-agent-core.ts";
import { measureFirstRequestAfterOpen, measureRequestBuild, type FirstRequestRun, type RequestBuildRun } from "./support/request-build.ts";

const TURNS = 2_000;
const ROUNDS = 7;
const FLAG_PAIRS = 7;
const REQUEST_ROUNDS = 5;
const REQUEST_TURNS = 5;
const childMode = process.argv.includes("--child");
// The flag once shipped in app/main/runtime-flags.ts (young generation kept at its starting size):
// dropped because it cost CPU time on every whole run here while saving ~14 MB. A child given
// --with-flag sets it, so it can be judged again; everything else runs as the app ships.
if (process.argv.includes("--with-flag")) setFlagsFromString("--semi-space-growth-factor=1");

const params = Type.Object({ path: Type.String(), limit: Type.Optional(Type.Integer()) });
const noop: AgentTool<typeof params> = {
  name: "read",
  label: "Read",
  description: "Reads a file.",
  parameters: params,
  execute: async (_id, args) => ({ content: [{ type: "text", text: `contents of ${args.path}` }], details: {} }),
};
const sleeper: AgentTool<typeof params> = {
  ...noop,
  name: "sleep",
  execute: async () => {
    await sleep(50);
    return { content: [{ type: "text", text: "slept" }], details: {} };
  },
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
const min = (values: number[]): number => Math.min(...values);
const round = (n: number, digits = 1): number => Number(n.toFixed(digits));

type LoopRunner = PiRunAgentLoop;
interface Run {
  wholeMs: number;
  cpuMs: number;
  turnMedianUs: number;
}

/** One whole run of TURNS single-tool turns then a closing text turn, through `loop`. */
async function runScenario(loop: LoopRunner, withHooks: boolean, convertToLlm: AgentLoopConfig["convertToLlm"] = defaultConvertToLlm): Promise<Run> {
  const steps: ScriptStep[] = [];
  for (let i = 0; i < TURNS; i++) {
    steps.push({ toolCalls: [{ name: "read", args: { path: `src/file${i}.ts`, limit: 100 } }], chunkSize: Infinity });
  }
  steps.push({ text: "done", chunkSize: Infinity });
  const scripted = createScriptedModel(steps, undefined, { recordRequests: false });
  const context: AgentContext = { systemPrompt: "bench", messages: [], tools: [noop] };
  const config: AgentLoopConfig = { model: scripted.model, convertToLlm };
  if (withHooks) {
    config.beforeToolCall = async () => undefined;
    config.afterToolCall = async () => undefined;
  }
  const times: number[] = [];
  let start = 0;
  const emit = (event: { type: string; toolResults?: unknown[] }): void => {
    if (event.type === "turn_start") start = performance.now();
    else if (event.type === "turn_end" && event.toolResults?.length === 1) times.push((performance.now() - start) * 1000);
  };
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  await loop([{ role: "user", content: "go", timestamp: Date.now() }], context, config, emit, undefined, scripted.streamFn);
  const wholeMs = performance.now() - wallBefore;
  const cpu = process.cpuUsage(cpuBefore);
  if (times.length !== TURNS) throw new Error(`expected ${TURNS} tool turns, measured ${times.length}`);
  return { wholeMs, cpuMs: (cpu.user + cpu.system) / 1000, turnMedianUs: median(times) };
}

async function parallelBatchMs(): Promise<number> {
  const calls = Array.from({ length: 8 }, (_, i) => ({ name: "sleep", args: { path: `f${i}` } }));
  const scripted = createScriptedModel([{ toolCalls: calls, chunkSize: Infinity }, { text: "done" }], undefined, { recordRequests: false });
  const context: AgentContext = { systemPrompt: "bench", messages: [], tools: [sleeper] };
  const config: AgentLoopConfig = { model: scripted.model, convertToLlm: defaultConvertToLlm };
  let first = 0;
  let last = 0;
  const emit = (event: { type: string; toolResults?: unknown[] }): void => {
    if (event.type === "tool_execution_start" && first === 0) first = performance.now();
    if (event.type === "turn_end" && event.toolResults?.length === 8) last = performance.now();
  };
  await runAgentLoop([{ role: "user", content: "go", timestamp: Date.now() }], context, config, emit, undefined, scripted.streamFn);
  return last - first;
}

const lathe = runAgentLoop as unknown as LoopRunner;
// pi's own default convertToLlm, verbatim from its Agent (pi-agent-core/dist/agent.js, not exported):
// each loop converts the transcript the way it does for its users.
const piConvertToLlm = ((messages: { role: string }[]) =>
  messages.filter((m) => m.role === "user" || m.role === "assistant" || m.role === "toolResult")) as unknown as AgentLoopConfig["convertToLlm"];

if (childMode) {
  // One fresh process, one whole run of each shape: what the semi-space flag is judged on.
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 5);
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  await runScenario(lathe, false);
  await runScenario(lathe, true);
  const wallMs = performance.now() - wallBefore;
  const cpu = process.cpuUsage(cpuBefore);
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  console.log(JSON.stringify({ wallMs, cpuMs: (cpu.user + cpu.system) / 1000, peakRssMB: peakRss / 1024 / 1024 }));
  process.exit(0);
}

/** Request building at 10k and 100k messages, alternated: the request figures of the JSON line. */
async function requestPart() {
  const requestRuns = { 10_000: [] as RequestBuildRun[], 100_000: [] as RequestBuildRun[] };
  for (let i = 0; i < REQUEST_ROUNDS; i++) {
    const sizes = i % 2 === 0 ? ([10_000, 100_000] as const) : ([100_000, 10_000] as const);
    for (const size of sizes) {
      globalThis.gc?.();
      requestRuns[size].push(measureRequestBuild(size, REQUEST_TURNS));
    }
  }
  const firstRuns = { 10_000: [] as FirstRequestRun[], 100_000: [] as FirstRequestRun[] };
  for (let i = 0; i < REQUEST_ROUNDS; i++) {
    const sizes = i % 2 === 0 ? ([10_000, 100_000] as const) : ([100_000, 10_000] as const);
    for (const size of sizes) {
      globalThis.gc?.();
      firstRuns[size].push(await measureFirstRequestAfterOpen(size));
    }
  }
  const firstRequestFigures = (size: 10_000 | 100_000) => {
    const runs = firstRuns[size];
    return {
      wallMs: round(median(runs.map((r) => r.wallMs))),
      wallMinMs: round(min(runs.map((r) => r.wallMs))),
      blockMaxMs: round(median(runs.map((r) => r.blockMaxMs))),
      blockMaxMinMs: round(min(runs.map((r) => r.blockMaxMs))),
      cpuMs: round(median(runs.map((r) => r.cpuMs))),
      requestCpuMs: round(median(runs.map((r) => r.requestCpuMs)), 2),
    };
  };
  const requestFigures = (size: 10_000 | 100_000, tag: string) => {
    const runs = requestRuns[size];
    const build = runs.flatMap((r) => r.buildMs);
    const serialize = runs.flatMap((r) => r.serializeMs);
    return {
      [`requestBuild${tag}Ms`]: round(median(build), 2),
      [`requestBuild${tag}MinMs`]: round(min(build), 2),
      [`requestSerialize${tag}Ms`]: round(median(serialize), 2),
      [`requestSerialize${tag}MinMs`]: round(min(serialize), 2),
      [`requestBuildCold${tag}Ms`]: round(median(runs.map((r) => r.coldMs))),
      [`requestBody${tag}MB`]: round(runs[0]!.bodyMB),
    };
  };
  return {
    ...requestFigures(10_000, "10k"),
    ...requestFigures(100_000, "100k"),
    firstRequestAfterOpen10k: firstRequestFigures(10_000),
    firstRequestAfterOpen100k: firstRequestFigures(100_000),
  };
}

// `npm run bench:loop -- request` measures only these.
if (process.argv.includes("request")) {
  console.log(JSON.stringify({ ...(await requestPart()), loadAverage: os.loadavg().map((l) => round(l)) }));
  process.exit(0);
}

let pi;
try {
  pi = await loadPiAgentCore();
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}

// Warm up the JIT on each loop and shape before measuring.
await runScenario(lathe, false);
await runScenario(lathe, true);
await runScenario(pi.runAgentLoop, false, piConvertToLlm);
await runScenario(pi.runAgentLoop, true, piConvertToLlm);
await runScenario(pi.runAgentLoop, false);
const runs = { lathe: [] as Run[], latheHooks: [] as Run[], pi: [] as Run[], piHooks: [] as Run[], piSameConvert: [] as Run[] };
for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 === 0 ? (["lathe", "pi"] as const) : (["pi", "lathe"] as const);
  for (const hooks of [false, true]) {
    for (const who of order) {
      globalThis.gc?.();
      const run = who === "lathe" ? await runScenario(lathe, hooks) : await runScenario(pi.runAgentLoop, hooks, piConvertToLlm);
      runs[`${who}${hooks ? "Hooks" : ""}` as "lathe" | "latheHooks" | "pi" | "piHooks"].push(run);
    }
  }
  // pi with Lathe's converter too, so the ratio with the conversion held equal is on record.
  globalThis.gc?.();
  runs.piSameConvert.push(await runScenario(pi.runAgentLoop, false));
}
const batches: number[] = [];
for (let i = 0; i < 5; i++) batches.push(await parallelBatchMs());

// The semi-space flag, judged on whole runs in fresh processes, alternated.
const self = fileURLToPath(import.meta.url);
interface WholeRun {
  wallMs: number;
  cpuMs: number;
  peakRssMB: number;
}
const flagRuns = { with: [] as WholeRun[], without: [] as WholeRun[] };
for (let i = 0; i < FLAG_PAIRS; i++) {
  const order = i % 2 === 0 ? (["with", "without"] as const) : (["without", "with"] as const);
  for (const kind of order) {
    const args = ["--expose-gc", self, "--child", ...(kind === "with" ? ["--with-flag"] : [])];
    const child = spawnSync(process.execPath, args, { encoding: "utf8" });
    if (child.status !== 0) throw new Error(`bench:loop child failed: ${child.stderr}`);
    flagRuns[kind].push(JSON.parse(child.stdout.trim().split("\n").pop()!) as WholeRun);
  }
}

const requests = await requestPart();

const perCall = (list: Run[]): number[] => list.map((r) => (r.wholeMs * 1000) / TURNS);
const figures = (list: Run[]) => ({
  mean: round(median(perCall(list))),
  meanMin: round(min(perCall(list))),
  turnMedian: round(median(list.map((r) => r.turnMedianUs))),
  cpuMs: round(median(list.map((r) => r.cpuMs))),
});
// Runs of the same round ran side by side, so each ratio is the median of the rounds' ratios.
const pairedRatio = (a: Run[], b: Run[], key: "wholeMs" | "cpuMs"): number => round(median(a.map((run, i) => run[key] / b[i]![key])), 2);
const l = figures(runs.lathe);
const lh = figures(runs.latheHooks);
const p = figures(runs.pi);
const ph = figures(runs.piHooks);
const ps = figures(runs.piSameConvert);
const flagFigure = (kind: "with" | "without", key: "wallMs" | "cpuMs" | "peakRssMB") => round(median(flagRuns[kind].map((r) => r[key])));
console.log(
  JSON.stringify({
    usPerToolCall: l.turnMedian,
    usPerToolCallWithHooks: lh.turnMedian,
    meanUsPerToolCall: l.mean,
    meanUsPerToolCallMin: l.meanMin,
    meanUsPerToolCallWithHooks: lh.mean,
    runCpuMs: l.cpuMs,
    runCpuMsWithHooks: lh.cpuMs,
    piVersion: pi.version,
    piUsPerToolCall: p.turnMedian,
    piMeanUsPerToolCall: p.mean,
    piMeanUsPerToolCallMin: p.meanMin,
    piMeanUsPerToolCallWithHooks: ph.mean,
    piRunCpuMs: p.cpuMs,
    piRunCpuMsWithHooks: ph.cpuMs,
    piSameConvertMeanUsPerToolCall: ps.mean,
    ratioVsPi: pairedRatio(runs.lathe, runs.pi, "wholeMs"),
    ratioVsPiCpu: pairedRatio(runs.lathe, runs.pi, "cpuMs"),
    ratioVsPiWithHooks: pairedRatio(runs.latheHooks, runs.piHooks, "wholeMs"),
    ratioVsPiWithHooksCpu: pairedRatio(runs.latheHooks, runs.piHooks, "cpuMs"),
    ratioVsPiSameConvert: pairedRatio(runs.lathe, runs.piSameConvert, "wholeMs"),
    ratioVsPiSameConvertCpu: pairedRatio(runs.lathe, runs.piSameConvert, "cpuMs"),
    parallelBatchMs: round(median(batches)),
    ...requests,
    peakRssMB: flagFigure("without", "peakRssMB"),
    semiSpaceFlag: {
      withWallMs: flagFigure("with", "wallMs"),
      withoutWallMs: flagFigure("without", "wallMs"),
      withCpuMs: flagFigure("with", "cpuMs"),
      withoutCpuMs: flagFigure("without", "cpuMs"),
      withPeakRssMB: flagFigure("with", "peakRssMB"),
      withoutPeakRssMB: flagFigure("without", "peakRssMB"),
    },
  }),
);
