// Walks a folder tree depth-first in name order, honouring .gitignore files (the walked folders'
// own and those of its ancestors up to the project folder or the repository root) and skipping
// `.git` and `node_modules`, unless `noIgnore` is set. Symlinked folders are listed, not entered;
// entries say whether they are regular files, so a reader can skip symlinks and special files.
// Never throws: unreadable folders are skipped.
import type { Dirent } from "node:fs";
import { existsSync, readFileSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import ignore, { type Ignore } from "ignore";

export interface WalkEntry {
  /** Path relative to the walk's root, with "/" separators. */
  rel: string;
  abs: string;
  isDir: boolean;
  /** A regular file (not a symlink, FIFO, socket or device). */
  isFile: boolean;
  isSymlink: boolean;
}

const ALWAYS_SKIPPED = new Set([".git", "node_modules"]);

interface IgnoreScope {
  /** Turns a path relative to the walk root into one relative to this .gitignore's folder. */
  fromRoot: (rel: string) => string;
  rules: Ignore;
}

function loadIgnore(dirAbs: string, fromRoot: (rel: string) => string): IgnoreScope | undefined {
  const files = [".gitignore", ".ignore"].map((f) => path.join(dirAbs, f));
  const rules = ignore();
  let found = false;
  for (const file of files) {
    try {
      rules.add(readFileSync(file, "utf8"));
      found = true;
    } catch {
      // No such file here.
    }
  }
  return found ? { fromRoot, rules } : undefined;
}

/** .gitignore scopes of the folders above `root` (inside the project), up to the project or repository root. */
function ancestorScopes(root: string, projectDir: string): IgnoreScope[] {
  const scopes: IgnoreScope[] = [];
  if (existsSync(path.join(root, ".git"))) return scopes;
  const rel = path.relative(projectDir, root);
  const insideProject = rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel);
  if (!insideProject) return scopes;
  let dir = root;
  for (;;) {
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
    const prefix = path.relative(dir, root).split(path.sep).join("/");
    const scope = loadIgnore(dir, (rel) => `${prefix}/${rel}`);
    if (scope) scopes.unshift(scope);
    if (dir === projectDir || existsSync(path.join(dir, ".git"))) break;
  }
  return scopes;
}

function isIgnored(scopes: IgnoreScope[], rel: string, isDir: boolean): boolean {
  for (const scope of scopes) {
    const fromScope = scope.fromRoot(rel);
    if (scope.rules.ignores(isDir ? `${fromScope}/` : fromScope)) return true;
  }
  return false;
}

export async function* walk(root: string, options: { projectDir: string; noIgnore?: boolean; signal?: AbortSignal }): AsyncGenerator<WalkEntry> {
  const noIgnore = options.noIgnore ?? false;
  const baseScopes = noIgnore ? [] : ancestorScopes(root, path.resolve(options.projectDir));
  async function* visit(dirRel: string, scopes: IgnoreScope[]): AsyncGenerator<WalkEntry> {
    if (options.signal?.aborted) return;
    const dirAbs = dirRel === "" ? root : path.join(root, dirRel);
    let entries: Dirent[];
    try {
      entries = await readdir(dirAbs, { withFileTypes: true });
    } catch {
      return;
    }
    const own = noIgnore ? undefined : loadIgnore(dirAbs, (rel) => (dirRel === "" ? rel : rel.slice(dirRel.length + 1)));
    const active = own ? [...scopes, own] : scopes;
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const rel = dirRel === "" ? entry.name : `${dirRel}/${entry.name}`;
      const isDir = entry.isDirectory();
      if (!noIgnore && isDir && ALWAYS_SKIPPED.has(entry.name)) continue;
      if (!noIgnore && isIgnored(active, rel, isDir)) continue;
      yield { rel, abs: path.join(root, rel), isDir, isFile: entry.isFile(), isSymlink: entry.isSymbolicLink() };
      if (isDir) yield* visit(rel, active);
    }
  }
  yield* visit("", baseScopes);
}
