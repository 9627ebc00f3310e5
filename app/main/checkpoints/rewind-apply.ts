// Writes a rewind's decisions to a folder (the project, or a new worktree), file by file.
// Each step names the file, the content it must find there (`from`: the state the plan was made
// against; null when the file was absent) and what it leaves (`to`: a stored blob, or removal).
// Before changing a file its current content is hashed (in a worker thread); a file that holds
// neither `from` nor `to` was changed by someone else meanwhile and is left alone, and reported.
// That makes applying idempotent: running the same steps again after a crash completes the
// rewind (steps already done find `to` and are skipped), which is how an interrupted rewind is
// finished at the next start (its steps are journaled before the first file changes).
// Removals run first (a file may stand where a folder must be made), then empty folders the
// checkpoint did not have are removed, then files are written: to a temporary file in the same
// folder, renamed over the old one, so a file is never half-written. Parent folders are created
// as needed and never followed through a symbolic link: a path under a link is skipped.
// Never throws for one file's trouble (it is skipped and reported); throws a GitError when the
// store cannot give a stored content (damaged) and a CheckpointError when the disk is full: the
// journal then stays, so the rest is done later.
import { Buffer } from "node:buffer";
import { randomBytes } from "node:crypto";
import { chmod, lstat, mkdir, open, rename, rmdir, symlink, unlink } from "node:fs/promises";
import type { ComputePool } from "../workers/compute-pool.ts";
import type { FileState } from "../workers/file-state-jobs.ts";
import { GitError } from "./git-runner.ts";
import { displayPath } from "./path-bytes.ts";
import type { BlobReader } from "./blob-reader.ts";
import { CheckpointError } from "./shadow-types.ts";

export interface RewindStep {
  /** base64url of the path bytes. */
  path: string;
  op: "write" | "remove";
  from: { blob: string; mode: string } | null;
  to: { blob: string; mode: string } | null;
}

export interface ApplyOutcome {
  written: number;
  removed: number;
  /** Steps found already done (a resumed rewind). */
  alreadyDone: number;
  skipped: { path: string; why: string }[];
}

export interface ApplyOptions {
  root: string;
  steps: readonly RewindStep[];
  blobs: BlobReader;
  pool: ComputePool;
  maxBytes: number;
  /** Folders (path keys, latin1) the checkpoint has: others left empty by removals are removed. */
  targetDirs?: ReadonlySet<string>;
  /** Called after each step (progress for the window; tests stop a rewind halfway through here). */
  onStep?: (done: number, total: number) => void | Promise<void>;
}

const same = (a: FileState, b: { blob: string; mode: string } | null): boolean =>
  b === null ? a === "absent" : typeof a === "object" && a.blob === b.blob && (a.mode === "120000") === (b.mode === "120000");

export async function applyRewindSteps(options: ApplyOptions): Promise<ApplyOutcome> {
  const { root, steps } = options;
  const outcome: ApplyOutcome = { written: 0, removed: 0, alreadyDone: 0, skipped: [] };
  const { states } = await options.pool.run({ kind: "fileStates", root, paths: steps.map((s) => s.path), maxBytes: options.maxBytes }, { timeoutMs: 10 * 60_000 });
  const full = (rel: Buffer) => Buffer.concat([Buffer.from(`${root}/`), rel]);
  const order = steps.map((step, i) => ({ step, state: states[i]! })).sort((a, b) => (a.step.op === b.step.op ? 0 : a.step.op === "remove" ? -1 : 1));
  let done = 0;
  const emptied = new Set<string>();

  for (const { step, state } of order) {
    const rel = Buffer.from(step.path, "base64url");
    const shown = displayPath(rel);
    if (same(state, step.to) && (step.to === null || typeof state !== "object" || state.mode === step.to.mode)) outcome.alreadyDone++;
    else if (!same(state, step.from)) outcome.skipped.push({ path: shown, why: describeState(state) });
    else if (step.op === "remove") {
      try {
        await unlink(full(rel));
        outcome.removed++;
        for (let slash = rel.lastIndexOf(0x2f); slash > 0; slash = rel.lastIndexOf(0x2f, slash - 1)) emptied.add(rel.subarray(0, slash).toString("latin1"));
      } catch (error) {
        outcome.skipped.push({ path: shown, why: (error as Error).message });
      }
    } else {
      const why = await writeStep(full(rel), rel, step, options);
      if (why) outcome.skipped.push({ path: shown, why });
      else outcome.written++;
    }
    done++;
    await options.onStep?.(done, steps.length);
    if (step.op === "remove" && order[done]?.step.op !== "remove") await removeEmptyFolders(root, emptied, options.targetDirs);
  }
  return outcome;
}

