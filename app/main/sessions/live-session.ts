// LiveSession: one session that can run: its Agent, its coding tools (bound to the project
// folder), the tools of its tool source (MCP servers and tool_search, kept current as servers come
// and go), and its recorder. Every loop event goes to the recorder (so messages land in the store
// as they end) and to the event hub (so every connected renderer sees them), in the loop's order.
// Durable before acting: a tool call runs only when the assistant message that made it is stored
// (a gate in front of beforeToolCall). When a write fails the run is stopped at once and one
// notice says how much space to free; the recorder keeps what was not written and writes it, in
// order, as soon as it can; until then new runs are refused with the same explanation.
// What a snapshot needs beyond the stored transcript (`live()`) is kept by live-activity.ts from
// the events; what the model is sent, compaction and the preparation of the first request after
// opening, by session-context.ts; the options' and hooks' types are in live-session-options.ts.
// A compaction outside a run (by hand, or after a context overflow before the turn is retried)
// goes through out-of-run-work.ts: meanwhile the session reports itself running and refuses new
// messages, and Stop or deletion ends it at once, the transcript unchanged.
import { dirname } from "node:path";
import type { AgentMessage, AssistantMessage, ImageContent, Model, SessionEvent, ToolCallPhaseEvent } from "../../shared/agent-types.ts";
import type { LiveSnapshot, SessionState } from "../../shared/ipc/contract.ts";
import { Agent, userMessage, addedToolNamesThrough, type AnyAgentTool } from "../loop/index.ts";
import type { SessionRecorder, StoreError } from "../store/index.ts";
import { ServiceError } from "../../shared/errors.ts";
import { NOT_RUN_UNSAVED, STOPPED_UNSAVED, storageFailureMessage } from "./storage-failure.ts";
import { createCodingTools, type CodingTools } from "../tools/index.ts";
import { contextTokens, type modelView } from "./context.ts";
import { LiveActivity } from "./live-activity.ts";
import { OutOfRunWork } from "./out-of-run-work.ts";
import { queuedPreview } from "./queued-preview.ts";
import type { LiveSessionOptions as OptionsOf, ToolHooks } from "./live-session-options.ts";
import { SessionContext } from "./session-context.ts";
import { buildSystemPrompt, loadProjectInstructionsOffThread, type ProjectInstructions } from "./system-prompt.ts";

export type LiveSessionOptions = OptionsOf<LiveSession>;

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

