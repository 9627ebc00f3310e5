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

/** The rule that allows exactly this tool: the tool's name is escaped, so it matches only itself. */
export function mcpProposedRule(call: McpCallSummary): { tool: string; pattern: string } {
  return { tool: MCP_RULE_TOOL, pattern: `${call.server}/${escapeGlob(call.tool)}` };
}

/** Backslash before every character picomatch treats as special (globs, braces, extglobs, negation). */
export function escapeGlob(text: string): string {
  return text.replace(/[\\*?[\]{}()!+@|]/g, "\\$&");
}

/**
 * Why a pattern saved from a question about server S's tool is refused, or undefined: each must
 * start with `S/` and hold no control character, so an answer cannot allow another server's tools.
 */
export function mcpPatternError(server: string, pattern: string): string | undefined {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(pattern)) return `The rule ${JSON.stringify(pattern).slice(0, 80)} contains a control character.`;
  if (!pattern.startsWith(`${server}/`))
    return `The rule ${JSON.stringify(pattern).slice(0, 80)} is not for the MCP server ${server}: a rule saved from this question must start with "${server}/".`;
  return undefined;
}
