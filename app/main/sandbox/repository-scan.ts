// Finds git repositories a sandboxed command created or rewrote in a SUB-folder of the project
// (the project's top is handled by untrusted-repos.ts): a `.git` (folder or file) or a bare
// repository's layout (HEAD, objects, refs) anywhere below the top, born during the command (a new
// or replaced one), one that was not there at the previous scan and was moved in during it (its
// own ctime or a folder's between it and the top moved: made elsewhere earlier, then renamed in),
// or an existing one whose config, hooks folder, `commondir` or `config.worktree` changed during
// it. git uses such a repository when it runs inside that folder, outside the sandbox too, and
// obeys its config and hooks.
// Incremental, so a 20,000-file project is not read in full after every command: the previous
// scan's folders are `lstat`ed, and only those changed since (a folder's ctime moves when an entry
// is added, removed or renamed in it) are read again, new sub-folders in full. The first scan of a
// project reads every folder. Symbolic links are not followed; `.git` folders are not entered. At
// most MAX_SCAN_DIRS folders: past that the result says it is incomplete. Runs in a compute pool
// worker (plain data in and out; nested-repositories.ts). Synchronous; never throws.
import { lstatSync, readdirSync, realpathSync, statSync, type Stats } from "node:fs";
import path from "node:path";

export const MAX_SCAN_DIRS = 50_000;
// File times come from the kernel's coarse clock, up to a tick (a few milliseconds) behind
// Date.now(): a change counts as "since" a moment when it is at most this much older. A time in
// whole seconds is taken to come from a file system that keeps only seconds (FAT, HFS+), with two
// seconds of slack (at worst a repository made just before the command is reported as well).
const CLOCK_SLACK_MS = 50;
const COARSE_SLACK_MS = 2_000;

function atOrAfter(time: number, moment: number): boolean {
  return time >= moment - (time % 1000 === 0 ? COARSE_SLACK_MS : CLOCK_SLACK_MS);
}
// In an existing repository, what git reads that can make it run a program (besides the folder
// itself being replaced): a changed ctime on one of these is a rewrite.
const RUNNABLE_ENTRIES = ["config", "hooks", "commondir", "config.worktree"];

export interface RepositoryScanState {
  /** When the scan that made this state started (Date.now()). */
  startedAt: number;
  /** Folders below the project's top, the top included, as absolute paths. */
  dirs: string[];
  /** Repositories seen below the top (`.git` entries and bare repository folders), each with what identifies its state. */
  repositories: Record<string, string>;
  complete: boolean;
  /** Repositories that are symbolic links into the project (`sub/.git -> ..`): not mounted read-only (nested-repositories.ts). */
  linksIntoProject?: string[];
}

export interface RepositoryScanJob {
  kind: "repositoryScan";
  projectDir: string;
  /** When the command started: what was born or changed since then is reported. */
  commandStartedAt: number;
  previous?: RepositoryScanState;
  maxDirs?: number;
}

export interface RepositoryScanResult {
  state: RepositoryScanState;
  /** Repositories below the top created, replaced or rewritten since the command started. */
  changed: string[];
  /** Folders read (the rest were only `lstat`ed). */
  read: number;
}

