// The composition root shared by the Electron shell and the headless host: opens the store, builds
// the settings, permissions and sessions services, and maps every request of the IPC contract to
// them. Transports (Electron IPC, WebSocket) only carry requests to `router` and events from `hub`.
// Platform pieces (the keyring, the native folder picker) come in as adapters.
import type { HelperLauncher } from "./workers/snapshot-client.ts";
import path from "node:path";
import type { AssistantMessage } from "../shared/agent-types.ts";
import type { Session } from "../shared/ipc/contract.ts";
import { EventHub } from "./ipc/event-hub.ts";
import { McpService } from "./mcp/mcp-service.ts";
import { IpcRouter, type RequestHandlers } from "./ipc/router.ts";
import { ServiceError } from "../shared/errors.ts";
import { PermissionsService } from "./permissions/permissions-service.ts";
import { scannerFor, secretEnvValues, type SecretScanner } from "./permissions/redaction.ts";
import { loadShellParser } from "./permissions/shell-parser.ts";
import { createStreamModel, discoverModels, prepareRequest, testProvider } from "./providers/index.ts";
import type { StreamFn } from "./loop/index.ts";
import { SessionsService } from "./sessions/sessions-service.ts";
import type { DetectedSandbox } from "./sandbox/detect.ts";
import { SandboxService } from "./sandbox/sandbox-service.ts";
import { SettingsService, type SecretStore } from "./settings/settings-service.ts";
import { describeHolder, openStore, StoreError, type SessionStore } from "./store/index.ts";
import { readHolder } from "./store/folder-lock.ts";
import type { RequestName } from "../shared/ipc/contract.ts";
import { CheckpointService } from "./checkpoints/checkpoint-service.ts";
import { checkpointHandlers } from "./checkpoints/checkpoint-requests.ts";
import { Rewinder } from "./checkpoints/rewinder.ts";

export interface AppServicesOptions {
  dataDir: string;
  secrets: SecretStore;
  host: "electron" | "browser";
  version: string;
  env?: Record<string, string | undefined>;
  /** The native folder picker (Electron only). */
  pickFolder?: () => Promise<string | null>;
  /** Replaces the provider layer (tests point it at a local server instead through settings/env). */
  streamFn?: StreamFn;
  bashTimeoutMs?: number;
  /** How long a deleted session can be restored before it is purged (default 10 minutes). */
  purgeAfterMs?: number;
  /** Rate limit on file writes and edits per turn (default 25). */
  maxFileWritesPerTurn?: number;
  onRunEnd?: (session: Session | undefined, last: AssistantMessage | undefined) => void;
  onPermissionRequest?: (sessionId: number) => void;
  /**
   * Open the data folder without its lock and change nothing (another Lathe holds it): every
   * request that would write, run a model or a tool is refused with a message saying why.
   */
  readOnly?: boolean;
  /** Replaces the detection of the sandbox (tests: no sandbox, or a broken one). */
  detectSandbox?: () => DetectedSandbox;
  /** Bound of an MCP server's start (default 30 s). */
  mcpConnectTimeoutMs?: number;
  /**
   * "later": the work the first window does not need (AppServices.warmUp) waits for `warmUp()`
   * (the transport calls it once the first page is on its way), the first request, or
   * WARM_UP_LATEST_MS, whichever comes first. Default "now": it starts here.
   */
  warmUp?: "now" | "later";
  /** Starts helper processes (the first checkpoint's): child_process.fork unless given (Electron: utilityProcess). */
  launchHelper?: HelperLauncher;
}

/** The latest a deferred warm-up starts (see AppServicesOptions.warmUp). */
export const WARM_UP_LATEST_MS = 3_000;
/** How long after the warm-up the secret scanner is built (the first window's requests come first). */
const SECRETS_WARM_UP_DELAY_MS = 1_000;

/** What a read-only Lathe still answers: requests that only read. */
const READ_ONLY_REQUESTS: ReadonlySet<RequestName> = new Set<RequestName>([
  "app.info",
  "projects.list",
  "sessions.list",
  "sessions.open",
  "sessions.page",
  "sessions.state",
  "sessions.live",
  "sessions.get",
  "projects.resolve",
  "tools.output",
  "sessions.export",
  "sessions.search",
  "models.list",
  "settings.get",
  "permissions.pending",
  "permissions.rules",
  "mcp.list",
  "mcp.findConfigs",
  "checkpoints.list",
  "checkpoints.diff",
]);

