// Everything McpConnection needs once a server starts: the MCP SDK's pieces, the stdio transport
// and the tool-list reader (with its TypeBox schema compiler), in one module that loads lazily as a
// whole (mcp-sdk.ts). Only mcp-sdk.ts imports this file (by a dynamic import).
export { Client } from "@modelcontextprotocol/sdk/client/index.js";
export { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
export { ErrorCode, McpError, ResultSchema, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
export { StdioTransport } from "./stdio-transport.ts";
export { MAX_TOOLS_PER_SERVER, readToolList } from "./tool-definitions.ts";
