// LiveSession: one session that can run: its Agent, its coding tools (bound to the project
// folder), and its recorder. Every loop event goes to the recorder (so messages land in the store
// as they end) and to the event hub (so every connected renderer sees them), in the loop's order.
import type { AgentEvent, AgentMessage, AssistantMessage, ImageContent, Model } from "../../shared/agent-types.ts";
import type { SessionState } from "../../shared/ipc/contract.ts";
import { Agent, userMessage } from "../loop/agent.ts";
import type { AgentLoopConfig, StreamFn } from "../loop/types.ts";
import type { EventHub } from "../ipc/event-hub.ts";
import type { SessionRecorder, SessionStore } from "../store/index.ts";
import { createCodingTools, type CodingTools } from "../tools/index.ts";
import { compactTranscript } from "./compaction.ts";
import { COMPACTION, COMPACTION_UNDO, compactionPolicy, contextTokens, modelView, needsCompaction, type CompactionDetails } from "./context.ts";
import { buildSystemPrompt, loadProjectInstructions } from "./system-prompt.ts";

export type ToolHooks = Pick<AgentLoopConfig, "beforeToolCall" | "afterToolCall">;

export interface SessionScope {
  sessionId: number;
  projectId: number;
  projectDir: string;
  /** Aborts the session's current run (for hooks that wait on a person). */
  signal?: AbortSignal;
}

export interface LiveSessionOptions {
  sessionId: number;
  projectId: number;
  projectDir: string;
  messages: AgentMessage[];
  baseToolNames: string[];
  model: Model;
  store: SessionStore;
  hub: EventHub;
  streamFn: StreamFn;
  hooks: (scope: SessionScope) => ToolHooks;
  /** Called whenever what `state()` returns may have changed. */
  onStateChange: (session: LiveSession) => void;
  /** Whether to compact automatically (read at each request). */
  autoCompact: () => boolean;
  /** Called after each run, for notifications and the session list. */
  onRunEnd?: (session: LiveSession, last: AssistantMessage | undefined) => void;
  bashTimeoutMs?: number;
}

export class LiveSession {
  readonly sessionId: number;
  readonly projectId: number;
  readonly projectDir: string;
  readonly agent: Agent;
  readonly tools: CodingTools;
  private readonly recorder: SessionRecorder;
  private readonly options: LiveSessionOptions;
  private instructionFiles: string[] = [];
  /** Set while an entry is written outside a run: the store gets it directly, not the recorder. */
  private outOfBand = false;
  private overflowRetried = false;

  constructor(options: LiveSessionOptions) {
    this.options = options;
    this.sessionId = options.sessionId;
    this.projectId = options.projectId;
    this.projectDir = options.projectDir;
    this.tools = createCodingTools({ projectDir: options.projectDir, bashTimeoutMs: options.bashTimeoutMs });
    const baseToolNames = options.baseToolNames.length > 0 ? options.baseToolNames : this.tools.tools.map((t) => t.name);
    const hooks = options.hooks({ sessionId: this.sessionId, projectId: this.projectId, projectDir: this.projectDir });
    this.agent = new Agent({
      model: options.model,
      streamFn: options.streamFn,
      tools: this.tools.tools,
      baseToolNames,
      messages: options.messages,
      systemPrompt: this.systemPrompt(baseToolNames),
      beforeToolCall: hooks.beforeToolCall,
      afterToolCall: hooks.afterToolCall,
      transformContext: (_messages, signal) => this.transformContext(signal),
      // transformContext already gives the model's view (summary, kept messages, no app entries).
      convertToLlm: (messages) => messages.filter((m) => m.role !== "custom") as ReturnType<typeof modelView>,
      onSubscriberError: (error) => console.error("[sessions] event subscriber failed:", error),
    });
    this.recorder = options.store.recorder(this.sessionId, {
      onError: (error) => options.hub.emit("app.notice", { level: "error", message: `Could not save session ${this.sessionId}: ${error.message}` }),
    });
    this.agent.subscribe((event) => this.onEvent(event));
  }

  get model(): Model {
    return this.agent.model;
  }

  setModel(model: Model): void {
    this.agent.setModel(model);
    this.options.store.setSessionModel(this.sessionId, `${model.provider}/${model.id}`);
    this.options.onStateChange(this);
  }

  prompt(text: string, images: ImageContent[] = []): void {
    this.overflowRetried = false;
    this.agent.systemPrompt = this.systemPrompt(this.agent.activeToolNames);
    this.agent.prompt(text, images).catch((error: unknown) => this.options.hub.emit("app.notice", { level: "error", message: String(error) }));
    this.options.onStateChange(this);
  }

  steer(text: string, images: ImageContent[] = []): void {
    this.agent.steer(userMessage(text, images));
    this.options.onStateChange(this);
  }

  followUp(text: string, images: ImageContent[] = []): void {
    this.agent.followUp(userMessage(text, images));
    this.options.onStateChange(this);
  }

  abort(): void {
    this.agent.abort();
  }

