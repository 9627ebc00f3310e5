// McpConnection: one configured MCP server, through the official SDK's Client (loaded at the first
// start: mcp-sdk.ts). A stdio server is a child process with only the SDK's safe variables (PATH,
// HOME, …) plus its own `env`, started in
// its `cwd` (default: the project folder for a project's server, the home folder otherwise); a
// Streamable HTTP server gets its `headers` on every request and answers of at most 16 MB.
// States: disabled, idle (not started), connecting, connected, failed. A server that exits or
// drops the connection becomes "failed" with its stderr tail and keeps its last tool listing; the
// next call starts it again. One time limit (`connectTimeoutMs`) bounds a whole start: the
// transport's start, initialize, the initialized notice and every tools/list page; when it passes
// the start fails naming the step, and the connection is closed (which aborts an HTTP server's
// requests). A listing after tools/list_changed has the same limit. `connect` and `close` never
// reject; `call` rejects only with an Error whose message is written for the model (what happened,
// and what Lathe will do).
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { CallToolResult, Progress } from "@modelcontextprotocol/sdk/types.js";
import { statSync } from "node:fs";
import path from "node:path";
import stripAnsi from "strip-ansi";
import { expandSpec, type McpServerSpec } from "./config.ts";
import { boundedFetch, MAX_MESSAGE_BYTES } from "./bounded-fetch.ts";
import { Deadline } from "./deadline.ts";
import { loadMcpSdk, type McpSdk } from "./mcp-sdk.ts";
import type { StdioTransport } from "./stdio-transport.ts";
import type { McpToolDefinition } from "./tool-definitions.ts";

export type McpServerState = "disabled" | "idle" | "connecting" | "connected" | "failed";

export interface McpConnectionStatus {
  state: McpServerState;
  error?: string;
  stderrTail: string;
  toolCount: number;
}

export interface McpConnectionOptions {
  id: string;
  spec: McpServerSpec;
  /** Lathe's environment, for `${VAR}` references. */
  env: Record<string, string | undefined>;
  /** The folder a stdio server starts in when its spec has no `cwd`. */
  defaultCwd: string;
  clientInfo: { name: string; version: string };
  /** Bound of a whole start (transport, initialize, initialized notice, every listing page), and of a listing after tools/list_changed. Default 30 s. */
  connectTimeoutMs?: number;
  /** A reason the server cannot start at all (a stored secret that cannot be decrypted). */
  startError?: string;
  onChange: () => void;
}

export interface CallOptions {
  signal?: AbortSignal;
  onProgress?: (progress: Progress) => void;
}

const STDERR_TAIL_CHARS = 8_192;
const STDERR_TAIL_LINES = 20;
const MAX_TOTAL_CALL_MS = 30 * 60_000;
const MAX_PAGES = 20;
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
/** Least time between the starts of two listings caused by tools/list_changed. */
export const RELIST_INTERVAL_MS = 1_000;
const MAX_ERROR_CHARS = 2_000;

// The SDK checks tool outputs against their output schemas with Ajv, which compiles schemas into
// code: Lathe never asks it to (it bounds results itself) and gives it this no-op instead.
const noOutputValidation = { getValidator: () => (input: unknown) => ({ valid: true as const, data: input as never, errorMessage: undefined }) };

