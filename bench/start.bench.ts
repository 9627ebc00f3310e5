// bench:start: the headless host (out/host/index.mjs, as `npm run serve` runs it) from process
// start to its first page served: spawn, wait for the address it prints, GET / (the renderer's
// index.html). Two data folders: empty (a new folder each run) and large (the store benchmark's
// cached database of 2.11 million messages, over 1 GB; bench/support/big-db.ts builds it once).
// Each run ends with SIGTERM, so the next start follows a clean shutdown (no integrity check);
// runs alternate between the cases. Reports the median and minimum of ROUNDS runs per case and
// the child's CPU time to the first page (from /proc, 10 ms ticks). For the machine's state, the
// same is measured for a bare Node HTTP server printing its address and serving one file
// (nodeBaselineMs: Node's own start, the floor of any host). Also checks that the lazily
// loaded provider SDKs load from the built files (a provider test reaches a closed local port).
// Prints ONE JSON line. BENCH_ROUNDS (default 7).
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import WebSocket from "ws";
import { bigDatabase } from "./support/big-db.ts";

const ROUNDS = Math.max(5, Number(process.env.BENCH_ROUNDS ?? 7));
const root = process.cwd();
const HOST = path.join(root, "out", "host", "index.mjs");
const log = (line: string) => process.stderr.write(`${line}\n`);
const round = (n: number, digits = 1) => Number(n.toFixed(digits));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const TICK_MS = 1000 / 100;

if (!fs.existsSync(HOST)) throw new Error("Build first: node scripts/build.mjs --no-renderer");
const rendererDir = fs.mkdtempSync(path.join(os.tmpdir(), "lathe-start-renderer-"));
fs.writeFileSync(path.join(rendererDir, "index.html"), "<!doctype html><title>Lathe</title>");

function cpuMsOf(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

function get(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      })
      .on("error", reject);
  });
}

interface Started {
  ms: number;
  cpuMs: number;
  url: string;
  stop(): Promise<void>;
}

const BASELINE = `const http = require("node:http"); const fs = require("node:fs");
const server = http.createServer((req, res) => res.end(fs.readFileSync(process.argv[1] + "/index.html")));
server.listen(0, "127.0.0.1", () => console.log("Open http://127.0.0.1:" + server.address().port + "/#token=x"));
process.on("SIGTERM", () => server.close(() => process.exit(0)));`;

async function start(dataDir: string, extraEnv: Record<string, string> = {}, baseline = false): Promise<Started> {
  const t0 = performance.now();
  const args = baseline ? ["-e", BASELINE, rendererDir] : [HOST, "--port", "0", "--data-dir", dataDir, "--renderer-dir", rendererDir];
  const child = spawn(process.execPath, args, {
    stdio: ["ignore", "pipe", "pipe"],
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LATHE_DISABLE_UPDATES: "1", ...extraEnv },
  });
  let err = "";
  child.stderr!.on("data", (d) => (err += d));
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).on("line", (line) => {
      const match = /^Open (http:\/\/\S+)$/.exec(line);
      if (match) resolve(match[1]!);
    });
    void exited.then(() => reject(new Error(`the host exited before serving: ${err}`)));
  });
  const status = await get(url.replace(/#.*/, ""));
  const ms = performance.now() - t0;
  const cpuMs = cpuMsOf(child.pid!);
  if (status !== 200) throw new Error(`GET / answered ${status}`);
  return {
    ms,
    cpuMs,
    url,
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** The provider SDK loads from the built chunk: testing an Anthropic provider at a closed port fails on the connection. */
async function sdkLoads(url: string): Promise<string> {
  const parsed = new URL(url);
  const token = new URLSearchParams(parsed.hash.slice(1)).get("token")!;
  const ws = new WebSocket(`ws://${parsed.host}/ws`, { origin: parsed.origin });
  const reply = new Promise<string>((resolve, reject) => {
    let sent = false;
    ws.on("message", (data) => {
      const message = JSON.parse(String(data)) as { authenticated?: boolean; id?: number; result?: { ok: boolean; data?: { message: string }; error?: { message: string } } };
      if (message.authenticated && !sent) {
        sent = true;
        ws.send(JSON.stringify({ id: 1, method: "settings.setProvider", params: { id: "anthropic", kind: "anthropic", baseUrl: "http://127.0.0.1:9" } }));
        ws.send(JSON.stringify({ id: 2, method: "providers.test", params: { id: "anthropic" } }));
      } else if (message.id === 2) resolve(message.result?.data?.message ?? message.result?.error?.message ?? "");
    });
    ws.on("error", reject);
  });
  ws.on("open", () => ws.send(JSON.stringify({ token })));
  const text = await reply;
  ws.close();
  return text;
}

const big = await bigDatabase(log);
const largeMB = Math.round(fs.statSync(path.join(big.dataDir, "lathe.db")).size / 1048576);
const empty: Started[] = [];
const large: Started[] = [];
const baseline: Started[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const b = await start("", {}, true);
  baseline.push(b);
  await b.stop();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lathe-start-empty-"));
  try {
    const e = await start(dir);
    empty.push(e);
    await e.stop();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const l = await start(big.dataDir);
  large.push(l);
  await l.stop();
  log(`round ${r + 1}/${ROUNDS}: empty ${round(e2(empty))} ms, large ${round(e2(large))} ms`);
}
function e2(list: Started[]): number {
  return list.at(-1)!.ms;
}

// The SDK check, on a fresh folder (it saves a provider).
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lathe-start-sdk-"));
let sdkCheck: string;
try {
  const s = await start(dir, { ANTHROPIC_API_KEY: "sk-bench-not-a-key" });
  sdkCheck = await sdkLoads(s.url);
  await s.stop();
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
if (/Cannot find|module/i.test(sdkCheck)) throw new Error(`the Anthropic SDK did not load: ${sdkCheck}`);
fs.rmSync(rendererDir, { recursive: true, force: true });

console.log(
  JSON.stringify({
    startEmptyMs: round(median(empty.map((s) => s.ms))),
    startLargeDbMs: round(median(large.map((s) => s.ms))),
    detail: {
      rounds: ROUNDS,
      nodeBaselineMs: { median: round(median(baseline.map((s) => s.ms))), min: round(Math.min(...baseline.map((s) => s.ms))), cpuMs: round(median(baseline.map((s) => s.cpuMs))) },
      empty: { min: round(Math.min(...empty.map((s) => s.ms))), cpuMs: round(median(empty.map((s) => s.cpuMs))) },
      large: { min: round(Math.min(...large.map((s) => s.ms))), cpuMs: round(median(large.map((s) => s.cpuMs))), databaseMB: largeMB, messages: big.messages },
      providerTestAfterLazyLoad: sdkCheck,
      loadAverage: os.loadavg().map((l) => round(l)),
    },
  }),
);
