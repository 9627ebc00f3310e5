// What a path really is, for path rules: its real path (symlinks and `..` resolved through the
// nearest existing ancestor), whether that lies inside the project's real folder, in which forms
// rules see it, and whether it is a protected file (one that makes other tools run code). Case is
// folded on macOS and Windows, whose file systems ignore it by default; the platform, home folder
// and realpath are injectable so unit tests can stand in for another system. The walk to the real
// path is the tools' (tools/real-path.ts), so the judge and the tools see the same real path.
// Never throws.
import { homedir } from "node:os";
import path from "node:path";
import type { SmallFileText } from "../tools/fs-answers.ts";
import { smallFileTextSync } from "../tools/small-files.ts";
import { hostRealpath, NOT_NORMAL, realPathOf as realPathThrough } from "../tools/real-path.ts";

export interface PathPlatform {
  platform: NodeJS.Platform;
  home: string;
  /** Resolves symlinks of an existing path; undefined when it does not exist (or cannot be read). */
  realpath(p: string): string | undefined;
  /** A small regular file's text (a package.json's); the host's, read now, when not given. */
  smallFileText?: SmallFileText;
}

export const hostPlatform: PathPlatform = { platform: process.platform, home: homedir(), realpath: hostRealpath, smallFileText: smallFileTextSync };

/** The same platform with realpath answers remembered: for the paths of one call. */
export function memoizedPlatform(platform: PathPlatform): PathPlatform {
  return new MemoizedPlatform(platform);
}

/**
 * Answers remembered for the paths of one call: a flat list of (key, answer) pairs searched in
 * order (a call names few paths), moved to a Map past MEMO_LIST_PAIRS (a hostile line may name
 * thousands). Made for every judgement: no Map or hash table unless it is needed.
 */
export class CallMemo<T> {
  private pairs: (string | T)[] | undefined;
  private map: Map<string, T> | undefined;

  get(key: string): T | undefined {
    if (this.map) return this.map.get(key);
    const pairs = this.pairs;
    if (pairs) for (let i = 0; i < pairs.length; i += 2) if (pairs[i] === key) return pairs[i + 1] as T;
    return undefined;
  }

  set(key: string, value: T): void {
    if (this.map) return void this.map.set(key, value);
    const pairs = (this.pairs ??= []);
    if (pairs.length < 2 * MEMO_LIST_PAIRS) return void pairs.push(key, value);
    this.map = new Map();
    for (let i = 0; i < pairs.length; i += 2) this.map.set(pairs[i] as string, pairs[i + 1] as T);
    this.map.set(key, value);
    this.pairs = undefined;
  }
}
const MEMO_LIST_PAIRS = 16;

class MemoizedPlatform implements PathPlatform {
  readonly platform: NodeJS.Platform;
  readonly home: string;
  readonly smallFileText: SmallFileText | undefined;
  private readonly inner: PathPlatform;
  private readonly known = new CallMemo<string | null>();

  constructor(inner: PathPlatform) {
    this.inner = inner;
    this.platform = inner.platform;
    this.home = inner.home;
    this.smallFileText = inner.smallFileText;
  }

  // An arrow property, not a method: `realpath` may be passed on alone.
  readonly realpath = (p: string): string | undefined => {
    let answer = this.known.get(p);
    if (answer === undefined) {
      answer = this.inner.realpath(p) ?? null;
      this.known.set(p, answer);
    }
    return answer ?? undefined;
  };
}

export function foldsCase(platform: PathPlatform): boolean {
  return platform.platform === "darwin" || platform.platform === "win32";
}

export interface PathFacts {
  /** Absolute, as given (`..` resolved lexically). */
  given: string;
  /** With symlinks resolved. */
  real: string;
  /** The real path relative to the project's real folder, with `/`, or null when outside. */
  relative: string | null;
  /** The given path relative to the project folder, or null when outside it. */
  givenRelative: string | null;
  inside: boolean;
}

/** Real path of `p`, following symlinks through its nearest existing ancestor (tools/real-path.ts). */
export function realPathOf(p: string, platform: PathPlatform): string {
  return realPathThrough(p, platform.realpath);
}

const POSIX = path.sep === "/";

/** path.resolve(p), without its work (and garbage) when `p` is already absolute and normal. */
export function resolved(p: string): string {
  return POSIX && p.charCodeAt(0) === 47 && !NOT_NORMAL.test(p) ? p : path.resolve(p);
}

/** path.resolve(folder, p) for an absolute folder, without its garbage when the result is normal. */
export function resolvedFrom(folder: string, p: string): string {
  if (!POSIX || folder.charCodeAt(0) !== 47) return path.resolve(folder, p);
  return resolved(p.charCodeAt(0) === 47 ? p : folder.length === 1 ? `/${p}` : `${folder}/${p}`);
}

/**
 * `child` relative to `parent` with `/`, or null when outside (or when the relative path starts
 * with `..`, as path.relative's answer was read). Both are absolute and normal (resolved or real);
 * on POSIX the answer is found by comparing prefixes, without path.relative's garbage.
 */
function relativeInside(child: string, parent: string, fold: boolean): string | null {
  if (!POSIX || NOT_NORMAL.test(child) || NOT_NORMAL.test(parent) || child.charCodeAt(0) !== 47 || parent.charCodeAt(0) !== 47) {
    const rel = path.relative(fold ? parent.toLowerCase() : parent, fold ? child.toLowerCase() : child);
    if (rel.startsWith("..") || path.isAbsolute(rel)) return null;
    // Keep the child's own spelling.
    const own = rel === "" ? "." : child.slice(child.length - rel.length);
    return own.split(path.sep).join("/");
  }
  const from = fold ? parent.toLowerCase() : parent;
  const to = fold ? child.toLowerCase() : child;
  if (from === to) return ".";
  // Where the relative part starts in `to`: after the parent and its separator.
  const at = from.length === 1 ? 1 : from.length + 1;
  if (!to.startsWith(from) || (from.length > 1 && to.charCodeAt(from.length) !== 47)) return null;
  if (to.startsWith("..", at)) return null;
  // Keep the child's own spelling (folding may change a string's length: count from the end).
  return child.slice(child.length - (to.length - at));
}

