// Benchmark of the coding tools; prints ONE JSON line. Run with `npm run bench:tools`
// (node --expose-gc). Figures:
// - bash (`-- bash`): the 100 MB command (`yes` lines through `head`), BENCH_BASH_ROUNDS rounds (5)
//   each running, one after another: the bash tool, util-linux `script -qec CMD /dev/null` (a C
//   program relaying a pty), bash writing to /dev/null, and a bare node-pty reader (counts chunks,
//   nothing else), and the bash tool as the app configures it: with the secret scanner redacting
//   the output as it streams (bashRedactedMs, bashRedactedRatioVsScriptPty; the scanner of
//   app-services.ts, given this process's secret-looking environment values), and the bash tool
//   reading terminals through node-pty's events (bashNodePtyReaderMs, …RatioVsScriptPty: the
//   fallback where the native reader, app/main/tools/pty-reader.ts, is missing; bashReader says
//   which reader the other tool runs used). Medians, with minima (…MinMs).
//   bashRatioVsScriptPty: the tool's time over `script`'s, the plain-pty baseline (target <= 0.9;
//   null without `script`); bashRatioVsScriptPtyMin: the same from the minima;
//   bashRatioVsScriptPtyPaired: the median of each round's own ratio (the two runs of a round are
//   seconds apart, so a host that slows down for a while moves both); bashRatioVsDevNull:
//   over /dev/null (the pipe-speed ideal); bashRatioVsNodePty: over the bare node-pty reader;
//   nodePtyChunks: how many chunks node-pty delivered. cpuMs: the tool's main thread and whole
//   process, the command under it (children's rusage), `script` with its command, bash to
//   /dev/null, and the bare reader's main thread. bashExtraRssMB: the largest of the tool runs'
//   peak RSS minus RSS before the run (target <= 32). bashLoopDelayP99Ms / MaxMs: the main event
//   loop's delay while the tool runs (median of the runs' p99, largest maximum). loadAverage: the 1-minute load before and after.
//   terminalStartMs / terminalStartLargeMs: the main thread's time to start a terminal (median of
//   9 alternated starts each: `native`, posix_spawn, pty-spawn.ts; `nodePty`, node-pty's fork), at
//   this process's size and with 512 MB more (`rssMB`); terminalStartKind: what the bash tool uses.
//   childStartMs / childStartLargeMs: the same for a child with pipes as git-runner and grep
//   start them (child-spawn.ts, `true` by name): `native`, posix_spawn, against `node`,
//   child_process's fork; childStartKind: what they use. `-- start` runs these figures only.
// - grepMs / grepJavascriptMs: a regex search over a 20,000-file tree with the grep tool as
//   configured (ripgrep when on PATH) and with its JavaScript engine. grepRatioVsRg: the tool
//   (through ripgrep) over plain `rg` doing the same search, medians of 7 alternated runs
//   (target <= 1.2), with the minima and the main process's CPU time per search (grepMainCpuMs).
// - sandboxStartMs: median extra time per command in the sandbox (bubblewrap), from the bash tool
//   running `true` sandboxed and unsandboxed, alternated (target <= 15); sandboxStartMinMs: the
//   same from the minima.
// - sandboxOutputRatio: the bash tool's time for the 100 MB command in the sandbox over the same
//   tool unsandboxed, alternated in this run (target <= 1.1). Both null without a sandbox.
// - repoScanFirstCpuMs / repoScanNextCpuMs: CPU time of the scan for git repositories a sandboxed
//   command made in a project's sub-folders (sandbox/repository-scan.ts; it runs in a compute pool
//   worker) over 20,000 files in 2,050 folders: the first scan of a project reads every folder, a
//   later one with nothing changed only lstats them; medians of 5. sandboxScanExtraMs: median
//   extra time of a sandboxed `true` in that project over one in an empty project (21 alternated
//   runs), the scan's whole cost per command as the bash tool sees it (null without a sandbox).
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import * as pty from "node-pty";
import { createBashTool } from "../app/main/tools/bash.ts";
import { ptyCommandLine } from "../app/main/tools/pty-command.ts";
import { loadNativeReader, readTerminal } from "../app/main/tools/pty-reader.ts";
import { spawnTerminal } from "../app/main/tools/pty-spawn.ts";
import { childSpawnKind, spawnChild } from "../app/main/tools/child-spawn.ts";
import { sanitizedShellEnv } from "../app/main/tools/shell-env.ts";
import { createGrepTool } from "../app/main/tools/grep.ts";
import { scannerFor, secretEnvValues } from "../app/main/permissions/redaction.ts";
import { findRipgrep } from "../app/main/tools/grep-search.ts";
import { SandboxService } from "../app/main/sandbox/sandbox-service.ts";
import { runRepositoryScanJob } from "../app/main/sandbox/repository-scan.ts";

