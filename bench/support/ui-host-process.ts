// bench:ui's services process: the real headless host (startHost) in a process of its own, so
// that mainLoopDelayP99Ms measures the process that owns the loop and the tools, and not the
// bench's fake model server or its browser driver. Forked by bench/ui.bench.ts, driven over Node's
// IPC channel: each request { id, op, ... } gets one reply { id, ok, data | error }. Ops: start,
// call (a router method), seed (sessions straight into the store), isRunning, monitorStart /
// monitorStop (event-loop delay, the longest block of this process's main thread, how many blocks
// took 10 and 20 ms or more, the gaps of 20 ms or more between its 1 ms ticks and how many of
// them were mostly its own CPU or mostly waiting for a core (each gap's wall, CPU and wait ms), and the main thread's CPU time over the window), close.
// With BENCH_HOST_CPU_PROF=DIR in its environment, each monitored window's CPU profile of the main
// thread is written to DIR (inspector's Profiler: the windows only, not the seeding).
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { AgentMessage } from "../../app/shared/agent-types.ts";
import { startHost } from "../../app/main/host/start-host.ts";
import { blockMonitor, type BlockMonitor } from "./block-monitor.ts";
import { LOOP_DELAY_RESOLUTION_MS } from "./loop-delay.ts";

type Request = { id: number; op: string; [key: string]: unknown };
type Host = Awaited<ReturnType<typeof startHost>>;

let host: Host | undefined;
let delay: ReturnType<typeof monitorEventLoopDelay> | undefined;
let blocks: BlockMonitor | undefined;
let cpuAtStart: NodeJS.CpuUsage | undefined;
const profileDir = process.env.BENCH_HOST_CPU_PROF;
let profiler: Session | undefined;
let profiles = 0;

/** A transcript of n messages: questions, answers with code, and every third a read tool call. */
function seedMessages(n: number): AgentMessage[] {
  const usage = { input: 10, output: 10, cacheRead: 0, cacheWrite: 0, totalTokens: 20, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
  const out: AgentMessage[] = [];
  for (let i = 0; out.length < n; i++) {
    out.push({ role: "user", content: `Question ${i}: how does module ${i} work?`, timestamp: i });
    if (i % 3 === 0 && out.length + 2 < n) {
      out.push({
        role: "assistant",
        content: [
          { type: "text", text: `Reading module ${i}.` },
          { type: "toolCall", id: `r${i}`, name: "read", arguments: { path: `src/m${i}.ts` } },
        ],
        api: "openai-completions",
        provider: "local",
        model: "fake-coder",
        usage,
        stopReason: "toolUse",
        timestamp: i,
      });
      out.push({
        role: "toolResult",
        toolCallId: `r${i}`,
        toolName: "read",
        content: [{ type: "text", text: `     1\texport const m${i} = ${i};` }],
        isError: false,
        timestamp: i,
      });
    }
    if (out.length < n)
      out.push({
        role: "assistant",
        content: [{ type: "text", text: `Module **${i}** exports \`m${i}\`.\n\n\`\`\`ts\nexport const m${i} = ${i};\n\`\`\`` }],
        api: "openai-completions",
        provider: "local",
        model: "fake-coder",
        usage,
        stopReason: "stop",
        timestamp: i,
      });
  }
  return out;
}

function running(): Host {
  if (!host) throw new Error("the host is not started");
  return host;
}

async function handle(request: Request): Promise<unknown> {
  switch (request.op) {
    case "start": {
      const { dataDir, rendererDir, env } = request as unknown as { dataDir: string; rendererDir: string; env: Record<string, string> };
      host = await startHost({ dataDir, rendererDir, env });
      return { url: host.url, origin: host.origin, token: host.token };
    }
    case "call": {
      const result = await running().services.router.handle(request.method as string, request.params);
      if (!result.ok) throw new Error(`${String(request.method)}: ${result.error.message}`);
      return result.data;
    }
    case "seed": {
      // { projectId, title, messages: how many to seed } or { projectId, title, sessions: how many empty ones }
      const store = running().services.store;
      const { projectId, title, sessions } = request as unknown as { projectId: number; title: string; sessions?: number };
      if (sessions !== undefined) {
        store.db.transaction(() => {
          for (let i = 0; i < sessions; i++) store.createSession({ projectId, model: "local/fake-coder", title: `${title} ${i}` });
        })();
        return null;
      }
      const session = store.createSession({ projectId, model: "local/fake-coder", title });
      const messages = seedMessages(request.messages as number);
      for (let i = 0; i < messages.length; i += 10_000) store.appendMessages(session.id, messages.slice(i, i + 10_000));
      store.flushSearchIndex();
      return { id: session.id };
    }
    case "isRunning":
      return running().services.sessions.isRunning(request.sessionId as number);
    case "monitorStart":
      if (profileDir) {
        profiler = new Session();
        profiler.connect();
        await profiler.post("Profiler.enable");
        await profiler.post("Profiler.setSamplingInterval", { interval: 500 });
        await profiler.post("Profiler.start");
      }
      delay = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });
      delay.enable();
      blocks = blockMonitor();
      blocks.start();
      cpuAtStart = process.threadCpuUsage();
      return null;
    case "monitorStop": {
      if (!delay || !blocks) throw new Error("no monitor running");
      delay.disable();
      blocks.stop();
      const cpu = process.threadCpuUsage(cpuAtStart);
      const gaps = blocks.gapsOver(20);
      if (profiler) {
        const { profile } = await profiler.post("Profiler.stop");
        writeFileSync(join(profileDir!, `host-window-${++profiles}.cpuprofile`), JSON.stringify(profile));
        profiler.disconnect();
        profiler = undefined;
      }
      return {
        p99Ms: delay.percentile(99) / 1e6,
        maxMs: delay.max / 1e6,
        blockMaxMs: blocks.max,
        blocksOver10: blocks.countOver(10),
        blocksOver20: blocks.countOver(20),
        // Gaps of 20 ms or more between the monitor's 1 ms ticks, and how many of them were mostly
        // this thread's own CPU (the rest: waiting for a core, or in a system call).
        gapsOver20: gaps.length,
        gapsOver20Cpu: gaps.filter((gap) => gap.cpuMs >= gap.wallMs / 2).length,
        gapsOver20Wait: gaps.filter((gap) => gap.waitMs !== null && gap.waitMs >= gap.wallMs / 2).length,
        gapsOver20Ms: gaps.map((gap) => [Math.round(gap.wallMs), Math.round(gap.cpuMs), gap.waitMs === null ? null : Math.round(gap.waitMs)]),
        cpuMs: (cpu.user + cpu.system) / 1000,
      };
    }
    case "close":
      await host?.close();
      host = undefined;
      setImmediate(() => process.exit(0));
      return null;
    default:
      throw new Error(`unknown op ${request.op}`);
  }
}

process.on("message", (request: Request) => {
  handle(request).then(
    (data) => process.send!({ id: request.id, ok: true, data }),
    (error: unknown) => process.send!({ id: request.id, ok: false, error: error instanceof Error ? error.message : String(error) }),
  );
});
process.on("disconnect", () => void host?.close().finally(() => process.exit(0)));
