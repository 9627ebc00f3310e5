// TypeBox schemas of the agent's data as it crosses IPC: messages, content blocks, models and
// lifecycle events. They mirror app/shared/agent-types.ts, except `message_update`, whose wire form
// carries only what changed (WireAssistantEventSchema; app/shared/streaming-message.ts makes it and
// applies it); the app harness (test/support/app-harness.ts) checks that every event the loop
// emits validates against them.
import { Type, type Static } from "@sinclair/typebox";

export const TextContentSchema = Type.Object({ type: Type.Literal("text"), text: Type.String() });
export const ThinkingContentSchema = Type.Object({
  type: Type.Literal("thinking"),
  thinking: Type.String(),
  thinkingSignature: Type.Optional(Type.String()),
  redacted: Type.Optional(Type.Boolean()),
});
export const ImageContentSchema = Type.Object({
  type: Type.Literal("image"),
  data: Type.String({ description: "base64" }),
  mimeType: Type.String(),
});
export const ToolCallSchema = Type.Object({
  type: Type.Literal("toolCall"),
  id: Type.String(),
  name: Type.String(),
  arguments: Type.Record(Type.String(), Type.Unknown()),
  argumentsError: Type.Optional(Type.String()),
  rawArguments: Type.Optional(Type.String()),
});

const CostSchema = Type.Object({
  input: Type.Number(),
  output: Type.Number(),
  cacheRead: Type.Number(),
  cacheWrite: Type.Number(),
  total: Type.Number(),
});
export const UsageSchema = Type.Object({
  input: Type.Number(),
  output: Type.Number(),
  cacheRead: Type.Number(),
  cacheWrite: Type.Number(),
  totalTokens: Type.Number(),
  cost: CostSchema,
});

export const UserMessageSchema = Type.Object({
  role: Type.Literal("user"),
  content: Type.Union([Type.String(), Type.Array(Type.Union([TextContentSchema, ImageContentSchema]))]),
  timestamp: Type.Number(),
});
export const AssistantMessageSchema = Type.Object({
  role: Type.Literal("assistant"),
  content: Type.Array(Type.Union([TextContentSchema, ThinkingContentSchema, ToolCallSchema])),
  api: Type.String(),
  provider: Type.String(),
  model: Type.String(),
  usage: UsageSchema,
  stopReason: Type.Union([Type.Literal("stop"), Type.Literal("length"), Type.Literal("toolUse"), Type.Literal("error"), Type.Literal("aborted")]),
  errorMessage: Type.Optional(Type.String()),
  contextOverflow: Type.Optional(Type.Boolean()),
  timestamp: Type.Number(),
});
export const ToolResultMessageSchema = Type.Object({
  role: Type.Literal("toolResult"),
  toolCallId: Type.String(),
  toolName: Type.String(),
  content: Type.Array(Type.Union([TextContentSchema, ImageContentSchema])),
  details: Type.Optional(Type.Unknown()),
  isError: Type.Boolean(),
  addedToolNames: Type.Optional(Type.Array(Type.String())),
  timestamp: Type.Number(),
});
export const CustomMessageSchema = Type.Object({
  role: Type.Literal("custom"),
  customType: Type.String(),
  content: Type.String(),
  display: Type.Boolean(),
  details: Type.Optional(Type.Unknown()),
  timestamp: Type.Number(),
});
export const AgentMessageSchema = Type.Union([UserMessageSchema, AssistantMessageSchema, ToolResultMessageSchema, CustomMessageSchema]);

export const ModelSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  api: Type.Union([Type.Literal("anthropic-messages"), Type.Literal("openai-responses"), Type.Literal("openai-completions")]),
  provider: Type.String(),
  baseUrl: Type.Optional(Type.String()),
  contextWindow: Type.Number(),
  maxTokens: Type.Number(),
  input: Type.Array(Type.Union([Type.Literal("text"), Type.Literal("image")])),
  reasoning: Type.Boolean(),
  cost: Type.Object({ input: Type.Number(), output: Type.Number(), cacheRead: Type.Number(), cacheWrite: Type.Number() }),
});

export const ProviderRetrySchema = Type.Object({ attempt: Type.Number(), maxAttempts: Type.Number(), delayMs: Type.Number(), error: Type.String() });

