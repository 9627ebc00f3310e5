// Benchmark of checkpoints and rewind; prints ONE JSON line. Run with `npm run bench:checkpoints`
// (BENCH_FILES / BENCH_MB for a smaller project). A project of 20,000 files / 200 MB (plus a
// node_modules folder the default excludes leave out), then:
// - firstCheckpointMs: the first snapshot of the project into a new store, as a turn takes it
//   when there is none yet (the background one runs at the lowest priority) (target <= 5,000);
//   median and minimum of BENCH_FIRST_RUNS (3) fresh stores (by a process of its own, as the app).
// - checkpointMs: the after-checkpoint of a turn that changed 10 files (target <= 100, median),
//   with checkpointMinMs; checkpointMainCpuMs: CPU the main process itself spent per checkpoint;
//   checkpointGitCpuMs: CPU of its git processes, on average (from /proc: 10 ms ticks), which tells
//   the work from the wait for a CPU on a loaded machine; firstCheckpointChildCpuMs: the CPU of
//   the first snapshot's child processes (git's, and the snapshot process with its worker
//   threads); firstCheckpointOwnCpuMs: the bench process's own. BENCH_FIRST_SNAPSHOT=both also
//   takes first snapshots with git, alternated with the app's (firstByMode); =git only git's.
// - rssMB: the bench process's resident memory before and after the first snapshots (after a
//   collection) and at the end: the snapshot's memory must leave with its process.
// - rewindMs: applying a rewind of those 10 files (target <= 200, median), with rewindMinMs, and
//   previewMs (the preview before it, which takes a checkpoint and plans).
//   Checkpoint and rewind runs alternate, turn after turn (BENCH_TURNS, default 9).
// - storeGrowthPerChangedByte: bytes the store grew by per checkpoint over the bytes of the files
//   that changed, for turns changing 10 files and turns changing 100 (both should be alike:
//   growth proportional to the changed bytes).
// - maxLoopDelayMs: the main thread's longest event-loop delay during all checkpoints and rewinds
//   (it includes waiting for a CPU on a loaded machine); maxBlockCpuMs: the most CPU the main
//   thread itself spent between two ticks of a 1 ms timer then (blocking, as bench:freeze).
// - sessionChanges100k: the checkpoints list of a stored 100,000-message session with two
//   checkpointed turns (what the window asks when it opens the session), on a real store: `placed`,
//   each turn read from its one message at its recorded place; `wholeTranscript`, the same list
//   when a turn has no recorded place (checkpointed by an older Lathe), which reads every message.
//   Alternated, 5 each: ms and minMs, and the main thread's cpuMs (bench/support/session-changes-cost.ts).
// - loadAverage: the machine's 1-minute load average before and after (this machine is shared);
//   machineDuringTurns: the shares of all CPUs' time that were idle and that the hypervisor took
//   (steal) while the turns ran (bench/support/machine-share.ts): a quiet run has a high idlePct.
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { AssistantMessage } from "../app/shared/agent-types.ts";
import { emptyUsage } from "../app/shared/agent-types.ts";
import { CheckpointService } from "../app/main/checkpoints/checkpoint-service.ts";
import { Rewinder } from "../app/main/checkpoints/rewinder.ts";
import { turnKey } from "../app/main/checkpoints/turns.ts";
import { computePool } from "../app/main/workers/compute-pool.ts";
import { BenchSession } from "./support/bench-session.ts";
import { sessionChangesCost } from "./support/session-changes-cost.ts";
import { blockMonitor } from "./support/block-monitor.ts";
import { cpuTimes, machineShare } from "./support/machine-share.ts";
import { duSync, makeSampleProject, sampleFileName } from "./support/sample-project.ts";

const FILES = Number(process.env.BENCH_FILES ?? 20_000);
const TOTAL_MB = Number(process.env.BENCH_MB ?? 200);
const TURNS = Number(process.env.BENCH_TURNS ?? 9);
const FIRST_RUNS = Number(process.env.BENCH_FIRST_RUNS ?? 3);
const work = mkdtempSync(path.join(tmpdir(), "lathe-checkpoints-bench-"));
const project = path.join(work, "project");

