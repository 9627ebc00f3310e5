// The IPC contract: every request (renderer to main) and every event (main to renderer), named
// once, with TypeBox schemas for arguments, results and payloads. The router validates requests
// against it; the preload and the WebSocket client are generated from `requestNames`.
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { ImageContentSchema, ModelSchema, WireAgentEventSchema } from "./agent-schemas.ts";
import { mcpEvents, mcpRequests } from "./mcp-schemas.ts";
import { LiveSnapshotSchema, PermissionRequestSchema, SessionStateSchema, type LiveToolSchema } from "./session-state-schemas.ts";
import { PermissionModeSchema, RuleSchema, SandboxSettingsUpdateSchema, SettingsSchema, ThemeSchema } from "./settings-schemas.ts";
import { CheckpointListSchema, FileDiffSchema, RewindOutcomeSchema, RewindPreviewSchema } from "./checkpoint-schemas.ts";
import {
  MessagePageSchema,
  Nullable,
  TranscriptPageSchema,
  ProjectInfoSchema,
  SearchResultSchema,
  SessionCursorSchema,
  SessionInfoSchema,
  SessionPageSchema,
} from "./store-schemas.ts";

const Id = Type.Integer({ minimum: 1 });
const NonEmpty = (maxLength: number) => Type.String({ minLength: 1, maxLength });
const SessionRef = { sessionId: Id };

/** Params are closed objects: an unknown field is an error, not something silently ignored. */
function request<P extends TSchema, R extends TSchema>(params: P, result: R) {
  return { params: { ...params, additionalProperties: false } as P, result };
}