function bounded(text: string): string {
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}…` : text;
}

/** The MCP error code of an SDK error (the SDK is loaded when it made one), or undefined. */
function mcpErrorCode(sdk: McpSdk | undefined, error: unknown): number | undefined {
  return sdk && error instanceof sdk.McpError ? error.code : undefined;
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

export class McpConnection {
  readonly id: string;
  readonly spec: McpServerSpec;
  private readonly o: McpConnectionOptions;
  private state: McpServerState;
  private error: string | undefined;
  private stderr = "";
  /** The last line the server wrote that is not JSON-RPC, and when. */
  private protocolNote: { text: string; at: number } | undefined;
  private closeReason: string | undefined;
  private definitions: McpToolDefinition[] = [];
  private client: Client | undefined;
  /** The SDK, once a start loaded it (mcp-sdk.ts). */
  private sdk: McpSdk | undefined;
  private stdio: StdioTransport | undefined;
  private connecting: Promise<void> | undefined;
  /** Bumped by every start and close, so events of an older client are ignored. */
  private generation = 0;
  private relisting: Promise<void> | undefined;
  private relistPending = false;
  private listedAt = 0;
  /** tools/list listings run (each of one or more pages), for tests and diagnostics. */
  listings = 0;

  constructor(options: McpConnectionOptions) {
    this.o = options;
    this.id = options.id;
    this.spec = options.spec;
    this.state = options.spec.disabled ? "disabled" : "idle";
  }

  get name(): string {
    return this.spec.name;
  }

  status(): McpConnectionStatus {
    return {
      state: this.state,
      ...(this.error ? { error: this.error } : {}),
      stderrTail: this.stderrTail(),
      toolCount: this.definitions.filter((d) => !d.error).length,
    };
  }

  /** The last listing (kept while the server is down, so active tools keep their schemas). */
  tools(): readonly McpToolDefinition[] {
    return this.definitions;
  }

  /** Starts the server unless it is connected or disabled; resolves when it is connected or failed. */
  connect(): Promise<void> {
    if (this.spec.disabled || this.state === "connected") return Promise.resolve();
    if (!this.connecting) {
      this.state = "connecting";
      const requested = this.generation;
      // Started from a microtask: status listeners are never called back inside the caller.
      this.connecting = Promise.resolve()
        .then(() => (requested === this.generation ? this.start() : undefined))
        .finally(() => (this.connecting = undefined));
    }
    return this.connecting;
  }

  /** Starts the server when it has not been started (not when it failed: a call does that). */
  startIfIdle(): void {
    if (this.state === "idle") void this.connect();
  }

  async restart(): Promise<void> {
    await this.close();
    await this.connect();
  }

  /** Stops the server (the stdio process ends with its stdin, then SIGTERM, then SIGKILL). */
  async close(): Promise<void> {
    this.generation++;
    const client = this.client;
    this.client = undefined;
    this.connecting = undefined;
    this.state = this.spec.disabled ? "disabled" : "idle";
    this.error = undefined;
    await client?.close().catch(() => undefined);
  }

  /** Calls a tool; starts the server first when it is not running. */
  async call(tool: string, args: Record<string, unknown>, options: CallOptions = {}): Promise<CallToolResult> {
    const { signal } = options;
    const label = `${this.name}/${tool}`;
    if (signal?.aborted) throw new Error(`Cancelled: the run was stopped before ${label} was called.`);
    if (this.spec.disabled) throw new Error(`The MCP server ${this.name} is disabled in Settings → MCP servers.`);
    if (this.state !== "connected") await this.connect();
    const client = this.client;
    if (this.state !== "connected" || !client) {
      throw new Error(`The MCP server ${this.name} is not available: ${this.error ?? "it did not start."} ${this.again()}`);
    }
    const generation = this.generation;
    const startedAt = Date.now();
    try {
      return (await client.callTool({ name: tool, arguments: args }, undefined, {
        signal,
        timeout: this.spec.timeoutMs,
        resetTimeoutOnProgress: true,
        maxTotalTimeout: MAX_TOTAL_CALL_MS,
        ...(options.onProgress ? { onprogress: options.onProgress } : {}),
      })) as CallToolResult;
    } catch (error) {
      throw new Error(this.describeCallError(error, label, signal, generation, startedAt), { cause: error });
    }
  }

  private describeCallError(error: unknown, label: string, signal: AbortSignal | undefined, generation: number, startedAt: number): string {
    if (signal?.aborted) return `Cancelled: the run was stopped before ${label} answered; the server was told to cancel the call.`;
    const note = this.protocolNote && this.protocolNote.at >= startedAt ? ` The server also wrote output that is not MCP: ${this.protocolNote.text}` : "";
    const code = mcpErrorCode(this.sdk, error);
    if (code !== undefined && code === this.sdk?.ErrorCode.RequestTimeout) {
      return bounded(`No answer from the MCP server ${this.name} within ${Math.round(this.spec.timeoutMs / 1000)} s: the call to ${label} was cancelled.${note}`);
    }
    const closed = (code !== undefined && code === this.sdk?.ErrorCode.ConnectionClosed) || generation !== this.generation || this.state === "failed";
    if (closed) {
      this.markFailed(generation, this.closeReason ?? this.exitReason());
      const tail = this.stderrTail();
      return bounded(
        `The MCP server ${this.name} stopped during the call to ${label}: ${this.error ?? "the connection closed."}${tail ? ` Its last output on stderr:\n${tail}\n` : " "}${this.again()}`,
      );
    }
    if (error instanceof Error && (error.name === "ZodError" || error.name === "$ZodError")) {
      return bounded(`The MCP server ${this.name} answered ${label} with something that is not a valid tool result: ${messageOf(error).replace(/\s+/g, " ")}`);
    }
    if (code !== undefined) return bounded(`The MCP server ${this.name} answered ${label} with an error: ${messageOf(error)}`);
    // Anything else is the transport: an HTTP server that is down, or an answer over the size bound.
    const message = messageOf(error);
    this.markFailed(generation, `Connection lost: ${message}`);
    return bounded(`Cannot reach the MCP server ${this.name} for ${label}: ${message}. ${this.again()}`);
  }

  private async start(): Promise<void> {
    const generation = ++this.generation;
    this.state = "connecting";
    this.error = undefined;
    this.protocolNote = undefined;
    this.closeReason = undefined;
    this.stdio = undefined;
    this.stderr = "";
    this.o.onChange();
    const timeout = this.o.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    let client: Client | undefined;
    let deadline: Deadline | undefined;
    try {
      if (this.o.startError) throw new Error(this.o.startError);
      const spec = expandSpec(this.spec, this.o.env);
      const sdk = (this.sdk = await loadMcpSdk());
      if (generation !== this.generation) return;
      client = new sdk.Client({ name: this.o.clientInfo.name, version: this.o.clientInfo.version }, { capabilities: {}, jsonSchemaValidator: noOutputValidation });
      this.client = client;
      client.onerror = (error) => {
        if (generation !== this.generation) return;
        const message = messageOf(error);
        if (/exceeded maximum size/i.test(message)) this.closeReason = this.oversizedReason();
        // A line that is not JSON-RPC: kept to explain a later timeout, not fatal by itself.
        else this.protocolNote = { text: bounded(message).slice(0, 300), at: Date.now() };
      };
      client.onclose = () => this.markFailed(generation, this.closeReason ?? this.exitReason());
      const transport = this.transport(sdk, spec);
      deadline = new Deadline(timeout);
      deadline.step = spec.transport === "stdio" ? "start and answer initialize" : "answer initialize";
      // Client.connect gives its options to initialize only: the initialized notice after it (an
      // HTTP POST whose answer may never end) has no limit, so the whole connect is bound.
      await deadline.bound(client.connect(transport, { timeout: deadline.remaining() }), (passed) => {
        if (client?.getServerVersion()) passed.step = "finish its answer to the notifications/initialized notice";
        return new Error("The start's time limit passed.");
      });
      await this.listTools(client, generation, deadline);
      if (generation !== this.generation) return;
      client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => this.relist(client!, generation, timeout));
      this.state = "connected";
      this.o.onChange();
    } catch (error) {
      if (generation !== this.generation) return;
      // Let the last stderr lines of an exiting process arrive before the error is written.
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (generation !== this.generation) return;
      this.generation++;
      this.client = undefined;
      this.state = "failed";
      this.error = bounded(this.describeStartError(error, deadline));
      this.o.onChange();
      await client?.close().catch(() => undefined);
    }
  }

  private transport(sdk: McpSdk, spec: McpServerSpec): Transport {
    if (spec.transport === "http") {
      return new sdk.StreamableHTTPClientTransport(new URL(spec.url!), {
        requestInit: { headers: spec.headers ?? {} },
        fetch: boundedFetch(MAX_MESSAGE_BYTES, () => {
          this.closeReason = this.oversizedReason();
          void this.client?.close();
        }),
      });
    }
    const cwd = spec.cwd ? path.resolve(this.o.defaultCwd, spec.cwd) : this.o.defaultCwd;
    if (!isFolder(cwd)) throw new Error(`Cannot start the server in ${cwd}: there is no such folder${spec.cwd ? ' (its "cwd")' : ""}.`);
    this.stdio = new sdk.StdioTransport({
      command: spec.command!,
      args: spec.args ?? [],
      env: spec.env ?? {},
      cwd,
      // One message over this closes the connection (the server is then started again on the next call).
      maxMessageBytes: MAX_MESSAGE_BYTES,
      onStderr: (text) => {
        this.stderr = (this.stderr + text).slice(-STDERR_TAIL_CHARS);
      },
    });
    return this.stdio;
  }

  /**
   * On tools/list_changed: one listing runs at a time, notices during it make one more (however
   * many came), and listings start at least RELIST_INTERVAL_MS apart, so a server flooding the
   * notice costs at most one listing per interval.
   */
  private relist(client: Client, generation: number, timeout: number): void {
    this.relistPending = true;
    if (this.relisting) return;
    this.relisting = (async () => {
      let lastStart = this.listedAt;
      while (this.relistPending && generation === this.generation) {
        const wait = lastStart + RELIST_INTERVAL_MS - Date.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        if (generation !== this.generation) break;
        this.relistPending = false;
        lastStart = Date.now();
        await this.listTools(client, generation, new Deadline(timeout)).catch(() => undefined);
      }
    })().finally(() => {
      this.relisting = undefined;
    });
  }

  /** Lists the server's tools, page by page, all within `deadline`. */
  private async listTools(client: Client, generation: number, deadline: Deadline): Promise<void> {
    const sdk = await loadMcpSdk();
    this.listedAt = Date.now();
    this.listings++;
    const raw: unknown[] = [];
    let cursor: string | undefined;
    const cursors = new Set<string>();
    for (let page = 0; page < MAX_PAGES && raw.length < sdk.MAX_TOOLS_PER_SERVER; page++) {
      deadline.step = `answer tools/list (page ${page + 1} of its tool listing)`;
      const result = await client.request({ method: "tools/list", params: cursor ? { cursor } : {} }, sdk.ResultSchema, { timeout: deadline.remaining() });
      const tools = (result as { tools?: unknown }).tools;
      if (!Array.isArray(tools)) throw new Error('Its answer to tools/list has no "tools" list.');
      raw.push(...tools);
      const next = (result as { nextCursor?: unknown }).nextCursor;
      if (typeof next !== "string" || !next || cursors.has(next)) break;
      cursors.add(next);
      cursor = next;
    }
    if (generation !== this.generation) return;
    this.definitions = sdk.readToolList(this.name, raw);
    this.o.onChange();
  }

  /** A connected server went away (while starting, `start` reports the failure itself). */
  private markFailed(generation: number, why: string): void {
    if (generation !== this.generation || this.state !== "connected") return;
    this.generation++;
    this.client = undefined;
    this.state = "failed";
    this.error = why;
    this.o.onChange();
  }

  private describeStartError(error: unknown, deadline: Deadline | undefined): string {
    const message = messageOf(error);
    const tail = this.stderrTail();
    const withTail = (text: string) => (tail ? `${text} Its last output on stderr:\n${tail}` : text);
    if ((error as NodeJS.ErrnoException)?.code === "ENOENT") return `Cannot start "${this.spec.command}": no such command (is it installed, and on Lathe's PATH?).`;
    const code = mcpErrorCode(this.sdk, error);
    // A request's timeout is the time left of the start's (deadline.ts), so it means the same.
    if (deadline && (deadline.passed() || (code !== undefined && code === this.sdk?.ErrorCode.RequestTimeout))) {
      const stopped = this.spec.transport === "stdio" ? "stopped it" : "closed the connection";
      return withTail(
        `No answer within ${Math.round(deadline.ms / 1000)} s while starting. Lathe was waiting for the MCP server ${this.name} to ${deadline.step}, and ${stopped}.`,
      );
    }
    if (code !== undefined && code === this.sdk?.ErrorCode.ConnectionClosed) {
      return withTail(`The server ${this.stdio?.exitDescription() ?? "exited"} before it was ready.`);
    }
    const status = (error as { code?: unknown })?.code;
    if (status === 401 || status === 403 || /\b401\b/.test(message)) {
      return `HTTP ${typeof status === "number" ? status : 401}: ${message} (the server wants authorization: set an "Authorization" header; OAuth sign-in is not supported yet).`;
    }
    return withTail(message);
  }

  private again(): string {
    return this.spec.transport === "stdio" ? "Lathe starts it again on the next call." : "Lathe connects again on the next call.";
  }

  private oversizedReason(): string {
    return `It sent a message larger than ${MAX_MESSAGE_BYTES / 1024 / 1024} MB, so Lathe closed the connection.`;
  }

  private exitReason(): string {
    const how = this.stdio?.exitDescription();
    return how ? `The server ${how}.` : "The connection closed.";
  }

  private stderrTail(): string {
    const lines = stripAnsi(this.stderr).replace(/\r/g, "").trimEnd().split("\n");
    return lines.slice(-STDERR_TAIL_LINES).join("\n");
  }
}

function isFolder(folder: string): boolean {
  try {
    return statSync(folder).isDirectory();
  } catch {
    return false;
  }
}

export type { Progress };
