// What a connection needs once a server starts (the MCP SDK's pieces, the stdio transport, the
// tool-list reader: mcp-sdk-modules.ts), loaded on the first server start, not with the app: the
// SDK brings zod and Ajv, whose schemas are built as their modules load, and the reader brings
// TypeBox 1's compiler (together a large part of the headless host's start, bench:start); a Lathe
// without MCP servers never needs them. Contract: loadMcpSdk resolves to the same module every time; it rejects only when
// the bundle is broken (a connection reports that as its start error).
import type * as Sdk from "./mcp-sdk-modules.ts";

export type McpSdk = typeof Sdk;

let loading: Promise<McpSdk> | undefined;

export function loadMcpSdk(): Promise<McpSdk> {
  loading ??= import("./mcp-sdk-modules.ts");
  return loading;
}
