// What the sessions service is given: its options and the ports it uses (the permission layer,
// the user's settings), satisfied by the other services in app-services.ts. Types only.
import type { AssistantMessage } from "../../shared/agent-types.ts";
import type { PermissionRequest, Session } from "../../shared/ipc/contract.ts";
import type { StreamFn } from "../loop/index.ts";
import type { ProviderSettings } from "../providers/index.ts";
import type { SandboxService } from "../sandbox/sandbox-service.ts";
import type { SessionStore } from "../store/index.ts";
import type { OutputRedactor } from "../tools/index.ts";
import type { TurnCheckpoints } from "./checkpoint-port.ts";
import type { SessionEventPort } from "./event-port.ts";
import type { LiveSessionOptions, SessionScope, ToolHooks } from "./live-session-options.ts";
import type { SessionToolSource } from "./session-tools.ts";

export interface PermissionsPort {
  hooks(scope: SessionScope): ToolHooks;
  pendingFor(sessionId: number): PermissionRequest[];
  /** Called when a session's run is aborted or the session goes away: its dialogs close. */
  cancelSession(sessionId: number): void;
}

/** What sessions read of the user's settings (a port: the settings service satisfies it). */
export interface SessionSettings {
  providerSettings(): ProviderSettings;
  readonly defaultModel: string | null;
  readonly autoCompact: boolean;
  /** Whether commands running at once share the CPU like one program (optional: on when absent). */
  readonly lowerCommandPriority?: boolean;
}

export interface SessionsServiceOptions {
  store: SessionStore;
  hub: SessionEventPort;
  settings: SessionSettings;
  streamFn: StreamFn;
  /** Prepares a just-opened session's first request (providers' prepareRequest; see LiveSessionOptions). */
  prepareRequest?: LiveSessionOptions<unknown>["prepareRequest"];
  permissions: PermissionsPort;
  env?: Record<string, string | undefined>;
  bashTimeoutMs?: number;
  /** Where sessions' commands run; without it, directly. */
  sandbox?: SandboxService;
  /** Tools besides the coding tools (MCP servers and tool_search); their base names are stored with each new session. */
  toolSource?: SessionToolSource;
  /** Checkpoints of every turn that may change files (a port: the checkpoint service satisfies it). */
  checkpoints?: TurnCheckpoints;
  /** A run ended (for "done" notifications while the window is hidden). */
  onRunEnd?: (session: Session | undefined, last: AssistantMessage | undefined) => void;
  /** Applied to terminal logs before they are stored (secret redaction). */
  redact?: (text: string) => string;
  /** How long a deleted session can be restored before it is removed for good (default 10 min). */
  purgeAfterMs?: number;
  /** Redacts secrets from bash output as it streams. */
  secrets?: () => OutputRedactor;
  /** Where bash saves full outputs, one folder per session (deleted with the session). */
  outputRoot?: string;
}
