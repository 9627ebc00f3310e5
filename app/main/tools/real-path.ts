// The real path of a path that may not exist yet: the real path of its nearest existing ancestor
// (symlinks and `..` resolved by the system), followed by the rest as written. One walk for the
// tools (tools/paths.ts: which paths a call touches, a write's target, the file lock's key) and
// the permission judge (permissions/path-facts.ts: the path that path rules judge), so both see
// the same real path. It asks the system about few prefixes, however long the path (a model's
// argument may hold millions of characters):
// - an absolute normal POSIX path (no `.`, `..` or empty names, no trailing `/`): from the end up,
//   the path itself first (it, or its folder, usually exists), never a prefix of PATH_MAX
//   characters or more (no system call finds one): a path of 200,000 names through a link costs
//   some 2,000 questions (about 13 ms), not one a name, each copying its prefix (2 s);
// - an absolute normal Windows path (not a root, no trailing separator): the path itself, then
//   from the root down to the first name that does not exist (nothing exists below it), so the
//   depth of what exists;
// - any other path (relative, or not normal; no caller gives one): from the end up, a name at a
//   time, to the root.
// The system's answers come from `realpath` (hostRealpath by default: the real path of an
// existing path, undefined for a missing one) and the path flavour from `paths` (node:path by
// default); tests pass stand-ins for both (path.win32 for the Windows walk). Never throws, as
// long as `realpath` does not (hostRealpath does not).
import { existsSync, realpathSync } from "node:fs";
import path, { type PlatformPath } from "node:path";

/** The real path of an existing path (symlinks resolved); undefined when it does not exist or cannot be read. */
export type Realpath = (p: string) => string | undefined;

/** The host's answer: realpathSync.native (the system's realpath), asked only of a path that exists. */
export function hostRealpath(p: string): string | undefined {
  // Checked first: a thrown error costs far more than a second system call.
  if (!existsSync(p)) return undefined;
  try {
    return realpathSync.native(p);
  } catch {
    return undefined;
  }
}

/** Bytes of the longest path a system call takes, its final NUL included (Linux; macOS: 1,024). */
const PATH_MAX = 4096;

/** A POSIX path that path.resolve would return unchanged: absolute, no `.`/`..`/empty segments. */
export const NOT_NORMAL = /\/\/|\/\.\.?(?:\/|$)|.\/$/;

/** Real path of `p`, following symlinks through its nearest existing ancestor. */
export function realPathOf(p: string, realpath: Realpath = hostRealpath, paths: PlatformPath = path): string {
  const posix = paths.sep === "/";
  if (posix && p.charCodeAt(0) === 47 && !NOT_NORMAL.test(p)) return walkUpPrefixes(p, realpath, paths);
  if (!posix && paths.isAbsolute(p) && paths.normalize(p) === p && !p.endsWith(paths.sep)) return walkDown(p, realpath, paths);
  let existing = p;
  const rest: string[] = [];
  // No bound on the steps: dirname returns a shorter prefix until the root, which is its own
  // parent. (A bound of 4,096 once gave up on a longer path, unresolved: a link out of the project
  // followed by 4,096 missing names was judged by where it appears to be.)
  for (;;) {
    const real = realpath(existing);
    if (real !== undefined) return rest.length === 0 ? real : below(real, rest.reverse(), paths);
    const parent = paths.dirname(existing);
    if (parent === existing) return p;
    rest.push(paths.basename(existing));
    existing = parent;
  }
}

/**
 * An absolute normal POSIX path: its ancestors are its prefixes before a `/` (`/` itself at 0),
 * asked about from the longest under PATH_MAX up; what follows the nearest existing one is kept as
 * written (no names split off and joined again).
 */
function walkUpPrefixes(p: string, realpath: Realpath, paths: PlatformPath): string {
  let end = p.length < PATH_MAX ? p.length : p.lastIndexOf("/", PATH_MAX - 1);
  for (;;) {
    const existing = end === p.length ? p : end === 0 ? "/" : p.slice(0, end);
    const real = realpath(existing);
    if (real !== undefined) {
      if (end === p.length) return real;
      if (real.charCodeAt(0) !== 47 || NOT_NORMAL.test(real)) return paths.join(real, p.slice(end + 1));
      return (real.length === 1 ? "" : real) + p.slice(end);
    }
    if (end === 0) return p;
    end = p.lastIndexOf("/", end - 1);
  }
}

/**
 * An absolute normal path of another flavour, not ending with a separator (Windows: `C:\a\b`,
 * `\\server\share\a`; a root goes the general way): the path itself, then its ancestors from the
 * root down while they exist (in a normal path nothing exists below a missing name). What follows
 * the deepest is joined to its real path as one string (spread as arguments, 200,000 names threw).
 */
function walkDown(p: string, realpath: Realpath, paths: PlatformPath): string {
  const whole = realpath(p);
  if (whole !== undefined) return whole;
  const { root } = paths.parse(p);
  let real = realpath(root);
  if (real === undefined) return p;
  // `at`: where the name after the deepest existing ancestor starts. The path itself was asked.
  let at = root.length;
  for (let end = p.indexOf(paths.sep, at); end !== -1; end = p.indexOf(paths.sep, at)) {
    const next = realpath(p.slice(0, end));
    if (next === undefined) break;
    real = next;
    at = end + 1;
  }
  return paths.join(real, p.slice(at));
}

/** paths.join(folder, ...names), the names being path segments (basenames), without the spread. */
function below(folder: string, names: string[], paths: PlatformPath): string {
  if (paths.sep !== "/" || folder.charCodeAt(0) !== 47 || NOT_NORMAL.test(folder) || !names.every(plainName)) return paths.join(folder, names.join(paths.sep));
  return `${folder.length === 1 ? "" : folder}/${names.join("/")}`;
}

function plainName(name: string): boolean {
  return name !== "" && name !== "." && name !== ".." && !name.includes("/");
}
