// The loop's contracts with everything it drives: the streaming model function, tools, hooks and
// the message pipeline. See docs/agent-loop.md for the rules these types carry.
import type { Static, TSchema } from "@sinclair/typebox";
import type {
  AgentEvent,
  AgentMessage,
  AgentToolResult,
  AssistantMessage,
  AssistantMessageEvent,
  Message,
  Model,
  ProviderRetry,
  ToolCall,
  ToolResultMessage,
} from "../../shared/agent-types.ts";

export type * from "../../shared/agent-types.ts";

/** A tool as the model sees it: name, description and the JSON schema of its arguments. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: TSchema;
}

/** What a streaming function is asked: everything is already converted to provider messages. */
export interface LlmContext {
  systemPrompt?: string;
  messages: Message[];
  tools?: ToolSpec[];
}

export interface StreamOptions {
  signal?: AbortSignal;
  apiKey?: string;
  maxTokens?: number;
  temperature?: number;
  /** Thinking effort for models that reason; "off" disables it. */
  reasoning?: "off" | "minimal" | "low" | "medium" | "high";
  /** Called before each retry of a failed request, so the UI can say "retrying in 4 s". */
  onRetry?: (retry: ProviderRetry) => void;
}

/** The events of one assistant message, ending with `done` or `error`; `result()` is the final message. */
export interface AssistantMessageEventStream extends AsyncIterable<AssistantMessageEvent> {
  result(): Promise<AssistantMessage>;
}

/**
 * The model, reached through this one function. Contract: never throws (not even synchronously),
 * streams deltas, and always ends with a final assistant message whose stopReason is "error" or
 * "aborted" on failure, carrying `errorMessage`. `start` comes before any block: every block of the
 * message is announced by its `*_start` event (the loop's message_start carries no blocks). A
 * streaming tool call's parsed `arguments` are a new object each time they change, never changed
 * in place (the loop measures an arguments object against its bounds once while the call streams).
 */
export type StreamFn = (model: Model, context: LlmContext, options: StreamOptions) => AssistantMessageEventStream;

export type AgentToolUpdateCallback<TDetails = unknown> = (partialResult: AgentToolResult<TDetails>) => void;

export interface AgentTool<TParams extends TSchema = TSchema, TDetails = unknown> extends ToolSpec {
  parameters: TParams;
  /** Short human name for the UI ("Run command", "Edit file"). */
  label: string;
  /** "sequential" makes the whole batch that contains this tool run one call at a time. */
  executionMode?: "parallel" | "sequential";
  /** Compatibility shim applied to the raw arguments before coercion and validation. */
  prepareArguments?: (args: unknown) => unknown;
  /**
   * Runs the call with validated arguments. Reports failure by throwing (an Error, whose message
   * the model is told; an attached `details` reaches the UI); the loop turns the throw into an
   * error result. Must resolve `{ content, details }`: anything else becomes an error result.
   * `onUpdate` streams partial results as tool_execution_update events; updates sent after the
   * returned promise settled are dropped (nothing may arrive after the call's end).
   */
  execute: (
    toolCallId: string,
    params: Static<TParams>,
    signal: AbortSignal | undefined,
    onUpdate: AgentToolUpdateCallback<TDetails> | undefined,
  ) => Promise<AgentToolResult<TDetails>>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a tool set mixes parameter schemas
export type AnyAgentTool = AgentTool<any, any>;

export interface AgentContext {
  systemPrompt: string;
  messages: AgentMessage[];
  tools: AnyAgentTool[];
}

export interface BeforeToolCallContext {
  assistantMessage: AssistantMessage;
  toolCall: ToolCall;
  /** Validated arguments. */
  args: unknown;
  context: AgentContext;
}

export interface BeforeToolCallResult {
  block?: boolean;
  reason?: string;
}

export interface AfterToolCallContext {
  assistantMessage: AssistantMessage;
  toolCall: ToolCall;
  args: unknown;
  result: AgentToolResult;
  isError: boolean;
  context: AgentContext;
}

/** Field-by-field override of a finalized result: fields left out keep their values. */
export interface AfterToolCallResult {
  content?: AgentToolResult["content"];
  details?: unknown;
  isError?: boolean;
  terminate?: boolean;
}

export interface ShouldStopAfterTurnContext {
  message: AssistantMessage;
  toolResults: ToolResultMessage[];
  context: AgentContext;
}

export interface AgentLoopConfig extends StreamOptions {
  model: Model;
  /** Agent messages to provider messages. Must not throw. */
  convertToLlm: (messages: AgentMessage[]) => Message[] | Promise<Message[]>;
  /** Prunes or rewrites the context before each request (compaction lives here). Must not throw. */
  transformContext?: (messages: AgentMessage[], signal?: AbortSignal) => Promise<AgentMessage[]>;
  /** Resolves the key per request, so a key changed in settings applies from the next turn. */
  getApiKey?: (provider: string) => string | undefined | Promise<string | undefined>;
  /** Messages to inject after the current batch. Must not throw. */
  getSteeringMessages?: () => Promise<AgentMessage[]>;
  /** Messages to run when the agent would otherwise stop. Must not throw. */
  getFollowUpMessages?: () => Promise<AgentMessage[]>;
  /** Ends the run gracefully after a turn. Must not throw. */
  shouldStopAfterTurn?: (ctx: ShouldStopAfterTurnContext) => boolean | Promise<boolean>;
  /** Default "parallel". */
  toolExecution?: "parallel" | "sequential";
  /**
   * How long the loop still waits for a tool once the run is aborted (default
   * DEFAULT_ABORT_GRACE_MS). A tool that has not settled by then is abandoned: its call ends as
   * aborted and whatever it returns later is dropped.
   */
  abortGraceMs?: number;
  beforeToolCall?: (ctx: BeforeToolCallContext, signal?: AbortSignal) => Promise<BeforeToolCallResult | undefined>;
  afterToolCall?: (ctx: AfterToolCallContext, signal?: AbortSignal) => Promise<AfterToolCallResult | undefined>;
  /**
   * The active tool set, read at the start of every turn. The layer that owns the tool set
   * (the Agent) activates a tool-result message's `addedToolNames` here; the loop only propagates
   * the field. Default: `context.tools`, unchanged.
   */
  getActiveTools?: () => AnyAgentTool[];
  /**
   * Whether a name in a result's `addedToolNames` names a tool that can be activated. Names it
   * refuses are left out of the tool-result message and reported in its content. Default: every
   * name is kept.
   */
  canActivateTool?: (name: string) => boolean;
}

/** Every event is awaited before the loop goes on. */
export type AgentEventSink = (event: AgentEvent) => Promise<void> | void;

export interface ToolBatchResult {
  messages: ToolResultMessage[];
  terminate: boolean;
}
