// The data the agent loop produces and every layer shares: messages, models, usage, and the
// lifecycle events. Plain serialisable data only (no functions, no classes), so the same values
// cross IPC to the renderer and land in the store unchanged.

export interface TextContent {
  type: "text";
  text: string;
}

export interface ThinkingContent {
  type: "thinking";
  thinking: string;
  /** Provider signature that must be sent back verbatim on later turns (Anthropic). */
  thinkingSignature?: string;
  /** Redacted thinking: `thinking` is empty and `thinkingSignature` holds the opaque payload. */
  redacted?: boolean;
}

/** Base64 image bytes with their MIME type. */
export interface ImageContent {
  type: "image";
  data: string;
  mimeType: string;
}

export interface ToolCall {
  type: "toolCall";
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  /**
   * Set when the model's arguments cannot be used: JSON that does not parse, or arguments over the
   * loop's bounds (too deep, too large). A phrase naming the problem and the fix ("the arguments
   * are not valid JSON (…); send them…"): the loop answers the call with an error result
   * "Tool NAME was not run: " + this, so the model can correct itself. `arguments` is then {}.
   */
  argumentsError?: string;
  /**
   * The argument text exactly as the model wrote it, kept when it is not a JSON object (with
   * `argumentsError`), so the call goes back to the model as it was written.
   */
  rawArguments?: string;
}

export type StopReason = "stop" | "length" | "toolUse" | "error" | "aborted";

export interface Cost {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  total: number;
}

export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  cost: Cost;
}

export interface UserMessage {
  role: "user";
  content: string | (TextContent | ImageContent)[];
  timestamp: number;
}

export interface AssistantMessage {
  role: "assistant";
  content: (TextContent | ThinkingContent | ToolCall)[];
  api: string;
  provider: string;
  model: string;
  usage: Usage;
  stopReason: StopReason;
  errorMessage?: string;
  /** Set with stopReason "error" when the provider said the request exceeded the context window. */
  contextOverflow?: boolean;
  timestamp: number;
}

export interface ToolResultMessage<TDetails = unknown> {
  role: "toolResult";
  toolCallId: string;
  toolName: string;
  content: (TextContent | ImageContent)[];
  details?: TDetails;
  isError: boolean;
  /** Tools that become active from this message on; present only when non-empty. */
  addedToolNames?: string[];
  timestamp: number;
}

/** What a model can be sent. */
export type Message = UserMessage | AssistantMessage | ToolResultMessage;

/**
 * An application message kept in the transcript but not sent to the model as such
 * (`convertToLlm` drops it or rewrites it): notices, compaction summaries, and the like.
 */
export interface CustomMessage {
  role: "custom";
  customType: string;
  content: string;
  /** Whether the UI shows it in the transcript. */
  display: boolean;
  details?: unknown;
  timestamp: number;
}

export type AgentMessage = Message | CustomMessage;

export type ModelApi = "anthropic-messages" | "openai-responses" | "openai-completions";

export interface Model {
  id: string;
  name: string;
  api: ModelApi;
  provider: string;
  baseUrl?: string;
  contextWindow: number;
  maxTokens: number;
  input: ("text" | "image")[];
  reasoning: boolean;
  /** US dollars per million tokens. */
  cost: { input: number; output: number; cacheRead: number; cacheWrite: number };
}

/** A tool's outcome: `content` goes to the model, `details` to the UI and the store. */
export interface AgentToolResult<TDetails = unknown> {
  content: (TextContent | ImageContent)[];
  details: TDetails;
  /** Asks the loop not to call the model again after this batch (honoured only if all agree). */
  terminate?: boolean;
  /** Names of tools that become available from this result's message on. */
  addedToolNames?: string[];
}

/** Streaming events of one assistant message, as a provider adapter produces them. */
export type AssistantMessageEvent =
  | { type: "start"; partial: AssistantMessage }
  | { type: "text_start"; contentIndex: number; partial: AssistantMessage }
  | { type: "text_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "text_end"; contentIndex: number; content: string; partial: AssistantMessage }
  | { type: "thinking_start"; contentIndex: number; partial: AssistantMessage }
  | { type: "thinking_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "thinking_end"; contentIndex: number; content: string; partial: AssistantMessage }
  | { type: "toolcall_start"; contentIndex: number; partial: AssistantMessage }
  /** `partial.content[contentIndex].arguments` holds the best-effort parse of the JSON so far. */
  | { type: "toolcall_delta"; contentIndex: number; delta: string; partial: AssistantMessage }
  | { type: "toolcall_end"; contentIndex: number; toolCall: ToolCall; partial: AssistantMessage }
  | { type: "done"; reason: "stop" | "length" | "toolUse"; message: AssistantMessage }
  | { type: "error"; reason: "error" | "aborted"; error: AssistantMessage };

/** A provider retry notice: "retrying in 4 s, attempt 2 of 5". */
export interface ProviderRetry {
  attempt: number;
  maxAttempts: number;
  delayMs: number;
  error: string;
}

/** The loop's lifecycle events, in the order the loop emits them. */
export type AgentEvent =
  | { type: "agent_start" }
  | { type: "agent_end"; messages: AgentMessage[] }
  | { type: "turn_start" }
  | { type: "turn_end"; message: AssistantMessage; toolResults: ToolResultMessage[] }
  | { type: "message_start"; message: AgentMessage }
  | { type: "message_update"; message: AssistantMessage; assistantMessageEvent: AssistantMessageEvent }
  | { type: "message_end"; message: AgentMessage }
  | { type: "provider_retry"; retry: ProviderRetry }
  | { type: "tool_execution_start"; toolCallId: string; toolName: string; args: unknown }
  | {
      type: "tool_execution_update";
      toolCallId: string;
      toolName: string;
      args: unknown;
      partialResult: AgentToolResult;
    }
  | {
      type: "tool_execution_end";
      toolCallId: string;
      toolName: string;
      result: AgentToolResult;
      isError: boolean;
    };

/**
 * Not a loop event: what the session layer adds about a tool call, between the loop's
 * tool_execution_start (emitted before any check) and tool_execution_end. "executing": the tool's
 * execute began (everything before it was preparation: validation, the permission question);
 * "denied": a permission decision blocked the call (`reason` as the model is told); "stopped": the
 * run was stopped before or while the call ran.
 */
export interface ToolCallPhaseEvent {
  type: "tool_call_phase";
  toolCallId: string;
  phase: "executing" | "denied" | "stopped";
  reason?: string;
}

/** What a session's event stream carries: the loop's events and the session layer's own. */
export type SessionEvent = AgentEvent | ToolCallPhaseEvent;

export function emptyUsage(): Usage {
  return {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}