/** CPU time of the finished child processes (git), in ms, from /proc (clock ticks of 10 ms: use over many runs). */
function childCpuMs(): number {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
  // After "(comm) ": state is field 3; cutime and cstime are fields 16 and 17.
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

const stats = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: Math.round(sorted[Math.floor(sorted.length / 2)]! * 10) / 10, min: Math.round(sorted[0]! * 10) / 10 };
};

async function main() {
  const load = [loadavg()[0]!];
  makeSampleProject(project, FILES, TOTAL_MB);
  execFileSync("sync");

  // The first snapshot by the app's default (a process of its own) and, with
  // BENCH_FIRST_SNAPSHOT=both, by git, alternated run after run (the app's default last, so the
  // turns below run on its store); "git" alone measures git's.
  const modes: ("process" | "git")[] = process.env.BENCH_FIRST_SNAPSHOT === "both" ? ["git", "process"] : [process.env.BENCH_FIRST_SNAPSHOT === "git" ? "git" : "process"];
  const first: Record<string, { ms: number[]; childCpu: number; ownCpu: number }> = {};
  for (const mode of modes) first[mode] = { ms: [], childCpu: 0, ownCpu: 0 };
  const rssBeforeFirstMB = process.memoryUsage().rss / 1e6;
  let lastData = "";
  for (let run = 0; run < FIRST_RUNS; run++) {
    for (const mode of modes) {
      if (lastData) rmSync(lastData, { recursive: true, force: true });
      const data = path.join(work, `first-${mode}-${run}`);
      const cp = new CheckpointService({ dataDir: data, firstSnapshot: mode });
      const childCpu = childCpuMs();
      const ownCpu = process.cpuUsage();
      const started = performance.now();
      const row = await cp.capture({ sessionId: 1, projectId: 1, projectDir: project }, "before", "1:first", true);
      first[mode]!.ms.push(performance.now() - started);
      const own = process.cpuUsage(ownCpu);
      first[mode]!.ownCpu += (own.user + own.system) / 1000 / FIRST_RUNS;
      if (!row) throw new Error("no first checkpoint");
      await cp.close();
      first[mode]!.childCpu += (childCpuMs() - childCpu) / FIRST_RUNS;
      lastData = data;
    }
  }
  global.gc?.();
  const rssAfterFirstMB = process.memoryUsage().rss / 1e6;
  const data = lastData;
  const cp = new CheckpointService({ dataDir: data, maxFileBytes: () => 10 * 1024 * 1024 });
  const rewinder = new Rewinder(cp);
  const session = new BenchSession(project);
  const scope = { sessionId: 1, projectId: 1, projectDir: project };
  const objects = path.join(data, "checkpoints", "projects", "1.git", "objects");

  // A new histogram per measured window: one re-enabled would count the gap since its last sample.
  let maxDelayMs = 0;
  let delay = monitorEventLoopDelay({ resolution: 1 });
  const delayStart = () => {
    delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
  };
  const delayStop = () => {
    delay.disable();
    maxDelayMs = Math.max(maxDelayMs, delay.max / 1e6);
  };
  const block = blockMonitor();
  const checkpointTimes: number[] = [];
  const checkpointCpu: number[] = [];
  let checkpointGitCpu = 0;
  const rewindTimes: number[] = [];
  const previewTimes: number[] = [];
  const growth: Record<10 | 100, number[]> = { 10: [], 100: [] };
  let call = 0;
  const procStat = () => readFileSync("/proc/stat", "utf8");
  const machineBefore = cpuTimes(procStat);
  for (let turn = 0; turn < TURNS * 2; turn++) {
    const changed = turn < TURNS ? 10 : 100;
    session.messages.push({ role: "user", content: `turn ${turn}`, timestamp: Date.now() });
    const position = session.messages.length - 1;
    const id = `call-${++call}`;
    const message: AssistantMessage = {
      role: "assistant",
      content: [{ type: "toolCall", id, name: "bash", arguments: { command: "edit" } }],
      api: "anthropic-messages",
      provider: "bench",
      model: "bench",
      usage: emptyUsage(),
      stopReason: "toolUse",
      timestamp: Date.now(),
    };
    session.messages.push(message, { role: "toolResult", toolCallId: id, toolName: "bash", content: [{ type: "text", text: "ok" }], isError: false, timestamp: Date.now() });
    const key = turnKey(1, id);
    await cp.beforeTurn(scope, key);
    let changedBytes = 0;
    for (let k = 0; k < changed; k++) {
      const file = sampleFileName(project, (turn * 997 + k * 131) % FILES);
      appendFileSync(file, `\n// turn ${turn} change ${k}\n`);
      changedBytes += statSync(file).size;
    }
    const sizeBefore = duSync(objects);
    delayStart();
    block.start();
    const cpu = process.cpuUsage();
    const gitCpu = childCpuMs();
    const started = performance.now();
    await cp.afterTurn(scope, key);
    const elapsed = performance.now() - started;
    const used = process.cpuUsage(cpu);
    block.stop();
    delayStop();
    growth[changed as 10 | 100].push((duSync(objects) - sizeBefore) / changedBytes);
    if (changed !== 10) continue;
    checkpointTimes.push(elapsed);
    checkpointCpu.push((used.user + used.system) / 1000);
    checkpointGitCpu += childCpuMs() - gitCpu;

    delayStart();
    block.start();
    const previewStarted = performance.now();
    const preview = await rewinder.preview(session, 1, { position });
    previewTimes.push(performance.now() - previewStarted);
    const rewindStarted = performance.now();
    const result = await rewinder.apply(session, preview.previewId, { restore: [], destination: "project" });
    rewindTimes.push(performance.now() - rewindStarted);
    await rewinder.settled();
    block.stop();
    delayStop();
    if (!("done" in result) || result.done.written !== 10) throw new Error(`rewind did not restore 10 files: ${JSON.stringify(result).slice(0, 300)}`);
  }
  const machineDuringTurns = machineShare(machineBefore, cpuTimes(procStat));
  load.push(loadavg()[0]!);
  const firstOf = (mode: string) => {
    const m = first[mode]!;
    const st = stats(m.ms);
    return { medianMs: st.median, minMs: st.min, childCpuMs: Math.round(m.childCpu), ownCpuMs: Math.round(m.ownCpu) };
  };
  const shipped = firstOf(modes[modes.length - 1]!);
  const checkpoint = stats(checkpointTimes);
  const rewind = stats(rewindTimes);
  const sessionChanges100k = await sessionChangesCost(100_000, 5);
  console.log(
    JSON.stringify({
      files: FILES,
      projectMB: TOTAL_MB,
      sessionChanges100k,
      firstCheckpointMs: shipped.medianMs,
      firstCheckpointMinMs: shipped.minMs,
      checkpointMs: checkpoint.median,
      checkpointMinMs: checkpoint.min,
      checkpointMainCpuMs: stats(checkpointCpu).median,
      checkpointGitCpuMs: Math.round(checkpointGitCpu / checkpointTimes.length),
      firstCheckpointChildCpuMs: shipped.childCpuMs,
      firstCheckpointOwnCpuMs: shipped.ownCpuMs,
      firstByMode: Object.fromEntries(modes.map((mode) => [mode, firstOf(mode)])),
      rssMB: { beforeFirst: Math.round(rssBeforeFirstMB), afterFirst: Math.round(rssAfterFirstMB), end: Math.round(process.memoryUsage().rss / 1e6) },
      rewindMs: rewind.median,
      rewindMinMs: rewind.min,
      previewMs: stats(previewTimes).median,
      storeGrowthPerChangedByte10Files: Math.round(stats(growth[10]).median * 1000) / 1000,
      storeGrowthPerChangedByte100Files: Math.round(stats(growth[100]).median * 1000) / 1000,
      maxLoopDelayMs: Math.round(maxDelayMs * 10) / 10,
      maxBlockCpuMs: Math.round(block.max * 10) / 10,
      loadAverage: load.map((l) => Math.round(l * 10) / 10),
      machineDuringTurns,
      runs: { first: FIRST_RUNS, turns: TURNS },
    }),
  );
  await cp.close();
  await computePool().close();
}

try {
  await main();
} finally {
  rmSync(work, { recursive: true, force: true });
}
