// bench:ui: the renderer in headless Chromium against the real headless host.
// - openSessionMs / openSession100kMs: from clicking a 10,000- (100,000-) message session in
//   History to its last message shown (the session opens at its newest page).
// - frameP95Ms (target: within 16 ms): the 95th percentile of the main-thread time spent per
//   frame while the model streams ~2,000 deltas per second into the 10,000-message session and
//   then four bash tools stream coloured output at once.
// Opening and streaming run ROUNDS times, alternated (open 10k, open 100k, stream); each figure is
// the median over the rounds (per-round p95 for frames), with the minimum beside it. Method: the page marks each frame (performance.mark in a
//   requestAnimationFrame loop) while Chromium records a trace; a frame's time is the main
//   thread's busy time (top-level tasks, "toplevel" RunTask events, clipped) between its mark and
//   the next one: its rAF callbacks, style, layout, paint and every task handling updates in
//   between. frameCpuP95Ms is the same with the thread's own CPU time (the trace's thread time),
//   without the time the OS gave its core to other processes. On a loaded machine frames get longer
//   (fewer of them) and each holds more updates, so both per-frame figures grow with the load;
//   rendererCpuMsPerS, the renderer main thread's CPU per second of the streamed turn (all its tasks
//   between the first and the last frame mark), is not stretched by the wait for a core, but it
//   falls as frames get fewer (updates are rendered once per frame): compare builds on it only in
//   alternated runs at similar loads. An idle page measures well under 1 ms; a task longer than a
//   frame makes that frame as long as the task. (rAF intervals cannot be used: headless Chromium keeps them at the
//   60 Hz vsync even with --disable-frame-rate-limit, so they read 16.7 ms when idle; they are
//   kept as vsyncIntervalP95Ms.)
// - frameMarkP95Ms / frameMarkMaxMs: what the page's own per-frame mark (performance.mark and
//   clearMarks, timed in the page) costs during the streamed turns: harness time inside every
//   frame measured (a CPU profile of the page showed samples in it).
// - frameMaxMs and slowFrames: the longest frame and how many took over 16 ms; worstFrame names
//   what ran in the longest animation frame (Long Animation Frames API), to explain stalls.
// - historyScrollP95Ms / historyScrollMaxMs: frame times, same method, while the History list of
//   10,000 sessions is scrolled from top to bottom, one viewport per frame (a held Page Down; pages
//   of 200 sessions load as the list reaches them, the scroll waits at the end of what is loaded).
//   historyScrolledRows and historyReachedEnd tell how far it got, historyScrollMs how long it took.
// - mainLoopDelayP99Ms (target <= 20): the 99th percentile of the event-loop delay of the process
//   that runs the services (perf_hooks.monitorEventLoopDelay, 10 ms resolution) while a turn
//   streams into the 10,000-message session (2,000 deltas per second, four bash commands, store
//   writes); median over the rounds, with the minimum and the largest delay seen. Node's histogram
//   records the time between two of its 10 ms ticks, so an idle loop reads about 10, not 0:
//   mainLoopLateP99Ms is the same p99 less those 10 ms (how late the loop was). The host runs in a
//   process of its own (bench/support/ui-host-process.ts); the fake model's server and the browser
//   driver stay in this one. mainLoopDelayIdleP99Ms is the same while the host only waits, as long
//   (the machine's floor under its current load); mainBlockMaxMs is the longest stretch of CPU the
//   host's main thread spent between two 1 ms ticks (bench/support/block-monitor.ts), median over
//   the rounds: the host's own blocking, whatever the machine's load. mainBlocksOver10 / Over20: how
//   many such blocks took 10 / 20 ms or more; mainGapsOver20: how many times those 1 ms ticks came
//   20 ms or more apart in wall time, mainGapsOver20Cpu: how many of those gaps were mostly the host's
//   own CPU, mainGapsOver20Wait: how many were mostly its main thread waiting for a core (from
//   /proc/thread-self/schedstat; the rest: blocked in a system call or a page fault), and with
//   BENCH_UI_GAPS=1 each round's gaps go to stderr as [wall, CPU, wait] ms; and mainCpuMs the host main thread's CPU time over the
//   streamed turn (medians over the rounds). BENCH_HOST_CPU_PROF=DIR
//   writes the host's CPU profile of each measured window there; BENCH_RENDERER_CPU_PROF=DIR the
//   page's (the renderer main thread's, through the DevTools protocol) of each streamed turn.
// - Controls (bench/support/ui-control.ts), same frame method, each round, on the new session's
//   page once its turn is over: frameP95IdleMs / frameCpuP95IdleMs, the page doing nothing (4 s:
//   Chromium's floor here); frameP95ControlMs / frameCpuP95ControlMs / rendererCpuMsPerSControl,
//   the cheapest renderer of the same stream (plain DOM text and four 16-line coloured boxes,
//   changed once per frame; 8 s): what this machine's Chromium costs per frame for that much
//   visible change, whatever Lathe does. frameP95LoadedControlMs / frameCpuP95LoadedControlMs: the
//   same synthetic control, as long as a streamed turn, while the host streams that same turn (the
//   model's deltas, four bash commands, store writes) into a session the page does not show: the
//   floor of a frame's wall time when the rest of Lathe takes its share of the 2 cores. The page
//   still receives every event over its WebSocket (and files them away), so this floor includes
//   that part of the renderer's work. Medians over the rounds.
// - chromiumAsAUser: whether Chromium ran without CAP_SYS_NICE. Run as root (as on CI), Chromium
//   raises its browser and GPU processes to nice -8, which it cannot do for a user; they then take
//   the 2 cores from the host five times as readily as the nice-0 processes around them, and the
//   host's gaps are mostly waits for a core. So as root the bench starts Chromium through
//   `setpriv --bounding-set -sys_nice` (BENCH_UI_CHROMIUM_AS_ROOT=1: as root, for comparison).
// - commandPriority: the app's setting "Run parallel commands at a lower CPU priority" (command-priority.ts)
//   in the rounds: "lower" (the app's default), "normal" (BENCH_UI_COMMAND_PRIORITY=normal), or
//   "alternate" (=alternate: lower in odd rounds, normal in even ones, and byCommandPriority gives
//   each side's medians of the frame and host figures; the other figures then mix both).
// BENCH_UI_RENDERER_DIR=DIR serves a renderer built elsewhere instead of building this tree's, so
// two commits' renderers can be alternated against the same host and bench.
// Prints one JSON line. Needs Chromium (/usr/bin/chromium or CHROME_PATH).
import { fork, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHROME_PATH, launchBrowser } from "../test/support/browser.ts";
import { chunk, usageChunk } from "../test/providers/support/conversation.ts";
import { sseData, startServer } from "../test/providers/support/sse-server.ts";
import { LOOP_DELAY_RESOLUTION_MS } from "./support/loop-delay.ts";
import { IDLE_CONTROL, SYNTHETIC_CONTROL } from "./support/ui-control.ts";

