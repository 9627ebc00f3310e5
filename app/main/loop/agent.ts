// Agent: one conversation over the loop. Owns the transcript, the active tool set and the
// steering and follow-up queues; runs one loop at a time; fans every event out to subscribers
// (awaited in order, so a subscriber sees the transcript as it is at that event). Subscribers must
// not throw: a throwing subscriber is reported through `onSubscriberError` and skipped. The queues
// are bounded together (MAX_QUEUED_*): `steer` and `followUp` beyond a bound throw a ServiceError
// ("unavailable") and queue nothing; what was queued before stays, in order.
import type { AgentEvent, AgentMessage, ImageContent, Model, UserMessage } from "../../shared/agent-types.ts";
import { runAgentLoop, runAgentLoopContinue } from "./agent-loop.ts";
import { errorText } from "../../shared/error-text.ts";
import { ServiceError } from "../../shared/errors.ts";
import { defaultConvertToLlm } from "./messages.ts";
import { activeToolNamesByMessage } from "./tool-activation.ts";
import type { AgentContext, AgentLoopConfig, AnyAgentTool, StreamFn } from "./types.ts";

export type QueueMode = "all" | "one-at-a-time";

export interface AgentOptions extends Omit<AgentLoopConfig, "model" | "convertToLlm" | "getSteeringMessages" | "getFollowUpMessages" | "getActiveTools"> {
  model: Model;
  streamFn: StreamFn;
  systemPrompt?: string;
  /** Every tool this agent can ever activate. */
  tools: AnyAgentTool[];
  /** The names active from the start; default: every tool in `tools`. */
  baseToolNames?: string[];
  messages?: AgentMessage[];
  convertToLlm?: AgentLoopConfig["convertToLlm"];
  /** How many queued steering / follow-up messages are taken at once (default one at a time). */
  steeringMode?: QueueMode;
  followUpMode?: QueueMode;
  onSubscriberError?: (error: unknown, event: AgentEvent) => void;
}

export type AgentListener = (event: AgentEvent) => void | Promise<void>;

/** Steering and follow-ups waiting at once: many times what anyone sends while one run goes. */
export const MAX_QUEUED_MESSAGES = 100;
/** Their text, which every session state event carries again: four of the largest messages (1,000,000 characters each). */
export const MAX_QUEUED_TEXT_CHARS = 4_000_000;
/** Their images' data (base64), kept in memory until taken: twice the largest request (32 MiB). */
export const MAX_QUEUED_IMAGE_CHARS = 64 * 1024 * 1024;

export class Agent {
  systemPrompt: string;
  model: Model;
  readonly messages: AgentMessage[];
  private readonly options: AgentOptions;
  private readonly catalogue = new Map<string, AnyAgentTool>();
  private baseToolNames: string[];
  private readonly activeNames = new Set<string>();
  private readonly listeners = new Set<AgentListener>();
  private readonly steeringQueue: AgentMessage[] = [];
  private readonly followUpQueue: AgentMessage[] = [];
  private controller: AbortController | undefined;
  private running: Promise<void> | undefined;

  constructor(options: AgentOptions) {
    this.options = options;
    this.model = options.model;
    this.systemPrompt = options.systemPrompt ?? "";
    this.messages = [...(options.messages ?? [])];
    for (const tool of options.tools) this.catalogue.set(tool.name, tool);
    this.baseToolNames = options.baseToolNames ?? options.tools.map((t) => t.name);
    this.rebuildActiveTools();
  }

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  /** The tools callable in the next turn. */
  get activeTools(): AnyAgentTool[] {
    const tools: AnyAgentTool[] = [];
    for (const name of this.activeNames) {
      const tool = this.catalogue.get(name);
      if (tool) tools.push(tool);
    }
    return tools;
  }

  /** The names of `activeTools`: a name a stored transcript added but no tool answers to is left out. */
  get activeToolNames(): string[] {
    return [...this.activeNames].filter((name) => this.catalogue.has(name));
  }

  /** Active tool names after message `index` of the transcript, rebuilt from the messages alone. */
  activeToolNamesAt(index: number): string[] {
    return activeToolNamesByMessage(this.baseToolNames, this.messages.slice(0, index + 1)).at(-1) ?? [...this.baseToolNames];
  }

