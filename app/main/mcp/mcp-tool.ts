// An MCP server's tool as an AgentTool, so it goes through the loop's pipeline like a built-in:
// its arguments are checked against the server's JSON Schema in `prepareArguments` (phase 1, before
// beforeToolCall, so an invalid call never reaches a permission dialog or the server; the loop's
// own TypeBox 0.34 check sees an Unknown-kind copy of the schema, which is what providers are sent);
// progress notifications become tool_execution_update (at most one per 100 ms); the abort signal cancels the call on the
// server; the result becomes bounded content (tool-results.ts), and a result the server marks as
// an error becomes an error result. A stand-in (`createUnavailableTool`) answers for a tool that
// is active in a session but that no connected server offers now.
import { Type, type TSchema } from "@sinclair/typebox";
import type { CallToolResult, Progress } from "@modelcontextprotocol/sdk/types.js";
import type { AgentToolResult } from "../../shared/agent-types.ts";
import type { AnyAgentTool } from "../loop/index.ts";
import { ToolExecutionError } from "../tools/tool-error.ts";
import type { McpToolDefinition } from "./tool-definitions.ts";
import { convertCallResult, type McpCallDetails } from "./tool-results.ts";

const PROGRESS_INTERVAL_MS = 100;

export interface McpProgressDetails {
  phase: "progress";
  server: string;
  tool: string;
  progress: number;
  total?: number;
  message?: string;
}

/** Runs a call on the tool's server (starting it when needed); rejects with a message for the model. */
export type McpCallRunner = (
  definition: McpToolDefinition,
  args: Record<string, unknown>,
  signal: AbortSignal | undefined,
  onProgress: ((progress: Progress) => void) | undefined,
) => Promise<CallToolResult>;

export function argumentsProblem(definition: McpToolDefinition, args: unknown): string | null {
  const problems = definition.checkArguments(args);
  return problems ? `Invalid arguments for tool "${definition.modelName}":\n${problems.join("\n")}\nFix these fields and call the tool again.` : null;
}

function progressUpdate(definition: McpToolDefinition, progress: Progress): AgentToolResult<McpProgressDetails> {
  const of = typeof progress.total === "number" ? ` of ${progress.total}` : "";
  const message = typeof progress.message === "string" ? `: ${progress.message.slice(0, 500)}` : "";
  return {
    content: [{ type: "text", text: `Progress ${progress.progress}${of}${message}` }],
    details: {
      phase: "progress",
      server: definition.server,
      tool: definition.name,
      progress: progress.progress,
      ...(typeof progress.total === "number" ? { total: progress.total } : {}),
      ...(typeof progress.message === "string" ? { message: progress.message.slice(0, 500) } : {}),
    },
  };
}

export async function runMcpCall(
  definition: McpToolDefinition,
  args: Record<string, unknown>,
  signal: AbortSignal | undefined,
  onUpdate: ((partial: AgentToolResult<McpProgressDetails>) => void) | undefined,
  run: McpCallRunner,
): Promise<AgentToolResult<McpCallDetails>> {
  const started = performance.now();
  // A server may send progress notices faster than anyone can read them: at most one per 100 ms.
  let lastUpdate = -Infinity;
  const onProgress = onUpdate
    ? (p: Progress) => {
        const now = performance.now();
        if (now - lastUpdate < PROGRESS_INTERVAL_MS) return;
        lastUpdate = now;
        onUpdate(progressUpdate(definition, p));
      }
    : undefined;
  const result = await run(definition, args, signal, onProgress);
  const converted = convertCallResult(definition.server, definition.name, result);
  converted.details.durationMs = Math.round(performance.now() - started);
  if (converted.details.isError) throw new ToolExecutionError(converted.text || "The tool reported an error without a message.", converted.details);
  return { content: converted.content, details: converted.details };
}

export function createMcpAgentTool(definition: McpToolDefinition, run: McpCallRunner): AnyAgentTool {
  const parameters: TSchema = Type.Unknown(structuredClone(definition.inputSchema));
  return {
    name: definition.modelName,
    label: definition.title ?? `${definition.server}/${definition.name}`,
    description: definition.description,
    parameters,
    prepareArguments: (raw: unknown) => {
      const problem = argumentsProblem(definition, raw);
      if (problem) throw new Error(problem);
      return raw;
    },
    execute: (_toolCallId, args, signal, onUpdate) => runMcpCall(definition, args as Record<string, unknown>, signal, onUpdate, run),
  };
}

/**
 * A tool active in a session whose server does not offer it now (not started yet, failed, or
 * removed). Calling it resolves the tool at call time: `resolve` starts the server when it can and
 * returns the definition, or throws why the tool cannot be used.
 */
export function createUnavailableTool(modelName: string, reason: string, resolve: (modelName: string) => Promise<McpToolDefinition>, run: McpCallRunner): AnyAgentTool {
  return {
    name: modelName,
    label: modelName,
    description: `A tool of an MCP server that is not available right now (${reason}). Calling it tries to start the server again.`,
    parameters: Type.Unknown({ type: "object" }),
    execute: async (_toolCallId, args, signal, onUpdate) => {
      const definition = await resolve(modelName);
      const problem = argumentsProblem(definition, args);
      if (problem) throw new Error(problem);
      return runMcpCall(definition, args as Record<string, unknown>, signal, onUpdate, run);
    },
  };
}
