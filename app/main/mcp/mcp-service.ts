// McpService: the app's MCP servers. Owns their configurations (config-store.ts) and one
// connection per server for the whole app: sessions share a server, which saves starting dozens of
// processes per session and keeps the 20-server start within two seconds; the price is that a
// server's own state is shared by the sessions that use it. User servers start with the app;
// a project's servers with the first session of that project that goes live (or when added in
// settings). All stop when the app closes, or when the server is disabled, changed or removed.
// A project's server shadows a user server of the same name in that project's sessions.
//
// It is the sessions' tool source (tool_search, the servers' tools, stand-ins for tools a session
// uses that no server offers now; a new session waits for its "load all tools" servers at most a
// start's time limit), tells the permission layer what an MCP tool is, and answers
// the settings screen's requests. Methods meant for IPC throw ServiceError with a message for the
// user; nothing else throws.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { homedir } from "node:os";
import type { McpCallSummary, McpList } from "../../shared/ipc/mcp-schemas.ts";
import { ServiceError } from "../../shared/errors.ts";
import type { AnyAgentTool } from "../loop/index.ts";
import type { SecretStore } from "./config-store.ts";
import type { SettingsStore } from "../store/settings.ts";
import { parseMcpServers } from "./config.ts";
import { findConfigFiles, readConfigSource } from "./config-files.ts";
import { isProjectFile, reviewImport } from "./import-review.ts";
import { McpConfigStore, type McpScope } from "./config-store.ts";
import { DEFAULT_CONNECT_TIMEOUT_MS, McpConnection } from "./connection.ts";
import { waitAtMost } from "./deadline.ts";
import { createMcpAgentTool, createUnavailableTool, type McpCallRunner } from "./mcp-tool.ts";
import type { McpToolDefinition } from "./tool-definitions.ts";
import { createToolSearchTool, TOOL_SEARCH, type SearchableServer, type ToolSearchCatalog } from "./tool-search.ts";
import { connectionsInScope, serverOfName, unavailableReason } from "./server-scope.ts";
import { serverView } from "./server-view.ts";

export interface McpServiceOptions {
  settings: SettingsStore;
  secrets: SecretStore;
  /** Lathe's environment, for `${VAR}` references in configurations. */
  env: Record<string, string | undefined>;
  /** A project's folder (a project's stdio servers start there), or undefined when it is gone. */
  projectFolder: (projectId: number) => string | undefined;
  clientInfo: { name: string; version: string };
  /** Time limit of a server's start (connection.ts), and the most a new session waits for one. */
  connectTimeoutMs?: number;
  /** A server's status, configuration or tools changed. */
  onServerChange?: (id: string) => void;
  home?: string;
}

/** The session asking for tools (the sessions service's SessionToolScope fits). */
export interface McpToolScope {
  sessionId: number;
  projectId: number;
  projectDir: string;
}

/** Satisfies the sessions service's SessionToolSource port (app-services.ts plugs it in). */
export class McpService {
  private readonly o: McpServiceOptions;
  private readonly config: McpConfigStore;
  private readonly connections = new Map<string, { connection: McpConnection; key: string }>();
  private readonly toolListeners = new Set<() => void>();
  private readonly agentTools = new WeakMap<McpToolDefinition, AnyAgentTool>();
  private readonly owners = new WeakMap<McpToolDefinition, McpConnection>();
  private secretsCache: string[] | undefined;
  private closed = false;
  readonly catalog: ToolSearchCatalog;

  constructor(options: McpServiceOptions) {
    this.o = options;
    this.config = new McpConfigStore(options.settings, options.secrets);
    this.catalog = {
      ready: (projectId) => this.ready(projectId),
      servers: (projectId) => this.searchable(projectId),
    };
  }

  /** Creates the connections and starts the user's servers (in the background). */
  start(): void {
    this.sync();
    for (const { connection } of this.connections.values()) {
      if (connection.id.startsWith("user/")) void connection.connect();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.connections.values()].map((c) => c.connection);
    this.connections.clear();
    await Promise.all(all.map((c) => c.close()));
  }