const root = process.cwd();
/** A wrapper that starts Chromium without CAP_SYS_NICE when this runs as root (see chromiumAsAUser above), or undefined. */
function chromiumAsAUser(dir: string): string | undefined {
  if (process.getuid?.() !== 0 || process.env.BENCH_UI_CHROMIUM_AS_ROOT === "1") return undefined;
  if (spawnSync("setpriv", ["--bounding-set", "-sys_nice", "--", "true"]).status !== 0) return undefined;
  const wrapper = join(dir, "chromium-as-a-user.sh");
  // Single quotes: the shell expands nothing in CHROME_PATH ($, backquotes), a quote in it closed and reopened.
  writeFileSync(wrapper, `#!/bin/sh\nexec setpriv --bounding-set -sys_nice -- '${CHROME_PATH.replaceAll("'", "'\\''")}' "$@"\n`, { mode: 0o755 });
  return wrapper;
}
// Extra Chromium flags, to compare (for example the frame-rate flags of headless mode).
const RENDERER_PROFILES = process.env.BENCH_RENDERER_CPU_PROF;
let profiles = 0;
// BENCH_UI_TRACE_DIR=DIR: each streamed turn's trace is written there, with the timeline's events
// (style, layout, paint, scripts) to see what a frame spent its time on; it slows the page, so
// its figures are not comparable with a run without it.
const STREAM_TRACES = process.env.BENCH_UI_TRACE_DIR;
const STREAM_TRACE_CATEGORIES = ["toplevel", "blink.user_timing", ...(STREAM_TRACES ? ["devtools.timeline"] : [])];
for (const dir of [RENDERER_PROFILES, STREAM_TRACES]) if (dir) mkdirSync(dir, { recursive: true });
let traces = 0;
const CHROMIUM_ARGS = (process.env.BENCH_UI_CHROMIUM_ARGS ?? "").split(/\s+/).filter(Boolean);
const ROUNDS = Math.max(5, Number(process.env.BENCH_ROUNDS ?? 5));
const COMMAND_PRIORITY = process.env.BENCH_UI_COMMAND_PRIORITY ?? "lower";
if (!["lower", "normal", "alternate"].includes(COMMAND_PRIORITY))
  throw new Error(`BENCH_UI_COMMAND_PRIORITY is "lower", "normal" or "alternate", not ${JSON.stringify(COMMAND_PRIORITY)}.`);
