// A session's state beyond its stored transcript, as the IPC contract carries it: the permission
// requests waiting for an answer, how the last run ended, and the live snapshot of a running turn
// (the message streaming, the tools running).
import { Type } from "@sinclair/typebox";
import { SandboxRequestInfoSchema } from "../sandbox.ts";
import { AssistantMessageSchema, ProviderRetrySchema, TextContentSchema } from "./agent-schemas.ts";
import { McpCallSummarySchema } from "./mcp-schemas.ts";
import { Nullable } from "./store-schemas.ts";

const Id = Type.Integer({ minimum: 1 });

export const PermissionRequestSchema = Type.Object({
  id: Type.String(),
  sessionId: Id,
  toolCallId: Type.String(),
  toolName: Type.String(),
  args: Type.Unknown(),
  /** What the call would do, for a person: the exact command, or the file and its diff. */
  summary: Type.Object({
    title: Type.String(),
    command: Type.Optional(Type.String()),
    path: Type.Optional(Type.String()),
    diff: Type.Optional(Type.String()),
    outsideProject: Type.Boolean(),
    /** A call to an MCP server's tool: which, what it says it does, and its own hints. */
    mcp: Type.Optional(McpCallSummarySchema),
  }),
  /** Why it asks (parts no rule allows, constructs no rule can allow), one line each. */
  reasons: Type.Optional(Type.Array(Type.String())),
  /** What to notice whatever the answer: protected files, look-alike characters. */
  warnings: Type.Optional(Type.Array(Type.String())),
  /** The rule "always allow in this project" would save (editable before saving): one pattern per line. */
  proposedRule: Type.Object({
    tool: Type.String(),
    pattern: Type.String(),
    /** What each line of the pattern means. */
    meaning: Type.Optional(Type.Array(Type.String())),
    /** E.g. "rm destroys data: the rule allows only this exact command." */
    warning: Type.Optional(Type.String()),
  }),
  /** Where the call would run and which rule of the sandbox it would cross. */
  sandbox: Type.Optional(SandboxRequestInfoSchema),
  /**
   * When more than one call of an assistant message (a batch) needs an answer, they are all asked
   * at once: the batch's id, this call's place among the message's calls (source order), and how
   * many calls of the batch ask. Answers are kept until each call's turn comes.
   */
  batch: Type.Optional(Type.Object({ id: Type.String(), position: Type.Integer({ minimum: 0 }), asking: Type.Integer({ minimum: 1 }) })),
  createdAt: Type.Number(),
});

export const RunOutcomeSchema = Type.Object({
  outcome: Type.Union([Type.Literal("done"), Type.Literal("failed"), Type.Literal("stopped")]),
  /** A failed run's error, as the answer says it. */
  error: Type.Optional(Type.String()),
  endedAt: Type.Number(),
});

export const SessionStateSchema = Type.Object({
  sessionId: Id,
  running: Type.Boolean(),
  model: Nullable(Type.String()),
  queued: Type.Object({ steering: Type.Array(Type.String()), followUp: Type.Array(Type.String()) }),
  pendingPermissions: Type.Array(PermissionRequestSchema),
  /** Context the next request would carry (provider counts, estimates beyond), and the model's window. */
  contextTokens: Type.Number(),
  contextWindow: Type.Number(),
  /** Project instruction files (AGENTS.md, CLAUDE.md) loaded into the system prompt. */
  instructionFiles: Type.Array(Type.String()),
  /**
   * How this session's last run since the app started ended (null while one runs, or before any):
   * the sidebar's "failed" badge and the desktop notifications read it.
   */
  lastRun: Type.Optional(Nullable(RunOutcomeSchema)),
});

/** A tool call of the current run whose result message is not in the transcript yet. */
export const LiveToolSchema = Type.Object({
  toolCallId: Type.String(),
  toolName: Type.String(),
  args: Type.Unknown(),
  status: Type.Union([Type.Literal("running"), Type.Literal("done"), Type.Literal("error")]),
  /** When its tool_execution_start came (preparation, permission question included, begins). */
  startedAt: Type.Number(),
  /** When the tool's execute began (null while it is prepared or waits for an answer). */
  executingAt: Nullable(Type.Number()),
  /** Set when a permission decision blocked it, or the run was stopped before or while it ran. */
  phase: Type.Optional(Type.Object({ outcome: Type.Union([Type.Literal("denied"), Type.Literal("stopped")]), reason: Type.Optional(Type.String()) })),
  endedAt: Nullable(Type.Number()),
  /** The raw terminal output shown so far (bounded: head and tail). */
  output: Type.String(),
  skippedBytes: Type.Number(),
  /** The latest progress details, without the output chunk. */
  progress: Type.Unknown(),
  waitingForInput: Type.Boolean(),
  result: Nullable(
    Type.Object({
      content: Type.Array(Type.Union([TextContentSchema, Type.Object({ type: Type.Literal("image"), data: Type.String(), mimeType: Type.String() })])),
      details: Type.Unknown(),
      isError: Type.Boolean(),
    }),
  ),
});

/** What a running session shows beyond its stored transcript: the message streaming, running tools. */
export const LiveSnapshotSchema = Type.Object({
  streaming: Nullable(AssistantMessageSchema),
  retry: Nullable(ProviderRetrySchema),
  tools: Type.Array(LiveToolSchema),
});