const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const work = mkdtempSync(path.join(tmpdir(), "lathe-tools-bench-"));
const COMMAND = `yes '${"x".repeat(99)}' | head -n 1000000`;

function timeChild(cmd: string, args: string[], cwd?: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, stdio: ["ignore", "ignore", "ignore"] });
    child.on("error", reject);
    child.on("close", () => resolve(performance.now() - started));
  });
}

async function median(runs: number, fn: () => Promise<number>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await fn());
  return medianOf(times);
}

/** CPU time (ms) of the children this process waited for, and of theirs (RUSAGE_CHILDREN; Linux). */
function childrenCpuMs(): number {
  try {
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100; // cutime + cstime, in USER_HZ ticks
  } catch {
    return Number.NaN;
  }
}

interface CpuMark {
  process: NodeJS.CpuUsage;
  thread: NodeJS.CpuUsage;
  children: number;
}

const cpuMark = (): CpuMark => ({ process: process.cpuUsage(), thread: process.threadCpuUsage(), children: childrenCpuMs() });

/** CPU (ms) since `mark`: this process, its main thread, and the children it waited for. */
function cpuSince(mark: CpuMark) {
  const used = process.cpuUsage(mark.process);
  const thread = process.threadCpuUsage(mark.thread);
  return { processMs: (used.user + used.system) / 1000, mainMs: (thread.user + thread.system) / 1000, childrenMs: childrenCpuMs() - mark.children };
}

/** Node-pty reading the command's output and doing nothing with it: the floor for any reader in Node. */
function readPtyBare(command: string): Promise<{ chunks: number }> {
  const [file, ...args] = ptyCommandLine("/bin/bash", command);
  const term = pty.spawn(file!, args, { name: "xterm-256color", cols: 120, rows: 30, cwd: work, env: sanitizedShellEnv(process.env), encoding: "utf8" });
  let chunks = 0;
  term.onData(() => chunks++);
  return new Promise((resolve) => term.onExit(() => resolve({ chunks })));
}

