// The system prompt of a session: who Lathe is, the active tools, the project folder, platform and
// date, and the project's own instructions (AGENTS.md, and CLAUDE.md when present, from the
// project folder up through its parents, outermost first). Reads files; never throws.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { AnyAgentTool } from "../loop/types.ts";

export interface ProjectInstructions {
  path: string;
  content: string;
}

const INSTRUCTION_FILES = ["AGENTS.md", "CLAUDE.md"];
const MAX_INSTRUCTION_BYTES = 64 * 1024;

/** Instruction files from the filesystem root down to the project folder. */
export function loadProjectInstructions(projectDir: string): ProjectInstructions[] {
  const found: ProjectInstructions[] = [];
  let dir = projectDir;
  for (let depth = 0; depth < 32; depth++) {
    for (const name of [...INSTRUCTION_FILES].reverse()) {
      const path = join(dir, name);
      try {
        const content = readFileSync(path, "utf8").slice(0, MAX_INSTRUCTION_BYTES);
        if (content.trim()) found.push({ path, content });
      } catch {
        // absent or unreadable: nothing to add
      }
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return found.reverse();
}

export function buildSystemPrompt(options: {
  projectDir: string;
  tools: readonly AnyAgentTool[];
  instructions: readonly ProjectInstructions[];
  now?: Date;
  platform?: string;
}): string {
  const date = (options.now ?? new Date()).toISOString().slice(0, 10);
  const tools = options.tools.map((t) => `- ${t.name}: ${t.description.split("\n")[0]}`).join("\n");
  const parts = [
    `You are Lathe, a coding agent working in the user's project on their own machine. You read code, run commands and edit files with the tools below, and the user watches every step and approves what you may do.`,
    `Work like a careful senior engineer: understand before you change; read the relevant files first; make focused edits; run the project's tests or build after changing code; say plainly what you did, what you verified, and what is left. If a tool call is denied, respect the reason and adapt instead of retrying the same call.`,
    `Tools:\n${tools}`,
    `Use read, ls, find and grep to explore rather than bash equivalents (cat, ls, find, grep). Use edit for changes to existing files and write for new files or complete rewrites. Paths are relative to the project folder unless absolute.`,
    `Project folder: ${options.projectDir}\nPlatform: ${options.platform ?? process.platform}\nToday's date: ${date}`,
  ];
  for (const file of options.instructions) {
    parts.push(`Project instructions from ${file.path}:\n\n${file.content.trim()}`);
  }
  return parts.join("\n\n");
}
