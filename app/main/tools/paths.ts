// Path resolution for the coding tools: every path argument resolves against the session's project
// folder, with `~` expanded. `describeToolPaths` is the pure-ish entry point the permission layer
// calls before a tool runs, to learn which paths a call touches and whether each lies outside the
// project (symlinks are followed through the nearest existing ancestor). Never throws.
import { existsSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";

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

/**
 * Real path of `p`, following symlinks through its nearest existing ancestor. That ancestor is
 * found from the root down: in a normal absolute path (no `.` or `..`) nothing exists below a
 * missing name, so the walk costs the depth of what exists (a few thousand names at most), not of
 * the path. Walking up from the end, as before, made one system call per name, each copying the
 * whole prefix: a model's path of 100,000 names held the main thread 1.5 s, of a million minutes.
 */
export function realPathOf(p: string): string {
  try {
    if (existsSync(p)) return realpathSync(p);
    if (!path.isAbsolute(p) || path.normalize(p) !== p) return realPathWalkingUp(p);
    const { root } = path.parse(p);
    const names = p.slice(root.length).split(path.sep);
    let existing = root;
    let i = 0;
    for (; i < names.length; i++) {
      const next = path.join(existing, names[i]!);
      if (!existsSync(next)) break;
      existing = next;
    }
    // Joined first: spread as arguments, 200,000 names threw (too many arguments), and the catch
    // below answered the path as given, a link out of the project judged inside.
    return path.join(realpathSync(existing), names.slice(i).join(path.sep));
  } catch {
    return p;
  }
}

/** The walk from the end, for a path that is not absolute and normal (no caller passes one). */
function realPathWalkingUp(p: string): string {
  let existing = p;
  const rest: string[] = [];
  while (!existsSync(existing)) {
    const parent = path.dirname(existing);
    if (parent === existing) return p;
    rest.unshift(path.basename(existing));
    existing = parent;
  }
  return path.join(realpathSync(existing), rest.join(path.sep));
}

export function isOutsideProject(absPath: string, projectDir: string): boolean {
  const root = path.resolve(expandHome(projectDir));
  if (!isInside(absPath, root)) return true;
  return !isInside(realPathOf(absPath), realPathOf(root));
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
export function describeToolPaths(toolName: string, args: unknown, projectDir: string): ToolPath[] {
  if (!(toolName in PATH_ARG_DEFAULTS)) return [];
  const raw = args !== null && typeof args === "object" ? (args as Record<string, unknown>).path : undefined;
  const input = typeof raw === "string" && raw.trim() !== "" ? raw : PATH_ARG_DEFAULTS[toolName];
  if (input === undefined) return [];
  const abs = resolveToolPath(input, projectDir);
  return [{ path: abs, outsideProject: isOutsideProject(abs, projectDir) }];
}