// The 100 MB command, alternated in each round: the bash tool, `script` (a C program relaying a pty
// to /dev/null), bash writing to /dev/null, and a bare node-pty reader; medians and minima of
// the rounds, with the CPU time of each side.
async function benchBash() {
  const rounds = Math.max(1, Number(process.env.BENCH_BASH_ROUNDS ?? 5));
  const bash = createBashTool({ projectDir: work, outputDir: path.join(work, "out"), timeoutMs: 600_000 });
  let n = 0;
  const runTool = () => bash.execute(`bench-${n++}`, { command: COMMAND }, undefined, () => undefined);
  const scanner = scannerFor(secretEnvValues(process.env));
  const redacting = createBashTool({ projectDir: work, outputDir: path.join(work, "out"), timeoutMs: 600_000, secrets: () => scanner });
  const runRedacting = () => redacting.execute(`bench-${n++}`, { command: COMMAND }, undefined, () => undefined);
  // The tool reading terminals through node-pty's events, the fallback where the native reader is missing.
  const runFallback = async () => {
    process.env.LATHE_PTY_READER = "node";
    try {
      return await runTool();
    } finally {
      delete process.env.LATHE_PTY_READER;
    }
  };
  await runTool(); // warm-up: module loading, JIT
  await runRedacting();
  await runFallback();
  const hasScript = spawnSync("script", ["--version"]).status === 0;
  const loadBefore = loadavg()[0]!;
  const f = {
    loopP99: [] as number[],
    loopMax: [] as number[],
    tool: [] as number[],
    toolMainCpu: [] as number[],
    toolProcessCpu: [] as number[],
    commandCpu: [] as number[],
    extraRss: [] as number[],
  };
  const g = {
    script: [] as number[],
    scriptCpu: [] as number[],
    devNull: [] as number[],
    devNullCpu: [] as number[],
    reader: [] as number[],
    readerMainCpu: [] as number[],
    redacted: [] as number[],
    redactedMainCpu: [] as number[],
    fallback: [] as number[],
    fallbackMainCpu: [] as number[],
    chunks: [] as number[],
  };
  for (let round = 0; round < rounds; round++) {
    gc();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    const loopDelay = monitorEventLoopDelay({ resolution: 1 });
    loopDelay.enable();
    let mark = cpuMark();
    let started = performance.now();
    await runTool();
    f.tool.push(performance.now() - started);
    let cpu = cpuSince(mark);
    loopDelay.disable();
    f.loopP99.push(loopDelay.percentile(99) / 1e6);
    f.loopMax.push(loopDelay.max / 1e6);
    clearInterval(sampler);
    f.toolMainCpu.push(cpu.mainMs);
    f.toolProcessCpu.push(cpu.processMs);
    f.commandCpu.push(cpu.childrenMs);
    f.extraRss.push((peak - before) / (1024 * 1024));
    if (hasScript) {
      mark = cpuMark();
      g.script.push(await timeChild("script", ["-qec", COMMAND, "/dev/null"]));
      g.scriptCpu.push(cpuSince(mark).childrenMs);
    }
    mark = cpuMark();
    g.devNull.push(await timeChild("/bin/bash", ["-c", COMMAND]));
    g.devNullCpu.push(cpuSince(mark).childrenMs);
    mark = cpuMark();
    started = performance.now();
    const { chunks } = await readPtyBare(COMMAND);
    g.reader.push(performance.now() - started);
    cpu = cpuSince(mark);
    g.readerMainCpu.push(cpu.mainMs);
    g.chunks.push(chunks);
    mark = cpuMark();
    started = performance.now();
    await runRedacting();
    g.redacted.push(performance.now() - started);
    g.redactedMainCpu.push(cpuSince(mark).mainMs);
    mark = cpuMark();
    started = performance.now();
    await runFallback();
    g.fallback.push(performance.now() - started);
    g.fallbackMainCpu.push(cpuSince(mark).mainMs);
  }
  const toolMs = medianOf(f.tool);
  const scriptMs = hasScript ? medianOf(g.script) : null;
  return {
    bashToolMs: Math.round(toolMs),
    bashToolMinMs: Math.round(Math.min(...f.tool)),
    bashDevNullMs: Math.round(medianOf(g.devNull)),
    bashRatioVsDevNull: round(toolMs / medianOf(g.devNull)),
    bashRatioVsScriptPty: scriptMs === null ? null : round(toolMs / scriptMs),
    bashRatioVsScriptPtyMin: hasScript ? round(Math.min(...f.tool) / Math.min(...g.script)) : null,
    bashRatioVsScriptPtyPaired: hasScript ? round(medianOf(f.tool.map((ms, i) => ms / g.script[i]!))) : null,
    bashRatioVsNodePty: round(toolMs / medianOf(g.reader)),
    bashRedactedMs: Math.round(medianOf(g.redacted)),
    bashRedactedRatioVsScriptPty: scriptMs === null ? null : round(medianOf(g.redacted) / scriptMs),
    bashReader: loadNativeReader().module ? "native" : "node-pty",
    bashNodePtyReaderMs: Math.round(medianOf(g.fallback)),
    bashNodePtyReaderRatioVsScriptPty: scriptMs === null ? null : round(medianOf(g.fallback) / scriptMs),
    bashExtraRssMB: round(Math.max(...f.extraRss)),
    scriptPtyMs: scriptMs === null ? null : Math.round(scriptMs),
    scriptPtyMinMs: hasScript ? Math.round(Math.min(...g.script)) : null,
    nodePtyMs: Math.round(medianOf(g.reader)),
    nodePtyMinMs: Math.round(Math.min(...g.reader)),
    nodePtyChunks: medianOf(g.chunks),
    cpuMs: {
      toolMainThread: Math.round(medianOf(f.toolMainCpu)),
      toolProcess: Math.round(medianOf(f.toolProcessCpu)),
      toolCommand: Math.round(medianOf(f.commandCpu)),
      script: hasScript ? Math.round(medianOf(g.scriptCpu)) : null,
      devNull: Math.round(medianOf(g.devNullCpu)),
      nodePtyMainThread: Math.round(medianOf(g.readerMainCpu)),
      redactedMainThread: Math.round(medianOf(g.redactedMainCpu)),
      nodePtyReaderMainThread: Math.round(medianOf(g.fallbackMainCpu)),
    },
    bashLoopDelayP99Ms: round(medianOf(f.loopP99)),
    bashLoopDelayMaxMs: round(Math.max(...f.loopMax)),
    bashRounds: rounds,
    ...(await startTimes()),
    loadAverage: [round(loadBefore), round(loadavg()[0]!)],
  };
}

