// MCP server configuration in the `mcpServers` shape of Claude Desktop and Claude Code: a server
// is `{ command, args, env, cwd }` (stdio) or `{ type: "http", url, headers }` (Streamable HTTP),
// plus Lathe's own optional fields `disabled`, `loadAllTools` and `timeoutMs`. Parses untrusted
// JSON into checked specs; a server that cannot be used is skipped with the reason, never thrown.
// `${VAR}` and `${VAR:-default}` in command, args, env, cwd, url and headers are expanded from
// Lathe's environment when the server starts (expandSpec), as Claude Code does; for a server
// imported from a project's file, only the secret-looking variables the user confirmed. Pure functions.

export interface McpServerSpec {
  name: string;
  transport: "stdio" | "http";
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  headers?: Record<string, string>;
  disabled: boolean;
  /** Every tool of the server is active from the start of new sessions (for small servers). */
  loadAllTools: boolean;
  /** How long a call may go without an answer or a progress notice. */
  timeoutMs: number;
  /** Imported from a project's file (its `.mcp.json`): secret-looking variables expand only when confirmed. */
  fromProjectFile?: boolean;
  /** The secret-looking variables the user confirmed this server may receive. */
  confirmedVariables?: string[];
}

/** A variable or field name that looks like it holds a secret. */
export const SECRET_NAME = /key|token|secret|pass(?:word|phrase)?|pwd|auth|credential|cookie|session|private|signature|bearer|dsn/i;

/** What an import shows of a server before the user adds it (never values of env or headers). */
export interface McpServerDetails {
  name: string;
  transport: "stdio" | "http";
  command?: string;
  args?: string[];
  url?: string;
  envNames: string[];
  headerNames: string[];
  /** Every `${VAR}` it uses, from Lathe's environment. */
  variables: string[];
  /** Those of `variables` whose names look like secrets. */
  secretVariables: string[];
}

/** The `${VAR}` names a spec uses, in order, once each. */
export function referencedVariables(spec: McpServerSpec): string[] {
  const texts = [spec.command, ...(spec.args ?? []), ...Object.values(spec.env ?? {}), spec.cwd, spec.url, ...Object.values(spec.headers ?? {})];
  const names = new Set<string>();
  for (const text of texts) for (const m of (text ?? "").matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}/g)) names.add(m[1]!);
  return [...names];
}

export function serverDetails(spec: McpServerSpec): McpServerDetails {
  const variables = referencedVariables(spec);
  return {
    name: spec.name,
    transport: spec.transport,
    ...(spec.command !== undefined ? { command: spec.command } : {}),
    ...(spec.args ? { args: spec.args } : {}),
    ...(spec.url !== undefined ? { url: spec.url } : {}),
    envNames: Object.keys(spec.env ?? {}),
    headerNames: Object.keys(spec.headers ?? {}),
    variables,
    secretVariables: variables.filter((v) => SECRET_NAME.test(v)),
  };
}

export interface SkippedServer {
  name: string;
  reason: string;
}

export const MCP_TIMEOUT = { defaultMs: 60_000, minMs: 1_000, maxMs: 600_000 } as const;
const MAX_SERVERS = 200;
const MAX_ARGS = 256;
const MAX_VALUE_CHARS = 32_768;
const MAX_ENTRIES = 200;
const NAME_MAX = 40;

/** Lathe's form of a server name: letters, digits, `-` and single `_` (tool names use `__` as separator). */
export function normalizeServerName(raw: string): string {
  return raw
    .replace(/[^A-Za-z0-9_-]+/g, "-")
    .replace(/_{2,}/g, "_")
    .replace(/^[-_]+|[-_]+$/g, "")
    .slice(0, NAME_MAX)
    .replace(/[-_]+$/g, "");
}

