// Benchmark of the coding tools; prints ONE JSON line. Run with `npm run bench:tools`
// (node --expose-gc). Figures:
// - bashRatioVsDevNull: bash tool time for 100 MB of output over the same command run by bash
//   with its output sent to /dev/null (target <= 1.3).
// - bashRatioVsScriptPty: the same tool time over util-linux `script` running the command in a
//   pty and discarding the output: the cost of the pseudo-terminal alone (null if `script` is absent).
// - bashExtraRssMB: peak RSS during the 100 MB run minus RSS before it (target <= 32).
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
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createBashTool } from "../app/main/tools/bash.ts";
import { createGrepTool } from "../app/main/tools/grep.ts";
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
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

async function benchBash() {
  const bash = createBashTool({ projectDir: work, outputDir: path.join(work, "out"), timeoutMs: 120_000 });
  let n = 0;
  const runTool = async () => {
    const started = performance.now();
    await bash.execute(`bench-${n++}`, { command: COMMAND }, undefined, () => undefined);
    return performance.now() - started;
  };
  await runTool(); // warm-up: module loading, JIT
  gc();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  const toolMs = await median(3, runTool);
  clearInterval(sampler);
  const devNullMs = await median(3, () => timeChild("/bin/bash", ["-c", COMMAND]));
  const hasScript = spawnSync("script", ["--version"]).status === 0;
  const scriptMs = hasScript ? await median(3, () => timeChild("script", ["-qec", COMMAND, "/dev/null"])) : null;
  return {
    bashToolMs: Math.round(toolMs),
    bashDevNullMs: Math.round(devNullMs),
    bashRatioVsDevNull: round(toolMs / devNullMs),
    bashRatioVsScriptPty: scriptMs === null ? null : round(toolMs / scriptMs),
    bashExtraRssMB: round((peak - before) / (1024 * 1024)),
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
  // `npm run bench:tools -- grep` (or bash, sandbox, repo-scan) runs one part only.
  const only = process.argv[2];
  const bash = !only || only === "bash" ? await benchBash() : {};
  const grep = !only || only === "grep" ? await benchGrep() : {};
  const sandbox = !only || only === "sandbox" ? await benchSandbox() : {};
  const repoScan = !only || only === "repo-scan" ? await benchRepoScan() : {};
  console.log(JSON.stringify({ ...bash, ...grep, ...sandbox, ...repoScan }));
} finally {
  rmSync(work, { recursive: true, force: true });
}
