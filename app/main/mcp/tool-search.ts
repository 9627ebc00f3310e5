// tool_search: the one built-in tool through which the model finds and loads MCP tools. With
// `query` it lists the matching tools of the servers the session can use (name, server, one line,
// hints), waiting first for servers still starting; with `load` it returns the names in
// `addedToolNames`, so they become active from this tool result on (message-anchored, replayable:
// see app/main/loop/tool-activation.ts). Its description never mentions servers or tools, so the
// prompt does not change when servers come and go.
import { Type } from "@sinclair/typebox";
import type { AgentTool } from "../loop/index.ts";
import type { McpServerState } from "./connection.ts";
import type { McpToolDefinition } from "./tool-definitions.ts";

export const TOOL_SEARCH = "tool_search";
const MAX_LISTED = 40;

export interface SearchableServer {
  name: string;
  state: McpServerState;
  error?: string;
  tools: readonly McpToolDefinition[];
}

export interface ToolSearchCatalog {
  /** Starts the servers in scope that are not running and waits (bounded) until each is connected or failed. */
  ready(projectId: number): Promise<void>;
  servers(projectId: number): SearchableServer[];
}

export interface ToolSearchDetails {
  query?: string;
  matches: number;
  loaded: string[];
}

const parameters = Type.Object({
  query: Type.Optional(Type.String({ maxLength: 500, description: "Words to match; empty lists all" })),
  load: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 50, description: "Exact names to load" })),
});

// The first line is what the system prompt lists.
const DESCRIPTION =
  "Find and load tools from the user's MCP servers (issue trackers, databases, browsers…).\n" +
  "Search with `query` to see tool names and purposes, then `load` the ones you need: they can be called from your next turn on.";

function tags(tool: McpToolDefinition): string {
  const t: string[] = [tool.server];
  if (tool.annotations.readOnlyHint) t.push("read-only");
  if (tool.annotations.destructiveHint === true && !tool.annotations.readOnlyHint) t.push("destructive");
  return t.join("; ");
}

function matches(tool: McpToolDefinition, words: string[]): number {
  const name = `${tool.server} ${tool.name} ${tool.modelName} ${tool.title ?? ""}`.toLowerCase();
  const properties = tool.inputSchema.properties;
  const parameters = properties && typeof properties === "object" ? Object.keys(properties).join(" ") : "";
  const text = `${name} ${tool.description} ${parameters}`.toLowerCase();
  if (!words.every((w) => text.includes(w))) return -1;
  return words.filter((w) => name.includes(w)).length;
}

export function createToolSearchTool(projectId: number, catalog: ToolSearchCatalog): AgentTool<typeof parameters, ToolSearchDetails> {
  return {
    name: TOOL_SEARCH,
    label: "Find MCP tools",
    description: DESCRIPTION,
    parameters,
    execute: async (_id, params, signal) => {
      await Promise.race([catalog.ready(projectId), new Promise<void>((resolve) => signal?.addEventListener("abort", () => resolve(), { once: true }))]);
      if (signal?.aborted) throw new Error("Cancelled: the run was stopped while MCP servers were starting.");
      const servers = catalog.servers(projectId);
      if (servers.length === 0) {
        return {
          content: [{ type: "text", text: "No MCP servers are configured for this project. The user can add them in Settings → MCP servers." }],
          details: { matches: 0, loaded: [] },
        };
      }
      const usable = servers.flatMap((s) => s.tools.filter((t) => !t.error));
      const lines: string[] = [];
      const loaded: string[] = [];
      for (const name of params.load ?? []) {
        const tool = usable.find((t) => t.modelName === name || `${t.server}/${t.name}` === name);
        const broken = servers.flatMap((s) => s.tools).find((t) => t.error && (t.modelName === name || `${t.server}/${t.name}` === name));
        if (tool) loaded.push(tool.modelName);
        else if (broken) lines.push(`Cannot load ${name}: ${broken.error}`);
        else lines.push(`Not found: ${name} (search first to see the exact names).`);
      }
      const unique = [...new Set(loaded)];
      if (unique.length > 0) lines.unshift(`Loaded ${unique.join(", ")}. ${unique.length === 1 ? "It" : "They"} can be called from your next turn on.`);

      let found = 0;
      if (params.query !== undefined || params.load === undefined) {
        const words = (params.query ?? "").toLowerCase().split(/\s+/).filter(Boolean);
        const ranked = usable
          .map((tool, order) => ({ tool, order, score: matches(tool, words) }))
          .filter((r) => r.score >= 0)
          .sort((a, b) => b.score - a.score || a.order - b.order);
        found = ranked.length;
        if (ranked.length === 0) lines.push(words.length > 0 ? `No tool matches "${params.query}".` : "The servers offer no tools.");
        else {
          lines.push(`${ranked.length} tool${ranked.length === 1 ? "" : "s"}${words.length > 0 ? ` match "${params.query}"` : ""}:`);
          for (const { tool } of ranked.slice(0, MAX_LISTED)) lines.push(`- ${tool.modelName}: ${tool.summary} [${tags(tool)}]`);
          if (ranked.length > MAX_LISTED) lines.push(`… and ${ranked.length - MAX_LISTED} more: add words to narrow the search.`);
          lines.push('Load the ones you need with {"load": ["name", …]}.');
        }
      }
      for (const server of servers) {
        if (server.state === "failed")
          lines.push(
            `(The server ${server.name} is not available: ${server.error ?? "it failed"}${server.tools.length > 0 ? "; its tools are listed as it last offered them" : ""}.)`,
          );
        else if (server.state === "disabled") continue;
        else if (server.state !== "connected") lines.push(`(The server ${server.name} is still starting.)`);
      }
      return {
        content: [{ type: "text", text: lines.join("\n") }],
        details: { ...(params.query !== undefined ? { query: params.query } : {}), matches: found, loaded: unique },
        ...(unique.length > 0 ? { addedToolNames: unique } : {}),
      };
    },
  };
}
