// Benchmark: a turn that creates 100,000 files (one bash command can) must not hold the main
// thread. Prints ONE JSON line. Run with `npm run bench:huge-turn` (BENCH_FILES, default 100,000;
// BENCH_RUNS, default 3). Each run: a turn creates BENCH_FILES files with 180-character names
// (about 20 MB of `git status`; the creating is not measured), then, as the app does them:
// - capture: the turn's after-checkpoint (status, classification, storing, the commit);
// - review: the turn's "files changed" list the window asks for (checkpoints.list);
// - preview: the rewind preview to before the turn (a checkpoint, the plan, the listed files);
// - rewind: applying it (every file removed), which leaves the project as it was for the next run.
// Per phase: medianMs, minMs, mainCpuMs (median CPU of this thread) and maxBlockCpuMs, the most
// CPU this thread spent between two ticks of a 1 ms timer (block-monitor.ts): how long the code
// held the event loop in one piece, which a loaded machine does not inflate. maxBlockCpuMs over
// all phases is the figure; the app's main loop aims at 20 ms (bench:ui's mainLoopDelayP99Ms).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { emptyUsage } from "../app/shared/agent-types.ts";
import { CheckpointService } from "../app/main/checkpoints/checkpoint-service.ts";
import { Rewinder } from "../app/main/checkpoints/rewinder.ts";
import { turnKey } from "../app/main/checkpoints/turns.ts";
import { computePool } from "../app/main/workers/compute-pool.ts";
import { BenchSession } from "./support/bench-session.ts";
import { blockMonitor } from "./support/block-monitor.ts";

const FILES = Number(process.env.BENCH_FILES ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const work = mkdtempSync(path.join(tmpdir(), "lathe-huge-turn-bench-"));
const project = path.join(work, "project");
const round = (ms: number) => Math.round(ms * 10) / 10;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

type Phase = "capture" | "review" | "preview" | "rewind";
const samples: Record<Phase, { ms: number[]; cpuMs: number[]; blockMs: number[] }> = {
  capture: { ms: [], cpuMs: [], blockMs: [] },
  review: { ms: [], cpuMs: [], blockMs: [] },
  preview: { ms: [], cpuMs: [], blockMs: [] },
  rewind: { ms: [], cpuMs: [], blockMs: [] },
};

async function measure<T>(phase: Phase, work: () => Promise<T>): Promise<T> {
  const blocks = blockMonitor();
  blocks.start();
  const cpu = process.threadCpuUsage();
  const started = performance.now();
  const result = await work();
  samples[phase].ms.push(performance.now() - started);
  const used = process.threadCpuUsage(cpu);
  blocks.stop();
  samples[phase].cpuMs.push((used.user + used.system) / 1000);
  samples[phase].blockMs.push(blocks.max);
  return result;
}

async function main() {
  const load = [loadavg()[0]!];
  mkdirSync(project);
  writeFileSync(path.join(project, "README.md"), "a project\n");
  const cp = new CheckpointService({ dataDir: path.join(work, "data") });
  const rewinder = new Rewinder(cp);
  const session = new BenchSession(project);
  const scope = { sessionId: 1, projectId: 1, projectDir: project };
  const long = "n".repeat(180);
  for (let run = 0; run < RUNS; run++) {
    const position = session.messages.length;
    session.messages.push({ role: "user", content: `make ${FILES} files`, timestamp: Date.now() });
    const id = `call-${run}`;
    session.messages.push({
      role: "assistant",
      content: [{ type: "toolCall", id, name: "bash", arguments: { command: "…" } }],
      api: "anthropic-messages",
      provider: "bench",
      model: "bench",
      usage: emptyUsage(),
      stopReason: "toolUse",
      timestamp: Date.now(),
    });
    const key = turnKey(1, id);
    await cp.beforeTurn(scope, key);
    mkdirSync(path.join(project, "many"));
    for (let i = 0; i < FILES; i++) writeFileSync(path.join(project, "many", `${long}-${i}`), "");
    await measure("capture", () => cp.afterTurn(scope, key));
    session.messages.push({ role: "toolResult", toolCallId: id, toolName: "bash", content: [{ type: "text", text: "ok" }], isError: false, timestamp: Date.now() });
    const turns = await measure("review", () => cp.sessionChanges(session, 1));
    if (turns.at(-1)?.fileCount !== FILES) throw new Error(`the review counted ${turns.at(-1)?.fileCount} files, not ${FILES}`);
    const preview = await measure("preview", () => rewinder.preview(session, 1, { position }));
    if (preview.totals.remove !== FILES) throw new Error(`the preview removes ${preview.totals.remove} files, not ${FILES}`);
    const result = await measure("rewind", () => rewinder.apply(session, preview.previewId, { restore: [], destination: "project" }));
    if (!("done" in result) || result.done.removed !== FILES) throw new Error("the rewind did not remove every file");
  }
  await cp.close();
  load.push(loadavg()[0]!);
  const phases = Object.fromEntries(
    Object.entries(samples).map(([name, s]) => [
      name,
      { medianMs: round(median(s.ms)), minMs: round(Math.min(...s.ms)), mainCpuMs: round(median(s.cpuMs)), maxBlockCpuMs: round(Math.max(...s.blockMs)) },
    ]),
  );
  const maxBlockCpuMs = Math.max(...Object.values(phases).map((p) => p.maxBlockCpuMs));
  console.log(JSON.stringify({ files: FILES, runs: RUNS, maxBlockCpuMs, phases, loadAverage: load.map((l) => round(l)) }));
}

try {
  await main();
} finally {
  await computePool().close();
  rmSync(work, { recursive: true, force: true });
}