  state(pendingPermissions: SessionState["pendingPermissions"]): SessionState {
    const text = (m: AgentMessage) => (m.role === "user" ? (typeof m.content === "string" ? m.content : m.content.map((c) => (c.type === "text" ? c.text : "[image]")).join(" ")) : "");
    return {
      sessionId: this.sessionId,
      running: this.agent.isRunning,
      model: `${this.model.provider}/${this.model.id}`,
      queued: { steering: this.agent.queued.steering.map(text), followUp: this.agent.queued.followUp.map(text) },
      pendingPermissions,
      contextTokens: contextTokens(this.agent.messages),
      contextWindow: this.model.contextWindow,
      instructionFiles: this.instructionFiles,
    };
  }

  /** Summarizes the older part of the session now. */
  async compactNow(): Promise<{ compacted: boolean; message: string }> {
    this.assertIdle("compact");
    const entry = await this.compact("manual");
    const message = entry
      ? `Compacted: about ${(entry.details as CompactionDetails).tokensBefore} tokens of context became ${(entry.details as CompactionDetails).tokensAfter}.`
      : "Nothing to compact yet: the session is shorter than the part kept verbatim.";
    return { compacted: entry !== undefined, message };
  }

  async editCompaction(index: number, summary: string): Promise<void> {
    this.assertIdle("edit a summary");
    const target = this.compactionAt(index);
    const details: CompactionDetails = { ...(target.details as CompactionDetails), trigger: "edit", replaces: index };
    await this.append({ role: "custom", customType: COMPACTION, content: summary.trim(), display: true, details, timestamp: Date.now() });
  }

  async undoCompaction(index: number): Promise<void> {
    this.assertIdle("undo a compaction");
    this.compactionAt(index);
    await this.append({ role: "custom", customType: COMPACTION_UNDO, content: "Compaction undone: the model sees the full history again.", display: true, details: { undoes: index }, timestamp: Date.now() });
  }

  private compactionAt(index: number) {
    const target = this.agent.messages[index];
    if (target?.role !== "custom" || target.customType !== COMPACTION) throw new Error(`Message ${index} of this session is not a compaction summary.`);
    return target;
  }

  private assertIdle(what: string): void {
    if (this.agent.isRunning) throw new Error(`Cannot ${what} while the session is running: wait for the run to end or stop it.`);
  }

  private async transformContext(signal: AbortSignal | undefined): Promise<AgentMessage[]> {
    if (this.options.autoCompact() && needsCompaction(this.agent.messages, compactionPolicy(this.model))) {
      await this.compact("threshold", signal);
    }
    return modelView(this.agent.messages);
  }

  /** Appends a compaction entry; a failure to summarize is reported and leaves the context as it was. */
  private async compact(trigger: CompactionDetails["trigger"], signal?: AbortSignal) {
    try {
      const entry = await compactTranscript({
        transcript: this.agent.messages,
        model: this.model,
        streamFn: this.options.streamFn,
        keepRecentTokens: compactionPolicy(this.model).keepRecentTokens,
        trigger,
        signal,
      });
      if (entry) await this.append(entry);
      return entry;
    } catch (error) {
      this.options.hub.emit("app.notice", { level: "warning", message: `Session ${this.sessionId}: ${(error as Error).message}` });
      if (trigger === "manual") throw error;
      return undefined;
    }
  }

  /** Adds an app entry to the transcript: within a run through the recorder, otherwise directly. */
  private async append(entry: AgentMessage): Promise<void> {
    if (this.agent.isRunning) return this.agent.appendEntry(entry);
    this.options.store.appendMessage(this.sessionId, entry);
    this.outOfBand = true;
    try {
      await this.agent.appendEntry(entry);
    } finally {
      this.outOfBand = false;
    }
    this.options.onStateChange(this);
  }

  /** Stops the run and waits for it; used when the session is deleted or the app quits. */
  async dispose(): Promise<void> {
    this.agent.abort();
    await this.agent.waitForIdle();
    this.recorder.close();
  }

  private systemPrompt(toolNames: readonly string[]): string {
    const active = this.tools.tools.filter((t) => toolNames.includes(t.name));
    const instructions = loadProjectInstructions(this.projectDir);
    this.instructionFiles = instructions.map((i) => i.path);
    return buildSystemPrompt({ projectDir: this.projectDir, tools: active, instructions });
  }

  private onEvent(event: AgentEvent): void {
    if (!this.outOfBand) this.recorder.handle(event);
    this.options.hub.sessionEvent(this.sessionId, event);
    if (event.type === "agent_start") this.options.onStateChange(this);
    if (event.type === "message_start" && event.message.role === "user") this.options.onStateChange(this);
    if (event.type === "agent_end") {
      // The agent clears its running flag after this event: act once it has.
      queueMicrotask(() => void this.agent.waitForIdle().then(() => this.afterRun()));
    }
  }

  private async afterRun(): Promise<void> {
    const last = this.agent.messages.findLast((m): m is AssistantMessage => m.role === "assistant");
    // A context overflow: compact and retry the turn once, unless the user turned compaction off.
    if (last?.contextOverflow && this.options.autoCompact() && !this.overflowRetried && !this.agent.isRunning) {
      this.overflowRetried = true;
      if (await this.compact("overflow")) {
        this.agent.continue().catch((error: unknown) => this.options.hub.emit("app.notice", { level: "error", message: String(error) }));
        this.options.onStateChange(this);
        return;
      }
    }
    this.options.onStateChange(this);
    this.options.onRunEnd?.(this, last);
  }
}
