// Prepares a just-opened session's first model request in slices, so that no part of the work
// proportional to the transcript runs in one piece on the main thread. The request builders
// convert and serialize incrementally (loop/incremental-conversion.ts, providers/request-body.ts):
// a request reuses what earlier requests on the same message objects converted. A session just
// opened has no such earlier request, so its first one would convert the whole transcript at once
// (466 ms for 100,000 messages). Here the transcript is run through the same builders a growing
// prefix at a time, one prefix per macrotask (sized to take about SLICE_MS), which leaves in their
// caches exactly what the first request would have built; the session awaits this before its first
// request. Nothing it does changes what is sent: the caches' results equal a conversion from
// scratch whatever is in them (their contract), so preparing only saves work. Must not throw:
// `prepare` is called guarded, and a failure or a stop (the signal) just ends the preparation.
import type { AgentMessage, Message } from "../../shared/agent-types.ts";
import { activeCompactionOf, modelViewOfPrefix } from "./context.ts";

const threadCpuMs = (): number => {
  const used = process.threadCpuUsage();
  return (used.user + used.system) / 1000;
};

/** Target main-thread CPU time of one slice. */
export const SLICE_MS = 8;
const FIRST_SLICE_MESSAGES = 500;

/** Builds (and throws away) the request a transcript whose model view is `view` would send. */
export type PrepareRequest = (view: Message[]) => void;

/**
 * Runs `prepare` over the model views of ever longer prefixes of `transcript`, ending with the
 * whole, one per macrotask. Resolves when done or stopped; never rejects.
 */
export async function prepareRequestsInSlices(transcript: readonly AgentMessage[], prepare: PrepareRequest, signal?: AbortSignal): Promise<void> {
  const messages = transcript.slice();
  // What a compaction summarized is not in the view: the prefixes start at its first kept message.
  let end = Math.min(messages.length, activeCompactionOf(messages)?.details.firstKeptIndex ?? 0);
  let size = FIRST_SLICE_MESSAGES;
  while (end < messages.length) {
    await new Promise((resolve) => setImmediate(resolve));
    if (signal?.aborted) return;
    end = Math.min(messages.length, end + size);
    const started = threadCpuMs();
    try {
      prepare(modelViewOfPrefix(messages, end));
    } catch (error) {
      console.error("[sessions] preparing the first request failed (it will be built when sent):", error);
      return;
    }
    // Slices grow or shrink toward SLICE_MS of the thread's own time (the cost per message grows
    // with the prefix a little; wall time would also count other processes on a busy machine).
    const took = threadCpuMs() - started;
    if (took < SLICE_MS / 2) size *= 2;
    else if (took > SLICE_MS * 1.5) size = Math.max(FIRST_SLICE_MESSAGES / 4, Math.floor(size / 2));
  }
}