export const requests = {
  "app.info": request(
    Type.Object({}),
    Type.Object({
      version: Type.String(),
      platform: Type.String(),
      dataDir: Type.String(),
      notices: Type.Array(Type.String()),
      host: Type.Union([Type.Literal("electron"), Type.Literal("browser")]),
      /** Opened read-only because another Lathe holds the data folder: only reads are answered. */
      readOnly: Type.Boolean(),
    }),
  ),
  "projects.list": request(Type.Object({}), Type.Array(ProjectInfoSchema)),
  /**
   * Opens (or reopens) a folder as a project. A relative path is taken from the home folder. The
   * home folder itself, `/` and any folder holding the home folder need `confirmed` (the window
   * asks first; projects.resolve says which those are).
   */
  "projects.open": request(Type.Object({ folder: NonEmpty(4096), confirmed: Type.Optional(Type.Boolean()) }), ProjectInfoSchema),
  /** Where a typed folder resolves to, and whether opening it needs a confirmation (home, `/`). */
  "projects.resolve": request(
    Type.Object({ folder: NonEmpty(4096) }),
    Type.Object({ folder: Type.String(), broad: Nullable(Type.Union([Type.Literal("home"), Type.Literal("root"), Type.Literal("above-home")])), home: Type.String() }),
  ),
  "projects.pickFolder": request(Type.Object({}), Type.Object({ folder: Nullable(Type.String()) })),
  "sessions.list": request(
    Type.Object({
      projectId: Type.Optional(Id),
      archived: Type.Optional(Type.Boolean()),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
      cursor: Type.Optional(Nullable(SessionCursorSchema)),
    }),
    SessionPageSchema,
  ),
  /** One session's row (title, project, model, fork origin), without its transcript. */
  "sessions.get": request(Type.Object(SessionRef), SessionInfoSchema),
  "sessions.create": request(Type.Object({ projectId: Id, model: Type.Optional(Type.String()) }), SessionInfoSchema),
  /**
   * The session as it is now, at one page: the newest `limit` messages (200 by default), or the
   * page around position `around` (a search hit), with the session's length and what the view
   * needs without the other messages (messages waiting to be written count and, on the newest
   * page, are included); state; what is live (streaming message, running tools); and `seq`, the
   * number of the last session event this snapshot reflects: apply only events numbered above it.
   */
  "sessions.open": request(
    Type.Object({ ...SessionRef, around: Type.Optional(Type.Integer({ minimum: 0 })), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })) }),
    Type.Object({ opened: TranscriptPageSchema, state: SessionStateSchema, seq: Type.Integer({ minimum: 0 }), live: Nullable(LiveSnapshotSchema) }),
  ),
  /**
   * More stored messages of a session: the `limit` (200 by default) before position `before`
   * (scrolling up), or from position `from` on (scrolling down). Stored messages never change, so
   * a page needs no event number.
   */
  "sessions.page": request(
    Type.Union([
      Type.Object({ ...SessionRef, before: Type.Integer({ minimum: 0 }), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })) }, { additionalProperties: false }),
      Type.Object({ ...SessionRef, from: Type.Integer({ minimum: 0 }), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })) }, { additionalProperties: false }),
    ]),
    MessagePageSchema,
  ),
  /** Runs the last failed turn again: the failed answer stays in the transcript and is not sent. */
  "sessions.retry": request(Type.Object(SessionRef), Type.Object({})),
  "sessions.prompt": request(
    Type.Object({ ...SessionRef, text: Type.String({ maxLength: 1_000_000 }), images: Type.Optional(Type.Array(ImageContentSchema, { maxItems: 20 })) }),
    Type.Object({ delivery: Type.Union([Type.Literal("prompt"), Type.Literal("steer"), Type.Literal("followUp")]) }),
  ),
  "sessions.steer": request(Type.Object({ ...SessionRef, text: NonEmpty(1_000_000), images: Type.Optional(Type.Array(ImageContentSchema, { maxItems: 20 })) }), Type.Object({})),
  "sessions.followUp": request(Type.Object({ ...SessionRef, text: NonEmpty(1_000_000), images: Type.Optional(Type.Array(ImageContentSchema, { maxItems: 20 })) }), Type.Object({})),
  "sessions.abort": request(Type.Object(SessionRef), Type.Object({})),
  "sessions.state": request(Type.Object(SessionRef), SessionStateSchema),
  /** The state of every session this app ran since it started (running, waiting, or how its run ended). */
  "sessions.live": request(Type.Object({}), Type.Array(SessionStateSchema)),
  "sessions.setModel": request(Type.Object({ ...SessionRef, model: NonEmpty(300) }), SessionStateSchema),
  /** Summarizes the older part of the session now (not while it runs). */
  "sessions.compact": request(Type.Object(SessionRef), Type.Object({ compacted: Type.Boolean(), message: Type.String() })),
  /** Replaces the summary of the compaction entry at transcript index `index`. */
  "sessions.editCompaction": request(Type.Object({ ...SessionRef, index: Type.Integer({ minimum: 0 }), summary: NonEmpty(200_000) }), Type.Object({})),
  /** Cancels the compaction entry at `index`: the model sees the full history again. */
  "sessions.undoCompaction": request(Type.Object({ ...SessionRef, index: Type.Integer({ minimum: 0 }) }), Type.Object({})),
  "sessions.rename": request(Type.Object({ ...SessionRef, title: NonEmpty(500) }), SessionInfoSchema),
  "sessions.archive": request(Type.Object({ ...SessionRef, archived: Type.Boolean() }), SessionInfoSchema),
  /** Deletes at once (stored), undoable with sessions.restore until it is purged a while later. */
  "sessions.delete": request(Type.Object(SessionRef), Type.Object({})),
  "sessions.restore": request(Type.Object(SessionRef), SessionInfoSchema),
  "sessions.fork": request(Type.Object({ ...SessionRef, position: Type.Integer({ minimum: 0 }) }), SessionInfoSchema),
  "sessions.export": request(
    Type.Object({ ...SessionRef, format: Type.Union([Type.Literal("markdown"), Type.Literal("json")]) }),
    Type.Object({ fileName: Type.String(), content: Type.String() }),
  ),
  "sessions.search": request(
    Type.Object({
      query: NonEmpty(1000),
      projectId: Type.Optional(Id),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
      cursor: Type.Optional(Nullable(Type.Integer({ minimum: 0 }))),
    }),
    SearchResultSchema,
  ),
  "tools.input": request(Type.Object({ ...SessionRef, toolCallId: NonEmpty(200), data: Type.String({ maxLength: 65_536 }) }), Type.Object({})),
  "tools.interrupt": request(Type.Object({ ...SessionRef, toolCallId: NonEmpty(200) }), Type.Object({})),
  /** A finished call's stored terminal log (raw, with colours; head and tail when it was long). */
  "tools.output": request(Type.Object({ ...SessionRef, toolCallId: NonEmpty(200) }), Type.Object({ text: Type.String(), totalChars: Type.Integer(), truncated: Type.Boolean() })),
  /**
   * After the sandbox blocked a bash call: asks the agent to run the command again, outside the
   * sandbox; the permission dialog then asks before it runs.
   */
  "tools.rerunOutsideSandbox": request(
    Type.Object({ ...SessionRef, toolCallId: NonEmpty(200) }),
    Type.Object({ delivery: Type.Union([Type.Literal("prompt"), Type.Literal("steer")]) }),
  ),
  "models.list": request(Type.Object({}), Type.Array(ModelSchema)),
  /**
   * Asks a compatible server for its models again and saves them. `notice`: what its list held
   * that was left out (past 5,000 models, ids that cannot be chosen), for Settings to show.
   */
  "models.refresh": request(Type.Object({ provider: NonEmpty(100) }), Type.Object({ models: Type.Array(ModelSchema), notice: Type.Optional(Type.String({ maxLength: 1000 })) })),
  "settings.get": request(Type.Object({}), SettingsSchema),
  "settings.update": request(
    Type.Object({
      defaultModel: Type.Optional(Nullable(Type.String())),
      theme: Type.Optional(ThemeSchema),
      permissionMode: Type.Optional(PermissionModeSchema),
      autoCompact: Type.Optional(Type.Boolean()),
      stallTimeoutSeconds: Type.Optional(Type.Integer({ minimum: 10, maximum: 3600 })),
      checkpointMaxFileMB: Type.Optional(Type.Integer({ minimum: 1, maximum: 1024 })),
      lowerCommandPriority: Type.Optional(Type.Boolean()),
      sandbox: Type.Optional(SandboxSettingsUpdateSchema),
    }),
    SettingsSchema,
  ),
  /** Moves the provider keys the app was started with into the keyring (then the app can start without them). */
  "settings.storeEnvironmentKeys": request(Type.Object({}), SettingsSchema),
  "settings.setProvider": request(
    Type.Object({
      id: NonEmpty(100),
      name: Type.Optional(NonEmpty(200)),
      kind: Type.Optional(Type.Union([Type.Literal("anthropic"), Type.Literal("openai"), Type.Literal("compatible")])),
      baseUrl: Type.Optional(Nullable(Type.String({ maxLength: 2048 }))),
      /** null removes a stored key. */
      apiKey: Type.Optional(Nullable(Type.String({ maxLength: 4096 }))),
    }),
    SettingsSchema,
  ),
  "settings.removeProvider": request(Type.Object({ id: NonEmpty(100) }), SettingsSchema),
  /**
   * Tests a provider: the saved one, or, with `candidate`, the saved one (if any) with these changes,
   * without saving anything (Settings saves a provider only after its test passed, unless told to).
   */
  "providers.test": request(
    Type.Object({
      id: NonEmpty(100),
      candidate: Type.Optional(
        Type.Object(
          {
            kind: Type.Optional(Type.Union([Type.Literal("anthropic"), Type.Literal("openai"), Type.Literal("compatible")])),
            baseUrl: Type.Optional(Nullable(Type.String({ maxLength: 2048 }))),
            apiKey: Type.Optional(Type.String({ maxLength: 4096 })),
          },
          { additionalProperties: false },
        ),
      ),
    }),
    /** `notice`: what the provider's model list held that was left out, as for models.refresh. */
    Type.Object({ ok: Type.Boolean(), message: Type.String(), notice: Type.Optional(Type.String({ maxLength: 1000 })) }),
  ),
  "permissions.respond": request(
    Type.Object({
      requestId: NonEmpty(200),
      decision: Type.Union([Type.Literal("allow-once"), Type.Literal("allow-session"), Type.Literal("allow-project"), Type.Literal("deny")]),
      /** With allow-project: the rule as the user edited it. */
      rule: Type.Optional(Type.Object({ tool: NonEmpty(100), pattern: NonEmpty(4096) })),
      /** With deny: sent back to the model as the tool's error. */
      reason: Type.Optional(Type.String({ maxLength: 10_000 })),
      /** With an allow: run this command outside the sandbox (the dialog's explicit choice). */
      outsideSandbox: Type.Optional(Type.Boolean()),
    }),
    Type.Object({}),
  ),
  /**
   * Answers every request of a batch still waiting, at once: allow each call once, or deny them all
   * (with one reason). Answers the requests of that batch only; returns how many it answered.
   */
  "permissions.respondBatch": request(
    Type.Object({
      batchId: NonEmpty(200),
      decision: Type.Union([Type.Literal("allow-once"), Type.Literal("deny")]),
      reason: Type.Optional(Type.String({ maxLength: 10_000 })),
    }),
    Type.Object({ answered: Type.Integer({ minimum: 0 }) }),
  ),
  "permissions.pending": request(Type.Object({}), Type.Array(PermissionRequestSchema)),
  "permissions.rules": request(Type.Object({ projectId: Type.Optional(Id), sessionId: Type.Optional(Id) }), Type.Array(RuleSchema)),
  "permissions.addRule": request(
    Type.Object({
      tool: NonEmpty(100),
      pattern: NonEmpty(4096),
      action: Type.Union([Type.Literal("allow"), Type.Literal("deny")]),
      scope: Type.Union([Type.Literal("session"), Type.Literal("project"), Type.Literal("global")]),
      scopeId: Type.Optional(Id),
    }),
    RuleSchema,
  ),
  "permissions.updateRule": request(
    Type.Object({ id: Id, pattern: Type.Optional(NonEmpty(4096)), action: Type.Optional(Type.Union([Type.Literal("allow"), Type.Literal("deny")])) }),
    RuleSchema,
  ),
  "permissions.removeRule": request(Type.Object({ id: Id }), Type.Object({})),
  ...mcpRequests,
  /** The files each turn of the session changed (from its checkpoints), and its rewinds. */
  "checkpoints.list": request(Type.Object(SessionRef), CheckpointListSchema),
  /** One file's diff between two checkpoints of the session's project (bounded). */
  "checkpoints.diff": request(Type.Object({ ...SessionRef, fromId: Id, toId: Id, fileId: NonEmpty(16_384) }), FileDiffSchema),
  /**
   * What rewinding the files to before user message `position` (or undoing rewind `undoOf`) would
   * do, file by file. Takes a checkpoint of the project as it is now. Nothing is changed yet.
   */
  "checkpoints.preview": request(Type.Object({ ...SessionRef, position: Type.Optional(Type.Integer({ minimum: 0 })), undoOf: Type.Optional(Id) }), RewindPreviewSchema),
  /**
   * Applies a preview: `restore` names the conflicting files to restore anyway (the others are
   * kept). The conversation is kept (a note is added) or forked from before the message; the files
   * go to the project, or (fork only) to a new git worktree. `changed`: files changed since the
   * preview, nothing was done: confirm the new preview.
   */
  "checkpoints.rewind": request(
    Type.Object({
      ...SessionRef,
      previewId: NonEmpty(100),
      restore: Type.Array(NonEmpty(16_384), { maxItems: 100_000 }),
      conversation: Type.Union([Type.Literal("keep"), Type.Literal("fork")]),
      destination: Type.Union([Type.Literal("project"), Type.Literal("worktree")]),
    }),
    Type.Object({ outcome: Nullable(RewindOutcomeSchema), session: Nullable(SessionInfoSchema), changed: Nullable(RewindPreviewSchema) }),
  ),
} as const;