// Starting a terminal (pty-spawn.ts) or a child with pipes (child-spawn.ts: git, ripgrep) costs
// the main thread: the native posix_spawn against a fork (node-pty's, libuv's), alternated, 9
// starts each, at this process's size and with 512 MB more written (a fork copies the page tables
// of all of it).
async function startTimes() {
  const terminal = async (viaFork: boolean) => {
    if (viaFork) process.env.LATHE_PTY_SPAWN = "node";
    try {
      const started = performance.now();
      const term = spawnTerminal("/bin/true", [], { cols: 80, rows: 24, cwd: work, env: sanitizedShellEnv(process.env) });
      const ms = performance.now() - started;
      const reader = readTerminal(term, () => undefined);
      await new Promise((resolve) => term.onExit(resolve));
      await reader.finish();
      return ms;
    } finally {
      delete process.env.LATHE_PTY_SPAWN;
    }
  };
  // By name, as git-runner starts git (the PATH lookup is cached after the first).
  const child = async (viaFork: boolean) => {
    if (viaFork) process.env.LATHE_CHILD_SPAWN = "node";
    try {
      const started = performance.now();
      const proc = spawnChild("true", [], { cwd: work });
      const ms = performance.now() - started;
      await new Promise((resolve) => proc.on("close", resolve));
      return ms;
    } finally {
      delete process.env.LATHE_CHILD_SPAWN;
    }
  };
  const measure = async (start: (viaFork: boolean) => Promise<number>) => {
    const native: number[] = [];
    const forked: number[] = [];
    for (let i = 0; i < 9; i++) {
      native.push(await start(false));
      forked.push(await start(true));
    }
    return { native: round(medianOf(native)), forked: round(medianOf(forked)), rssMB: Math.round(process.memoryUsage().rss / 1048576) };
  };
  const both = async () => {
    const t = await measure(terminal);
    const c = await measure(child);
    return [
      { native: t.native, nodePty: t.forked, rssMB: t.rssMB },
      { native: c.native, node: c.forked, rssMB: c.rssMB },
    ] as const;
  };
  const [terminalUsual, childUsual] = await both();
  const ballast = Array.from({ length: 512 }, () => Buffer.alloc(1024 * 1024, 1));
  const [terminalLarge, childLarge] = await both();
  ballast.length = 0;
  return {
    terminalStartMs: terminalUsual,
    terminalStartLargeMs: terminalLarge,
    terminalStartKind: loadNativeReader().module?.spawn ? "posix_spawn" : "node-pty",
    childStartMs: childUsual,
    childStartLargeMs: childLarge,
    childStartKind: childSpawnKind(),
  };
}