  // The sessions' tool source

  async baseToolNames(projectId: number): Promise<string[]> {
    const scoped = this.inScope(projectId);
    for (const c of scoped) c.startIfIdle();
    const upFront = scoped.filter((c) => c.spec.loadAllTools);
    // A start fails at its own bound, but the process it then stops may take seconds more to end:
    // the session does not wait for that (a server still starting offers its tools through tool_search).
    await waitAtMost(Promise.all(upFront.map((c) => c.connect())), this.o.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS);
    return [
      TOOL_SEARCH,
      ...upFront.flatMap((c) =>
        c
          .tools()
          .filter((t) => !t.error)
          .map((t) => t.modelName),
      ),
    ];
  }

  builtinTools(scope: McpToolScope): AnyAgentTool[] {
    return [createToolSearchTool(scope.projectId, this.catalog)];
  }

  externalTools(scope: McpToolScope, names: readonly string[]): AnyAgentTool[] {
    const tools: AnyAgentTool[] = [];
    const offered = new Set<string>();
    const scoped = this.inScope(scope.projectId);
    // Not a failed one: that would retry on every status change. A call to its tools does.
    for (const connection of scoped) connection.startIfIdle();
    for (const connection of scoped) {
      for (const definition of connection.tools()) {
        if (definition.error || offered.has(definition.modelName)) continue;
        offered.add(definition.modelName);
        tools.push(this.agentTool(definition, connection));
      }
    }
    for (const name of names) {
      if (!name.startsWith("mcp__") || offered.has(name)) continue;
      offered.add(name);
      tools.push(createUnavailableTool(name, unavailableReason(this.inScope(scope.projectId), name), (n) => this.resolve(scope.projectId, n), this.run));
    }
    return tools;
  }

  onChange(listener: () => void): () => void {
    this.toolListeners.add(listener);
    return () => this.toolListeners.delete(listener);
  }

  // For the permission layer and redaction

  /** What a model-facing tool name is, when it is an MCP server's tool. */
  describeTool(modelName: string): McpCallSummary | undefined {
    if (!modelName.startsWith("mcp__")) return undefined;
    for (const { connection } of this.connections.values()) {
      const definition = connection.tools().find((t) => t.modelName === modelName);
      if (definition) {
        return { server: definition.server, tool: definition.name, description: definition.summary, annotations: definition.annotations };
      }
    }
    const server = serverOfName(
      [...this.connections.values()].map((c) => c.connection),
      modelName,
    );
    return { server: server?.name ?? "unknown", tool: modelName.slice(`mcp__${server?.name ?? ""}__`.length) || modelName, description: "", annotations: {} };
  }

  /** Decrypted env and header values of every server, to redact from tool output. */
  secretValues(): string[] {
    return (this.secretsCache ??= this.config.secretValues());
  }

  // Settings requests

  list(projectId?: number): McpList {
    this.sync();
    const servers = this.config
      .all()
      .filter((r) => r.scope === "user" || r.projectId === projectId)
      .map((r) => serverView(r, this.connections.get(r.id)?.connection));
    return { servers, canStoreSecrets: this.config.canStoreSecrets };
  }

