// How the settings screen sees one configured MCP server: its stored configuration (values of
// `env` and `headers` only when they are not encrypted), its connection's status and its tools.
// Pure; never throws.
import type { McpServerView } from "../../shared/ipc/mcp-schemas.ts";
import type { McpServerRecord } from "./config-store.ts";
import type { McpConnection } from "./connection.ts";

export function serverView(record: McpServerRecord, connection: McpConnection | undefined): McpServerView {
  const spec = record.spec;
  const values = (map: Record<string, string> | undefined, encrypted: string[]) =>
    Object.entries(map ?? {}).map(([name, value]) => (encrypted.includes(name) ? { name, encrypted: true } : { name, value, encrypted: false }));
  const status = connection?.status() ?? { state: spec.disabled ? ("disabled" as const) : ("idle" as const), stderrTail: "", toolCount: 0 };
  if (record.secretError && status.state !== "failed") status.error = record.secretError;
  return {
    id: record.id,
    name: spec.name,
    scope: record.scope,
    projectId: record.projectId,
    transport: spec.transport,
    ...(spec.command !== undefined ? { command: spec.command } : {}),
    ...(spec.args ? { args: spec.args } : {}),
    ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {}),
    ...(spec.url !== undefined ? { url: spec.url } : {}),
    env: values(spec.env, record.encrypted.env),
    headers: values(spec.headers, record.encrypted.headers),
    disabled: spec.disabled,
    loadAllTools: spec.loadAllTools,
    timeoutMs: spec.timeoutMs,
    status,
    tools: (connection?.tools() ?? []).map((t) => ({
      name: t.name,
      modelName: t.modelName,
      ...(t.title ? { title: t.title } : {}),
      summary: t.summary,
      annotations: t.annotations,
      ...(t.error ? { error: t.error } : {}),
    })),
  };
}