async function benchGrep() {
  const root = path.join(work, "tree");
  for (let d = 0; d < 200; d++) {
    const dir = path.join(root, `pkg${d}`, "src");
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < 100; f++) {
      const lines = Array.from({ length: 30 }, (_, i) => `export const value${i} = ${d * f + i}; // module ${d}/${f}`);
      if ((d * 100 + f) % 997 === 0) lines.push("// FIXME(bench): needle 42");
      writeFileSync(path.join(dir, `file${f}.ts`), lines.join("\n") + "\n");
    }
  }
  writeFileSync(path.join(root, ".gitignore"), "*.log\n");
  const args = { pattern: "FIXME\\(\\w+\\): needle \\d+", limit: 1000 };
  const time = async (engine: "auto" | "javascript") => {
    const grep = createGrepTool({ projectDir: root, engine });
    return median(3, async () => {
      const started = performance.now();
      const result = await grep.execute("g", args, undefined, undefined);
      if (result.details.matches !== 21) throw new Error(`grep found ${result.details.matches} matches, expected 21`);
      return performance.now() - started;
    });
  };
  const grepJavascriptMs = await time("javascript");
  const rg = findRipgrep();
  if (!rg) return { grepMs: Math.round(grepJavascriptMs), grepJavascriptMs: Math.round(grepJavascriptMs), grepEngine: "javascript", grepRatioVsRg: null, grepFiles: 20_000 };
  // The tool (ripgrep through Lathe) against plain `rg` printing the same search, alternated.
  const grep = createGrepTool({ projectDir: root });
  const tool: number[] = [];
  const plain: number[] = [];
  const toolCpu: number[] = [];
  for (let i = 0; i < 7; i++) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    const result = await grep.execute("g", args, undefined, undefined);
    tool.push(performance.now() - started);
    const used = process.cpuUsage(cpu);
    toolCpu.push((used.user + used.system) / 1000);
    if (result.details.matches !== 21) throw new Error(`grep found ${result.details.matches} matches, expected 21`);
    plain.push(await timeChild(rg, ["--regexp", args.pattern], root));
  }
  return {
    grepMs: Math.round(medianOf(tool)),
    grepMinMs: Math.round(Math.min(...tool)),
    grepMainCpuMs: round(medianOf(toolCpu)),
    rgMs: Math.round(medianOf(plain)),
    rgMinMs: Math.round(Math.min(...plain)),
    grepRatioVsRg: round(medianOf(tool) / medianOf(plain)),
    grepJavascriptMs: Math.round(grepJavascriptMs),
    grepEngine: "ripgrep",
    grepFiles: 20_000,
  };
}