export const events = {
  /**
   * A frame's worth of one session's lifecycle events, in the loop's order, numbered: the batch
   * covers sequence numbers fromSeq..toSeq without a gap, and seqs[i] is the number of the last
   * event events[i] stands for (adjacent deltas of one block may be joined into one event).
   */
  "session.events": Type.Object({
    sessionId: Id,
    fromSeq: Type.Integer({ minimum: 1 }),
    toSeq: Type.Integer({ minimum: 1 }),
    events: Type.Array(WireAgentEventSchema),
    seqs: Type.Array(Type.Integer({ minimum: 1 })),
  }),
  "session.state": SessionStateSchema,
  "session.updated": SessionInfoSchema,
  "permission.request": PermissionRequestSchema,
  "permission.resolved": Type.Object({ requestId: Type.String(), sessionId: Id, decision: Type.String() }),
  /** A menu command or shortcut handled by the renderer. */
  "app.command": Type.Object({
    command: Type.Union([Type.Literal("open-project"), Type.Literal("new-session"), Type.Literal("show-history"), Type.Literal("show-settings"), Type.Literal("open-session")]),
    /** With open-session (a desktop notification clicked): the session to show. */
    sessionId: Type.Optional(Id),
  }),
  "app.notice": Type.Object({ level: Type.Union([Type.Literal("info"), Type.Literal("warning"), Type.Literal("error")]), message: Type.String() }),
  ...mcpEvents,
  /** A session's checkpoints or rewinds changed: its files-changed lists are out of date. */
  "checkpoints.changed": Type.Object({ sessionId: Id }),
} as const;