const DELTAS = 6000;
const DELTAS_PER_PIECE = 40; // 40 deltas every 20 ms: 2,000 per second
const BASH = `for i in $(seq 1 400); do printf '\\033[3%dmline %d of the build \\033[0m[%s]\\n' $((i % 7 + 1)) $i "$(printf '%*s' $((i % 30)) '' | tr ' ' '#')"; sleep 0.005; done`;

function streamReply(withCalls: boolean): string[] {
  const events: string[] = [chunk({ role: "assistant", content: "" })];
  for (let i = 0; i < DELTAS; i++) events.push(chunk({ content: i % 50 === 49 ? " word\n\n" : ` w${i}` }));
  if (withCalls) {
    for (let i = 0; i < 4; i++)
      events.push(chunk({ tool_calls: [{ index: i, id: `call_${i}`, type: "function", function: { name: "bash", arguments: JSON.stringify({ command: BASH }) } }] }));
    events.push(chunk({}, "tool_calls"));
  } else events.push(chunk({}, "stop"));
  events.push(usageChunk(5000, 0, 3000), sseData("[DONE]"));
  const pieces: string[] = [];
  for (let i = 0; i < events.length; i += DELTAS_PER_PIECE) pieces.push(events.slice(i, i + DELTAS_PER_PIECE).join(""));
  return pieces;
}

// BENCH_UI_RENDERER_DIR=DIR: serve a renderer built elsewhere (another commit's out/renderer, to
// alternate two builds against the same host) instead of building this tree's.
const RENDERER_DIR = process.env.BENCH_UI_RENDERER_DIR ?? join(root, "out/renderer");
if (!process.env.BENCH_UI_RENDERER_DIR) {
  const built = spawnSync(process.execPath, [join(root, "node_modules/vite/bin/vite.js"), "build", "--logLevel", "error"], { cwd: root, encoding: "utf8" });
  if (built.status !== 0) throw new Error(`vite build failed: ${built.stderr}`);
}

const dir = mkdtempSync(join(tmpdir(), "lathe-bench-ui-"));
const project = join(dir, "project");
mkdirSync(project);
const manyProject = join(dir, "many");
mkdirSync(manyProject);
let turn = 0;
const model = await startServer((request) => {
  if (request.method === "GET")
    return { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify({ data: [{ id: "fake-coder", context_length: 200000 }] }) };
  turn++;
  // Each prompt: a reply with four bash calls, then (after their results) a plain answer.
  return { chunks: streamReply(turn % 2 === 1), delayMs: 20 };
}, "/v1");
// The services run in a process of their own (bench/support/ui-host-process.ts), driven over IPC.
const hostChild = fork(join(root, "bench/support/ui-host-process.ts"), [], {
  execArgv: [],
  stdio: ["ignore", "inherit", "inherit", "ipc"],
});
const replies = new Map<number, (reply: { ok: boolean; data?: unknown; error?: string }) => void>();
hostChild.on("message", (reply: { id: number; ok: boolean; data?: unknown; error?: string }) => {
  replies.get(reply.id)?.(reply);
  replies.delete(reply.id);
});
let nextRequest = 0;
const ask = <T>(op: string, fields: Record<string, unknown> = {}): Promise<T> =>
  new Promise((resolve, reject) => {
    const id = ++nextRequest;
    replies.set(id, (reply) => (reply.ok ? resolve(reply.data as T) : reject(new Error(reply.error))));
    hostChild.send({ id, op, ...fields });
  });
const call = <T = { id: number }>(method: string, params: unknown): Promise<T> => ask<T>("call", { method, params });
const host = await ask<{ url: string; origin: string; token: string }>("start", {
  dataDir: join(dir, "data"),
  rendererDir: RENDERER_DIR,
  env: { PATH: process.env.PATH, HOME: dir },
});

