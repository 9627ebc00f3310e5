// TypeBox schemas of the store's shapes as the renderer receives them (mirroring
// app/main/store/store-types.ts; the sessions service returns those types, so the compiler checks
// that the two agree).
import { Type } from "@sinclair/typebox";
import { AgentMessageSchema, WireAgentEventSchema } from "./agent-schemas.ts";

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

export const RunInfoSchema = Type.Object({
  id: Type.Integer(),
  sessionId: Type.Integer(),
  startedAt: Type.Number(),
  endedAt: Nullable(Type.Number()),
  status: Type.Union([Type.Literal("running"), Type.Literal("completed"), Type.Literal("interrupted")]),
});

export const StoredEventSchema = Type.Object({
  runId: Type.Integer(),
  seq: Type.Integer(),
  at: Type.Number(),
  event: WireAgentEventSchema,
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

export const OpenedSessionSchema = Type.Object({
  session: SessionInfoSchema,
  messages: Type.Array(AgentMessageSchema),
  activeToolNames: Type.Array(Type.Array(Type.String())),
  runs: Type.Array(RunInfoSchema),
  events: Type.Array(StoredEventSchema),
  /** Tool calls with a stored terminal log; the text comes from tools.output. */
  outputs: Type.Array(Type.Object({ toolCallId: Type.String(), totalChars: Type.Integer() })),
});

export { Nullable };
