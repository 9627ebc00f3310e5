// Shared fixtures for the tool tests: real temporary folders, and a runner that calls a tool the
// way the loop does (execute, collecting updates), turning a throw into { isError, text }.
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { AgentToolResult, AnyAgentTool } from "../../app/main/loop/index.ts";

export function tempDir(prefix = "lathe-tools-"): { dir: string; cleanup: () => void } {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface ToolRun {
  isError: boolean;
  text: string;
  result?: AgentToolResult;
  error?: Error;
  updates: AgentToolResult[];
}

export async function runTool(
  tool: AnyAgentTool,
  args: unknown,
  opts: { id?: string; signal?: AbortSignal; onUpdate?: (u: AgentToolResult) => void; keepUpdates?: boolean } = {},
): Promise<ToolRun> {
  const updates: AgentToolResult[] = [];
  try {
    const result = await tool.execute(opts.id ?? "call-1", args, opts.signal, (u: AgentToolResult) => {
      if (opts.keepUpdates !== false) updates.push(u);
      opts.onUpdate?.(u);
    });
    const text = result.content.map((c) => (c.type === "text" ? c.text : `[image ${c.mimeType}]`)).join("\n");
    return { isError: false, text, result, updates };
  } catch (err) {
    return { isError: true, text: (err as Error).message, error: err as Error, updates };
  }
}
