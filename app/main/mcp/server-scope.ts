// Which of the app's MCP connections a project's sessions use, and which one a model-facing tool
// name (`mcp__SERVER__TOOL`) belongs to. Pure over the connections given; never throws.
import type { McpConnection } from "./connection.ts";

/** The enabled servers a session of the project uses; a project's server shadows a user server of the same name. */
export function connectionsInScope(connections: Iterable<McpConnection>, projectId: number): McpConnection[] {
  const byName = new Map<string, McpConnection>();
  for (const connection of connections) {
    if (connection.spec.disabled) continue;
    const isProject = connection.id.startsWith(`project/${projectId}/`);
    if (!isProject && !connection.id.startsWith("user/")) continue;
    if (isProject || !byName.has(connection.name)) byName.set(connection.name, connection);
  }
  return [...byName.values()];
}

/** The server whose name prefixes `modelName` (the longest such name: server names may share a start). */
export function serverOfName(connections: McpConnection[], modelName: string): McpConnection | undefined {
  return connections.filter((c) => modelName.startsWith(`mcp__${c.name}__`)).sort((a, b) => b.name.length - a.name.length)[0];
}

/** Why a tool a session uses is not offered now, for its stand-in's description. */
export function unavailableReason(inScope: McpConnection[], modelName: string): string {
  const connection = serverOfName(inScope, modelName);
  if (!connection) return "its server is not configured for this project";
  const status = connection.status();
  return status.state === "failed" ? `server ${connection.name} failed: ${status.error?.split("\n")[0] ?? ""}` : `server ${connection.name} is ${status.state}`;
}
