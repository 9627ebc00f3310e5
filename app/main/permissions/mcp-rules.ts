// Permission rules for MCP servers' tools: a call to tool T of server S is the subject "S/T" of
// the pseudo-tool "mcp", so rules read `mcp: github/create_issue`, `mcp: github/*` or `mcp: *`,
// and the one policy (policy.ts) decides as for any tool: deny beats allow, full auto allows, and
// otherwise it asks (the server's readOnlyHint is only shown, never trusted to allow). Pure.
import type { PermissionRequest } from "../../shared/ipc/contract.ts";
import type { McpCallSummary } from "../../shared/ipc/mcp-schemas.ts";
import { namedSubjects } from "./call-parts.ts";
import type { CallSubjects } from "./policy.ts";

export const MCP_RULE_TOOL = "mcp";

export function mcpSubjects(call: McpCallSummary): CallSubjects {
  return namedSubjects([`${call.server}/${call.tool}`]);
}

export function mcpSummary(call: McpCallSummary): PermissionRequest["summary"] {
  return { title: `Call ${call.server}/${call.tool} (MCP server ${call.server})`, outsideProject: false, mcp: call };
}

export function mcpProposedRule(call: McpCallSummary): { tool: string; pattern: string } {
  return { tool: MCP_RULE_TOOL, pattern: `${call.server}/${call.tool}` };
}