function describeState(state: FileState): string {
  if (state === "absent") return "it was deleted meanwhile";
  if (state === "large") return "it was replaced meanwhile by a file over the size limit";
  if (state === "other") return "it is now a folder or a special file, or lies under a symbolic link";
  if (state === "unreadable") return "it could not be read";
  return "it was changed meanwhile (by you or another program)";
}

/** Deepest first: a folder left empty that the checkpoint did not have. Errors are ignored. */
async function removeEmptyFolders(root: string, candidates: Set<string>, keep: ReadonlySet<string> | undefined): Promise<void> {
  const sorted = [...candidates].sort((a, b) => b.length - a.length);
  candidates.clear();
  for (const key of sorted) {
    if (keep?.has(key)) continue;
    try {
      await rmdir(Buffer.concat([Buffer.from(`${root}/`), Buffer.from(key, "latin1")]));
    } catch {
      // Not empty, or gone: either way it stays as it is.
    }
  }
}

/** Makes the parent folders of `rel` (never through a link); an error text, or null. */
async function ensureParents(root: string, rel: Buffer): Promise<string | null> {
  for (let slash = rel.indexOf(0x2f); slash !== -1; slash = rel.indexOf(0x2f, slash + 1)) {
    const dir = Buffer.concat([Buffer.from(`${root}/`), rel.subarray(0, slash)]);
    const info = await lstat(dir).catch(() => null);
    if (info?.isDirectory()) continue;
    if (info) return `${displayPath(rel.subarray(0, slash))} is not a folder now (a file or a symbolic link stands there)`;
    try {
      await mkdir(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") return (error as Error).message;
    }
  }
  return null;
}

async function writeStep(target: Buffer, rel: Buffer, step: RewindStep, options: ApplyOptions): Promise<string | null> {
  const to = step.to!;
  const parents = await ensureParents(options.root, rel);
  if (parents) return parents;
  const existing = await lstat(target).catch(() => null);
  if (existing?.isDirectory()) {
    try {
      await rmdir(target);
    } catch {
      return "a folder with other files stands there now";
    }
  }
  const content = await options.blobs.read(to.blob);
  if (content === null) throw new GitError("damaged", `The checkpoint store is missing the stored content of ${displayPath(rel)}: it is damaged.`);
  const slash = target.lastIndexOf(0x2f);
  const temp = Buffer.concat([target.subarray(0, slash + 1), Buffer.from(`.lathe-restore-${randomBytes(6).toString("hex")}`)]);
  try {
    if (to.mode === "120000") await symlink(content, temp);
    else {
      const handle = await open(temp, "wx", 0o600);
      try {
        await handle.writeFile(content);
      } finally {
        await handle.close();
      }
      await chmod(temp, to.mode === "100755" ? 0o755 : 0o644);
    }
    await rename(temp, target);
    return null;
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOSPC" || code === "EDQUOT")
      throw new CheckpointError(
        "disk-full",
        `The disk is full: the rewind stopped at ${displayPath(rel)}. Free some space; the rest is written when you rewind again or at Lathe's next start.`,
      );
    return (error as Error).message;
  }
}