export interface AppServices {
  router: IpcRouter;
  hub: EventHub;
  store: SessionStore;
  sessions: SessionsService;
  permissions: PermissionsService;
  settings: SettingsService;
  sandbox: SandboxService;
  mcp: McpService;
  checkpoints: CheckpointService;
  rewinder: Rewinder;
  /** Settles once interrupted rewinds are completed and git is found (or not), after warmUp(). */
  checkpointsReady: Promise<void>;
  /**
   * The secret scanner for the keys and secret values known at the warm-up, built and used once
   * about a second after warmUp(): its keyword automaton and first scan take tens of ms of the main
   * thread (over 100 on a loaded machine), paid then rather than at the first tool output of the
   * first turn. Tool calls reuse it while the keys stay the same (scannerFor). Never settles when
   * the services close first.
   */
  secretsReady: Promise<SecretScanner>;
  /**
   * Starts what the first window does not need: the bash grammar's load (the first command waits
   * for it anyway), the user's MCP servers, and the checkpoints' checks (git found, interrupted
   * rewinds completed: checkpointsReady), the search word list's fill after an upgrade, and the
   * secret scanner (secretsReady).
   * Idempotent; close() makes it a no-op.
   */
  warmUp(): void;
  notices: string[];
  close(): Promise<void>;
}

