// A Streamable HTTP MCP server on 127.0.0.1 built with the official SDK's server side (stateless:
// a Server and a transport per request), wanting `Authorization: Bearer TOKEN`. Its tools: echo,
// count (progress notices over SSE), huge (an answer over 16 MB). `stop` and `start` let a test
// take it away and bring it back on the same port.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface TestHttpMcp {
  url: string;
  requests: { authorization: string | undefined }[];
  stop(): Promise<void>;
  start(): Promise<void>;
}

function mcpServer(): Server {
  const server = new Server({ name: "http-fixture", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      {
        name: "echo",
        description: "Echoes the text.",
        inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
        annotations: { readOnlyHint: true },
      },
      { name: "count", description: "Counts to `to` with progress notices.", inputSchema: { type: "object", properties: { to: { type: "integer" } }, required: ["to"] } },
      { name: "huge", description: "Answers with more than 16 MB.", inputSchema: { type: "object" } },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    if (request.params.name === "echo") return { content: [{ type: "text", text: `http echo: ${String(args.text)}` }] };
    if (request.params.name === "count") {
      const token = request.params._meta?.progressToken;
      for (let i = 1; i <= Number(args.to); i++) {
        await new Promise((r) => setTimeout(r, 150));
        if (token !== undefined) await extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: i, total: Number(args.to) } });
      }
      await new Promise((r) => setTimeout(r, 50));
      return { content: [{ type: "text", text: `counted to ${String(args.to)}` }] };
    }
    if (request.params.name === "huge") return { content: [{ type: "text", text: "z".repeat(17 * 1024 * 1024) }] };
    return { content: [{ type: "text", text: "unknown tool" }], isError: true };
  });
  return server;
}

export async function startHttpMcp(token: string): Promise<TestHttpMcp> {
  const requests: TestHttpMcp["requests"] = [];
  let http: HttpServer | undefined;
  let port = 0;
  const listen = () =>
    new Promise<void>((resolve) => {
      http = createServer((req, res) => {
        requests.push({ authorization: req.headers.authorization });
        if (req.headers.authorization !== `Bearer ${token}`) {
          res.writeHead(401, { "content-type": "application/json", "www-authenticate": "Bearer" }).end('{"error":"unauthorized"}');
          return;
        }
        if (req.method !== "POST") {
          res.writeHead(405).end();
          return;
        }
        const server = mcpServer();
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
        res.on("close", () => {
          void transport.close();
          void server.close();
        });
        void server.connect(transport).then(() => transport.handleRequest(req, res));
      });
      http.listen(port, "127.0.0.1", () => {
        port = (http!.address() as AddressInfo).port;
        resolve();
      });
    });
  await listen();
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        http?.closeAllConnections();
        http?.close(() => resolve());
      }),
    start: listen,
  };
}
