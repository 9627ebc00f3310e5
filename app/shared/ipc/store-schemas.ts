// TypeBox schemas of the store's shapes as the renderer receives them (mirroring
// app/main/store/store-types.ts; the sessions service returns those types, so the compiler checks
// that the two agree).
import { Type } from "@sinclair/typebox";
import { AgentMessageSchema, CustomMessageSchema } from "./agent-schemas.ts";

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const ProjectInfoSchema = Type.Object({
  id: Type.Integer(),
  folder: Type.String(),
  name: Type.String(),
  createdAt: Type.Number(),
  lastOpenedAt: Type.Number(),
});

export const SessionInfoSchema = Type.Object({
  id: Type.Integer(),
  projectId: Type.Integer(),
  title: Nullable(Type.String()),
  createdAt: Type.Number(),
  updatedAt: Type.Number(),
  model: Nullable(Type.String()),
  baseToolNames: Type.Array(Type.String()),
  parentSessionId: Nullable(Type.Integer()),
  forkPosition: Nullable(Type.Integer()),
  messageCount: Type.Integer(),
  tokens: Type.Number(),
  cost: Type.Number(),
  archivedAt: Nullable(Type.Number()),
});

export const SessionCursorSchema = Type.Object({ updatedAt: Type.Number(), id: Type.Integer() });

export const SessionPageSchema = Type.Object({
  sessions: Type.Array(SessionInfoSchema),
  nextCursor: Nullable(SessionCursorSchema),
});

export const SnippetPartSchema = Type.Object({ text: Type.String(), match: Type.Boolean() });

export const SearchHitSchema = Type.Object({
  sessionId: Type.Integer(),
  sessionTitle: Nullable(Type.String()),
  projectId: Type.Integer(),
  position: Type.Integer(),
  role: Type.Union([Type.Literal("user"), Type.Literal("assistant"), Type.Literal("toolResult"), Type.Literal("custom")]),
  snippet: Type.Array(SnippetPartSchema),
});

export const SearchResultSchema = Type.Object({
  hits: Type.Array(SearchHitSchema),
  nextCursor: Nullable(Type.Integer()),
});

export const ToolCallTimeSchema = Type.Object({
  toolCallId: Type.String(),
  startedAt: Nullable(Type.Number()),
  executingAt: Nullable(Type.Number()),
  endedAt: Nullable(Type.Number()),
  isError: Nullable(Type.Boolean()),
  outcome: Nullable(Type.Union([Type.Literal("done"), Type.Literal("failed"), Type.Literal("denied"), Type.Literal("stopped")])),
  reason: Nullable(Type.String()),
});

const ToolOutputInfoSchema = Type.Object({ toolCallId: Type.String(), totalChars: Type.Integer() });

/** Consecutive messages from position `first`, with their tool calls' times and stored logs. */
export const MessagePageSchema = Type.Object({
  first: Type.Integer({ minimum: 0 }),
  messages: Type.Array(AgentMessageSchema),
  toolCalls: Type.Array(ToolCallTimeSchema),
  /** Tool calls with a stored terminal log; the text comes from tools.output. */
  outputs: Type.Array(ToolOutputInfoSchema),
});

/** A session opened at one page, with what the view needs without the other messages. */
export const TranscriptPageSchema = Type.Composite([
  MessagePageSchema,
  Type.Object({
    session: SessionInfoSchema,
    /** Messages in the session: positions 0..total-1. */
    total: Type.Integer({ minimum: 0 }),
    /** Tools active after the last message. */
    activeToolNames: Type.Array(Type.String()),
    /** Every compaction entry and undo of the session, wherever it is. */
    compactions: Type.Array(Type.Object({ position: Type.Integer({ minimum: 0 }), message: CustomMessageSchema })),
  }),
]);

export { Nullable };