// Page-side scripts are strings: this file is type-checked for Node, without the DOM's types.
const openAndWaitForLast = (title: string, lastPosition: number) => `new Promise((resolve) => {
  const button = [...document.querySelectorAll(".session-row button.title")].find((b) => b.textContent === ${JSON.stringify(title)});
  const t0 = performance.now();
  const check = () => (document.querySelector('.msg[data-position="${lastPosition}"]') ? resolve(performance.now() - t0) : requestAnimationFrame(check));
  button.click();
  requestAnimationFrame(check);
})`;
// Marks every frame for the trace, keeps rAF intervals, and records long animation frames.
const START_FRAMES = `(() => {
  window.__intervals = [];
  window.__marks = [];
  window.__loaf = [];
  window.__stop = false;
  window.__observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__loaf.push({ ms: Math.round(e.duration), blockingMs: Math.round(e.blockingDuration), scripts: e.scripts.slice().sort((a, b) => b.duration - a.duration).slice(0, 3).map((s) => s.invoker + " " + Math.round(s.duration) + " ms" + (s.sourceFunctionName ? " in " + s.sourceFunctionName : "")) });
  });
  window.__observer.observe({ type: "long-animation-frame" });
  let last = performance.now();
  const tick = (t) => {
    const markedAt = performance.now();
    performance.mark("lathe-frame");
    performance.clearMarks("lathe-frame"); // the trace has it; keep the page's buffer empty
    window.__marks.push(performance.now() - markedAt);
    window.__intervals.push(t - last);
    last = t;
    if (!window.__stop) requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
})()`;
const STOP_FRAMES = `(() => { window.__stop = true; window.__observer.disconnect(); return { intervals: window.__intervals.slice(1), marks: window.__marks, loaf: window.__loaf }; })()`;

// Scrolls the History list from top to bottom, one viewport per frame, until its last session
// (the oldest, "Listed session 0") is shown or 30 s have passed.
const SCROLL_HISTORY = `new Promise((resolve) => {
  const list = document.querySelector(".vlist");
  const t0 = performance.now();
  const lastTitle = () => [...document.querySelectorAll(".session-row .title")].at(-1)?.textContent ?? "";
  const step = (t) => {
    list.scrollTop += list.clientHeight;
    const atEnd = lastTitle() === "Listed session 0" && list.scrollTop + list.clientHeight >= list.scrollHeight - 1;
    if (!atEnd && t - t0 < 30000) requestAnimationFrame(step);
    else resolve({ scrolledPx: Math.round(list.scrollTop), ms: Math.round(t - t0), reachedEnd: atEnd, lastTitle: lastTitle() });
  };
  requestAnimationFrame(step);
})`;

type TraceEvent = { name: string; cat: string; ph: string; ts: number; dur?: number; tdur?: number; pid: number; tid: number };
type Loaf = { ms: number; blockingMs: number; scripts: string[] };

/**
 * Per frame (between consecutive frame marks of the page's renderer main thread): `wall`, the time
 * the thread was inside a top-level task (wall clock, so it includes time the OS gave the thread's
 * core to other processes), and `cpu`, the thread's own CPU time in those tasks (the trace's thread
 * time, `tdur`, prorated when a task straddles a mark): the renderer's own work per frame.
 */
function frameTimes(trace: Buffer): { wall: number[]; cpu: number[]; cpuMsPerS: number } {
  const events = (JSON.parse(trace.toString("utf8")) as { traceEvents: TraceEvent[] }).traceEvents;
  const marks = events.filter((e) => e.name === "lathe-frame").sort((a, b) => a.ts - b.ts);
  if (marks.length < 2) return { wall: [], cpu: [], cpuMsPerS: 0 };
  const { pid, tid } = marks[0]!;
  const all = events.filter((e) => e.pid === pid && e.tid === tid && e.ph === "X" && e.name === "ThreadControllerImpl::RunTask" && e.dur !== undefined).sort((a, b) => a.ts - b.ts);
  // Tasks may nest: only the outermost ones count.
  const tasks: TraceEvent[] = [];
  for (const task of all) {
    const outer = tasks.at(-1);
    if (!outer || task.ts >= outer.ts + outer.dur!) tasks.push(task);
  }
  const wall: number[] = [];
  const cpu: number[] = [];
  let t = 0;
  for (let i = 0; i + 1 < marks.length; i++) {
    const from = marks[i]!.ts;
    const to = marks[i + 1]!.ts;
    while (t < tasks.length && tasks[t]!.ts + tasks[t]!.dur! <= from) t++;
    let busy = 0;
    let own = 0;
    for (let j = t; j < tasks.length && tasks[j]!.ts < to; j++) {
      const task = tasks[j]!;
      const clipped = Math.min(to, task.ts + task.dur!) - Math.max(from, task.ts);
      if (clipped <= 0) continue;
      busy += clipped;
      own += task.dur! > 0 ? ((task.tdur ?? task.dur!) * clipped) / task.dur! : 0;
    }
    wall.push(busy / 1000);
    cpu.push(own / 1000);
  }
  const seconds = (marks.at(-1)!.ts - marks[0]!.ts) / 1e6;
  return { wall, cpu, cpuMsPerS: seconds > 0 ? cpu.reduce((a, b) => a + b, 0) / seconds : 0 };
}

