// The options a LiveSession is made with (new-live-session.ts fills them from the services' ports),
// and the shapes of the permission hooks it calls around each tool call. Types only.
import type { AssistantMessage, AgentMessage, Model } from "../../shared/agent-types.ts";
import type { AgentLoopConfig, BeforeToolCallContext, BeforeToolCallResult, LlmContext, StreamFn } from "../loop/index.ts";
import type { SessionStore } from "../store/index.ts";
import type { CommandSandbox } from "../sandbox/session-sandbox.ts";
import type { OutputRedactor } from "../tools/index.ts";
import type { TurnCheckpoints } from "./checkpoint-port.ts";
import type { SessionEventPort } from "./event-port.ts";
import type { SessionToolSource } from "./session-tools.ts";

/** A blocked call's result, with what blocked it: a decision ("denied") or a stopped run ("stopped"). */
export interface SessionBeforeResult extends BeforeToolCallResult {
  outcome?: "denied" | "stopped";
}

export interface ToolHooks {
  beforeToolCall?: (ctx: BeforeToolCallContext, signal?: AbortSignal) => Promise<SessionBeforeResult | undefined>;
  afterToolCall?: AgentLoopConfig["afterToolCall"];
  /** The batch of an assistant message is over (its turn_end). Must not throw. */
  afterBatch?: (message: AssistantMessage) => void;
}

export interface SessionScope {
  sessionId: number;
  projectId: number;
  projectDir: string;
  /** Aborts the session's current run (for hooks that wait on a person). */
  signal?: AbortSignal;
}

/** `Session` is the LiveSession the callbacks are given (a parameter, so this file needs nothing of it). */
export interface LiveSessionOptions<Session> {
  sessionId: number;
  projectId: number;
  projectDir: string;
  messages: AgentMessage[];
  baseToolNames: string[];
  model: Model;
  store: SessionStore;
  hub: SessionEventPort;
  streamFn: StreamFn;
  /** Builds what a request for the context would send, sending nothing (providers' prepareRequest); the first request after opening then converts only what is new. */
  prepareRequest?: (model: Model, context: LlmContext) => void;
  hooks: (scope: SessionScope) => ToolHooks;
  /** Called whenever what `state()` returns may have changed. */
  onStateChange: (session: Session) => void;
  /** Whether to compact automatically (read at each request). */
  autoCompact: () => boolean;
  /** Called after each run, for notifications and the session list. */
  onRunEnd?: (session: Session, last: AssistantMessage | undefined) => void;
  bashTimeoutMs?: number;
  /** Whether commands running at once share the CPU like one program (the user's setting; default yes). */
  lowerCommandPriority?: () => boolean;
  /** Applied to terminal logs before they are stored (secret redaction). */
  redact?: (text: string) => string;
  /** The session's sandbox, where its commands run. */
  sandbox?: CommandSandbox;
  /** Tools besides the coding tools (MCP servers and tool_search). */
  toolSource?: SessionToolSource;
  /** Redacts secrets from bash output as it streams. */
  secrets?: () => OutputRedactor;
  /** Where bash saves full outputs. */
  outputDir?: string;
  /** Takes a checkpoint of the project before and after each turn that can change files. */
  checkpoints?: TurnCheckpoints;
}
