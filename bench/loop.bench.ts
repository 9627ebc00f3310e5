// npm run bench:loop: the loop's own overhead per tool call, and a parallel batch's wall time.
// Prints one JSON line: usPerToolCall, usPerToolCallWithHooks (median turn time over 2,000
// single-tool turns with the scripted model, without and with no-op hooks), parallelBatchMs (one
// batch of 8 parallel tools that each sleep 50 ms), peakRssMB.
import { Type } from "@sinclair/typebox";
import { setTimeout as sleep } from "node:timers/promises";
import { runAgentLoop, defaultConvertToLlm, type AgentContext, type AgentLoopConfig, type AgentTool } from "../app/main/loop/index.ts";
import type { AgentEvent } from "../app/shared/agent-types.ts";
import { createScriptedModel, type ScriptStep } from "../app/main/loop/test/scripted-model.ts";
import { applyMainProcessFlags } from "../app/main/runtime-flags.ts";

// Measure the main process as it ships: with its V8 settings.
applyMainProcessFlags();

const TURNS = 2_000;
let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 5);

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

async function turnTimes(withHooks: boolean): Promise<number[]> {
  const steps: ScriptStep[] = [];
  for (let i = 0; i < TURNS; i++) {
    steps.push({ toolCalls: [{ name: "read", args: { path: `src/file${i}.ts`, limit: 100 } }], chunkSize: Infinity });
  }
  steps.push({ text: "done", chunkSize: Infinity });
  const scripted = createScriptedModel(steps, undefined, { recordRequests: false });
  const context: AgentContext = { systemPrompt: "bench", messages: [], tools: [noop] };
  const config: AgentLoopConfig = { model: scripted.model, convertToLlm: defaultConvertToLlm };
  if (withHooks) {
    config.beforeToolCall = async () => undefined;
    config.afterToolCall = async () => undefined;
  }
  const times: number[] = [];
  let start = 0;
  const emit = (event: AgentEvent): void => {
    if (event.type === "turn_start") start = performance.now();
    else if (event.type === "turn_end" && event.toolResults.length === 1) times.push((performance.now() - start) * 1000);
  };
  await runAgentLoop([{ role: "user", content: "go", timestamp: Date.now() }], context, config, emit, undefined, scripted.streamFn);
  if (times.length !== TURNS) throw new Error(`expected ${TURNS} tool turns, measured ${times.length}`);
  return times;
}

async function parallelBatchMs(): Promise<number> {
  const calls = Array.from({ length: 8 }, (_, i) => ({ name: "sleep", args: { path: `f${i}` } }));
  const scripted = createScriptedModel([{ toolCalls: calls, chunkSize: Infinity }, { text: "done" }], undefined, { recordRequests: false });
  const context: AgentContext = { systemPrompt: "bench", messages: [], tools: [sleeper] };
  const config: AgentLoopConfig = { model: scripted.model, convertToLlm: defaultConvertToLlm };
  let first = 0;
  let last = 0;
  const emit = (event: AgentEvent): void => {
    if (event.type === "tool_execution_start" && first === 0) first = performance.now();
    if (event.type === "turn_end" && event.toolResults.length === 8) last = performance.now();
  };
  await runAgentLoop([{ role: "user", content: "go", timestamp: Date.now() }], context, config, emit, undefined, scripted.streamFn);
  return last - first;
}

// Warm up the JIT on a short run of each shape before measuring.
await turnTimes(false);
await turnTimes(true);
globalThis.gc?.();
const plain = median(await turnTimes(false));
const hooked = median(await turnTimes(true));
const batches: number[] = [];
for (let i = 0; i < 5; i++) batches.push(await parallelBatchMs());
clearInterval(sampler);
peakRss = Math.max(peakRss, process.memoryUsage().rss);

const round = (n: number, digits = 1) => Number(n.toFixed(digits));
console.log(
  JSON.stringify({
    usPerToolCall: round(plain),
    usPerToolCallWithHooks: round(hooked),
    parallelBatchMs: round(median(batches)),
    peakRssMB: round(peakRss / 1024 / 1024),
  }),
);
