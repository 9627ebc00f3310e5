// LiveSession: one session that can run: its Agent, its coding tools (bound to the project
// folder), the tools of its tool source (MCP servers and tool_search, kept current as servers come
// and go), and its recorder. Every loop event goes to the recorder (so messages land in the store
// as they end) and to the event hub (so every connected renderer sees them), in the loop's order.
// Durable before acting: a tool call runs only when the assistant message that made it is stored
// (a gate in front of beforeToolCall). When a write fails the run is stopped at once and one
// notice says how much space to free; the recorder keeps what was not written and writes it, in
// order, as soon as it can; until then new runs are refused with the same explanation.
// It also keeps what a snapshot needs beyond the stored transcript (`live()`): the message
// streaming, and the tool calls whose results are not in the transcript yet, with their output.
import { dirname } from "node:path";
import type { AgentMessage, AssistantMessage, ImageContent, Model, ProviderRetry, SessionEvent, ToolCallPhaseEvent } from "../../shared/agent-types.ts";
import type { LiveSnapshot, LiveTool, SessionState } from "../../shared/ipc/contract.ts";
import {
  Agent,
  userMessage,
  addedToolNamesThrough,
  type AgentLoopConfig,
  type AnyAgentTool,
  type BeforeToolCallContext,
  type BeforeToolCallResult,
  type LlmContext,
  type StreamFn,
} from "../loop/index.ts";
import type { SessionEventPort } from "./event-port.ts";
import type { SessionRecorder, SessionStore, StoreError } from "../store/index.ts";
import { ServiceError } from "../../shared/errors.ts";
import { NOT_RUN_UNSAVED, STOPPED_UNSAVED, storageFailureMessage } from "./storage-failure.ts";
import { createCodingTools, type CodingTools, type OutputRedactor } from "../tools/index.ts";
import type { CommandSandbox } from "../sandbox/session-sandbox.ts";
import type { TurnCheckpoints } from "./checkpoint-port.ts";
import { compactTranscript } from "./compaction.ts";
import { COMPACTION, COMPACTION_UNDO, compactionPolicy, contextTokens, modelView, needsCompaction, type CompactionDetails } from "./context.ts";
import { prepareRequestsInSlices } from "./request-preparation.ts";
import type { SessionToolSource } from "./session-tools.ts";
import { buildSystemPrompt, loadProjectInstructions } from "./system-prompt.ts";

/** A blocked call's result, with what blocked it: a decision ("denied") or a stopped run ("stopped"). */
export interface SessionBeforeResult extends BeforeToolCallResult {
  outcome?: "denied" | "stopped";
}

export interface ToolHooks {
  beforeToolCall?: (ctx: BeforeToolCallContext, signal?: AbortSignal) => Promise<SessionBeforeResult | undefined>;
  afterToolCall?: AgentLoopConfig["afterToolCall"];
  /** The batch of an assistant message is over (its turn_end). Must not throw. */
  afterBatch?: (message: AssistantMessage) => void;
}

/** Waits for `work`, or only until the run is stopped (Stop never waits on a checkpoint). */
function untilAborted(work: Promise<unknown>, signal: AbortSignal | undefined): Promise<unknown> {
  if (!signal) return work;
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      signal.removeEventListener("abort", done);
      resolve(undefined);
    };
    signal.addEventListener("abort", done, { once: true });
    work.then(done, done);
  });
}

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
  hub: SessionEventPort;
  streamFn: StreamFn;
  /** Builds what a request for the context would send, sending nothing (providers' prepareRequest); the first request after opening then converts only what is new. */
  prepareRequest?: (model: Model, context: LlmContext) => void;
  hooks: (scope: SessionScope) => ToolHooks;
  /** Called whenever what `state()` returns may have changed. */
  onStateChange: (session: LiveSession) => void;
  /** Whether to compact automatically (read at each request). */
  autoCompact: () => boolean;
  /** Called after each run, for notifications and the session list. */
  onRunEnd?: (session: LiveSession, last: AssistantMessage | undefined) => void;
  bashTimeoutMs?: number;
  /** Applied to terminal logs before they are stored (secret redaction). */
  redact?: (text: string) => string;
  /** The session's sandbox, where its commands run. */
  sandbox?: CommandSandbox;
  /** Tools besides the coding tools (MCP servers and tool_search). */
  toolSource?: SessionToolSource;
  /** Redacts secrets from bash output as it streams. */
  secrets?: () => OutputRedactor;
  /** Where bash saves full outputs. */
  outputDir?: string;
  /** Takes a checkpoint of the project before and after each turn that can change files. */
  checkpoints?: TurnCheckpoints;
}

