// Benchmark of the coding tools; prints ONE JSON line. Run with `npm run bench:tools`
// (node --expose-gc). Figures:
// - bashRatioVsDevNull: bash tool time for 100 MB of output over the same command run by bash
//   with its output sent to /dev/null (target <= 1.3).
// - bashRatioVsScriptPty: the same tool time over util-linux `script` running the command in a
//   pty and discarding the output: the cost of the pseudo-terminal alone (null if `script` is absent).
// - bashExtraRssMB: peak RSS during the 100 MB run minus RSS before it (target <= 32).
// - grepMs / grepJavascriptMs: a regex search over a 20,000-file tree with the grep tool as
//   configured (ripgrep when on PATH) and with its JavaScript engine.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createBashTool } from "../app/main/tools/bash.ts";
import { createGrepTool } from "../app/main/tools/grep.ts";
import { findRipgrep } from "../app/main/tools/grep-search.ts";
import { applyMainProcessFlags } from "../app/main/runtime-flags.ts";

// Measure the main process as it ships: with its V8 settings.
applyMainProcessFlags();

const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const work = mkdtempSync(path.join(tmpdir(), "lathe-tools-bench-"));
const COMMAND = `yes '${"x".repeat(99)}' | head -n 1000000`;

function timeChild(cmd: string, args: string[]): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ["ignore", "ignore", "ignore"] });
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
  const grepMs = findRipgrep() ? await time("auto") : grepJavascriptMs;
  return { grepMs: Math.round(grepMs), grepJavascriptMs: Math.round(grepJavascriptMs), grepEngine: findRipgrep() ? "ripgrep" : "javascript", grepFiles: 20_000 };
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

try {
  const bash = await benchBash();
  const grep = await benchGrep();
  console.log(JSON.stringify({ ...bash, ...grep }));
} finally {
  rmSync(work, { recursive: true, force: true });
}
