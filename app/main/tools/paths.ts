// Path resolution for the coding tools: every path argument resolves against the session's project
// folder, with `~` expanded. `toolPathOf` names the path a call touches (the permission judge
// asks it before a tool runs, then walks the path itself); `describeToolPaths` adds whether it
// lies outside the project (symlinks are followed through the nearest existing ancestor:
// realPathOf, the walk of real-path.ts, which the permission judge uses too, with the file
// system's answers fetched off the event loop: fs-answers.ts). Never throws synchronously; the
// async functions reject only with FileSystemTimeoutError.
import { homedir } from "node:os";
import path from "node:path";
import { realPathOffThread } from "./fs-answers.ts";

export { realPathOf } from "./real-path.ts";

/**
 * Longest path a tool takes (its schema's maxLength: the loop refuses a longer one before the
 * permission check). No system opens a longer one (Windows' limit; Linux's is 4,096 bytes), and a
 * hostile path of 20 MB held the main thread for seconds in the walk to its real path.
 */
export const MAX_PATH_ARGUMENT_CHARS = 32_768;

export interface ToolPath {
  /** Absolute, normalised path the call will touch. */
  path: string;
  /** True when the path (or what its existing ancestors' symlinks point to) is outside the project. */
  outsideProject: boolean;
}

/** Expands `~` and `~/...`, then resolves against the project folder. */
export function resolveToolPath(input: string, projectDir: string): string {
  let p = input.trim();
  // Models sometimes send "@path" (mention syntax); a leading @ is never part of a real path here.
  if (p.startsWith("@")) p = p.slice(1);
  if (p === "~") p = homedir();
  else if (p.startsWith("~/")) p = path.join(homedir(), p.slice(2));
  return path.resolve(expandHome(projectDir), p);
}

function expandHome(dir: string): string {
  if (dir === "~") return homedir();
  return dir.startsWith("~/") ? path.join(homedir(), dir.slice(2)) : dir;
}

function isInside(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/** Whether the path, links followed, lies outside the project (the file system asked off the event loop). */
export async function isOutsideProject(absPath: string, projectDir: string): Promise<boolean> {
  const root = path.resolve(expandHome(projectDir));
  if (!isInside(absPath, root)) return true;
  const [real, realRoot] = await Promise.all([realPathOffThread(absPath), realPathOffThread(root)]);
  return !isInside(real, realRoot);
}

/** Relative to the project when inside it, absolute otherwise: the form shown to the model and the UI. */
export function displayPath(absPath: string, projectDir: string): string {
  const root = path.resolve(expandHome(projectDir));
  if (!isInside(absPath, root)) return absPath;
  return path.relative(root, absPath) || ".";
}

const PATH_ARG_DEFAULTS: Record<string, string | undefined> = {
  read: undefined,
  write: undefined,
  edit: undefined,
  ls: ".",
  find: ".",
  grep: ".",
};

/**
 * The paths a call of `toolName` with `args` touches. Unknown tools and bash (whose commands
 * cannot be analysed reliably) give []. Arguments of the wrong shape give [] too: validation
 * reports those before anything runs.
 */
export async function describeToolPaths(toolName: string, args: unknown, projectDir: string): Promise<ToolPath[]> {
  const abs = toolPathOf(toolName, args, projectDir);
  return abs === undefined ? [] : [{ path: abs, outsideProject: await isOutsideProject(abs, projectDir) }];
}

/**
 * The absolute path a call of `toolName` touches, without following symlinks (no file system
 * access): for the permission judge, which walks the path once itself (path-facts.ts).
 */
export function toolPathOf(toolName: string, args: unknown, projectDir: string): string | undefined {
  if (!(toolName in PATH_ARG_DEFAULTS)) return undefined;
  const raw = args !== null && typeof args === "object" ? (args as Record<string, unknown>).path : undefined;
  const input = typeof raw === "string" && raw.trim() !== "" ? raw : PATH_ARG_DEFAULTS[toolName];
  return input === undefined ? undefined : resolveToolPath(input, projectDir);
}
