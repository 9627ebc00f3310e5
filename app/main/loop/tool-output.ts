// Checks on what a tool hands back, applied by executeToolCalls before anything else sees it.
// A tool is code the loop does not trust to be right: a result that is not { content, details }
// (undefined, a string, content that is not a list of text and image blocks, addedToolNames that
// are not names) becomes an error result saying what was wrong, instead of crashing the run or
// reaching the store and the renderer. Pure functions; they never throw.
import type { AgentToolResult, TextContent } from "../../shared/agent-types.ts";

/** Why `value` is not a usable tool result; null when it is. */
export function toolResultProblem(value: unknown): string | null {
  if (value === undefined) return "it returned nothing (undefined) instead of { content, details }";
  if (value === null) return "it returned null instead of { content, details }";
  if (typeof value !== "object" || Array.isArray(value)) {
    return `it returned ${Array.isArray(value) ? "an array" : `a ${typeof value}`} instead of { content, details }`;
  }
  const { content, addedToolNames } = value as { content?: unknown; addedToolNames?: unknown };
  if (content === undefined) return "its content is missing";
  if (!Array.isArray(content)) return `its content is ${content === null ? "null" : `a ${typeof content}`}, not a list`;
  for (let i = 0; i < content.length; i++) {
    if (!isContentBlock(content[i])) return `its content[${i}] is neither text nor an image`;
  }
  if (addedToolNames !== undefined && !(Array.isArray(addedToolNames) && addedToolNames.every((n) => typeof n === "string"))) {
    return "its addedToolNames is not a list of tool names";
  }
  return null;
}

function isContentBlock(block: unknown): boolean {
  if (block === null || typeof block !== "object") return false;
  const b = block as Record<string, unknown>;
  if (b.type === "text") return typeof b.text === "string";
  if (b.type === "image") return typeof b.data === "string" && typeof b.mimeType === "string";
  return false;
}

/**
 * Splits a result's addedToolNames into the names that can be activated and a sentence for the
 * model naming the others. Repeats are dropped. Without `canActivate`, every name is kept.
 */
export function checkAddedToolNames(names: readonly string[], canActivate: ((name: string) => boolean) | undefined): { added: string[]; notice: TextContent | null } {
  const added: string[] = [];
  const refused: string[] = [];
  for (const name of new Set(names)) {
    if (!canActivate || canActivate(name)) added.push(name);
    else refused.push(name);
  }
  if (refused.length === 0) return { added, notice: null };
  const shown = refused.map((name) => (/^[\w.:-]+$/.test(name) ? name : JSON.stringify(name.slice(0, 200))));
  return { added, notice: { type: "text", text: `Not added: ${shown.join(", ")} (no such tool).` } };
}

/** The result with its addedToolNames checked: refused names are left out and reported in its content. */
export function withCheckedAddedToolNames(result: AgentToolResult, canActivate: ((name: string) => boolean) | undefined): AgentToolResult {
  const names = result.addedToolNames;
  if (!names || names.length === 0) return result;
  const { added, notice } = checkAddedToolNames(names, canActivate);
  const { addedToolNames: _dropped, ...rest } = result;
  return {
    ...rest,
    content: notice ? [...result.content, notice] : result.content,
    ...(added.length > 0 ? { addedToolNames: added } : {}),
  };
}
