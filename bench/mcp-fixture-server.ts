// The MCP server bench:mcp starts 20 times: 50 tools each (names, descriptions and schemas vary
// with FIXTURE_INDEX, as real servers' do), built on the official SDK's Server over stdio. Each
// tool answers with its `text` argument. bench/mcp.bench.ts bundles it and builds a Node startup
// snapshot of it, so starting one costs about what starting Node costs.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import v8 from "node:v8";

const VERBS = ["create", "update", "delete", "list", "get", "search", "archive", "merge", "sync", "export"];
const NOUNS = ["issue", "comment", "label", "milestone", "project"];

function start(): void {
  const index = Number(process.env.FIXTURE_INDEX ?? 0);
  const tools = Array.from({ length: 50 }, (_, i) => {
    const verb = VERBS[i % VERBS.length]!;
    const noun = NOUNS[Math.floor(i / VERBS.length) % NOUNS.length]!;
    return {
      name: `${verb}_${noun}`,
      description: `${verb[0]!.toUpperCase()}${verb.slice(1)} a ${noun} in service ${index}. Returns the ${noun} as JSON with its id, title, author and timestamps.`,
      inputSchema: {
        type: "object",
        properties: {
          text: { type: "string", description: `The ${noun}'s text` },
          [`${noun}_id`]: { type: "integer", minimum: 1, description: `Which ${noun}` },
          labels: { type: "array", items: { type: "string" } },
          state: { type: "string", enum: ["open", "closed", "all"] },
        },
        required: ["text"],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: verb === "list" || verb === "get" || verb === "search" },
    };
  });
  const server = new Server({ name: `bench-fixture-${index}`, version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => ({
    content: [{ type: "text", text: String((request.params.arguments as { text?: unknown } | undefined)?.text ?? "") }],
  }));
  void server.connect(new StdioServerTransport());
}

if (v8.startupSnapshot?.isBuildingSnapshot()) v8.startupSnapshot.setDeserializeMainFunction(start);
else start();