function medianOf(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function benchSandbox() {
  const service = new SandboxService({ settings: () => ({ networkProjects: [], realMachineCommands: null, hiddenPaths: [] }), dataDir: path.join(work, "data"), tmpRoot: work });
  if (!service.status().available) return { sandboxStartMs: null, sandboxStartMinMs: null, sandboxOutputRatio: null, sandbox: service.status().message };
  const project = path.join(work, "sandbox-project");
  mkdirSync(project, { recursive: true });
  const boxed = createBashTool({ projectDir: project, timeoutMs: 120_000, sandbox: service.forSession({ sessionId: 1, projectId: 1, projectDir: project }) });
  const plain = createBashTool({ projectDir: project, timeoutMs: 120_000, outputDir: path.join(work, "plain-out") });
  let n = 0;
  const time = async (tool: typeof boxed, command: string) => {
    const started = performance.now();
    const result = await tool.execute(`sb-${n++}`, { command }, undefined, () => undefined);
    const elapsed = performance.now() - started;
    if (tool === boxed && (result.details as { sandbox?: { placement: string } }).sandbox?.placement !== "sandbox") throw new Error("the command did not run in the sandbox");
    return elapsed;
  };
  await time(boxed, "true");
  await time(plain, "true");
  const starts = { boxed: [] as number[], plain: [] as number[] };
  for (let i = 0; i < 61; i++) {
    starts.boxed.push(await time(boxed, "true"));
    starts.plain.push(await time(plain, "true"));
  }
  const output = { boxed: [] as number[], plain: [] as number[] };
  for (let i = 0; i < 5; i++) {
    output.boxed.push(await time(boxed, COMMAND));
    output.plain.push(await time(plain, COMMAND));
  }
  return {
    sandboxStartMs: round(medianOf(starts.boxed) - medianOf(starts.plain)),
    sandboxStartMinMs: round(Math.min(...starts.boxed) - Math.min(...starts.plain)),
    bashStartMs: round(medianOf(starts.plain)),
    sandboxOutputMs: Math.round(medianOf(output.boxed)),
    unsandboxedOutputMs: Math.round(medianOf(output.plain)),
    sandboxOutputRatio: round(medianOf(output.boxed) / medianOf(output.plain)),
  };
}

async function benchRepoScan() {
  const project = path.join(work, "scan-project");
  for (let i = 0; i < 20_000; i++) {
    const dir = path.join(project, `src${i % 50}`, `mod${Math.floor(i / 50) % 40}`);
    if (i < 2000) mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `file${i}.ts`), "");
  }
  mkdirSync(path.join(project, "node_modules", "dep"), { recursive: true });
  await new Promise((r) => setTimeout(r, 200));
  const cpu = (fn: () => unknown) => {
    const before = process.cpuUsage();
    fn();
    const used = process.cpuUsage(before);
    return (used.user + used.system) / 1000;
  };
  const first: number[] = [];
  const next: number[] = [];
  for (let i = 0; i < 5; i++) {
    let state: ReturnType<typeof runRepositoryScanJob>["state"] | undefined;
    first.push(cpu(() => (state = runRepositoryScanJob({ kind: "repositoryScan", projectDir: project, commandStartedAt: Date.now() }).state)));
    if (state?.dirs.length !== 2053) throw new Error(`scanned ${state?.dirs.length} folders`);
    await new Promise((r) => setTimeout(r, 100));
    next.push(cpu(() => runRepositoryScanJob({ kind: "repositoryScan", projectDir: project, commandStartedAt: Date.now(), previous: state })));
  }
  const figures = { repoScanFirstCpuMs: round(medianOf(first)), repoScanNextCpuMs: round(medianOf(next)), repoScanFolders: 2053 };
  const service = new SandboxService({
    settings: () => ({ networkProjects: [], realMachineCommands: null, hiddenPaths: [] }),
    dataDir: path.join(work, "scan-data"),
    tmpRoot: work,
  });
  if (!service.status().available) return { ...figures, sandboxScanExtraMs: null };
  const empty = path.join(work, "scan-empty");
  mkdirSync(empty, { recursive: true });
  const tool = (dir: string, id: number) => createBashTool({ projectDir: dir, timeoutMs: 120_000, sandbox: service.forSession({ sessionId: id, projectId: id, projectDir: dir }) });
  const [big, small] = [tool(project, 1), tool(empty, 2)];
  const time = async (bash: typeof big) => {
    const started = performance.now();
    await bash.execute("scan", { command: "true" }, undefined, () => undefined);
    return performance.now() - started;
  };
  await time(big);
  await time(small);
  const times = { big: [] as number[], small: [] as number[] };
  for (let i = 0; i < 21; i++) {
    times.big.push(await time(big));
    times.small.push(await time(small));
  }
  return { ...figures, sandboxScanExtraMs: round(medianOf(times.big) - medianOf(times.small)) };
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

try {
  // `npm run bench:tools -- grep` (or bash, sandbox, repo-scan, start) runs one part only.
  const only = process.argv[2];
  const starts = only === "start" ? await startTimes() : {};
  const bash = !only || only === "bash" ? await benchBash() : {};
  const grep = !only || only === "grep" ? await benchGrep() : {};
  const sandbox = !only || only === "sandbox" ? await benchSandbox() : {};
  const repoScan = !only || only === "repo-scan" ? await benchRepoScan() : {};
  console.log(JSON.stringify({ ...bash, ...starts, ...grep, ...sandbox, ...repoScan }));
} finally {
  rmSync(work, { recursive: true, force: true });
}