function lstat(p: string): Stats | undefined {
  try {
    return lstatSync(p, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function isFolder(p: string): boolean {
  try {
    return statSync(p, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

function since(stats: Stats | undefined, moment: number): boolean {
  if (!stats) return false;
  // birthtimeMs is 0 where the file system keeps no birth time; the ctime covers a birth too.
  return atOrAfter(stats.ctimeMs, moment);
}

/** Whether the repository at `repo` (a `.git` entry or a bare repository's folder) was created or rewritten since `moment`. */
function changedSince(repo: string, stats: Stats, moment: number, top: string, isNew: boolean): boolean {
  if (stats.birthtimeMs > 0 && atOrAfter(stats.birthtimeMs, moment)) return true;
  if (isNew && movedIn(repo, stats, moment, top)) return true;
  // A `.git` file names its git folder: changed, it names another one.
  if (!stats.isDirectory()) return atOrAfter(stats.ctimeMs, moment);
  return RUNNABLE_ENTRIES.some((name) => since(lstat(path.join(repo, name)), moment));
}

/** Whether `repo`, or a folder between it and `top`, was renamed (or changed) since `moment`. */
function movedIn(repo: string, stats: Stats, moment: number, top: string): boolean {
  if (atOrAfter(stats.ctimeMs, moment)) return true;
  for (let dir = path.dirname(repo); dir !== top && dir.startsWith(top); dir = path.dirname(dir)) {
    if (since(lstat(dir), moment)) return true;
  }
  return false;
}

/** The identity and state of what git would run from: a change of it is a creation, a replacement or a rewrite. */
function signature(repo: string, stats: Stats): string {
  const own = `${stats.dev}:${stats.ino}:${stats.birthtimeMs}`;
  if (!stats.isDirectory()) return `${own}:${stats.ctimeMs}`;
  return [own, ...RUNNABLE_ENTRIES.map((name) => lstat(path.join(repo, name))?.ctimeMs ?? "-")].join(":");
}

function isBareLayout(dir: string, names: Set<string>): boolean {
  // git follows a symbolic link at `objects` (or `refs`): so does this check.
  return names.has("HEAD") && names.has("objects") && names.has("refs") && isFolder(path.join(dir, "objects"));
}

export function runRepositoryScanJob(job: RepositoryScanJob): RepositoryScanResult {
  const startedAt = Date.now();
  const maxDirs = job.maxDirs ?? MAX_SCAN_DIRS;
  const top = job.projectDir;
  const previous = job.previous?.complete ? job.previous : undefined;
  // Folders changed since the previous scan, or since the command started if that was earlier (a
  // scan for a command running at the same time may have come between).
  const changedFrom = previous ? Math.min(previous.startedAt, job.commandStartedAt) : -Infinity;
  const dirs: string[] = [];
  const repositories = new Set<string>();
  const known = new Set(previous?.dirs ?? []);
  const toRead: string[] = [];
  let complete = true;

  if (previous) {
    for (const dir of previous.dirs) {
      const stats = lstat(dir);
      if (!stats?.isDirectory()) continue;
      dirs.push(dir);
      if (since(stats, changedFrom)) toRead.push(dir);
    }
    // Repositories in folders not read again (checked below: gone, or still there).
    for (const repo of Object.keys(previous.repositories)) repositories.add(repo);
  } else {
    dirs.push(top);
    toRead.push(top);
  }

  let read = 0;
  while (toRead.length > 0) {
    const dir = toRead.pop()!;
    read++;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    const names = new Set(entries.map((e) => e.name));
    if (dir !== top && isBareLayout(dir, names)) repositories.add(dir);
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.name === ".git") {
        if (dir !== top) repositories.add(full);
        continue;
      }
      if (!entry.isDirectory() || known.has(full)) continue;
      if (dirs.length >= maxDirs) {
        complete = false;
        continue;
      }
      known.add(full);
      dirs.push(full);
      toRead.push(full);
    }
  }
  // The repositories that went away are dropped; the rest are checked against the command's start.
  // One changed since then but already seen in this state by the previous scan (which ran after
  // an earlier command that ended within the clock's slack, or during this command) is not
  // reported again: it was then.
  const signatures: Record<string, string> = {};
  const linksIntoProject: string[] = [];
  const changed: string[] = [];
  for (const repo of repositories) {
    const stats = lstat(repo);
    if (!stats) continue;
    signatures[repo] = signature(repo, stats);
    if (stats.isSymbolicLink() && linksInto(repo, top)) linksIntoProject.push(repo);
    const seen = previous?.repositories[repo];
    if (changedSince(repo, stats, job.commandStartedAt, top, seen === undefined) && seen !== signatures[repo]) changed.push(repo);
  }
  return { state: { startedAt, dirs, repositories: signatures, complete, linksIntoProject }, changed, read };
}

/** Whether the link `p` resolves into `top` (or to it); a link that cannot be resolved does not. */
function linksInto(p: string, top: string): boolean {
  try {
    const target = realpathSync(p);
    const real = realpathSync(top);
    return target === real || target.startsWith(real + path.sep);
  } catch {
    return false;
  }
}