export type Requests = typeof requests;
export type RequestName = keyof Requests;
export type RequestParams<N extends RequestName> = Static<Requests[N]["params"]>;
export type RequestResult<N extends RequestName> = Static<Requests[N]["result"]>;
export type EventName = keyof typeof events;
export type EventPayload<N extends EventName> = Static<(typeof events)[N]>;

export type IpcError = { code: "invalid-request" | "unknown-request" | "not-found" | "failed" | "unavailable"; message: string };
export type IpcResult<T> = { ok: true; data: T } | { ok: false; error: IpcError };

export const requestNames = Object.keys(requests) as RequestName[];
export const eventNames = Object.keys(events) as EventName[];

type Namespace = RequestName extends `${infer NS}.${string}` ? NS : never;
type Listener<E extends EventName> = (payload: EventPayload<E>) => void;
export type EventFunctionName<E extends string> = E extends `${infer A}.${infer B}` ? `on${Capitalize<A>}${Capitalize<B>}` : never;

/**
 * The API the renderer calls: one named, typed function per request (`api.sessions.prompt(...)`)
 * and one named subscription per event (`api.events.onSessionEvents(listener)`, returning an
 * unsubscribe function). There is no generic send or on.
 */
export type LatheApi = {
  [NS in Namespace]: {
    [N in RequestName as N extends `${NS}.${infer M}` ? M : never]: (params: RequestParams<N>) => Promise<IpcResult<RequestResult<N>>>;
  };
} & {
  events: { [E in EventName as EventFunctionName<E>]: (listener: Listener<E>) => () => void };
};

