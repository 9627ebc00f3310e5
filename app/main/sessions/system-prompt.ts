// The system prompt of a session: who Lathe is, the active tools, the project folder, platform and
// date, and the project's own instructions (AGENTS.md, and CLAUDE.md when present), outermost
// first. Reads files; never throws.
//
// Instruction lookup: the project folder and its parents up to the repository root (the nearest
// folder holding `.git`), or, when the project is in no repository, up to the home folder, or,
// outside the home folder, the project folder alone. Never `/`, a temporary folder (/tmp,
// /var/tmp, the OS temp folder) or any world-writable folder: anyone may plant an AGENTS.md there.
// Each file is opened without blocking (a FIFO named AGENTS.md is skipped, see file-guard.ts)
// and cut to 64 KB. The files loaded are listed in the session state. The app asks the file
// system off the event loop (`loadProjectInstructionsOffThread`, tools/fs-answers.ts), so a
// project on a mount that stopped answering costs an error, not the app.
import { homedir, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type { AnyAgentTool } from "../loop/index.ts";
import { answeredOffThread, hostSyncFileSystem, type SyncFileSystem } from "../tools/fs-answers.ts";

export interface ProjectInstructions {
  path: string;
  content: string;
}

export const INSTRUCTION_FILES = ["AGENTS.md", "CLAUDE.md"];
const MAX_INSTRUCTION_BYTES = 64 * 1024;

export interface InstructionLookup {
  /** The home folder (default: os.homedir()). */
  homeDir?: string;
  /** Folders never read, nor climbed past (default: /tmp, /var/tmp and os.tmpdir()). */
  tempDirs?: string[];
}

/** The repository root, else the home folder when the project is inside it, else the project itself. */
function instructionBoundary(project: string, home: string, fs: SyncFileSystem): string {
  for (let dir = project; ; dir = dirname(dir)) {
    if (fs.stat(join(dir, ".git"))) return dir;
    if (dir === home) return home;
    if (dirname(dir) === dir) return project;
  }
}

/** The folders whose instruction files apply to `projectDir`, innermost first. */
export function instructionFolders(projectDir: string, lookup: InstructionLookup = {}, fs: SyncFileSystem = hostSyncFileSystem): string[] {
  const real = (p: string) => fs.realpath(p) ?? resolve(p);
  const project = real(projectDir);
  const home = real(lookup.homeDir ?? homedir());
  const forbidden = new Set((lookup.tempDirs ?? ["/tmp", "/var/tmp", tmpdir()]).flatMap((d) => [resolve(d), real(d)]));
  const isRoot = (dir: string) => dirname(dir) === dir;
  const unsafe = (dir: string) => {
    if (isRoot(dir) || forbidden.has(dir)) return true;
    const stat = fs.stat(dir);
    return !stat || (process.platform !== "win32" && (stat.mode & 0o002) !== 0);
  };
  // Every ancestor's stat and `.git` asked at once (answers fetched off the event loop come a pass
  // at a time: asked one level after the other, a deep project took a pass per level).
  for (let dir = project; ; dir = dirname(dir)) {
    fs.stat(dir);
    fs.stat(join(dir, ".git"));
    if (isRoot(dir)) break;
  }
  const boundary = instructionBoundary(project, home, fs);
  const folders: string[] = [];
  for (let dir = project; ; dir = dirname(dir)) {
    if (unsafe(dir)) break;
    folders.push(dir);
    if (dir === boundary || isRoot(dir)) break;
  }
  return folders;
}

/** Instruction files from the outermost folder that applies down to the project folder. */
export function loadProjectInstructions(projectDir: string, lookup: InstructionLookup = {}, fs: SyncFileSystem = hostSyncFileSystem): ProjectInstructions[] {
  const found: ProjectInstructions[] = [];
  for (const dir of instructionFolders(projectDir, lookup, fs)) {
    for (const name of [...INSTRUCTION_FILES].reverse()) {
      const path = join(dir, name);
      const content = fs.head(path, MAX_INSTRUCTION_BYTES);
      if (content?.trim()) found.push({ path, content });
    }
  }
  return found.reverse();
}

/** The same, the file system asked off the event loop; rejects with FileSystemTimeoutError when it does not answer. */
export function loadProjectInstructionsOffThread(projectDir: string, lookup: InstructionLookup = {}): Promise<ProjectInstructions[]> {
  return answeredOffThread((fs) => loadProjectInstructions(projectDir, lookup, fs));
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