export function createAppServices(options: AppServicesOptions): AppServices {
  const env = options.env ?? process.env;
  const readOnly = options.readOnly ?? false;
  const opened = openStore({ dataDir: options.dataDir, readOnly, app: options.host === "electron" ? "the Lathe app" : "the headless host" });
  const { store } = opened;
  const notices: { message: string }[] = [...opened.notices];
  if (readOnly) {
    const holder = readHolder(options.dataDir, 1);
    notices.push({
      message: `Read-only: ${holder ? describeHolder(options.dataDir, holder) : `this Lathe opened ${options.dataDir} read-only.`} You can read sessions here, but nothing is saved or run.`,
    });
  }
  const hub = new EventHub();
  // The settings show the sandbox's status, and the sandbox reads its settings: each asks the other lazily.
  const settings: SettingsService = new SettingsService(store.settings, options.secrets, env, () => sandbox);
  const sandbox = new SandboxService({
    settings: () => settings.sandboxSettings(),
    dataDir: options.dataDir,
    env,
    home: env.HOME && env.HOME.startsWith("/") ? env.HOME : undefined,
    detect: options.detectSandbox,
  });
  void sandbox.detectInBackground();
  const streamFn = options.streamFn ?? createStreamModel({ settings: () => settings.providerSettings(), env, idleTimeoutMs: () => settings.stallTimeoutSeconds * 1000 });
  // Redaction: gitleaks' rules, the configured keys, and the values of secret-looking variables
  // of the app's environment (and of the process's, which commands inherit). The environments are
  // read once, here: they do not change while the app runs, and reading process.env at every
  // redaction (each streamed chunk of a command's output) held the main thread (bench:ui).
  const envSecrets = [...secretEnvValues(env), ...(env === process.env ? [] : secretEnvValues(process.env))];
  const secrets = () => {
    const p = settings.providerSettings();
    const keys = [p.anthropic?.apiKey, p.openai?.apiKey, ...(p.custom ?? []).map((c) => c.apiKey), ...mcp.secretValues()].filter((k): k is string => typeof k === "string");
    return scannerFor([...keys, ...envSecrets]);
  };
  const mcp = new McpService({
    settings: store.settings,
    secrets: options.secrets,
    env,
    projectFolder: (projectId) => store.getProject(projectId)?.folder,
    clientInfo: { name: "Lathe", version: options.version },
    connectTimeoutMs: options.mcpConnectTimeoutMs,
    onServerChange: (id) => hub.emit("mcp.changed", { id }),
  });
  const permissions = new PermissionsService({
    store,
    hub,
    mode: () => settings.permissionMode,
    maxFileWritesPerTurn: options.maxFileWritesPerTurn,
    sandbox,
    secrets: () => secrets(),
    describeMcpTool: (toolName) => mcp.describeTool(toolName),
    onPendingChange: (sessionId) => {
      hub.emit("session.state", sessions.state(sessionId));
      options.onPermissionRequest?.(sessionId);
    },
  });
  const checkpoints = new CheckpointService({
    dataDir: options.dataDir,
    readOnly,
    maxFileBytes: () => settings.checkpointMaxFileMB * 1024 * 1024,
    onChange: (sessionId) => hub.emit("checkpoints.changed", { sessionId }),
    onNotice: (level, message) => hub.emit("app.notice", { level, message }),
    launchHelper: options.launchHelper,
  });
  const rewinder = new Rewinder(checkpoints, (dir) => sandbox.untrustedRepositories.find(dir));
  let checkpointsUnavailable: string | null = readOnly ? "This Lathe opened the data folder read-only: it takes no checkpoints and rewinds nothing." : null;
  // Started by the warm-up (a git process and the interrupted rewinds are not for the first window).
  let startCheckpointChecks!: () => void;
  let checkpointChecksStarted = false;
  const checkpointsReady = new Promise<void>((resolve) => (startCheckpointChecks = resolve)).then(async () => {
    const missing = await checkpoints.git.run(["--version"]).then(
      () => null,
      (error: Error) => error.message,
    );
    if (missing) {
      checkpointsUnavailable = missing;
      notices.push({ message: missing });
      return;
    }
    for (const message of await rewinder.recover()) {
      notices.push({ message });
      hub.emit("app.notice", { level: "warning", message });
    }
  });
  const sessions: SessionsService = new SessionsService({
    store,
    hub,
    settings,
    streamFn,
    prepareRequest,
    permissions,
    env,
    bashTimeoutMs: options.bashTimeoutMs,
    sandbox,
    checkpoints: readOnly ? undefined : checkpoints,
    onRunEnd: options.onRunEnd,
    redact: (text) => secrets().redact(text).text,
    purgeAfterMs: options.purgeAfterMs,
    toolSource: mcp,
    secrets,
    outputRoot: path.join(options.dataDir, "bash-output"),
  });
  let settleSecrets: (scanner: SecretScanner) => void = () => undefined;
  const secretsReady = new Promise<SecretScanner>((resolve) => (settleSecrets = resolve));
  let secretsTimer: NodeJS.Timeout | undefined;
  let warmedUp = false;
  const warmUp = () => {
    if (warmedUp) return;
    warmedUp = true;
    checkpointChecksStarted = true;
    startCheckpointChecks();
    // The bash grammar loads in the background, so the first command is usually judged without
    // waiting; a failure here is reported at that first command (PermissionsService refuses to guess).
    loadShellParser().catch(() => undefined);
    // A read-only Lathe runs nothing: its MCP servers are listed, not started.
    if (!readOnly) mcp.start();
    // After an upgrade, the search's word list is filled in slices from here (store/search-words-fill.ts).
    store.startSearchWordsFill();
    secretsTimer = setTimeout(() => {
      try {
        const scanner = secrets();
        scanner.redact("lathe warm-up: token=0 password=0 sk-0 ghp_0 AKIA0");
        settleSecrets(scanner);
      } catch {
        // Settings that cannot be read: the first tool call builds the scanner and reports it.
      }
    }, SECRETS_WARM_UP_DELAY_MS).unref();
  };
  if (options.warmUp !== "later") warmUp();
  const warmUpTimer = options.warmUp === "later" ? setTimeout(warmUp, WARM_UP_LATEST_MS).unref() : undefined;

  const ruleScopeId = (scope: "session" | "project" | "global", scopeId: number | undefined): number | null => {
    if (scope === "global") return null;
    if (scopeId === undefined) throw new ServiceError("invalid", `A ${scope} rule needs a scopeId (the ${scope} id).`);
    return scopeId;
  };

  const handlers: RequestHandlers = {
    "app.info": () => ({
      version: options.version,
      platform: process.platform,
      dataDir: options.dataDir,
      notices: notices.map((n) => n.message),
      host: options.host,
      readOnly,
    }),
    "projects.list": () => store.listProjects(),
    "projects.open": ({ folder, confirmed }) => sessions.openProject(folder, confirmed),
    "projects.resolve": ({ folder }) => sessions.resolveFolder(folder),
    "projects.pickFolder": async () => {
      if (!options.pickFolder) throw new ServiceError("unavailable", "There is no folder picker in the browser: type the folder's path instead.");
      return { folder: await options.pickFolder() };
    },
    "sessions.list": (p) => store.listSessions(p),
    "sessions.get": ({ sessionId }) => {
      const session = store.getSession(sessionId);
      if (!session) throw new ServiceError("not-found", `Session ${sessionId} does not exist.`);
      return session;
    },
    "sessions.create": ({ projectId, model }) => sessions.create(projectId, model),
    "sessions.open": async ({ sessionId, around, limit }) => (await sessions.refreshInstructionFiles(sessionId), sessions.open(sessionId, { around, limit })),
    "sessions.page": (p) => sessions.page(p.sessionId, p),
    "sessions.prompt": ({ sessionId, text, images }) => sessions.prompt(sessionId, text, images),
    "sessions.steer": ({ sessionId, text, images }) => (sessions.steer(sessionId, text, images), {}),
    "sessions.followUp": async ({ sessionId, text, images }) => (await sessions.followUp(sessionId, text, images), {}),
    "sessions.abort": ({ sessionId }) => (sessions.abort(sessionId), {}),
    "sessions.state": async ({ sessionId }) => (await sessions.refreshInstructionFiles(sessionId), sessions.state(sessionId)),
    "sessions.live": () => sessions.liveStates(),
    "sessions.setModel": ({ sessionId, model }) => sessions.setModel(sessionId, model),
    "sessions.compact": ({ sessionId }) => sessions.compact(sessionId),
    "sessions.editCompaction": async ({ sessionId, index, summary }) => (await sessions.editCompaction(sessionId, index, summary), {}),
    "sessions.undoCompaction": async ({ sessionId, index }) => (await sessions.undoCompaction(sessionId, index), {}),
    "sessions.rename": ({ sessionId, title }) => sessions.rename(sessionId, title),
    "sessions.archive": ({ sessionId, archived }) => sessions.archive(sessionId, archived),
    "sessions.retry": async ({ sessionId }) => (await sessions.retry(sessionId), {}),
    "sessions.delete": async ({ sessionId }) => (await sessions.delete(sessionId), {}),
    "sessions.restore": ({ sessionId }) => sessions.restore(sessionId),
    "sessions.fork": ({ sessionId, position }) => sessions.fork(sessionId, position),
    "sessions.export": ({ sessionId, format }) => {
      const session = store.getSession(sessionId);
      if (!session) throw new ServiceError("not-found", `Session ${sessionId} does not exist.`);
      const stem = `lathe-session-${sessionId}`;
      return format === "markdown"
        ? { fileName: `${stem}.md`, content: store.exportMarkdown(sessionId) }
        : { fileName: `${stem}.json`, content: JSON.stringify(store.exportJson(sessionId), null, 2) };
    },
    "sessions.search": ({ query, ...rest }) => {
      try {
        return store.search(query, rest);
      } catch (error) {
        if (error instanceof StoreError && error.failure === "invalid") throw new ServiceError("invalid", error.message);
        throw error;
      }
    },
    "tools.input": ({ sessionId, toolCallId, data }) => (sessions.writeInput(sessionId, toolCallId, data), {}),
    "tools.interrupt": ({ sessionId, toolCallId }) => (sessions.interrupt(sessionId, toolCallId), {}),
    "tools.output": ({ sessionId, toolCallId }) => sessions.toolOutput(sessionId, toolCallId),
    "tools.rerunOutsideSandbox": ({ sessionId, toolCallId }) => sessions.rerunOutsideSandbox(sessionId, toolCallId),
    "models.list": () => sessions.usableModels(),
    "models.refresh": async ({ provider }) => {
      const custom = (settings.providerSettings().custom ?? []).find((c) => c.id === provider);
      if (!custom) return { models: sessions.models().filter((m) => m.provider === provider) };
      const found = await discoverModels(custom.baseUrl, custom.apiKey);
      if (!found.ok) throw new ServiceError("unavailable", found.error);
      settings.setProvider({ id: provider, models: found.models });
      return { models: sessions.models().filter((m) => m.provider === provider), ...(found.notice ? { notice: found.notice } : {}) };
    },
    // Each answers with the settings' view, which says which sandbox there is (and the default
    // mode follows from it): its detection is awaited rather than run on the event loop.
    "settings.get": async () => (await sandbox.detectInBackground(), settings.view()),
    "settings.update": async (changes) => (await sandbox.detectInBackground(), settings.update(changes)),
    "settings.storeEnvironmentKeys": async () => (await sandbox.detectInBackground(), settings.storeEnvironmentKeys()),
    "settings.setProvider": async (update) => (await sandbox.detectInBackground(), settings.setProvider(update)),
    "settings.removeProvider": async ({ id }) => (await sandbox.detectInBackground(), settings.removeProvider(id)),
    "providers.test": async ({ id, candidate }) => {
      const result = await testProvider(candidate ? settings.providerSettingsWith(id, candidate) : settings.providerSettings(), id, { env });
      return { ok: result.ok, message: result.message, ...(result.ok && result.notice ? { notice: result.notice } : {}) };
    },
    "permissions.respond": (answer) => (permissions.respond(answer), {}),
    "permissions.respondBatch": (answer) => permissions.respondBatch(answer),
    "permissions.pending": () => permissions.allPending(),
    "permissions.rules": (query) => permissions.rules(query),
    "permissions.addRule": ({ tool, pattern, action, scope, scopeId }) =>
      permissions.explained(store.permissionRules.add({ tool, pattern, action, scope, scopeId: ruleScopeId(scope, scopeId) })),
    "permissions.updateRule": ({ id, pattern, action }) => {
      // Rules are immutable rows: an edit replaces the rule with its new version, in one transaction.
      const updated = store.permissionRules.replace(id, { pattern, action });
      if (!updated) throw new ServiceError("not-found", `No permission rule ${id}.`);
      return permissions.explained(updated);
    },
    "permissions.removeRule": ({ id }) => {
      if (!store.permissionRules.remove(id)) throw new ServiceError("not-found", `No permission rule ${id}.`);
      return {};
    },
    "mcp.list": ({ projectId }) => mcp.list(projectId),
    "mcp.import": (params) => mcp.import(params),
    "mcp.findConfigs": ({ projectId }) => mcp.findConfigs(projectId),
    "mcp.update": ({ id, projectId, ...changes }) => mcp.update(id, changes, projectId),
    "mcp.restart": ({ id, projectId }) => mcp.restart(id, projectId),
    "mcp.remove": ({ id, projectId }) => mcp.remove(id, projectId),
    ...checkpointHandlers({
      checkpoints,
      rewinder,
      sessions,
      unavailable: () => checkpointsUnavailable,
      changed: (sessionId) => hub.emit("checkpoints.changed", { sessionId }),
    }),
  };

  if (readOnly) {
    for (const name of Object.keys(handlers) as RequestName[]) {
      if (READ_ONLY_REQUESTS.has(name)) continue;
      (handlers as Record<RequestName, () => never>)[name] = () => {
        throw new ServiceError(
          "unavailable",
          `This Lathe opened ${options.dataDir} read-only (another Lathe holds it), so it cannot ${name.replace(".", ": ")}. Quit the other one and start this one normally to make changes.`,
        );
      };
    }
  }
  // Any request means a window is up: the deferred warm-up starts with the first one.
  for (const name of Object.keys(handlers) as RequestName[]) {
    const handler = handlers[name] as (params: unknown) => unknown;
    (handlers as Record<RequestName, (params: unknown) => unknown>)[name] = (params) => (warmUp(), handler(params));
  }
  const router = new IpcRouter(handlers, (name, error) => console.error(`[ipc] ${name} failed:`, error));
  return {
    router,
    hub,
    store,
    sessions,
    permissions,
    settings,
    sandbox,
    mcp,
    checkpoints,
    rewinder,
    checkpointsReady,
    secretsReady,
    warmUp,
    get notices() {
      return notices.map((n) => n.message);
    },
    close: async () => {
      warmedUp = true;
      clearTimeout(warmUpTimer);
      clearTimeout(secretsTimer);
      await sessions.close();
      await mcp.close();
      if (checkpointChecksStarted) await checkpointsReady;
      await checkpoints.close();
      store.close();
      await store.closed();
    },
  };
}