type LiveToolState = Omit<LiveTool, "output">;

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
  /** The notice of the current storage outage, once sent (one per outage). */
  private saveFailure: string | null = null;
  private streaming: AssistantMessage | null = null;
  private retryNotice: ProviderRetry | null = null;
  /** How the last run ended (null while one runs, or before the first). */
  private lastRun: SessionState["lastRun"] = null;
  private readonly liveTools = new Map<string, LiveToolState>();
  private readonly baseToolNames: string[];
  private readonly builtinTools: AnyAgentTool[];
  private readonly stopWatchingTools: () => void;
  private readonly observedTools = new WeakMap<AnyAgentTool, AnyAgentTool>();
  /** The abort signal each executing call was given (to tell a stopped call from a failed one). */
  private readonly callSignals = new Map<string, AbortSignal>();
  /** Calls the person interrupted. */
  private readonly interrupted = new Set<string>();
  private readonly afterBatch: ToolHooks["afterBatch"];
  /** The first request's preparation (request-preparation.ts): awaited before that request; then undefined. */
  private firstRequestReady: Promise<void> | undefined;
  private stopPreparing = new AbortController();

  constructor(options: LiveSessionOptions) {
    this.options = options;
    this.sessionId = options.sessionId;
    this.projectId = options.projectId;
    this.projectDir = options.projectDir;
    this.tools = createCodingTools({
      projectDir: options.projectDir,
      bashTimeoutMs: options.bashTimeoutMs,
      sandbox: options.sandbox,
      secrets: options.secrets,
      outputDir: options.outputDir,
    });
    const baseToolNames = options.baseToolNames.length > 0 ? options.baseToolNames : this.tools.tools.map((t) => t.name);
    this.baseToolNames = baseToolNames;
    const scope = { sessionId: this.sessionId, projectId: this.projectId, projectDir: this.projectDir };
    this.builtinTools = options.toolSource?.builtinTools(scope) ?? [];
    const hooks = options.hooks(scope);
    this.afterBatch = hooks.afterBatch;
    this.agent = new Agent({
      model: options.model,
      streamFn: options.streamFn,
      tools: this.catalogue(options.messages),
      baseToolNames,
      messages: options.messages,
      systemPrompt: this.systemPrompt(baseToolNames),
      // Durable before acting: nothing runs for an assistant message that is not stored.
      beforeToolCall: async (ctx, signal) => {
        if (!this.recorder.isStored(ctx.assistantMessage)) {
          this.phase(ctx.toolCall.id, "stopped", NOT_RUN_UNSAVED);
          return { block: true, reason: NOT_RUN_UNSAVED };
        }
        const result = await hooks.beforeToolCall?.(ctx, signal);
        if (result?.block) {
          this.phase(ctx.toolCall.id, result.outcome ?? "denied", result.reason);
          return { block: result.block, reason: result.reason };
        }
        // The turn's checkpoint is taken once, before its first call that may change files runs.
        const key = options.checkpoints?.turnKey(this.sessionId, ctx.assistantMessage, ctx.toolCall.name);
        if (key && options.checkpoints) await untilAborted(options.checkpoints.beforeTurn(this.scope, key), signal);
        return result && { block: result.block, reason: result.reason };
      },
      afterToolCall: hooks.afterToolCall,
      transformContext: (_messages, signal) => this.transformContext(signal),
      // transformContext already gives the model's view (summary, kept messages, no app entries),
      // a new array each time: nothing is left to convert or copy.
      convertToLlm: (messages) => messages as ReturnType<typeof modelView>,
      onSubscriberError: (error) => console.error("[sessions] event subscriber failed:", error),
    });
    this.recorder = options.store.recorder(this.sessionId, {
      onError: (error) => this.onSaveFailed(error),
      onRecovered: () => this.onSaveRecovered(),
      redact: options.redact,
    });
    this.agent.subscribe((event) => this.onEvent(event));
    this.stopWatchingTools = options.toolSource?.onChange(() => this.agent.setTools(this.catalogue(this.agent.messages), this.baseToolNames)) ?? (() => {});
    this.prepareFirstRequest();
  }

  /** Prepares the next request over the transcript as it is, in slices (a session just opened, or another model). */
  private prepareFirstRequest(): void {
    const prepare = this.options.prepareRequest;
    if (!prepare || this.agent.messages.length === 0) return;
    this.stopPreparing.abort();
    this.stopPreparing = new AbortController();
    const model = this.model;
    this.firstRequestReady = prepareRequestsInSlices(
      this.agent.messages,
      // The prompt is read at each slice: prompt() sets the run's before the first slice runs.
      (messages) => prepare(model, { systemPrompt: this.agent.systemPrompt, messages }),
      this.stopPreparing.signal,
    );
  }

  /** Every tool the agent may activate: coding tools, the source's built-ins, and its tools for the names this session uses. */
  private catalogue(messages: readonly AgentMessage[]): AnyAgentTool[] {
    const source = this.options.toolSource;
    if (!source) return this.tools.tools;
    const names = [...new Set([...this.baseToolNames, ...addedToolNamesThrough(messages, messages.length - 1)])];
    const scope = { sessionId: this.sessionId, projectId: this.projectId, projectDir: this.projectDir };
    return [...this.tools.tools, ...this.builtinTools, ...source.externalTools(scope, names)].map((tool) => this.observed(tool));
  }

  /** The tool, telling the session when its execute begins (a tool_call_phase "executing"). */
  private observed(tool: AnyAgentTool): AnyAgentTool {
    let wrapped = this.observedTools.get(tool);
    if (!wrapped) {
      wrapped = {
        ...tool,
        execute: (toolCallId, params, signal, onUpdate) => {
          if (signal) this.callSignals.set(toolCallId, signal);
          this.phase(toolCallId, "executing");
          return tool.execute(toolCallId, params, signal, onUpdate);
        },
      };
      this.observedTools.set(tool, wrapped);
    }
    return wrapped;
  }

  /** Emits a tool_call_phase event through the same path as the loop's events (stored, tracked, sent). */
  private phase(toolCallId: string, phase: ToolCallPhaseEvent["phase"], reason?: string): void {
    this.onEvent({ type: "tool_call_phase", toolCallId, phase, ...(reason !== undefined ? { reason } : {}) });
  }

  /** Interrupts a running command (as Ctrl-C would); its call then ends as stopped. */
  interrupt(toolCallId: string): boolean {
    if (!this.tools.interrupt(toolCallId)) return false;
    this.interrupted.add(toolCallId);
    return true;
  }

  private get scope() {
    return { sessionId: this.sessionId, projectId: this.projectId, projectDir: this.projectDir };
  }

  get model(): Model {
    return this.agent.model;
  }

  setModel(model: Model): void {
    this.agent.setModel(model);
    if (!this.agent.isRunning) this.prepareFirstRequest();
    this.options.store.setSessionModel(this.sessionId, `${model.provider}/${model.id}`);
    this.options.onStateChange(this);
  }

  prompt(text: string, images: ImageContent[] = []): void {
    this.assertSaving();
    this.options.checkpoints?.prepare(this.scope);
    this.overflowRetried = false;
    this.agent.systemPrompt = this.systemPrompt(this.agent.activeToolNames);
    this.agent.prompt(text, images).catch((error: unknown) => this.options.hub.emit("app.notice", { level: "error", message: String(error) }));
    this.options.onStateChange(this);
  }

  steer(text: string, images: ImageContent[] = []): void {
    this.assertSaving();
    this.agent.steer(userMessage(text, images));
    this.options.onStateChange(this);
  }

  followUp(text: string, images: ImageContent[] = []): void {
    this.assertSaving();
    this.agent.followUp(userMessage(text, images));
    this.options.onStateChange(this);
  }

  abort(): void {
    this.agent.abort();
  }

  /**
   * Runs the last failed turn again: the failed (or stopped) answer stays in the transcript, and the
   * provider layer does not send it; the model answers the turn anew.
   */
  retry(): void {
    this.assertIdle("retry");
    const last = this.agent.messages.at(-1);
    const failed = last?.role === "assistant" && (last.stopReason === "error" || last.stopReason === "aborted");
    if (!failed && last?.role !== "toolResult") throw new Error("There is nothing to retry: the last turn did not fail.");
    this.assertSaving();
    this.overflowRetried = false;
    this.agent.systemPrompt = this.systemPrompt(this.agent.activeToolNames);
    this.agent.continue().catch((error: unknown) => this.options.hub.emit("app.notice", { level: "error", message: String(error) }));
    this.options.onStateChange(this);
  }

  /** Messages handled but not yet written (a storage failure holds them back), in order. */
  unsavedMessages(): AgentMessage[] {
    return this.recorder.unsavedMessages();
  }

  /** What a snapshot shows beyond the stored transcript; null when nothing is live. */
  live(): LiveSnapshot | null {
    if (!this.agent.isRunning && this.liveTools.size === 0 && !this.streaming) return null;
    return {
      streaming: this.streaming,
      retry: this.retryNotice,
      tools: [...this.liveTools.values()].map((t) => ({ ...t, output: this.recorder.outputOf(t.toolCallId)?.text() ?? "" })),
    };
  }

  /** Writes held back by a failure are tried again; refuses (with the notice's text) while they fail. */
  private assertSaving(): void {
    if (!this.recorder.failing || this.recorder.retry()) return;
    throw new ServiceError("unavailable", this.saveFailure ?? `Lathe cannot save session ${this.sessionId} at the moment.`);
  }

  private onSaveFailed(error: StoreError): void {
    const info = this.options.store.getSession(this.sessionId);
    this.saveFailure = storageFailureMessage({
      sessionId: this.sessionId,
      title: info?.title ?? null,
      error,
      dir: dirname(this.options.store.path),
      backlogBytes: this.recorder.backlogBytes(),
      units: Math.max(1, this.recorder.unsavedMessages().length),
    });
    // Stop before anything else acts; the stopped answer says why.
    if (this.agent.isRunning) this.agent.abort(STOPPED_UNSAVED);
    this.options.hub.emit("app.notice", { level: "error", message: this.saveFailure });
  }

  private onSaveRecovered(): void {
    this.saveFailure = null;
    this.options.hub.emit("app.notice", {
      level: "warning",
      message: `Session ${this.sessionId} is saved again: everything held back was written. Press Retry or send a message to go on.`,
    });
    this.options.onStateChange(this);
  }

  state(pendingPermissions: SessionState["pendingPermissions"]): SessionState {
    const text = (m: AgentMessage) =>
      m.role === "user" ? (typeof m.content === "string" ? m.content : m.content.map((c) => (c.type === "text" ? c.text : "[image]")).join(" ")) : "";
    return {
      sessionId: this.sessionId,
      running: this.agent.isRunning,
      model: `${this.model.provider}/${this.model.id}`,
      queued: { steering: this.agent.queued.steering.map(text), followUp: this.agent.queued.followUp.map(text) },
      pendingPermissions,
      contextTokens: contextTokens(this.agent.messages),
      contextWindow: this.model.contextWindow,
      instructionFiles: this.instructionFiles,
      lastRun: this.agent.isRunning ? null : this.lastRun,
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
    await this.append({
      role: "custom",
      customType: COMPACTION_UNDO,
      content: "Compaction undone: the model sees the full history again.",
      display: true,
      details: { undoes: index },
      timestamp: Date.now(),
    });
  }

  /** Adds an app entry (a rewind's note) to the transcript; not while running. */
  async addEntry(entry: AgentMessage): Promise<void> {
    this.assertIdle("add to the transcript");
    await this.append(entry);
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
    if (this.firstRequestReady) {
      await this.firstRequestReady;
      this.firstRequestReady = undefined;
    }
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
    this.assertSaving();
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
    this.stopWatchingTools();
    this.stopPreparing.abort();
    this.agent.abort();
    await this.agent.waitForIdle();
    this.recorder.close();
  }

  private systemPrompt(toolNames: readonly string[]): string {
    // Only built-in tools are listed: server tools loaded mid-session must not change the prompt.
    const active = [...this.tools.tools, ...this.builtinTools].filter((t) => toolNames.includes(t.name));
    const instructions = loadProjectInstructions(this.projectDir);
    this.instructionFiles = instructions.map((i) => i.path);
    return buildSystemPrompt({ projectDir: this.projectDir, tools: active, instructions });
  }

  private onEvent(event: SessionEvent): void {
    if (!this.outOfBand) this.recorder.handle(event);
    this.track(event);
    this.options.hub.sessionEvent(this.sessionId, event);
    if (event.type === "turn_end") this.afterBatch?.(event.message);
    if (event.type === "tool_execution_end") {
      const signal = this.callSignals.get(event.toolCallId);
      const interrupted = this.interrupted.delete(event.toolCallId);
      this.callSignals.delete(event.toolCallId);
      const tool = this.liveTools.get(event.toolCallId);
      if (event.isError && !tool?.phase && (signal?.aborted || interrupted))
        this.phase(event.toolCallId, "stopped", interrupted && !signal?.aborted ? "Interrupted by you." : "Stopped with the run.");
    }
    if (event.type === "agent_start") {
      this.lastRun = null;
      this.options.onStateChange(this);
    }
    if (event.type === "message_start" && event.message.role === "user") this.options.onStateChange(this);
    if (event.type === "turn_end") {
      const key = this.options.checkpoints?.turnKey(this.sessionId, event.message);
      if (key) void this.options.checkpoints?.afterTurn(this.scope, key);
    }
    if (event.type === "agent_end") {
      // The agent clears its running flag after this event: act once it has.
      queueMicrotask(() => void this.agent.waitForIdle().then(() => this.afterRun()));
    }
  }

  /** Keeps what live() reports, from the events as they pass. */
  private track(event: SessionEvent): void {
    switch (event.type) {
      case "message_start":
      case "message_update":
        if (event.message.role === "assistant") {
          this.streaming = event.message;
          this.retryNotice = null;
        }
        break;
      case "message_end":
        if (event.message.role === "assistant") this.streaming = null;
        if (event.message.role === "toolResult") this.liveTools.delete(event.message.toolCallId);
        break;
      case "provider_retry":
        this.retryNotice = event.retry;
        break;
      case "agent_end":
        this.streaming = null;
        this.retryNotice = null;
        this.liveTools.clear();
        break;
      case "tool_execution_start":
        this.liveTools.set(event.toolCallId, {
          toolCallId: event.toolCallId,
          toolName: event.toolName,
          args: event.args,
          status: "running",
          startedAt: Date.now(),
          executingAt: null,
          endedAt: null,
          skippedBytes: 0,
          progress: null,
          waitingForInput: false,
          result: null,
        });
        break;
      case "tool_execution_update": {
        const tool = this.liveTools.get(event.toolCallId);
        if (!tool) break;
        const { chunk: _chunk, ...progress } = (event.partialResult.details ?? {}) as Record<string, unknown>;
        tool.progress = progress;
        if (typeof progress.skippedBytes === "number") tool.skippedBytes += progress.skippedBytes;
        if (typeof progress.waitingForInput === "boolean") tool.waitingForInput = progress.waitingForInput;
        break;
      }
      case "tool_call_phase": {
        const tool = this.liveTools.get(event.toolCallId);
        if (!tool) break;
        if (event.phase === "executing") tool.executingAt = Date.now();
        else tool.phase = { outcome: event.phase, ...(event.reason !== undefined ? { reason: event.reason } : {}) };
        break;
      }
      case "tool_execution_end": {
        const tool = this.liveTools.get(event.toolCallId);
        if (!tool) break;
        tool.status = event.isError ? "error" : "done";
        tool.endedAt = Date.now();
        tool.waitingForInput = false;
        tool.result = { content: event.result.content, details: event.result.details, isError: event.isError };
        break;
      }
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
    this.lastRun = runOutcome(last);
    this.options.onStateChange(this);
    this.options.onRunEnd?.(this, last);
  }
}

/** How a run ended, from its last answer: stopped by the person, failed, or done. */
function runOutcome(last: AssistantMessage | undefined): NonNullable<SessionState["lastRun"]> {
  const endedAt = Date.now();
  if (last?.stopReason === "aborted") return { outcome: "stopped", endedAt };
  if (last?.stopReason === "error") return { outcome: "failed", endedAt, ...(last.errorMessage ? { error: last.errorMessage } : {}) };
  return { outcome: "done", endedAt };
}