export class LiveSession {
  readonly sessionId: number;
  readonly projectId: number;
  readonly projectDir: string;
  readonly agent: Agent;
  readonly tools: CodingTools;
  private readonly recorder: SessionRecorder;
  private readonly options: LiveSessionOptions;
  /** The project's instruction files as last read (loadInstructions, before each prompt and retry). */
  private instructions: ProjectInstructions[] = [];
  /** Set while an entry is written outside a run: the store gets it directly, not the recorder. */
  private outOfBand = false;
  private overflowRetried = false;
  /** The notice of the current storage outage, once sent (one per outage). */
  private saveFailure: string | null = null;
  /** How the last run ended (null while one runs, or before the first). */
  private lastRun: SessionState["lastRun"] = null;
  private readonly activity = new LiveActivity();
  private readonly baseToolNames: string[];
  private readonly builtinTools: AnyAgentTool[];
  private readonly stopWatchingTools: () => void;
  private readonly observedTools = new WeakMap<AnyAgentTool, AnyAgentTool>();
  /** The abort signal each executing call was given (to tell a stopped call from a failed one). */
  private readonly callSignals = new Map<string, AbortSignal>();
  /** Calls the person interrupted. */
  private readonly interrupted = new Set<string>();
  private readonly afterBatch: ToolHooks["afterBatch"];
  /** The model's context: its view, compaction, the first request's preparation. */
  private readonly context: SessionContext;
  /** A compaction going outside a run, which Stop and dispose abort. */
  private readonly outOfRun = new OutOfRunWork();
  /** dispose() was called (the session deleted, the app quitting): no run starts any more. */
  private disposed = false;

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
      lowerPriority: options.lowerCommandPriority,
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
        if (key && options.checkpoints) await untilAborted(options.checkpoints.beforeTurn(this.scope, key, this.placeOf(ctx.assistantMessage)), signal);
        return result && { block: result.block, reason: result.reason };
      },
      afterToolCall: hooks.afterToolCall,
      transformContext: (_messages, signal) => this.context.transformContext(signal),
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
    this.context = new SessionContext({
      sessionId: this.sessionId,
      agent: this.agent,
      streamFn: options.streamFn,
      prepareRequest: options.prepareRequest,
      autoCompact: options.autoCompact,
      warn: (message) => options.hub.emit("app.notice", { level: "warning", message }),
      append: (entry) => this.append(entry),
    });
    this.context.prepareNextRequest();
  }

  /** Every tool the agent may activate: coding tools, the source's built-ins, and its tools for the names this session uses. */
  /** Where a stored message is in the transcript (the agent holds it whole, at store positions), and the user message before it. */
  private placeOf(message: AgentMessage): { position: number; userPosition: number } | undefined {
    const messages = this.agent.messages;
    const position = messages.lastIndexOf(message);
    if (position < 0) return undefined;
    let userPosition = position - 1;
    while (userPosition >= 0 && messages[userPosition]!.role !== "user") userPosition--;
    return { position, userPosition };
  }

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
    if (!this.agent.isRunning) this.context.prepareNextRequest();
    this.options.store.setSessionModel(this.sessionId, `${model.provider}/${model.id}`);
    this.options.onStateChange(this);
  }

  prompt(text: string, images: ImageContent[] = []): void {
    this.assertOpen();
    this.assertNotCompacting();
    this.assertSaving();
    this.options.checkpoints?.prepare(this.scope);
    this.overflowRetried = false;
    this.agent.systemPrompt = this.systemPrompt(this.agent.activeToolNames);
    this.agent.prompt(text, images).catch((error: unknown) => this.options.hub.emit("app.notice", { level: "error", message: String(error) }));
    this.options.onStateChange(this);
  }

  steer(text: string, images: ImageContent[] = []): void {
    this.assertNotCompacting();
    this.assertSaving();
    this.agent.steer(userMessage(text, images));
    this.options.onStateChange(this);
  }

  followUp(text: string, images: ImageContent[] = []): void {
    this.assertOpen();
    this.assertNotCompacting();
    this.assertSaving();
    this.agent.followUp(userMessage(text, images));
    this.options.onStateChange(this);
  }

  /** Stops the run, or the compaction going outside a run. */
  abort(): void {
    this.agent.abort();
    this.outOfRun.abort();
  }

  /** Running, or compacting outside a run: what the session reports as running (Stop ends either). */
  get busy(): boolean {
    return this.agent.isRunning || this.outOfRun.busy;
  }

  /**
   * Runs the last failed turn again: the failed (or stopped) answer stays in the transcript, and the
   * provider layer does not send it; the model answers the turn anew.
   */
  retry(): void {
    this.assertOpen();
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
    if (!this.agent.isRunning && this.activity.idle) return null;
    return this.activity.snapshot((toolCallId) => this.recorder.outputOf(toolCallId)?.text() ?? "");
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
    return {
      sessionId: this.sessionId,
      running: this.busy,
      model: `${this.model.provider}/${this.model.id}`,
      queued: { steering: this.agent.queued.steering.map(queuedPreview), followUp: this.agent.queued.followUp.map(queuedPreview) },
      pendingPermissions,
      contextTokens: contextTokens(this.agent.messages),
      contextWindow: this.model.contextWindow,
      instructionFiles: this.instructions.map((i) => i.path),
      lastRun: this.busy ? null : this.lastRun,
    };
  }

  /** Summarizes the older part of the session now, until Stop; the session is shown running meanwhile. */
  async compactNow(): Promise<{ compacted: boolean; message: string }> {
    this.assertIdle("compact");
    try {
      return await this.compactOutsideRun((signal) => this.context.compactNow(signal));
    } finally {
      this.options.onStateChange(this);
    }
  }

  /** Starts a compaction outside a run and tells the views the session is busy; the caller tells them when it ends. */
  private compactOutsideRun<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const done = this.outOfRun.run(work);
    this.options.onStateChange(this);
    return done;
  }

  async editCompaction(index: number, summary: string): Promise<void> {
    this.assertIdle("edit a summary");
    await this.context.editCompaction(index, summary);
  }

  async undoCompaction(index: number): Promise<void> {
    this.assertIdle("undo a compaction");
    await this.context.undoCompaction(index);
  }

  /** Adds an app entry (a rewind's note) to the transcript; not while running. */
  async addEntry(entry: AgentMessage): Promise<void> {
    this.assertIdle("add to the transcript");
    await this.append(entry);
  }

  private assertIdle(what: string): void {
    if (this.agent.isRunning) throw new Error(`Cannot ${what} while the session is running: wait for the run to end or stop it.`);
    if (this.outOfRun.busy) throw new Error(`Cannot ${what} while the session is compacting: wait for it to end or stop it.`);
  }

  /** Refuses new messages during a compaction outside a run: a run must not start under it. */
  private assertOpen(): void {
    if (this.disposed) throw new ServiceError("not-found", "The session was closed or deleted.");
  }

  private assertNotCompacting(): void {
    if (this.outOfRun.busy) throw new ServiceError("invalid", "The session is summarizing its earlier context: send the message when that ends, or press Stop.");
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

  /** Stops the run or compaction and waits for it; used when the session is deleted or the app quits. */
  async dispose(): Promise<void> {
    this.disposed = true;
    this.stopWatchingTools();
    this.context.stopPreparing();
    this.agent.abort();
    await Promise.all([this.agent.waitForIdle(), this.outOfRun.close()]);
    this.recorder.close();
    await this.options.sandbox?.dispose();
  }

  /**
   * Reads the project's instruction files again (AGENTS.md, CLAUDE.md), off the event loop: the
   * sessions service awaits it before a prompt or a retry. Throws ServiceError when the file
   * system does not answer in time (the prompt is refused, saying why).
   */
  async loadInstructions(): Promise<void> {
    try {
      this.instructions = await loadProjectInstructionsOffThread(this.projectDir);
    } catch (error) {
      throw new ServiceError("unavailable", `Lathe could not read the project's instruction files: ${(error as Error).message}`);
    }
  }

  private systemPrompt(toolNames: readonly string[]): string {
    // Only built-in tools are listed: server tools loaded mid-session must not change the prompt.
    const active = [...this.tools.tools, ...this.builtinTools].filter((t) => toolNames.includes(t.name));
    return buildSystemPrompt({ projectDir: this.projectDir, tools: active, instructions: this.instructions });
  }

  private onEvent(event: SessionEvent): void {
    // One clock reading for both: a live snapshot's times must equal the stored ones.
    const at = Date.now();
    if (!this.outOfBand) this.recorder.handle(event, at);
    this.activity.track(event, at);
    this.options.hub.sessionEvent(this.sessionId, event);
    if (event.type === "turn_end") this.afterBatch?.(event.message);
    if (event.type === "tool_execution_end") {
      const signal = this.callSignals.get(event.toolCallId);
      const interrupted = this.interrupted.delete(event.toolCallId);
      this.callSignals.delete(event.toolCallId);
      const tool = this.activity.tool(event.toolCallId);
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

  private async afterRun(): Promise<void> {
    const last = this.agent.messages.findLast((m): m is AssistantMessage => m.role === "assistant");
    // A context overflow: compact and retry the turn once, unless the user turned compaction off.
    let stopped = false;
    if (last?.contextOverflow && this.options.autoCompact() && !this.overflowRetried && !this.busy) {
      this.overflowRetried = true;
      const compaction = await this.compactOutsideRun((signal) => this.context.compact("overflow", signal));
      // Not retried when the session went away meanwhile (deleted, or the app quitting).
      if (compaction.entry && !this.outOfRun.closed) {
        this.agent.continue().catch((error: unknown) => this.options.hub.emit("app.notice", { level: "error", message: String(error) }));
        this.options.onStateChange(this);
        return;
      }
      stopped = compaction.stopped;
    }
    this.lastRun = stopped ? { outcome: "stopped", endedAt: Date.now() } : runOutcome(last);
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