  subscribe(listener: AgentListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  setModel(model: Model): void {
    this.model = model;
  }

  /** Registers tools and (optionally) a new base set; the transcript's additions stay active. */
  setTools(tools: AnyAgentTool[], baseToolNames?: string[]): void {
    this.catalogue.clear();
    for (const tool of tools) this.catalogue.set(tool.name, tool);
    this.baseToolNames = baseToolNames ?? tools.map((t) => t.name);
    this.rebuildActiveTools();
  }

  /** Starts a run. Rejects when a run is already going: use steer or followUp then. */
  prompt(input: string | AgentMessage | AgentMessage[], images: ImageContent[] = []): Promise<void> {
    if (this.running) return Promise.reject(new Error("The agent is already running: steer or queue a follow-up instead."));
    const prompts = typeof input === "string" ? [userMessage(input, images)] : Array.isArray(input) ? input : [input];
    return this.run((context, config, signal) => runAgentLoop(prompts, context, config, (e) => this.dispatch(e), signal, this.options.streamFn));
  }

  /**
   * Resumes from the transcript as it is: its last message must be a user or tool result, or a
   * failed answer (then this is a retry).
   */
  continue(): Promise<void> {
    if (this.running) return Promise.reject(new Error("The agent is already running."));
    return this.run((context, config, signal) => runAgentLoopContinue(context, config, (e) => this.dispatch(e), signal, this.options.streamFn));
  }

  /**
   * Adds an app entry (a custom message, such as a compaction summary) to the transcript, with
   * its message events, at the current point: between turns when a run is going.
   */
  async appendEntry(message: AgentMessage): Promise<void> {
    await this.dispatch({ type: "message_start", message });
    await this.dispatch({ type: "message_end", message });
  }

  /** Injected after the current tool batch, before the model is asked again. */
  steer(message: string | AgentMessage): void {
    this.enqueue(this.steeringQueue, typeof message === "string" ? userMessage(message) : message);
  }

  /** Runs when the agent would otherwise stop. */
  followUp(message: string | AgentMessage): void {
    this.enqueue(this.followUpQueue, typeof message === "string" ? userMessage(message) : message);
  }

  /** Copies of the queues: changing them changes nothing. */
  get queued(): { steering: AgentMessage[]; followUp: AgentMessage[] } {
    return { steering: [...this.steeringQueue], followUp: [...this.followUpQueue] };
  }

  /** Stops the run; `reason`, when given, is what the aborted answer says instead of "Aborted by the user." */
  abort(reason?: string): void {
    this.controller?.abort(reason);
  }

  waitForIdle(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  private run(start: (context: AgentContext, config: AgentLoopConfig, signal: AbortSignal) => Promise<AgentMessage[]>): Promise<void> {
    const controller = new AbortController();
    this.controller = controller;
    const context: AgentContext = { systemPrompt: this.systemPrompt, messages: this.messages, tools: this.activeTools };
    const o = this.options;
    const config: AgentLoopConfig = {
      model: this.model,
      convertToLlm: o.convertToLlm ?? defaultConvertToLlm,
      transformContext: o.transformContext,
      getApiKey: o.getApiKey,
      apiKey: o.apiKey,
      maxTokens: o.maxTokens,
      temperature: o.temperature,
      reasoning: o.reasoning,
      onRetry: o.onRetry,
      shouldStopAfterTurn: o.shouldStopAfterTurn,
      toolExecution: o.toolExecution,
      abortGraceMs: o.abortGraceMs,
      beforeToolCall: o.beforeToolCall,
      afterToolCall: o.afterToolCall,
      getSteeringMessages: async () => takeFrom(this.steeringQueue, o.steeringMode),
      getFollowUpMessages: async () => takeFrom(this.followUpQueue, o.followUpMode),
      getActiveTools: () => this.activeTools,
      canActivateTool: (name) => this.catalogue.has(name),
    };
    const running = start(context, config, controller.signal)
      .then(() => undefined)
      .catch((error: unknown) => this.recordFailure(error))
      .finally(() => {
        this.running = undefined;
        this.controller = undefined;
      });
    this.running = running;
    return running;
  }

  /** The loop should never throw; if it does, the failure still lands in the transcript. */
  private async recordFailure(error: unknown): Promise<void> {
    const message: AgentMessage = {
      role: "custom",
      customType: "error",
      content: `The agent stopped unexpectedly: ${errorText(error)}`,
      display: true,
      timestamp: Date.now(),
    };
    await this.dispatch({ type: "message_start", message });
    await this.dispatch({ type: "message_end", message });
    await this.dispatch({ type: "agent_end", messages: [message] });
  }

  private async dispatch(event: AgentEvent): Promise<void> {
    if (event.type === "message_end") {
      const message = event.message;
      this.messages.push(message);
      if (message.role === "toolResult" && message.addedToolNames) {
        for (const name of message.addedToolNames) this.activeNames.add(name);
      }
    }
    for (const listener of this.listeners) {
      try {
        await listener(event);
      } catch (error) {
        this.options.onSubscriberError?.(error, event);
      }
    }
  }

  /** Queues `message`, or throws when the queues together would pass a bound (see the header). */
  private enqueue(queue: AgentMessage[], message: AgentMessage): void {
    const waiting = [...this.steeringQueue, ...this.followUpQueue];
    const added = queuedSize(message);
    const held = waiting.map(queuedSize).reduce((sum, size) => ({ text: sum.text + size.text, images: sum.images + size.images }), { text: 0, images: 0 });
    let full: string | undefined;
    if (waiting.length >= MAX_QUEUED_MESSAGES) full = `${waiting.length} messages are already waiting for the agent`;
    else if (held.text + added.text > MAX_QUEUED_TEXT_CHARS) full = `The messages waiting for the agent already hold ${(held.text / 1e6).toFixed(1)} million characters of text`;
    else if (held.images + added.images > MAX_QUEUED_IMAGE_CHARS) full = `The messages waiting for the agent already hold ${(held.images / 2 ** 20).toFixed(1)} MiB of images`;
    if (full) throw new ServiceError("unavailable", `${full}: this one does not fit. Send it once the agent has taken some, or stop the run.`);
    queue.push(message);
  }

  private rebuildActiveTools(): void {
    this.activeNames.clear();
    for (const name of this.activeToolNamesAt(this.messages.length - 1)) this.activeNames.add(name);
  }
}

export function userMessage(text: string, images: ImageContent[] = []): UserMessage {
  return {
    role: "user",
    content: images.length > 0 ? [{ type: "text", text }, ...images] : text,
    timestamp: Date.now(),
  };
}

/** The characters a queued message holds: its text, and its images' data. */
function queuedSize(message: AgentMessage): { text: number; images: number } {
  const content = "content" in message ? message.content : undefined;
  if (typeof content === "string") return { text: content.length, images: 0 };
  let text = 0;
  let images = 0;
  for (const part of Array.isArray(content) ? content : []) {
    if (part.type === "text") text += part.text.length;
    else if (part.type === "image") images += part.data.length;
  }
  return { text, images };
}

function takeFrom(queue: AgentMessage[], mode: QueueMode = "one-at-a-time"): AgentMessage[] {
  return mode === "all" ? queue.splice(0) : queue.splice(0, 1);
}