const pct = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
const round = (n: number) => Math.round(n * 10) / 10;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const chromiumWrapper = chromiumAsAUser(dir);
const browser = await launchBrowser(CHROMIUM_ARGS, chromiumWrapper);
try {
  await call("settings.setProvider", { id: "local", kind: "compatible", name: "Local", baseUrl: model.baseUrl });
  await call("models.refresh", { provider: "local" });
  await call("settings.update", { permissionMode: "full-auto", defaultModel: "local/fake-coder" });
  // The project with 10,000 sessions is listed second in History (opened less recently).
  const many = await call<{ id: number }>("projects.open", { folder: manyProject });
  await ask("seed", { projectId: many.id, title: "Listed session", sessions: 10_000 });
  await new Promise((resolve) => setTimeout(resolve, 5));
  const proj = await call<{ id: number }>("projects.open", { folder: project });
  await ask("seed", { projectId: proj.id, title: "Hundred thousand messages", messages: 100_000 });
  await new Promise((resolve) => setTimeout(resolve, 5));
  await ask("seed", { projectId: proj.id, title: "Ten thousand messages", messages: 10_000 });
  // The one streamed into (its bash cards would make the other one's opening a different test).
  const target = await ask<{ id: number }>("seed", { projectId: proj.id, title: "Streamed into", messages: 10_000 });

  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(host.url);
  const fromHistory = async (title: string, lastPosition: number): Promise<number> => {
    await page.getByRole("button", { name: "History" }).click();
    await page.locator(".vlist").evaluate((el) => (el.scrollTop = 0));
    await page.locator(".session-row", { hasText: title }).getByRole("button", { name: title, exact: true }).waitFor();
    return page.evaluate<number>(openAndWaitForLast(title, lastPosition));
  };

  // historyScroll: the History list of 10,000 sessions, scrolled.
  await page.getByRole("button", { name: "History" }).click();
  await page.locator(".session-row", { hasText: "Listed session" }).first().waitFor();
  await page.evaluate(START_FRAMES);
  await browser.startTracing(page, { categories: ["toplevel", "blink.user_timing"] });
  const scrolled = await page.evaluate<{ scrolledPx: number; ms: number; reachedEnd: boolean; lastTitle: string }>(SCROLL_HISTORY);
  const scrollTrace = await browser.stopTracing();
  await page.evaluate(STOP_FRAMES);
  const scrollFrames = frameTimes(scrollTrace).wall.sort((a, b) => a - b);

  // One streamed turn in the open session, its frames traced.
  // The same delay while this process only waits, as long as a streamed turn: the machine's floor.
  type LoopFigures = {
    p99Ms: number;
    maxMs: number;
    blockMaxMs: number;
    blocksOver10: number;
    blocksOver20: number;
    gapsOver20: number;
    gapsOver20Cpu: number;
    gapsOver20Wait: number;
    gapsOver20Ms: [number, number, number | null][];
    cpuMs: number;
  };
  const idleLoopDelayP99 = async (ms: number): Promise<number> => {
    await ask("monitorStart");
    await new Promise((resolve) => setTimeout(resolve, ms));
    return (await ask<LoopFigures>("monitorStop")).p99Ms;
  };
  const streamInto = async (
    sessionId: number,
  ): Promise<{
    frames: number[];
    framesCpu: number[];
    cpuMsPerS: number;
    intervals: number[];
    marks: number[];
    loaf: Loaf[];
    loopDelayP99Ms: number;
    loopDelayMaxMs: number;
    blockMaxMs: number;
    loop: LoopFigures;
  }> => {
    await page.getByRole("textbox", { name: "Message to the agent" }).waitFor();
    await page.evaluate(START_FRAMES);
    await browser.startTracing(page, { categories: STREAM_TRACE_CATEGORIES });
    const profiler = RENDERER_PROFILES ? await page.context().newCDPSession(page) : null;
    if (profiler) {
      await profiler.send("Profiler.enable");
      await profiler.send("Profiler.start");
    }
    await ask("monitorStart");
    const started = Date.now();
    await call("sessions.prompt", { sessionId, text: "bench" });
    while ((await ask<boolean>("isRunning", { sessionId })) || Date.now() - started < 500) {
      if (Date.now() - started > 120_000) throw new Error("The benchmark run did not finish within 2 minutes.");
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const loop = await ask<LoopFigures>("monitorStop");
    await new Promise((resolve) => setTimeout(resolve, 300)); // the last batches reach the page
    runMs = Date.now() - started;
    const trace = await browser.stopTracing();
    if (STREAM_TRACES) writeFileSync(join(STREAM_TRACES, `stream-${++traces}.json`), trace);
    if (profiler) {
      const { profile } = await profiler.send("Profiler.stop");
      writeFileSync(join(RENDERER_PROFILES!, `renderer-${++profiles}.cpuprofile`), JSON.stringify(profile));
      await profiler.detach();
    }
    const stopped = await page.evaluate<{ intervals: number[]; marks: number[]; loaf: Loaf[] }>(STOP_FRAMES);
    const times = frameTimes(trace);
    return {
      frames: times.wall.sort((a, b) => a - b),
      framesCpu: times.cpu.sort((a, b) => a - b),
      cpuMsPerS: times.cpuMsPerS,
      ...stopped,
      loopDelayP99Ms: loop.p99Ms,
      loopDelayMaxMs: loop.maxMs,
      blockMaxMs: loop.blockMaxMs,
      loop,
    };
  };

  // A control case on the current page (bench/support/ui-control.ts), its frames traced the same way.
  // `load`, when given, runs beside the control (a streamed turn the page does not show).
  const control = async (script: string, load?: () => Promise<void>) => {
    await page.evaluate(START_FRAMES);
    await browser.startTracing(page, { categories: ["toplevel", "blink.user_timing"] });
    await Promise.all([page.evaluate(script), load?.()]);
    const trace = await browser.stopTracing();
    await page.evaluate(STOP_FRAMES);
    const times = frameTimes(trace);
    return {
      p95: pct(
        times.wall.sort((a, b) => a - b),
        0.95,
      ),
      cpuP95: pct(
        times.cpu.sort((a, b) => a - b),
        0.95,
      ),
      cpuMsPerS: times.cpuMsPerS,
    };
  };
  const idleP95: number[] = [];
  const idleCpuP95: number[] = [];
  const controlP95: number[] = [];
  const controlCpuP95: number[] = [];
  const controlCpuPerS: number[] = [];
  const loadedP95: number[] = [];
  const loadedCpuP95: number[] = [];

  // Rounds, alternated: open the 100k session, open the 10k one, stream a turn into a 10k session
  // (frameP95Ms: while the agent streams and four bash calls run at once), and the same into a new,
  // empty session (frameP95EmptyMs: the same work without the 10,000 messages, on the same machine).
  const open10k: number[] = [];
  const open100k: number[] = [];
  const roundP95: number[] = [];
  const emptyP95: number[] = [];
  const roundCpuP95: number[] = [];
  const emptyCpuP95: number[] = [];
  const cpuPerS: number[] = [];
  const roundIntervalP95: number[] = [];
  const loopP99: number[] = [];
  const idleLoopP99: number[] = [];
  let loopMax = 0;
  const blockMax: number[] = [];
  const blocksOver10: number[] = [];
  const blocksOver20: number[] = [];
  const gapsOver20: number[] = [];
  const gapsOver20Cpu: number[] = [];
  const gapsOver20Wait: number[] = [];
  const hostCpu: number[] = [];
  const frames: number[] = [];
  const intervals: number[] = [];
  const marks: number[] = [];
  const loaf: Loaf[] = [];
  let runMs = 0;
  const lowerInRound: boolean[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const lower = COMMAND_PRIORITY === "lower" || (COMMAND_PRIORITY === "alternate" && r % 2 === 0);
    await call("settings.update", { lowerCommandPriority: lower });
    lowerInRound.push(lower);
    open100k.push(await fromHistory("Hundred thousand messages", 99_999));
    open10k.push(await fromHistory("Ten thousand messages", 9_999));
    await fromHistory("Streamed into", 10_000 + r * 7 - 1);
    const streamed = await streamInto(target.id);
    roundP95.push(pct(streamed.frames, 0.95));
    roundCpuP95.push(pct(streamed.framesCpu, 0.95));
    cpuPerS.push(streamed.cpuMsPerS);
    roundIntervalP95.push(
      pct(
        [...streamed.intervals].sort((a, b) => a - b),
        0.95,
      ),
    );
    loopP99.push(streamed.loopDelayP99Ms);
    idleLoopP99.push(await idleLoopDelayP99(Math.min(runMs, 10_000)));
    loopMax = Math.max(loopMax, streamed.loopDelayMaxMs);
    blockMax.push(streamed.blockMaxMs);
    blocksOver10.push(streamed.loop.blocksOver10);
    blocksOver20.push(streamed.loop.blocksOver20);
    gapsOver20.push(streamed.loop.gapsOver20);
    gapsOver20Cpu.push(streamed.loop.gapsOver20Cpu);
    gapsOver20Wait.push(streamed.loop.gapsOver20Wait);
    if (process.env.BENCH_UI_GAPS) process.stderr.write(`gaps (wall, CPU, wait ms): ${JSON.stringify(streamed.loop.gapsOver20Ms)}\n`);
    hostCpu.push(streamed.loop.cpuMs);
    frames.push(...streamed.frames);
    intervals.push(...streamed.intervals);
    marks.push(...streamed.marks);
    loaf.push(...streamed.loaf);
    const fresh = await call<{ id: number }>("sessions.create", { projectId: proj.id, model: "local/fake-coder" });
    await page.goto(`${host.origin}/?session=${fresh.id}#token=${host.token}`);
    const empty = await streamInto(fresh.id);
    emptyP95.push(pct(empty.frames, 0.95));
    emptyCpuP95.push(pct(empty.framesCpu, 0.95));
    const idle = await control(IDLE_CONTROL(4000));
    idleP95.push(idle.p95);
    idleCpuP95.push(idle.cpuP95);
    const synthetic = await control(SYNTHETIC_CONTROL(8000));
    controlP95.push(synthetic.p95);
    controlCpuP95.push(synthetic.cpuP95);
    controlCpuPerS.push(synthetic.cpuMsPerS);
    // The same control while the host streams the same turn into a session the page does not show:
    // the host, the model's server and the bash commands take their share of the 2 cores, the page
    // still receives (and ignores) every event, but renders only the control.
    const aside = await call<{ id: number }>("sessions.create", { projectId: proj.id, model: "local/fake-coder" });
    const loaded = await control(SYNTHETIC_CONTROL(runMs), async () => {
      const started = Date.now();
      await call("sessions.prompt", { sessionId: aside.id, text: "bench" });
      while ((await ask<boolean>("isRunning", { sessionId: aside.id })) || Date.now() - started < 500) {
        if (Date.now() - started > 120_000) throw new Error("The loaded control's turn did not finish within 2 minutes.");
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    });
    loadedP95.push(loaded.p95);
    loadedCpuP95.push(loaded.cpuP95);
    process.stderr.write(
      `round ${r + 1}/${ROUNDS}: open 10k ${Math.round(open10k.at(-1)!)} ms, 100k ${Math.round(open100k.at(-1)!)} ms, frame p95 ${pct(streamed.frames, 0.95).toFixed(1)} ms (renderer CPU ${pct(streamed.framesCpu, 0.95).toFixed(1)} ms, ${streamed.cpuMsPerS.toFixed(0)} ms/s, interval ${roundIntervalP95.at(-1)!.toFixed(1)} ms), loop delay p99 ${streamed.loopDelayP99Ms.toFixed(1)} ms, longest block ${streamed.blockMaxMs.toFixed(1)} ms, ${streamed.loop.blocksOver20} over 20 ms, ${streamed.loop.gapsOver20} gaps over 20 ms (${streamed.loop.gapsOver20Cpu} mostly CPU, ${streamed.loop.gapsOver20Wait} mostly waiting for a core), host CPU ${Math.round(streamed.loop.cpuMs)} ms (empty session ${pct(empty.frames, 0.95).toFixed(1)} ms; controls: idle ${idle.p95.toFixed(1)} ms, synthetic ${synthetic.p95.toFixed(1)} ms, CPU ${synthetic.cpuP95.toFixed(1)} ms, ${synthetic.cpuMsPerS.toFixed(0)} ms/s; loaded ${loaded.p95.toFixed(1)} ms, CPU ${loaded.cpuP95.toFixed(1)} ms)\n`,
    );
  }
  frames.sort((a, b) => a - b);
  intervals.sort((a, b) => a - b);
  const worst = loaf.sort((a, b) => b.ms - a.ms)[0];
  const openSessionMs = median(open10k);
  /** The medians of the rounds run with (or without) lower command priority. */
  const sideFigures = (lower: boolean) => {
    const of = (values: number[]) => round(median(values.filter((_, r) => lowerInRound[r] === lower)));
    return {
      rounds: lowerInRound.filter((l) => l === lower).length,
      frameP95Ms: of(roundP95),
      frameCpuP95Ms: of(roundCpuP95),
      frameP95LoadedControlMs: of(loadedP95),
      mainLoopDelayP99Ms: of(loopP99),
      mainGapsOver20: of(gapsOver20),
      mainCpuMs: of(hostCpu),
    };
  };
  console.log(
    JSON.stringify({
      frameP95Ms: round(median(roundP95)),
      frameP95MinMs: round(Math.min(...roundP95)),
      frameP95EmptyMs: round(median(emptyP95)),
      frameCpuP95Ms: round(median(roundCpuP95)),
      frameCpuP95MinMs: round(Math.min(...roundCpuP95)),
      frameCpuP95EmptyMs: round(median(emptyCpuP95)),
      rendererCpuMsPerS: round(median(cpuPerS)),
      rendererCpuMsPerSMin: round(Math.min(...cpuPerS)),
      frameIntervalP95Ms: round(median(roundIntervalP95)),
      frameP95IdleMs: round(median(idleP95)),
      frameCpuP95IdleMs: round(median(idleCpuP95)),
      frameP95ControlMs: round(median(controlP95)),
      frameCpuP95ControlMs: round(median(controlCpuP95)),
      rendererCpuMsPerSControl: round(median(controlCpuPerS)),
      frameP95LoadedControlMs: round(median(loadedP95)),
      frameCpuP95LoadedControlMs: round(median(loadedCpuP95)),
      longAnimationFrames: loaf.length,
      longAnimationFrameP95Ms: round(
        pct(
          loaf.map((l) => l.ms).sort((a, b) => a - b),
          0.95,
        ),
      ),
      chromiumArgs: CHROMIUM_ARGS.join(" ") || null,
      chromiumAsAUser: chromiumWrapper !== undefined || process.getuid?.() !== 0,
      commandPriority: COMMAND_PRIORITY,
      ...(COMMAND_PRIORITY === "alternate" ? { byCommandPriority: { lower: sideFigures(true), normal: sideFigures(false) } } : {}),
      mainLoopDelayP99Ms: round(median(loopP99)),
      mainLoopDelayP99MinMs: round(Math.min(...loopP99)),
      mainLoopLateP99Ms: round(median(loopP99) - LOOP_DELAY_RESOLUTION_MS),
      mainLoopDelayMaxMs: round(loopMax),
      mainLoopDelayIdleP99Ms: round(median(idleLoopP99)),
      mainBlockMaxMs: round(median(blockMax)),
      mainBlocksOver10: median(blocksOver10),
      mainBlocksOver20: median(blocksOver20),
      mainGapsOver20: median(gapsOver20),
      mainGapsOver20Cpu: median(gapsOver20Cpu),
      mainGapsOver20Wait: median(gapsOver20Wait),
      mainCpuMs: round(median(hostCpu)),
      mainCpuMinMs: round(Math.min(...hostCpu)),
      frameP95EmptyMinMs: round(Math.min(...emptyP95)),
      openSession100kMs: round(median(open100k)),
      openSession100kMinMs: round(Math.min(...open100k)),
      openSessionMinMs: round(Math.min(...open10k)),
      frameP50Ms: round(pct(frames, 0.5)),
      frameMaxMs: round(frames.at(-1) ?? 0),
      slowFrames: frames.filter((f) => f > 16).length,
      frames: frames.length,
      worstFrame: worst ? `${worst.ms} ms: ${worst.scripts.join("; ") || "rendering"}` : null,
      worstFrames: loaf.slice(1, 5).map((l) => `${l.ms} ms (blocking ${l.blockingMs}): ${l.scripts.join("; ") || "rendering"}`),
      vsyncIntervalP95Ms: round(pct(intervals, 0.95)),
      frameMarkP95Ms: round(
        pct(
          marks.sort((a, b) => a - b),
          0.95,
        ),
      ),
      frameMarkMaxMs: round(marks.at(-1) ?? 0),
      openSessionMs: round(openSessionMs),
      historyScrollP95Ms: round(pct(scrollFrames, 0.95)),
      historyScrollMaxMs: round(scrollFrames.at(-1) ?? 0),
      historyScrolledRows: Math.round(scrolled.scrolledPx / 34),
      historyReachedEnd: scrolled.reachedEnd,
      historyScrollMs: scrolled.ms,
      rounds: ROUNDS,
      streamedDeltas: DELTAS * 2,
      deltasPerSecondSent: 2000,
      bashCalls: 4,
      runMs,
    }),
  );
} finally {
  await browser.close();
  await ask("close").catch(() => undefined);
  await model.close();
  rmSync(dir, { recursive: true, force: true });
}
