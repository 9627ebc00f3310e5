// One project's snapshot store: a shadow git repository in Lathe's data folder, driven with its own
// --git-dir and the project folder as --work-tree. The project's own .git is never read or
// written (git skips any path component named .git), no hook runs (GitRunner), and the
// project's .gitattributes cannot convert content (shadow-layout.ts). Files of the store:
// shadow-layout.ts (configuration), first-snapshot.ts (storing many files), loose-object.ts (the
// commits), git-output.ts (parsing), blob-reader.ts (reading contents).
//
// Why git and not a content-addressed store in SQLite (measured on this project's 2-core machine,
// load average 6 to 9, a project of 20,000 files / 200 MB): finding what changed costs git
// `status` 50 to 180 ms (about 60 ms of CPU: its C walk compares each file's stat data with the
// index), while the same walk in Node (readdir + lstat of every file, no hashing) took 530 to
// 640 ms; the first snapshot took git 10 to 13 s and SQLite (every file read, hashed, inserted,
// uncompressed) 17.7 s; git also compresses (82 MB stored against 250 MB in SQLite) and honours
// .gitignore exactly as the project's own tools do.
//
// A capture (`capture`), one git spawn after the first (CAPTURE): `git status -z` (every
// untracked file listed, through the untracked cache) lists what differs from the previous
// capture (the repository's HEAD and index always hold the last one); those paths are lstat-ed:
// regular files over `maxFileBytes` are not stored, only recorded (size, mtime) in the capture's
// `large` list; the rest go to `git update-index --add --remove --replace`, then `write-tree`,
// both run by the same spawn's shell once Lathe answers (a turn's few files; removals and many
// files take calls of their own: first-snapshot.ts, whose first snapshot's files, trees and index
// are written by a process of its own); the commit is written from Node (loose-object.ts; each
// capture's commit has the previous one as parent, so every stored tree stays reachable, `git gc`
// included).
// Where a 10-file turn's capture goes (2026-12-02, 20,000 files / 200 MB, perf stat and
// GIT_TRACE2_PERF of each git process, CPU time, on the shared 2-core machine): status 50 to 57 ms
// (about three quarters of it in the kernel: lstat() of the 20,000 files and twice of each of the
// 2,000 folders, which no setting avoids without a file-system monitor: below); git diff-files,
// which does only the lstat()s, costs 46 to 50), update-index
// 14 to 18, write-tree 16 to 24, the alias's git and shell about 3; each git process pays about
// 1.5 ms to start and 5 to read the index (20,000 entries, with the untracked cache and the cache
// tree), and each index write about 4. Lathe's main thread 9 to 12 ms (a spawn from its process
// about 4 of them). Measured and not kept (no difference beyond the noise): status with
// --no-optional-locks (no index write), core.preloadIndex=false, index.threads=1, no
// sharedRepository (its chmod per object), index version 2; the untracked cache costs update-index
// and write-tree about 2.5 ms each and saves status about 30. No git command both stores files and
// writes their tree without lstat()-ing every file again (commit refreshes the whole index), and
// trees written from Node would leave the index's cache tree invalid, which makes status walk the
// stored trees (20 ms more once it is all invalid).
// A file-system monitor (issue #18, measured 2026-12-02, load 17 to 23, 30 alternated runs): status
// given by a core.fsmonitor v2 hook the 10 changed paths took 33.9 ms of CPU (sys 10.6) against
// 103.5 (sys 78.0) for today's scan; the hook itself 1.6. Not used yet, because no watcher here can
// prove it missed nothing: libuv (Node's fs.watch, recursive or not) and @parcel/watcher 2.6.0 both
// drop inotify's IN_Q_OVERFLOW without a word, @parcel/watcher does not list the files made in a new
// folder before its watch, and git 2.39 given a folder removed and made again ("dir/" or "dir")
// keeps its old untracked-cache listing (the new files are missed: each must be named, or "/").
// core.checkStat=minimal is not used: it still lstat()s every file (the cost) and only compares
// fewer fields (no inode, so a file replaced by one of the same size and second would be missed).
// The index of every file is read by each call and written by update-index and write-tree: split
// (shadow-layout.ts), each write is the changed part only.
// Nested git repositories (status shows them as "dir/") are not snapshotted.
// Contract: calls are serialized per repository (one index); each either completes or throws a
// GitError / CheckpointError with a message for a person; none blocks the main thread (git runs as
// a child process, file checks are async, and reading git's answers about 100,000 files runs in
// slices: slices.ts).
import { Buffer } from "node:buffer";
import { lstat, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { BlobReader } from "./blob-reader.ts";
import { BULK_MIN_FILES, bulkStoreTimeoutMs, canStoreFirstSnapshot, FIRST_STATUS_TIMEOUT_MS, type SnapshotHelper, storeFirstSnapshot, storeMany } from "./first-snapshot.ts";
import { GitError, type GitRunner, type GitSession } from "./git-runner.ts";
import { parseRawDiff, parseStatus, parseTree } from "./git-output.ts";
import { writeCommit } from "./loose-object.ts";
import { joinNul, pathKey } from "./path-bytes.ts";
import { layOutShadowRepo } from "./shadow-layout.ts";
import { CheckpointError, type Capture, type Change, type LargeFile, type TreeDiffEntry, type TreeEntry } from "./shadow-types.ts";
import { Slices } from "./slices.ts";

const LSTAT_CONCURRENCY = 64;

/** What differs from the last capture: every untracked file listed (see #capture). */
const STATUS = ["-c", "status.showUntrackedFiles=all", "status", "--porcelain=v2", "-z", "--no-renames", "--ignore-submodules=all"];
/** The record that ends the status of a CAPTURE call (a status record never equals it: see GitRunner.start). */
const STATUS_END = "lathe-status-end";
/**
 * A capture after the first in one git process started from Lathe (a command-line alias, run by
 * git's shell with the -c settings, --git-dir and --work-tree passed on to each command): `status`
 * (its output, then the STATUS_END record), then the shell waits for Lathe's answer on stdin: a
 * first line "store" followed by the paths to store (update-index, then write-tree, whose tree id
 * is the rest of the output), or anything else (stdin closed) to end there. Each spawn from the
 * app's process costs it a fork of its whole memory (about 4 ms of the main thread's CPU per call
 * at 180 MB of RSS, measured), a shell and small git processes far less.
 */
const CAPTURE = [
  "-c",
  `alias.lathe-capture=!git ${STATUS.join(" ")} || exit; printf '${STATUS_END}\\000'; read -r step || exit 0; test "$step" = store || exit 0; git update-index --add --remove --replace -z --stdin && git write-tree`,
  "lathe-capture",
];

export class ShadowRepo {
  readonly gitDir: string;
  readonly projectDir: string;
  readonly #git: GitRunner;
  #queue: Promise<unknown> = Promise.resolve();
  #ready: Promise<void> | undefined;
  #lastTree: { commit: string; tree: string } | undefined;

  readonly #readOnly: boolean;
  readonly #snapshot: SnapshotHelper | null;
  readonly #signal: AbortSignal | undefined;

  /**
   * `readOnly`: another Lathe owns the data folder: the repository is only read, never set up.
   * `snapshot`: how the process that stores a first snapshot starts (first-snapshot.ts); without
   * it, git stores it. `signal`: stops a first snapshot's process (Lathe closing).
   */
  constructor(gitDir: string, projectDir: string, git: GitRunner, readOnly = false, snapshot: SnapshotHelper | null = null, signal?: AbortSignal) {
    this.gitDir = gitDir;
    this.projectDir = projectDir;
    this.#git = git;
    this.#readOnly = readOnly;
    this.#snapshot = snapshot;
    this.#signal = signal;
  }

  /** Runs `task` after every task queued before it (one index per repository). */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  #args(): string[] {
    return [`--git-dir=${this.gitDir}`, `--work-tree=${this.projectDir}`];
  }

  git(args: string[], options: Parameters<GitRunner["run"]>[1] = {}) {
    return this.#git.run(args, { ...options, globalArgs: this.#args() });
  }

  /** Creates the repository on first use; clears a lock a killed git left behind. */
  ready(): Promise<void> {
    if (this.#readOnly) return Promise.resolve();
    this.#ready ??= this.#init().catch((error: unknown) => {
      this.#ready = undefined;
      throw error;
    });
    return this.#ready;
  }

  #init(): Promise<void> {
    return layOutShadowRepo(this.gitDir, this.#git.hooksDir);
  }

  async #assertProject(): Promise<void> {
    const info = await stat(this.projectDir).catch(() => null);
    if (!info?.isDirectory())
      throw new CheckpointError("project-missing", `The project folder ${this.projectDir} is gone (moved or deleted): no checkpoint can be taken or restored there.`);
  }

  async head(): Promise<string | null> {
    const text = await readFile(join(this.gitDir, "HEAD"), "utf8").catch(() => "");
    const hash = text.trim();
    return /^[0-9a-f]{40}$/.test(hash) ? hash : null;
  }

  async #setHead(commit: string): Promise<void> {
    const temp = join(this.gitDir, `HEAD.lathe-${process.pid}`);
    await writeFile(temp, `${commit}\n`, { mode: 0o600 });
    await rename(temp, join(this.gitDir, "HEAD"));
  }

  /** Takes a snapshot of the project as it is now. `previousLarge`: the large list of the last capture. */
  capture(message: string, maxFileBytes: number, previousLarge: readonly LargeFile[], background = false): Promise<Capture> {
    return this.exclusive(() => this.captureHeld(message, maxFileBytes, previousLarge, background));
  }

  /** capture() for a caller already inside exclusive(). */
  async captureHeld(message: string, maxFileBytes: number, previousLarge: readonly LargeFile[], background = false): Promise<Capture> {
    {
      await this.ready();
      await this.#assertProject();
      try {
        return await this.#capture(message, maxFileBytes, previousLarge, background);
      } catch (error) {
        // The index is only a cache of the last capture (its files' stat data): one that cannot be
        // read is rebuilt from HEAD, and the store is kept (status then compares contents once).
        if (error instanceof GitError && this.#indexUnreadable(error.stderr)) {
          await this.#rebuildIndex();
          return this.#capture(message, maxFileBytes, previousLarge, background);
        }
        // A git killed mid-write leaves index.lock; a file changing under git can fail one read.
        if (error instanceof GitError && error.failure === "failed") {
          await rm(join(this.gitDir, "index.lock"), { force: true });
          return this.#capture(message, maxFileBytes, previousLarge, background);
        }
        throw error;
      }
    }
  }

  #indexUnreadable(stderr: string): boolean {
    return stderr.includes("sharedindex.") || /^fatal: index file corrupt$/m.test(stderr) || stderr.includes(`${join(this.gitDir, "index")}: `);
  }

  async #rebuildIndex(): Promise<void> {
    const shared = (await readdir(this.gitDir).catch(() => [])).filter((name) => name.startsWith("sharedindex."));
    await Promise.all(["index", "index.lock", ...shared].map((name) => rm(join(this.gitDir, name), { force: true })));
    const head = await this.head();
    if (head) await this.git(["read-tree", head]);
  }

  async #capture(message: string, maxFileBytes: number, previousLarge: readonly LargeFile[], background: boolean): Promise<Capture> {
    const head = await this.head();
    // Every untracked file listed (as -uall would), given by configuration so that status can use
    // the untracked cache (git 2.37+ uses it for "all" only when the configuration asks for it):
    // folders whose mtime did not change are not read again.
    // After the first capture, status and the storing are one spawn (CAPTURE); a first snapshot's
    // status lists every file of a project of any size: a call of its own, with the longer bound.
    const session = head ? this.#git.start(CAPTURE, STATUS_END, { globalArgs: this.#args(), background }) : null;
    try {
      const status = session ? await session.head : (await this.git(STATUS, { background, timeoutMs: FIRST_STATUS_TIMEOUT_MS })).stdout;
      return await this.#captureFrom(status, head, session, message, maxFileBytes, previousLarge, background);
    } finally {
      // Lets the command end (stdin closed) whatever happened; its failure, if any, was reported.
      await session?.finish().catch(() => undefined);
    }
  }

  async #captureFrom(
    status: Buffer,
    head: string | null,
    session: GitSession | null,
    message: string,
    maxFileBytes: number,
    previousLarge: readonly LargeFile[],
    background: boolean,
  ): Promise<Capture> {
    const git = (args: string[], options: Parameters<GitRunner["run"]>[1] = {}) => this.git(args, { ...options, background });
    // A turn may have changed 100,000 files: the parsing and the loop below run in slices.
    const slices = new Slices();
    const candidates = await parseStatus(status, slices);
    const prevLarge = new Map(previousLarge.map((f) => [f.path, f]));
    for (const f of previousLarge) if (!candidates.has(f.path)) candidates.set(f.path, { path: Buffer.from(f.path, "latin1"), inHead: false });

    const toAdd: Buffer[] = [];
    const sizesToAdd: number[] = [];
    let bytesToAdd = 0;
    const toRemove: Buffer[] = [];
    const large: LargeFile[] = [];
    const changes: Change[] = [];
    const entries = [...candidates.values()];
    const folder = Buffer.from(`${this.projectDir}/`);
    const stats = await mapLimit(entries, LSTAT_CONCURRENCY, (e) => lstat(Buffer.concat([folder, e.path]), { bigint: false }).catch(() => null));
    for (let i = 0; i < entries.length; i++) {
      if (slices.due()) await slices.yield();
      const entry = entries[i]!;
      const info = stats[i] ?? null;
      const key = pathKey(entry.path);
      const before = prevLarge.get(key);
      const existedBefore = entry.inHead || before !== undefined;
      const exists = info !== null && (info.isFile() || info.isSymbolicLink());
      if (info && info.isFile() && info.size > maxFileBytes) {
        const now: LargeFile = { path: key, size: info.size, mtimeMs: Math.trunc(info.mtimeMs) };
        large.push(now);
        if (entry.inHead) toRemove.push(entry.path);
        if (!before || before.size !== now.size || before.mtimeMs !== now.mtimeMs) changes.push({ path: entry.path, status: existedBefore ? "modified" : "added", large: true });
        continue;
      }
      if (!exists) {
        if (entry.inHead) toRemove.push(entry.path);
        if (existedBefore) changes.push({ path: entry.path, status: "deleted", large: before !== undefined && !entry.inHead });
        continue;
      }
      toAdd.push(entry.path);
      sizesToAdd.push(info.size);
      bytesToAdd += info.size;
      changes.push({ path: entry.path, status: existedBefore ? "modified" : "added", large: false });
    }

    const headTree = head ? await this.#treeOf(head) : null;
    // Nothing stored changed: the last capture stands (large files may still have changed).
    if (head && headTree && toAdd.length === 0 && toRemove.length === 0) return { commit: head, tree: headTree, changes, large };
    let tree: string;
    if (session && toRemove.length === 0 && toAdd.length < BULK_MIN_FILES) {
      // A turn's few files: stored and the tree written by the status's own spawn (see CAPTURE).
      tree = (await session.finish(Buffer.concat([Buffer.from("store\n"), joinNul(toAdd)]))).stdout.toString("utf8").trim();
    } else {
      await session?.finish();
      if (toAdd.length > 0) await this.#store(toAdd, sizesToAdd, bytesToAdd, head === null, background);
      if (toRemove.length > 0) await git(["update-index", "--force-remove", "-z", "--stdin"], { input: joinNul(toRemove) });
      tree = (await this.git(["write-tree"], { timeoutMs: toAdd.length >= BULK_MIN_FILES ? bulkStoreTimeoutMs(bytesToAdd) : undefined })).stdout.toString("utf8").trim();
    }
    if (!/^[0-9a-f]{40}$/.test(tree)) throw new GitError("failed", `git write-tree gave no tree id (${JSON.stringify(tree.slice(0, 80))}).`);
    // Content identical to the last capture (a file saved unchanged): same commit, modified files dropped.
    if (head && headTree === tree) return { commit: head, tree, changes: changes.filter((c) => c.large), large };
    const commit = await writeCommit(this.gitDir, tree, head, message).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOSPC" || error.code === "EDQUOT")
        throw new GitError("disk-full", "The disk is full: the checkpoint store could not be written. Free some space and try again.");
      throw new GitError("failed", `The checkpoint could not be written to ${this.gitDir}: ${error.message}`);
    });
    await this.#setHead(commit);
    this.#lastTree = { commit, tree };
    return { commit, tree, changes: head ? changes : changes.filter((c) => c.status !== "deleted"), large };
  }

  /** Hashes and stores `paths` (`bytes` in all) and records them, with their stat data, in the index. */
  async #store(paths: Buffer[], sizes: number[], bytes: number, first: boolean, background: boolean): Promise<void> {
    const git = (args: string[], options: Parameters<GitRunner["run"]>[1] = {}) => this.git(args, options);
    if (first && this.#snapshot && (await canStoreFirstSnapshot(this.gitDir, paths.length)))
      return storeFirstSnapshot(this.#snapshot, git, this, paths, sizes, bytes, background, this.#signal);
    if (paths.length >= BULK_MIN_FILES) return storeMany(git, this.gitDir, paths, bytes, background);
    // A turn's few files: loose objects.
    await this.git(["update-index", "--add", "--remove", "--replace", "-z", "--stdin"], { input: joinNul(paths), background });
  }

  /** The tree of a commit (the last capture's is remembered: one git call less per capture). */
  async #treeOf(commit: string): Promise<string> {
    if (this.#lastTree?.commit === commit) return this.#lastTree.tree;
    const tree = (await this.git(["rev-parse", `${commit}^{tree}`])).stdout.toString("utf8").trim();
    this.#lastTree = { commit, tree };
    return tree;
  }

  /** Files that differ between two stored trees (either may be null: the empty tree). */
  async diffTrees(from: string, to: string): Promise<TreeDiffEntry[]> {
    await this.ready();
    const out = await this.git(["diff-tree", "-r", "-z", "--no-renames", "--raw", "--no-abbrev", from, to]);
    return await parseRawDiff(out.stdout);
  }

  /** Every file of a tree: path key → mode and blob. */
  async listTree(tree: string): Promise<Map<string, TreeEntry & { path: Buffer }>> {
    await this.ready();
    const out = await this.git(["ls-tree", "-r", "-z", "--full-tree", tree]);
    return await parseTree(out.stdout);
  }

  /** Whether an object is in the store (a tree or commit of a checkpoint). */
  async has(object: string): Promise<boolean> {
    await this.ready();
    try {
      await this.git(["cat-file", "-e", object]);
      return true;
    } catch (error) {
      if (error instanceof GitError && (error.failure === "failed" || error.failure === "damaged")) return false;
      throw error;
    }
  }

  /** A streaming reader of blobs (`git cat-file --batch`): one request at a time. Close it when done. */
  blobReader(): BlobReader {
    return new BlobReader(this.#git.hooksDir, [`--git-dir=${this.gitDir}`]);
  }
}

async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
