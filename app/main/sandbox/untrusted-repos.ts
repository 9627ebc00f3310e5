// Git repositories a sandboxed command created in a project that had none. The sandbox keeps an
// existing `.git` read-only, but where there is none a command may make one (`git init`, or the
// files by hand) with a config or hooks of its choosing: core.fsmonitor, core.hooksPath, filters,
// a promisor remote's ssh command... which git then runs OUTSIDE the sandbox as soon as someone
// runs git there (the user, a command allowed outside, Lathe's own "fork into a worktree").
// Preventing the creation with an empty read-only mount at `.git` was measured and rejected:
// bwrap creates the mount point in the real project and leaves an empty `.git` folder behind
// after every command (and removing it races with other sessions' commands in the same project).
// So the repository is detected instead: `snapshotRepository` before a sandboxed command,
// `createdRepository` after it; a new `.git` (folder or file) or a bare repository's layout at the
// project's top (HEAD, objects, refs) is recorded here as untrusted, by path and inode, in a file
// in Lathe's data folder (hidden from the sandbox) so the mark survives a restart. The mark lapses
// when that `.git` is removed or replaced (another inode or birth time), e.g. re-created outside
// the sandbox.
// Repositories in sub-folders (used by git run inside them) are found by repository-scan.ts and
// marked here the same way; a question about running a command outside the sandbox names every
// marked repository in the project. Never throws.
import { lstatSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { presentOffThread } from "../tools/fs-answers.ts";

export interface RepositorySnapshot {
  dotGit: boolean;
  bare: boolean;
}

const MAX_MARKS = 1000;

function safeLstat(p: string): { dev: number; ino: number; birthtimeMs: number } | undefined {
  try {
    return lstatSync(p, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function present(p: string): boolean {
  return safeLstat(p) !== undefined;
}

/** Whether the project's top has a `.git`, or the layout git takes for a bare repository. */
export function snapshotRepository(projectDir: string): RepositorySnapshot {
  const at = (name: string) => present(path.join(projectDir, name));
  return { dotGit: at(".git"), bare: at("HEAD") && at("objects") && at("refs") };
}

/** The same, the file system asked off the event loop (a hung mount rejects: FileSystemTimeoutError). */
export async function snapshotRepositoryOffThread(projectDir: string): Promise<RepositorySnapshot> {
  const [dotGit, head, objects, refs] = await Promise.all([".git", "HEAD", "objects", "refs"].map((name) => presentOffThread(path.join(projectDir, name))));
  return { dotGit: dotGit!, bare: head! && objects! && refs! };
}

/** The git folder (or `.git` file) that appeared since `before`, if any (`now`: the project's top as it is now). */
export function createdRepository(projectDir: string, before: RepositorySnapshot, now: RepositorySnapshot = snapshotRepository(projectDir)): string | undefined {
  if (now.dotGit && !before.dotGit) return path.join(projectDir, ".git");
  if (now.bare && !before.bare && !now.dotGit) return projectDir;
  return undefined;
}

const MAX_NAMED = 5;

function named(paths: string[]): string {
  const shown = paths.slice(0, MAX_NAMED).join(", ");
  return paths.length > MAX_NAMED ? `${shown} and ${paths.length - MAX_NAMED} more` : shown;
}

/** What the model and the card are told about repositories created (or rewritten) in the sandbox. */
export function createdRepositoryMessage(gitDirs: string | string[]): string {
  const list = typeof gitDirs === "string" ? [gitDirs] : gitDirs;
  const subject = list.length === 1 ? `a git repository (${list[0]})` : `git repositories (${named(list)})`;
  return (
    `This command created or rewrote ${subject} inside the sandbox. Its config and hooks were written by a sandboxed command, ` +
    "and git run outside the sandbox in that folder obeys them (core.fsmonitor, core.hooksPath, filters, hooks run programs): review .git/config, .git/info and .git/hooks before running git there outside the sandbox. " +
    "Lathe treats it as untrusted: it forks no worktree from it, and a command allowed to run outside the sandbox in this project says so in its question."
  );
}

/** A repository by path and identity: inode numbers are reused at once, so its birth time too (0 where the file system keeps none). */
interface Mark {
  path: string;
  dev: number;
  ino: number;
  born: number;
}

export class UntrustedRepositories {
  private marks: Mark[];
  private readonly file: string | undefined;

  /** `file`: where the marks are kept across restarts (undefined: in memory only). */
  constructor(file?: string) {
    this.file = file;
    this.marks = file ? readMarks(file) : [];
  }

  /** Marks the repository at `gitDir` (its current inode) as created inside the sandbox. */
  mark(gitDir: string): void {
    const stat = safeLstat(gitDir);
    if (!stat) return;
    this.marks = this.marks.filter((m) => m.path !== gitDir);
    this.marks.push({ path: gitDir, dev: stat.dev, ino: stat.ino, born: stat.birthtimeMs });
    if (this.marks.length > MAX_MARKS) this.marks.splice(0, this.marks.length - MAX_MARKS);
    this.save();
  }

  /** The untrusted repository that git would use at the top of `dir`, if there is one. */
  find(dir: string): string | undefined {
    for (const candidate of [path.join(dir, ".git"), dir]) {
      const mark = this.marks.find((m) => m.path === candidate);
      if (mark && this.isStill(mark)) return candidate;
    }
    return undefined;
  }

  /** Marked repositories in `projectDir` or below it that are still the ones marked. */
  within(projectDir: string): string[] {
    const prefix = projectDir.endsWith(path.sep) ? projectDir : projectDir + path.sep;
    return this.marks.filter((m) => (m.path === projectDir || m.path.startsWith(prefix)) && this.isStill(m)).map((m) => m.path);
  }

  /** For a question about running a command outside the sandbox in `projectDir`. */
  warning(projectDir: string): string | undefined {
    const top = this.find(projectDir);
    const all = [...new Set([...(top ? [top] : []), ...this.within(projectDir)])];
    if (all.length === 0) return undefined;
    const subject = all.length === 1 ? `the git repository ${all[0]} was` : `the git repositories ${named(all)} were`;
    return `Warning: ${subject} created or rewritten by a command inside the sandbox; git run outside the sandbox in that folder obeys its config and hooks (they can run any program). Review .git/config and .git/hooks first.`;
  }

  private isStill(mark: Mark): boolean {
    const stat = safeLstat(mark.path);
    return stat !== undefined && stat.dev === mark.dev && stat.ino === mark.ino && stat.birthtimeMs === mark.born;
  }

  private save(): void {
    if (!this.file) return;
    try {
      mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
      const temp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(temp, JSON.stringify(this.marks), { mode: 0o600 });
      renameSync(temp, this.file);
    } catch {
      // A read-only or full data folder: the mark stays in memory for this run.
    }
  }
}

function readMarks(file: string): Mark[] {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, "utf8"));
    if (!Array.isArray(parsed)) return [];
    return parsed
      .filter(
        (m): m is Mark => typeof m === "object" && m !== null && typeof m.path === "string" && typeof m.dev === "number" && typeof m.ino === "number" && typeof m.born === "number",
      )
      .slice(-MAX_MARKS);
  } catch {
    return [];
  }
}