/** The project folder, absolute, and its real path: computed once for the many paths of one call. */
export interface ProjectRoot {
  root: string;
  realRoot: string;
}

export function projectRoot(projectDir: string, platform: PathPlatform): ProjectRoot {
  const root = resolved(projectDir);
  return { root, realRoot: realPathOf(root, platform) };
}

export function pathFacts(absPath: string, projectDir: string, platform: PathPlatform, project: ProjectRoot = projectRoot(projectDir, platform)): PathFacts {
  const fold = foldsCase(platform);
  const given = resolved(absPath);
  const { root, realRoot } = project;
  const real = realPathOf(given, platform);
  const relative = relativeInside(real, realRoot, fold);
  // No links on either side (the common case): the given path's relative form is the same.
  const givenRelative = given === real && root === realRoot ? relative : relativeInside(given, root, fold);
  return { given, real, relative, givenRelative, inside: relative !== null };
}

export interface ProtectedPath {
  /** Shown in the dialog: the path, then why. */
  warning: string;
  /** Why alone (a sentence), for text that names the path itself. */
  reason: string;
}

const PACKAGE_MANAGER_SETTINGS = [".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs"];
const HOOK_LISTS = [".pre-commit-config.yaml", "lefthook.yml", ".lefthook.yml"];
/** Whether `segment` is one of the `/`-separated segments of `rel` (no segment list made). */
function hasSegment(rel: string, segment: string): boolean {
  for (let at = rel.indexOf(segment); at !== -1; at = rel.indexOf(segment, at + 1)) {
    const end = at + segment.length;
    if ((at === 0 || rel.charCodeAt(at - 1) === 47) && (end === rel.length || rel.charCodeAt(end) === 47)) return true;
  }
  return false;
}

/** Whether the last segments of `rel` are `tail` (itself `/`-separated). */
function endsWithSegments(rel: string, tail: string): boolean {
  return rel.endsWith(tail) && (rel.length === tail.length || rel.charCodeAt(rel.length - tail.length - 1) === 47);
}

/** Why writing a path (relative, case folded where the system folds it) makes tools run code; checked in this order. */
function codeFileWarning(rel: string): string | undefined {
  if (hasSegment(rel, ".git")) return "files in .git/ (config, hooks) make git run programs";
  if (hasSegment(rel, ".husky")) return ".husky/ holds git hooks that run on commit";
  if (endsWithSegments(rel, ".vscode/tasks.json")) return ".vscode/tasks.json defines commands the editor runs";
  if (endsWithSegments(rel, ".envrc")) return ".envrc is run by direnv when you enter the folder";
  for (let i = 0; i < PACKAGE_MANAGER_SETTINGS.length; i++)
    if (endsWithSegments(rel, PACKAGE_MANAGER_SETTINGS[i]!)) return "package manager settings can name programs to run (script-shell, hooks)";
  for (let i = 0; i < HOOK_LISTS.length; i++) if (endsWithSegments(rel, HOOK_LISTS[i]!)) return "this file names hooks that run on commit";
  return undefined;
}

/**
 * Whether writing this path can make other tools run code. `package.json` counts only when its
 * scripts change (`scriptsChange`), or when that cannot be known (a bash redirection).
 */
export function protectedPath(facts: PathFacts, platform: PathPlatform, scriptsChange: boolean | undefined): ProtectedPath | undefined {
  const fold = foldsCase(platform);
  // The real path's relative form first, then the given one's (a link may hide either).
  for (let k = 0; k < 2; k++) {
    const rel = k === 0 ? facts.relative : facts.givenRelative;
    if (rel === null) continue;
    const folded = fold ? rel.toLowerCase() : rel;
    const warning = codeFileWarning(folded);
    if (warning) return { warning: `${rel}: ${warning}.`, reason: `${warning}.` };
    if (endsWithSegments(folded, "package.json") && scriptsChange !== false) {
      const reason = `package.json scripts run on npm install, npm test and npm run${scriptsChange ? " (this changes them)" : ""}.`;
      return { warning: `${rel}: ${reason}`, reason };
    }
  }
  return undefined;
}

/**
 * The longest package.json text (characters, or bytes of the file) whose scripts are compared: the
 * judge runs on the main thread, and parsing 256 KiB of hostile JSON (`[{},{},...]`) takes about
 * 12 ms (1 MiB: 55 ms). Real package.json files are a few KB; a longer one is "cannot tell".
 */
export const PACKAGE_JSON_MAX_CHARS = 256 * 1024;

/**
 * Whether the "scripts" of a package.json differ between two texts; undefined when unknown (a text
 * that is no JSON, or longer than PACKAGE_JSON_MAX_CHARS, is not parsed).
 */
export function packageScriptsChange(before: string | null, after: string | undefined): boolean | undefined {
  if (after === undefined || after.length > PACKAGE_JSON_MAX_CHARS || (before !== null && before.length > PACKAGE_JSON_MAX_CHARS)) return undefined;
  const scripts = (text: string | null) => {
    if (text === null) return "{}";
    try {
      const json = JSON.parse(text) as { scripts?: unknown } | null;
      return JSON.stringify(json?.scripts ?? {});
    } catch {
      return undefined;
    }
  };
  const a = scripts(before);
  const b = scripts(after);
  return a === undefined || b === undefined ? undefined : a !== b;
}
