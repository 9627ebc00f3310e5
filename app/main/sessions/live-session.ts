// LiveSession: one session that can run: its Agent, its coding tools (bound to the project
// folder), and its recorder. Every loop event goes to the recorder (so messages land in the store
// as they end) and to the event hub (so every connected renderer sees them), in the loop's order.
import type { AgentEvent, AgentMessage, AssistantMessage, ImageContent, Model } from "../../shared/agent-types.ts";
import type { SessionState } from "../../shared/ipc/contract.ts";
import { Agent } from "../loop/agent.ts";
import type { AgentLoopConfig, StreamFn } from "../loop/types.ts";
import type { EventHub } from "../ipc/event-hub.ts";
import type { SessionRecorder, SessionStore } from "../store/index.ts";
import { createCodingTools, type CodingTools } from "../tools/index.ts";
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
  private contextTokens = 0;

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
      onSubscriberError: (error) => console.error("[sessions] event subscriber failed:", error),
    });
    this.contextTokens = lastContextTokens(options.messages);
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
    this.agent.systemPrompt = this.systemPrompt(this.agent.activeToolNames);
    this.agent.prompt(text, images).catch((error: unknown) => this.options.hub.emit("app.notice", { level: "error", message: String(error) }));
    this.options.onStateChange(this);
  }

  steer(text: string): void {
    this.agent.steer(text);
    this.options.onStateChange(this);
  }

  followUp(text: string): void {
    this.agent.followUp(text);
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
      contextTokens: this.contextTokens,
      contextWindow: this.model.contextWindow,
    };
  }

  /** Stops the run and waits for it; used when the session is deleted or the app quits. */
  async dispose(): Promise<void> {
    this.agent.abort();
    await this.agent.waitForIdle();
    this.recorder.close();
  }

  private systemPrompt(toolNames: readonly string[]): string {
    const active = this.tools.tools.filter((t) => toolNames.includes(t.name));
    return buildSystemPrompt({ projectDir: this.projectDir, tools: active, instructions: loadProjectInstructions(this.projectDir) });
  }

  private onEvent(event: AgentEvent): void {
    this.recorder.handle(event);
    this.options.hub.sessionEvent(this.sessionId, event);
    if (event.type === "message_end" && event.message.role === "assistant") {
      this.contextTokens = lastContextTokens([event.message]) || this.contextTokens;
    }
    if (event.type === "agent_start") this.options.onStateChange(this);
    if (event.type === "message_start" && event.message.role === "user") this.options.onStateChange(this);
    if (event.type === "agent_end") {
      // The agent clears its running flag after this event: report the state once it has.
      queueMicrotask(() => {
        void this.agent.waitForIdle().then(() => {
          this.options.onStateChange(this);
          const last = this.agent.messages.findLast((m): m is AssistantMessage => m.role === "assistant");
          this.options.onRunEnd?.(this, last);
        });
      });
    }
  }
}

function lastContextTokens(messages: readonly AgentMessage[]): number {
  const last = messages.findLast((m): m is AssistantMessage => m.role === "assistant" && m.usage.totalTokens > 0);
  if (!last) return 0;
  const u = last.usage;
  return u.input + u.cacheRead + u.cacheWrite + u.output;
}
