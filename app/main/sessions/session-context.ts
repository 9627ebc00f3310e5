// What a live session's model is sent, and its compaction. Before each request (the loop's
// transformContext): the transcript is compacted when it nears the model's window (if the user
// lets it), then the model's view is built (context.ts). A session just opened, or given another
// model, has its next request prepared in slices first (request-preparation.ts; awaited before
// that request), so the first request after opening does no work proportional to the transcript
// on the main thread in one piece. Compaction by hand, edits and undos of a summary add entries
// through the session's `append` (LiveSession decides how: through the recorder within a run,
// directly otherwise). LiveSession owns this object and checks that no run is going before a
// compaction by hand; it reads the agent's transcript and model, never changes them itself.
// Every compaction is given an abort signal (the run's, or LiveSession's for one outside a run):
// aborted, the summary request ends at once and nothing is added; that is a stop, not a failure
// (no warning; a compaction by hand says it was stopped).
import type { AgentMessage, CustomMessage, Model } from "../../shared/agent-types.ts";
import type { Agent, LlmContext, StreamFn } from "../loop/index.ts";
import { compactTranscript } from "./compaction.ts";
import { COMPACTION, COMPACTION_UNDO, compactionPolicy, modelView, needsCompaction, type CompactionDetails } from "./context.ts";
import { prepareRequestsInSlices } from "./request-preparation.ts";

/** What a compaction by hand answers when it was stopped. */
export const COMPACTION_STOPPED = "Compaction stopped: the transcript is unchanged.";

export interface SessionContextPorts {
  sessionId: number;
  agent: Agent;
  streamFn: StreamFn;
  /** Builds what a request would send, sending nothing (providers' prepareRequest); without it nothing is prepared. */
  prepareRequest?: (model: Model, context: LlmContext) => void;
  /** Whether to compact automatically (read at each request). */
  autoCompact: () => boolean;
  /** Tells the person something went wrong that did not stop anything. Must not throw. */
  warn: (message: string) => void;
  /** Adds an entry to the transcript (stored, then in the agent's messages). */
  append: (entry: AgentMessage) => Promise<void>;
}

export class SessionContext {
  private readonly ports: SessionContextPorts;
  /** The next request's preparation: awaited before that request; then undefined. */
  private nextRequestReady: Promise<void> | undefined;
  private preparing = new AbortController();

  constructor(ports: SessionContextPorts) {
    this.ports = ports;
  }

  /** Prepares the next request over the transcript as it is, in slices (call when opened, or after a model change while idle). */
  prepareNextRequest(): void {
    const { agent, prepareRequest } = this.ports;
    if (!prepareRequest || agent.messages.length === 0) return;
    this.preparing.abort();
    this.preparing = new AbortController();
    const model = agent.model;
    this.nextRequestReady = prepareRequestsInSlices(
      agent.messages,
      // The prompt is read at each slice: a prompt sets the run's before the first slice runs.
      (messages) => prepareRequest(model, { systemPrompt: agent.systemPrompt, messages }),
      this.preparing.signal,
    );
  }

  stopPreparing(): void {
    this.preparing.abort();
  }

  /** The loop's transformContext: what the model is sent, compacted first when needed. */
  async transformContext(signal: AbortSignal | undefined): Promise<AgentMessage[]> {
    const { agent } = this.ports;
    if (this.nextRequestReady) {
      await this.nextRequestReady;
      this.nextRequestReady = undefined;
    }
    if (this.ports.autoCompact() && needsCompaction(agent.messages, compactionPolicy(agent.model))) {
      await this.compact("threshold", signal);
    }
    return modelView(agent.messages);
  }

  /**
   * Appends a compaction entry. A failure to summarize is reported and leaves the context as it was
   * (a manual one also throws); an abort leaves it as it was too, and says so in `stopped`.
   */
  async compact(trigger: CompactionDetails["trigger"], signal: AbortSignal | undefined): Promise<{ entry: CustomMessage | undefined; stopped: boolean }> {
    const { agent } = this.ports;
    try {
      const entry = await compactTranscript({
        transcript: agent.messages,
        model: agent.model,
        streamFn: this.ports.streamFn,
        keepRecentTokens: compactionPolicy(agent.model).keepRecentTokens,
        trigger,
        signal,
      });
      // Stopped once the summary had arrived: still a stop, the transcript stays as it was.
      if (signal?.aborted) return { entry: undefined, stopped: true };
      if (entry) await this.ports.append(entry);
      return { entry, stopped: false };
    } catch (error) {
      if (signal?.aborted) return { entry: undefined, stopped: true };
      this.ports.warn(`Session ${this.ports.sessionId}: ${(error as Error).message}`);
      if (trigger === "manual") throw error;
      return { entry: undefined, stopped: false };
    }
  }

  /** Summarizes the older part of the session now, until `signal` is aborted; says what it did. */
  async compactNow(signal: AbortSignal): Promise<{ compacted: boolean; message: string }> {
    const { entry, stopped } = await this.compact("manual", signal);
    if (stopped) return { compacted: false, message: COMPACTION_STOPPED };
    const message = entry
      ? `Compacted: about ${(entry.details as CompactionDetails).tokensBefore} tokens of context became ${(entry.details as CompactionDetails).tokensAfter}.`
      : "Nothing to compact yet: the session is shorter than the part kept verbatim.";
    return { compacted: entry !== undefined, message };
  }

  async editCompaction(index: number, summary: string): Promise<void> {
    const target = this.compactionAt(index);
    const details: CompactionDetails = { ...(target.details as CompactionDetails), trigger: "edit", replaces: index };
    await this.ports.append({ role: "custom", customType: COMPACTION, content: summary.trim(), display: true, details, timestamp: Date.now() });
  }

  async undoCompaction(index: number): Promise<void> {
    this.compactionAt(index);
    await this.ports.append({
      role: "custom",
      customType: COMPACTION_UNDO,
      content: "Compaction undone: the model sees the full history again.",
      display: true,
      details: { undoes: index },
      timestamp: Date.now(),
    });
  }

  private compactionAt(index: number) {
    const target = this.ports.agent.messages[index];
    if (target?.role !== "custom" || target.customType !== COMPACTION) throw new Error(`Message ${index} of this session is not a compaction summary.`);
    return target;
  }
}