export const ToolResultPayloadSchema = Type.Object({
  content: Type.Array(Type.Union([TextContentSchema, ImageContentSchema])),
  details: Type.Unknown(),
  terminate: Type.Optional(Type.Boolean()),
  addedToolNames: Type.Optional(Type.Array(Type.String())),
});

/** A block's place in the streaming message's content (messages are built block by block). */
const At = { contentIndex: Type.Integer({ minimum: 0 }) };

/**
 * A streaming update as sent to the renderer: what changed, never the whole message (sending the
 * message with every frame's update made a long answer cost O(n²) to send and to read). The
 * receiver applies it to the message it got at `message_start` (app/shared/streaming-message.ts,
 * `applyStreamUpdate`): a `*_start` adds a block (empty, with its small fields), a `*_delta`
 * appends its text, `toolcall_end` replaces the call with its final form. A tool call's parsed
 * `arguments` (and its id or name when they changed) come with a delta only now and then: every
 * time while the call is short, then each time its text has doubled, up to a bound
 * (`toolArgumentsCadence` in app/main/ipc/event-batcher.ts), so a call's copies stay bounded
 * whatever its size. `start`, `done` and `error` (which the loop does not emit as updates) change
 * nothing.
 */
export const WireAssistantEventSchema = Type.Union([
  Type.Object({ type: Type.Union([Type.Literal("start"), Type.Literal("done"), Type.Literal("error")]) }),
  Type.Object({ type: Type.Literal("text_start"), ...At }),
  Type.Object({ type: Type.Literal("text_delta"), ...At, delta: Type.String() }),
  Type.Object({ type: Type.Literal("text_end"), ...At }),
  Type.Object({ type: Type.Literal("thinking_start"), ...At, thinkingSignature: Type.Optional(Type.String()), redacted: Type.Optional(Type.Boolean()) }),
  Type.Object({ type: Type.Literal("thinking_delta"), ...At, delta: Type.String() }),
  Type.Object({ type: Type.Literal("thinking_end"), ...At, thinkingSignature: Type.Optional(Type.String()) }),
  Type.Object({ type: Type.Literal("toolcall_start"), ...At, id: Type.String(), name: Type.String() }),
  Type.Object({
    type: Type.Literal("toolcall_delta"),
    ...At,
    delta: Type.String(),
    id: Type.Optional(Type.String()),
    name: Type.Optional(Type.String()),
    arguments: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  }),
  Type.Object({ type: Type.Literal("toolcall_end"), ...At, toolCall: ToolCallSchema }),
]);

const event = <T extends string, P extends Parameters<typeof Type.Object>[0]>(type: T, props: P) => Type.Object({ type: Type.Literal(type), ...props });

/** SessionEvent on the wire: the loop's AgentEvent and the session layer's tool_call_phase (see app/shared/agent-types.ts). */
export const WireAgentEventSchema = Type.Union([
  event("agent_start", {}),
  /** Without the run's messages on the wire: each went with its message_end. */
  event("agent_end", {}),
  event("turn_start", {}),
  /** Without the turn's messages on the wire: each went with its message_end. */
  event("turn_end", {}),
  event("message_start", { message: AgentMessageSchema }),
  /** Only what changed (see WireAssistantEventSchema); `usage` when it changed since the last update sent. */
  event("message_update", { assistantMessageEvent: WireAssistantEventSchema, usage: Type.Optional(UsageSchema) }),
  event("message_end", { message: AgentMessageSchema }),
  event("provider_retry", { retry: ProviderRetrySchema }),
  event("tool_execution_start", { toolCallId: Type.String(), toolName: Type.String(), args: Type.Unknown() }),
  event("tool_execution_update", {
    toolCallId: Type.String(),
    toolName: Type.String(),
    args: Type.Unknown(),
    partialResult: ToolResultPayloadSchema,
  }),
  event("tool_execution_end", {
    toolCallId: Type.String(),
    toolName: Type.String(),
    result: ToolResultPayloadSchema,
    isError: Type.Boolean(),
  }),
  event("tool_call_phase", {
    toolCallId: Type.String(),
    phase: Type.Union([Type.Literal("executing"), Type.Literal("denied"), Type.Literal("stopped")]),
    reason: Type.Optional(Type.String()),
  }),
]);

export type WireAgentEvent = Static<typeof WireAgentEventSchema>;
export type WireAssistantEvent = Static<typeof WireAssistantEventSchema>;
export type WireMessageUpdate = Extract<WireAgentEvent, { type: "message_update" }>;