  async import(input: { text?: string; path?: string; localProject?: boolean; scope: McpScope; projectId?: number; replace?: string[]; confirmedVariables?: string[] }) {
    if ((input.text === undefined) === (input.path === undefined)) throw new ServiceError("invalid", "Give either the configuration's text or a file path.");
    const projectId = this.scopeProject(input.scope, input.projectId);
    let json: unknown;
    if (input.text !== undefined) {
      try {
        json = JSON.parse(input.text);
      } catch (error) {
        throw new ServiceError("invalid", `That is not valid JSON: ${(error as Error).message}`);
      }
    } else {
      const folder = input.localProject ? this.folderOf(input.projectId) : undefined;
      if (input.localProject && !folder) throw new ServiceError("invalid", "Importing a project's servers from ~/.claude.json needs an open project.");
      const read = await readConfigSource({ path: expandHome(input.path!, this.home()), ...(folder ? { projectFolder: folder } : {}) });
      if ("error" in read) throw new ServiceError("not-found", read.error);
      json = read.json;
    }
    const parsed = parseMcpServers(json);
    const fromProjectFile = input.path !== undefined && !input.localProject && isProjectFile(expandHome(input.path, this.home()), this.folderOf(input.projectId));
    const { accepted, skipped } = reviewImport({
      servers: parsed.servers,
      existing: this.existingNames(projectId ?? input.projectId),
      replace: input.replace ?? [],
      confirmedVariables: input.confirmedVariables ?? [],
      fromProjectFile,
    });
    const { saved, refused } = this.config.put(input.scope, projectId, accepted);
    this.configChanged();
    // A project file's servers are saved disabled: they start when the user enables them.
    await Promise.all(saved.map((id) => this.connections.get(id)?.connection.connect()));
    return { imported: saved.map((id) => id.slice(id.lastIndexOf("/") + 1)), skipped: [...parsed.skipped, ...skipped, ...refused], list: this.list(input.projectId) };
  }

  /** Names configured for a project (its servers and the user's), with where each is. */
  private existingNames(projectId: number | null | undefined): Map<string, string> {
    const names = new Map<string, string>();
    for (const r of this.config.all()) {
      if (r.scope === "user") names.set(r.spec.name, names.get(r.spec.name) ?? "for every project");
      else if (r.projectId === projectId) names.set(r.spec.name, "for this project");
    }
    return names;
  }

  async findConfigs(projectId?: number) {
    const found = await findConfigFiles({ projectFolder: this.folderOf(projectId), env: this.o.env, home: this.home() });
    const existing = this.existingNames(projectId);
    return found.map((f) => ({
      path: f.path,
      localProject: f.projectFolder !== undefined,
      label: f.label,
      fromProject: f.projectFolder === undefined && isProjectFile(f.path, this.folderOf(projectId)),
      servers: f.servers,
      details: f.details.map((d) => ({ ...d, ...(existing.has(d.name) ? { existing: existing.get(d.name)! } : {}) })),
      ...(f.error ? { error: f.error } : {}),
    }));
  }

  async update(id: string, changes: { disabled?: boolean; loadAllTools?: boolean; timeoutMs?: number }, projectId?: number): Promise<McpList> {
    if (!this.config.update(id, changes)) throw new ServiceError("not-found", `There is no MCP server ${id}.`);
    this.configChanged();
    const entry = this.connections.get(id);
    if (entry && !entry.connection.spec.disabled) await entry.connection.connect();
    return this.list(projectId);
  }

  async restart(id: string, projectId?: number): Promise<McpList> {
    const entry = this.connections.get(id) ?? (this.sync(), this.connections.get(id));
    if (!entry) throw new ServiceError("not-found", `There is no MCP server ${id}.`);
    if (entry.connection.spec.disabled) throw new ServiceError("invalid", `The MCP server ${entry.connection.name} is disabled: enable it first.`);
    await entry.connection.restart();
    return this.list(projectId);
  }

  async remove(id: string, projectId?: number): Promise<McpList> {
    if (!this.config.remove(id)) throw new ServiceError("not-found", `There is no MCP server ${id}.`);
    this.configChanged();
    return this.list(projectId);
  }

  // Internals

  private readonly run: McpCallRunner = (definition, args, signal, onProgress): Promise<CallToolResult> => {
    const connection = this.owners.get(definition);
    if (!connection || this.closed) return Promise.reject(new Error(`The MCP server ${definition.server} is no longer configured.`));
    return connection.call(definition.name, args, { signal, onProgress });
  };

