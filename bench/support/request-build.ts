// bench:loop's request-build figures: the main-thread CPU time of building one model request for a
// long session, per turn, with the code a session runs before each request: the compaction check
// and the model's view (sessions/context.ts, as LiveSession.transformContext does), the request
// body of an OpenAI-compatible server (providers/openai-completions-request.ts, the adapter
// bench:ui's sessions use), and its serialization to the text sent (providers/request-body.ts).
// Each turn appends a user message, an answer with a tool call and its result (new objects, as a
// run adds them) to a transcript of `size` messages, then builds the request. The first request of
// a transcript (a session just opened) converts everything: reported apart as `cold`.
// measureFirstRequestAfterOpen: the same first request as a session makes it (LiveSession): the
// request prepared in slices first (sessions/request-preparation.ts through the providers'
// prepareRequest), then built; the wall time from opening to the built body, the longest the main
// thread computed in one piece meanwhile (CPU between two ticks of a 1 ms timer), and the request's
// own build CPU after the preparation, and the main thread's CPU for all of it.
import type { AgentMessage, Model } from "../../app/shared/agent-types.ts";
import { compactionPolicy, modelView, needsCompaction } from "../../app/main/sessions/context.ts";
import { buildCompletionsParams } from "../../app/main/providers/openai-completions-request.ts";
import { jsonRequestBody } from "../../app/main/providers/request-body.ts";
import { prepareRequest } from "../../app/main/providers/index.ts";
import { prepareRequestsInSlices } from "../../app/main/sessions/request-preparation.ts";

const usage = { input: 10, output: 10, cacheRead: 0, cacheWrite: 0, totalTokens: 20, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

/** Turn `i` of a session: a question, an answer that reads a file, the file's text. */
function turn(i: number): AgentMessage[] {
  return [
    { role: "user", content: `Question ${i}: how does module ${i} work?`, timestamp: i },
    {
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
    },
    { role: "toolResult", toolCallId: `r${i}`, toolName: "read", content: [{ type: "text", text: `     1\texport const m${i} = ${i};\n` }], isError: false, timestamp: i },
  ];
}

// A window large enough that the 100k-message session is not compacted: the figure is the build.
const model: Model = {
  id: "fake-coder",
  name: "Fake coder",
  api: "openai-completions",
  provider: "local",
  contextWindow: 100_000_000,
  maxTokens: 8192,
  input: ["text"],
  reasoning: false,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
};

export interface RequestBuildRun {
  /** CPU ms of the first request of the transcript (everything converted and serialized). */
  coldMs: number;
  /** CPU ms per later request: compaction check, view and request body; then its serialization. */
  buildMs: number[];
  serializeMs: number[];
  bodyMB: number;
}

const cpuMs = (since: NodeJS.CpuUsage): number => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

export interface FirstRequestRun {
  wallMs: number;
  blockMaxMs: number;
  /** Main-thread CPU from opening to the built body (the preparation and the request). */
  cpuMs: number;
  requestCpuMs: number;
}

const threadCpuMs = (): number => {
  const used = process.threadCpuUsage();
  return (used.user + used.system) / 1000;
};

/** Opens a session of `size` messages as LiveSession does and builds its first request. */
export async function measureFirstRequestAfterOpen(size: number): Promise<FirstRequestRun> {
  const transcript: AgentMessage[] = [];
  for (let i = 0; transcript.length < size; i++) transcript.push(...turn(i));
  let blockMaxMs = 0;
  let lastCpu = threadCpuMs();
  let ticking = true;
  const tick = () => {
    const now = threadCpuMs();
    blockMaxMs = Math.max(blockMaxMs, now - lastCpu);
    lastCpu = now;
    if (ticking) setTimeout(tick, 1);
  };
  setTimeout(tick, 1);
  const started = performance.now();
  const cpuAtOpen = threadCpuMs();
  await prepareRequestsInSlices(transcript, (messages) => prepareRequest(model, { systemPrompt: "You are Lathe.", messages }));
  // The run adds the prompt, then asks (LiveSession.transformContext, then the provider).
  transcript.push({ role: "user", content: "And now?", timestamp: size });
  const cpu = process.cpuUsage();
  needsCompaction(transcript, compactionPolicy(model));
  jsonRequestBody(buildCompletionsParams(model, { systemPrompt: "You are Lathe.", messages: modelView(transcript) }, {}), "messages");
  const requestCpuMs = cpuMs(cpu);
  const wallMs = performance.now() - started;
  const totalCpuMs = threadCpuMs() - cpuAtOpen;
  tick();
  ticking = false;
  return { wallMs, blockMaxMs, cpuMs: totalCpuMs, requestCpuMs };
}

/** Builds `turns` requests for a session of `size` messages, one turn added before each. */
export function measureRequestBuild(size: number, turns: number): RequestBuildRun {
  const transcript: AgentMessage[] = [];
  for (let i = 0; transcript.length < size; i++) transcript.push(...turn(i));
  // LiveSession.transformContext reads the Agent's transcript itself, the same array every turn.
  const build = () => {
    needsCompaction(transcript, compactionPolicy(model));
    return buildCompletionsParams(model, { systemPrompt: "You are Lathe.", messages: modelView(transcript) }, {});
  };
  let started = process.cpuUsage();
  jsonRequestBody(build(), "messages");
  const coldMs = cpuMs(started);
  const run: RequestBuildRun = { coldMs, buildMs: [], serializeMs: [], bodyMB: 0 };
  for (let t = 0; t < turns; t++) {
    transcript.push(...turn(size + t));
    globalThis.gc?.();
    started = process.cpuUsage();
    const params = build();
    run.buildMs.push(cpuMs(started));
    started = process.cpuUsage();
    const body = jsonRequestBody(params, "messages");
    run.serializeMs.push(cpuMs(started));
    run.bodyMB = body.length / 1024 / 1024;
  }
  return run;
}