export function clampTimeout(value: unknown): number {
  if (typeof value !== "number" || !Number.isFinite(value)) return MCP_TIMEOUT.defaultMs;
  return Math.round(Math.min(MCP_TIMEOUT.maxMs, Math.max(MCP_TIMEOUT.minMs, value)));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * The servers of a pasted or imported configuration: `{ "mcpServers": { … } }` (Claude Desktop,
 * `.mcp.json`, the top level of `~/.claude.json`) or the bare `{ name: server }` map.
 */
export function parseMcpServers(input: unknown): { servers: McpServerSpec[]; skipped: SkippedServer[] } {
  const servers: McpServerSpec[] = [];
  const skipped: SkippedServer[] = [];
  if (!isRecord(input)) return { servers, skipped: [{ name: "(configuration)", reason: "The configuration is not a JSON object." }] };
  const map = isRecord(input.mcpServers) ? input.mcpServers : looksLikeServerMap(input) ? input : undefined;
  if (!map) return { servers, skipped: [{ name: "(configuration)", reason: 'There is no "mcpServers" object in it.' }] };
  const seen = new Set<string>();
  for (const [rawName, raw] of Object.entries(map).slice(0, MAX_SERVERS)) {
    const shownName = rawName.slice(0, 100);
    const name = normalizeServerName(rawName);
    if (!name) {
      skipped.push({ name: shownName, reason: "The name has no letters or digits." });
      continue;
    }
    if (seen.has(name)) {
      skipped.push({ name: shownName, reason: `Another server in this configuration is also named "${name}".` });
      continue;
    }
    const parsed = parseServer(name, raw);
    if (typeof parsed === "string") skipped.push({ name: shownName, reason: parsed });
    else {
      seen.add(name);
      servers.push(parsed);
    }
  }
  return { servers, skipped };
}

function looksLikeServerMap(input: Record<string, unknown>): boolean {
  const values = Object.values(input);
  return values.length > 0 && values.every((v) => isRecord(v) && (typeof v.command === "string" || typeof v.url === "string"));
}

/** One server's spec, or why it cannot be used. */
export function parseServer(name: string, raw: unknown): McpServerSpec | string {
  if (!isRecord(raw)) return "The server's entry is not an object.";
  const type = raw.type ?? raw.transport;
  const flags = {
    disabled: raw.disabled === true || raw.enabled === false,
    loadAllTools: raw.loadAllTools === true,
    timeoutMs: clampTimeout(raw.timeoutMs),
  };
  if (type === "sse") return 'The SSE transport (deprecated in MCP) is not supported: use the server\'s Streamable HTTP address with "type": "http".';
  if (type !== undefined && type !== "stdio" && type !== "http" && type !== "streamable-http" && type !== "streamableHttp") {
    return `Unknown transport type ${JSON.stringify(String(type)).slice(0, 60)}: use "stdio" or "http".`;
  }
  const isHttp = type === "http" || type === "streamable-http" || type === "streamableHttp" || (type === undefined && raw.url !== undefined && raw.command === undefined);
  if (isHttp) {
    if (typeof raw.url !== "string" || !raw.url.trim()) return 'An HTTP server needs a "url".';
    const url = raw.url.trim();
    if (!url.includes("${")) {
      const problem = urlProblem(url);
      if (problem) return problem;
    }
    const headers = stringMap(raw.headers, "headers", /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/);
    if (typeof headers === "string") return headers;
    return { name, transport: "http", url, ...(headers ? { headers } : {}), ...flags };
  }
  if (typeof raw.command !== "string" || !raw.command.trim()) return 'A stdio server needs a "command" (or "type": "http" and a "url").';
  if (raw.command.length > 4096) return "The command is longer than 4,096 characters.";
  let args: string[] | undefined;
  if (raw.args !== undefined) {
    if (!Array.isArray(raw.args)) return '"args" must be a list of strings.';
    if (raw.args.length > MAX_ARGS) return `"args" has more than ${MAX_ARGS} items.`;
    args = [];
    for (const arg of raw.args) {
      if (typeof arg !== "string" && typeof arg !== "number" && typeof arg !== "boolean") return '"args" must be a list of strings.';
      const text = String(arg);
      if (text.length > MAX_VALUE_CHARS || text.includes("\0")) return "An argument is too long or holds a NUL character.";
      args.push(text);
    }
  }
  const env = stringMap(raw.env, "env", /^[^=\0]{1,256}$/);
  if (typeof env === "string") return env;
  let cwd: string | undefined;
  if (raw.cwd !== undefined) {
    if (typeof raw.cwd !== "string" || !raw.cwd.trim() || raw.cwd.length > 4096) return '"cwd" must be a folder path.';
    cwd = raw.cwd;
  }
  return { name, transport: "stdio", command: raw.command.trim(), ...(args ? { args } : {}), ...(env ? { env } : {}), ...(cwd ? { cwd } : {}), ...flags };
}

function stringMap(value: unknown, field: string, keyPattern: RegExp): Record<string, string> | undefined | string {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) return `"${field}" must be an object of strings.`;
  const entries = Object.entries(value);
  if (entries.length > MAX_ENTRIES) return `"${field}" has more than ${MAX_ENTRIES} entries.`;
  const out: Record<string, string> = {};
  for (const [key, v] of entries) {
    if (!keyPattern.test(key)) return `"${field}" has an invalid name ${JSON.stringify(key.slice(0, 60))}.`;
    if (typeof v !== "string" && typeof v !== "number" && typeof v !== "boolean") return `"${field}.${key.slice(0, 60)}" must be a string.`;
    const text = String(v);
    if (text.length > MAX_VALUE_CHARS || text.includes("\0") || (field === "headers" && /[\r\n]/.test(text))) {
      return `"${field}.${key.slice(0, 60)}" is too long or holds a forbidden character.`;
    }
    out[key] = text;
  }
  return out;
}

function urlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `"${value.slice(0, 200)}" is not a URL.`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return `An MCP server URL must use http or https, not ${url.protocol}`;
  return undefined;
}

/** Expands `${VAR}` and `${VAR:-default}`; names the variables that are neither set nor defaulted. */
export function expandVariables(text: string, env: Record<string, string | undefined>): { text: string; missing: string[] } {
  const missing: string[] = [];
  const out = text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_all, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (value !== undefined && value !== "") return value;
    if (fallback !== undefined) return fallback;
    missing.push(name);
    return "";
  });
  return { text: out, missing };
}

/**
 * The spec with every `${VAR}` expanded from `env`; throws an Error naming the missing variables
 * (the server then fails to start with that message).
 */
export function expandSpec(spec: McpServerSpec, env: Record<string, string | undefined>): McpServerSpec {
  if (spec.fromProjectFile) {
    const confirmed = new Set(spec.confirmedVariables ?? []);
    const unconfirmed = serverDetails(spec).secretVariables.filter((v) => !confirmed.has(v));
    if (unconfirmed.length > 0) {
      throw new Error(
        `The configuration came from a project's file and uses ${unconfirmed.map((v) => `\${${v}}`).join(", ")}, which look${unconfirmed.length === 1 ? "s" : ""} like a secret: ` +
          "Lathe passes such a variable only when you confirm it at import.",
      );
    }
  }
  const missing = new Set<string>();
  const x = (text: string): string => {
    const r = expandVariables(text, env);
    for (const m of r.missing) missing.add(m);
    return r.text;
  };
  const map = (m: Record<string, string> | undefined) => (m ? Object.fromEntries(Object.entries(m).map(([k, v]) => [k, x(v)])) : undefined);
  const expanded: McpServerSpec = {
    ...spec,
    ...(spec.command !== undefined ? { command: x(spec.command) } : {}),
    ...(spec.args ? { args: spec.args.map(x) } : {}),
    ...(spec.env ? { env: map(spec.env) } : {}),
    ...(spec.cwd !== undefined ? { cwd: x(spec.cwd) } : {}),
    ...(spec.url !== undefined ? { url: x(spec.url) } : {}),
    ...(spec.headers ? { headers: map(spec.headers) } : {}),
  };
  if (missing.size > 0) {
    const names = [...missing].join(", ");
    throw new Error(`The configuration uses ${names}, which ${missing.size === 1 ? "is" : "are"} not set in Lathe's environment.`);
  }
  if (expanded.url !== undefined) {
    const problem = urlProblem(expanded.url);
    if (problem) throw new Error(problem);
  }
  return expanded;
}