  private agentTool(definition: McpToolDefinition, connection: McpConnection): AnyAgentTool {
    let tool = this.agentTools.get(definition);
    if (!tool) {
      tool = createMcpAgentTool(definition, this.run);
      this.agentTools.set(definition, tool);
      this.owners.set(definition, connection);
    }
    return tool;
  }

  /** The definition behind a stand-in, once its server is started; throws why the tool cannot be used. */
  private async resolve(projectId: number, modelName: string): Promise<McpToolDefinition> {
    const connection = serverOfName(this.inScope(projectId), modelName);
    if (!connection) throw new Error(`The tool ${modelName} belongs to an MCP server that is not configured for this project (any more), or is disabled.`);
    await connection.connect();
    const definition = connection.tools().find((t) => t.modelName === modelName);
    if (!definition) {
      const status = connection.status();
      throw new Error(
        status.state === "connected"
          ? `The MCP server ${connection.name} does not offer ${modelName} any more: search again with tool_search.`
          : `The MCP server ${connection.name} is not available: ${status.error ?? status.state}.`,
      );
    }
    if (definition.error) throw new Error(`${modelName} cannot be used: ${definition.error}`);
    this.agentTool(definition, connection);
    return definition;
  }

  /** The enabled servers a session of the project uses (server-scope.ts). */
  private inScope(projectId: number): McpConnection[] {
    return connectionsInScope(
      [...this.connections.values()].map((c) => c.connection),
      projectId,
    );
  }

  private async ready(projectId: number): Promise<void> {
    await Promise.all(this.inScope(projectId).map((c) => c.connect()));
  }

  private searchable(projectId: number): SearchableServer[] {
    return this.inScope(projectId).map((c) => {
      const status = c.status();
      return { name: c.name, state: status.state, ...(status.error ? { error: status.error } : {}), tools: c.tools() };
    });
  }

  /** Makes the connections match the stored configurations. */
  private sync(): void {
    if (this.closed) return;
    const records = this.config.all();
    const wanted = new Set(records.map((r) => r.id));
    for (const [id, entry] of this.connections) {
      if (!wanted.has(id)) {
        this.connections.delete(id);
        void entry.connection.close();
      }
    }
    for (const record of records) {
      const key = JSON.stringify([record.spec, record.secretError ?? null]);
      const existing = this.connections.get(record.id);
      if (existing?.key === key) continue;
      if (existing) void existing.connection.close();
      const connection = new McpConnection({
        id: record.id,
        spec: record.spec,
        env: this.o.env,
        defaultCwd: (record.projectId !== null ? this.folderOf(record.projectId) : undefined) ?? this.home(),
        clientInfo: this.o.clientInfo,
        connectTimeoutMs: this.o.connectTimeoutMs,
        ...(record.secretError ? { startError: record.secretError } : {}),
        onChange: () => this.serverChanged(record.id),
      });
      this.connections.set(record.id, { connection, key });
      if (existing) this.serverChanged(record.id);
    }
  }

  private configChanged(): void {
    this.secretsCache = undefined;
    this.sync();
    for (const listener of this.toolListeners) listener();
  }

  private serverChanged(id: string): void {
    if (this.closed) return;
    this.o.onServerChange?.(id);
    for (const listener of this.toolListeners) {
      try {
        listener();
      } catch (error) {
        console.error("[mcp] a tool listener failed:", error);
      }
    }
  }

  private scopeProject(scope: McpScope, projectId: number | undefined): number | null {
    if (scope === "user") return null;
    if (projectId === undefined || !this.o.projectFolder(projectId)) throw new ServiceError("invalid", "A project's server needs an open project (projectId).");
    return projectId;
  }

  private folderOf(projectId: number | undefined): string | undefined {
    return projectId === undefined ? undefined : this.o.projectFolder(projectId);
  }

  private home(): string {
    return this.o.home ?? this.o.env.HOME ?? homedir();
  }
}

function expandHome(file: string, home: string): string {
  return file === "~" ? home : file.startsWith("~/") ? `${home}${file.slice(1)}` : file;
}