export function eventFunctionName<E extends EventName>(event: E): EventFunctionName<E> {
  const [a = "", b = ""] = event.split(".");
  return `on${a.charAt(0).toUpperCase()}${a.slice(1)}${b.charAt(0).toUpperCase()}${b.slice(1)}` as EventFunctionName<E>;
}

/**
 * Builds a LatheApi over any transport: `invoke` sends one request, `subscribe` listens to one
 * event. The preload (over ipcRenderer) and the WebSocket client both use it.
 */
export function buildApi(
  invoke: (name: RequestName, params: unknown) => Promise<IpcResult<unknown>>,
  subscribe: (event: EventName, listener: (payload: unknown) => void) => () => void,
): LatheApi {
  const api: Record<string, Record<string, unknown>> = { events: {} };
  for (const name of requestNames) {
    const [ns = "", method = ""] = name.split(".");
    (api[ns] ??= {})[method] = (params: unknown) => invoke(name, params ?? {});
  }
  for (const event of eventNames) {
    api.events![eventFunctionName(event)] = (listener: (payload: unknown) => void) => subscribe(event, listener);
  }
  return api as unknown as LatheApi;
}

export type Project = Static<typeof ProjectInfoSchema>;
export type Session = Static<typeof SessionInfoSchema>;
export type SessionState = Static<typeof SessionStateSchema>;
export type PermissionRequest = Static<typeof PermissionRequestSchema>;
export type PermissionRule = Static<typeof RuleSchema>;
export type Settings = Static<typeof SettingsSchema>;
export type LiveSnapshot = Static<typeof LiveSnapshotSchema>;
export type LiveTool = Static<typeof LiveToolSchema>;
