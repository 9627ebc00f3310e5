// One project's snapshot store: a shadow git repository in Lathe's data folder, driven with its own
// --git-dir and the project folder as --work-tree. The project's own .git is never read or
// written (git skips any path component named .git), no hook runs (GitRunner), and the
// project's .gitattributes cannot convert content (info/attributes unsets text, eol, filter…).
//
// Why git and not a content-addressed store in SQLite (measured on this project's 2-core machine,
// load average 6 to 9, a project of 20,000 files / 200 MB): finding what changed costs git
// `status` 50 to 180 ms (about 60 ms of CPU: its C walk compares each file's stat data with the
// index), while the same walk in Node (readdir + lstat of every file, no hashing) took 530 to
// 640 ms; the first snapshot took git 10 to 13 s and SQLite (every file read, hashed, inserted,
// uncompressed) 17.7 s; git also compresses (82 MB stored against 250 MB in SQLite) and honours
// .gitignore exactly as the project's own tools do.
//
// A capture (`capture`): `git status -z` (every untracked file listed, through the untracked
// cache) lists what differs from the previous capture (the repository's HEAD and index always
// hold the last one); those paths are lstat-ed: regular files over `maxFileBytes` are not stored,
// only recorded (size, mtime) in the capture's `large` list; the rest go to `git update-index
// --add --remove --replace` (a first snapshot into packs, by two processes: see #store), then
// `write-tree` and `commit-tree` (each capture's commit has the previous one as parent, so every
// stored tree stays reachable).
// Speed (bench:checkpoint-git, 20,000 files / 200 MB): a turn's capture costs git about 50 ms of
// CPU for status, most of it lstat() of every tracked file, which no setting avoids without a
// file-system monitor (core.fsmonitor runs a program: never here). core.checkStat=minimal is not
// used: it still lstat()s every file (the cost) and only compares fewer fields (no inode, so a
// file replaced by one of the same size and second would be missed).
// Nested git repositories (status shows them as "dir/") are not snapshotted.
// Contract: calls are serialized per repository (one index); each either completes or throws a
// GitError / CheckpointError with a message for a person; none blocks the main thread (git runs as
// a child process, file checks are async).
import { spawn } from "node:child_process";
import { Buffer } from "node:buffer";
import { existsSync, mkdirSync } from "node:fs";
import { lstat, mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { GitError, gitEnvironment, type GitRunner } from "./git-runner.ts";
import { joinNul, pathKey, splitNul } from "./path-bytes.ts";

/** Folders never snapshotted unless the project's own .gitignore says otherwise (with a `!` rule). */
export const DEFAULT_EXCLUDES = [
  "node_modules/",
  ".venv/",
  "venv/",
  "__pycache__/",
  ".tox/",
  ".mypy_cache/",
  ".pytest_cache/",
  ".gradle/",
  ".next/",
  ".nuxt/",
  ".turbo/",
  ".parcel-cache/",
  ".DS_Store",
  "*.pyc",
];

export class CheckpointError extends Error {
  readonly failure: "project-missing" | "damaged" | "disk-full" | "failed";
  constructor(failure: CheckpointError["failure"], message: string) {
    super(message);
    this.name = "CheckpointError";
    this.failure = failure;
  }
}

export interface LargeFile {
  /** Path bytes, latin1-encoded (pathKey). */
  path: string;
  size: number;
  mtimeMs: number;
}

export type ChangeStatus = "added" | "modified" | "deleted";

export interface Change {
  path: Buffer;
  status: ChangeStatus;
  /** The new version (or, deleted, the old one) was over the size limit and is not stored. */
  large: boolean;
}

export interface Capture {
  commit: string;
  tree: string;
  /** What differs from the previous capture of this project (every file for the first). */
  changes: Change[];
  large: LargeFile[];
}

export interface TreeEntry {
  mode: string;
  blob: string;
}

export interface TreeDiffEntry {
  path: Buffer;
  status: ChangeStatus;
  oldMode: string;
  newMode: string;
  oldBlob: string;
  newBlob: string;
}

/** The shadow repository's whole configuration. */
const SHADOW_CONFIG = `[core]
	repositoryformatversion = 0
	filemode = true
	bare = false
	autocrlf = false
	safecrlf = false
	symlinks = true
	untrackedCache = true
	looseCompression = 1
	compression = 1
	quotePath = false
	logAllRefUpdates = false
	sharedRepository = 0600
[index]
	version = 4
[gc]
	auto = 0
[user]
	name = Lathe
	email = checkpoints@lathe.invalid
[commit]
	gpgSign = false
# lathe-checkpoints v2
`;
const LSTAT_CONCURRENCY = 64;
/** From this many files to store at once, objects go into one pack (see #store). */
const BULK_MIN_FILES = 500;
let tempIndexCount = 0;

export class ShadowRepo {
  readonly gitDir: string;
  readonly projectDir: string;
  readonly #git: GitRunner;
  #queue: Promise<unknown> = Promise.resolve();
  #ready: Promise<void> | undefined;
  #lastTree: { commit: string; tree: string } | undefined;

  readonly #readOnly: boolean;

  /** `readOnly`: another Lathe owns the data folder: the repository is only read, never set up. */
  constructor(gitDir: string, projectDir: string, git: GitRunner, readOnly = false) {
    this.gitDir = gitDir;
    this.projectDir = projectDir;
    this.#git = git;
    this.#readOnly = readOnly;
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

  async #init(): Promise<void> {
    if (!existsSync(join(this.gitDir, "HEAD"))) {
      // A repository is these few entries (what `git init` makes, without its sample hooks).
      await mkdir(join(this.gitDir, "objects", "info"), { recursive: true, mode: 0o700 });
      await mkdir(join(this.gitDir, "refs", "heads"), { recursive: true, mode: 0o700 });
      await writeFile(join(this.gitDir, "HEAD"), "ref: refs/heads/checkpoints\n", { mode: 0o600 });
    }
    // Written whole (one file, not a git call per setting): the repository is Lathe's alone.
    const config = join(this.gitDir, "config");
    const current = await readFile(config, "utf8").catch(() => "");
    if (!current.includes("# lathe-checkpoints v2")) await writeFile(config, SHADOW_CONFIG, { mode: 0o600 });
    mkdirSync(join(this.gitDir, "info"), { recursive: true, mode: 0o700 });
    await writeFile(join(this.gitDir, "info", "exclude"), `# Lathe's default excludes (a project's .gitignore can re-include with !)\n${DEFAULT_EXCLUDES.join("\n")}\n`, {
      mode: 0o600,
    });
    // Highest precedence of all attribute files: the project's .gitattributes cannot convert content.
    await writeFile(join(this.gitDir, "info", "attributes"), "* -text -eol -filter -ident -working-tree-encoding\n", { mode: 0o600 });
    await rm(join(this.gitDir, "index.lock"), { force: true });
    const hooks = await stat(this.#git.hooksDir).catch(() => null);
    if (!hooks?.isDirectory()) await mkdir(this.#git.hooksDir, { recursive: true, mode: 0o700 });
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
        // A git killed mid-write leaves index.lock; a file changing under git can fail one read.
        if (error instanceof GitError && error.failure === "failed") {
          await rm(join(this.gitDir, "index.lock"), { force: true });
          return this.#capture(message, maxFileBytes, previousLarge, background);
        }
        throw error;
      }
    }
  }

  async #capture(message: string, maxFileBytes: number, previousLarge: readonly LargeFile[], background: boolean): Promise<Capture> {
    const head = await this.head();
    const git = (args: string[], options: Parameters<GitRunner["run"]>[1] = {}) => this.git(args, { ...options, background });
    // Every untracked file listed (as -uall would), given by configuration so that status can use
    // the untracked cache (git 2.37+ uses it for "all" only when the configuration asks for it):
    // folders whose mtime did not change are not read again.
    const status = await git(["-c", "status.showUntrackedFiles=all", "status", "--porcelain=v2", "-z", "--no-renames", "--ignore-submodules=all"]);
    const candidates = parseStatus(status.stdout);
    const prevLarge = new Map(previousLarge.map((f) => [f.path, f]));
    for (const f of previousLarge) if (!candidates.has(f.path)) candidates.set(f.path, { path: Buffer.from(f.path, "latin1"), inHead: false });

    const toAdd: Buffer[] = [];
    const toRemove: Buffer[] = [];
    const large: LargeFile[] = [];
    const changes: Change[] = [];
    const entries = [...candidates.values()];
    const stats = await mapLimit(entries, LSTAT_CONCURRENCY, (e) => lstat(Buffer.concat([Buffer.from(`${this.projectDir}/`), e.path]), { bigint: false }).catch(() => null));
    entries.forEach((entry, i) => {
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
        return;
      }
      if (!exists) {
        if (entry.inHead) toRemove.push(entry.path);
        if (existedBefore) changes.push({ path: entry.path, status: "deleted", large: before !== undefined && !entry.inHead });
        return;
      }
      toAdd.push(entry.path);
      changes.push({ path: entry.path, status: existedBefore ? "modified" : "added", large: false });
    });

    if (toAdd.length > 0) await this.#store(toAdd, background);
    if (toRemove.length > 0) await git(["update-index", "--force-remove", "-z", "--stdin"], { input: joinNul(toRemove) });
    const headTree = head ? await this.#treeOf(head) : null;
    // Nothing stored changed: the last capture stands (large files may still have changed).
    if (head && headTree && toAdd.length === 0 && toRemove.length === 0) return { commit: head, tree: headTree, changes, large };
    const tree = (await this.git(["write-tree"])).stdout.toString("utf8").trim();
    // Content identical to the last capture (a file saved unchanged): same commit, modified files dropped.
    if (head && headTree === tree) return { commit: head, tree, changes: changes.filter((c) => c.large), large };
    const commitArgs = ["commit-tree", tree, "-m", message];
    if (head) commitArgs.push("-p", head);
    const commit = (await this.git(commitArgs)).stdout.toString("utf8").trim();
    await this.#setHead(commit);
    this.#lastTree = { commit, tree };
    return { commit, tree, changes: head ? changes : changes.filter((c) => c.status !== "deleted"), large };
  }

  /**
   * Hashes and stores `paths` and records them (with their stat data) in the index. Many files (a
   * first snapshot) are streamed into packs (core.bigFileThreshold: update-index's bulk check-in)
   * instead of one loose object file each, which saves most of git's system time, and on two
   * CPUs or more by two processes: the second stores its half with an index of its own (thrown
   * away), then the index adds that half again, which only hashes it (the objects exist). A
   * file changed in between is stored again as it is then. A turn's few files stay loose objects.
   * Measured with `npm run bench:checkpoint-git`.
   */
  async #store(paths: Buffer[], background: boolean): Promise<void> {
    const add = ["update-index", "--add", "--remove", "--replace", "-z", "--stdin"];
    if (paths.length < BULK_MIN_FILES) {
      await this.git(add, { input: joinNul(paths), background });
      return;
    }
    const bulk = ["-c", "core.bigFileThreshold=1", ...add];
    if (availableParallelism() < 2) {
      await this.git(bulk, { input: joinNul(paths), background });
      return;
    }
    const half = Math.ceil(paths.length / 2);
    const mine = paths.slice(0, half);
    const theirs = paths.slice(half);
    const tempIndex = join(this.gitDir, `index.lathe-half-${process.pid}-${++tempIndexCount}`);
    try {
      await Promise.all([this.git(bulk, { input: joinNul(mine), background }), this.git(bulk, { input: joinNul(theirs), background, env: { GIT_INDEX_FILE: tempIndex } })]);
    } finally {
      await Promise.all([rm(tempIndex, { force: true }), rm(`${tempIndex}.lock`, { force: true })]);
    }
    await this.git(add, { input: joinNul(theirs), background });
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
    return parseRawDiff(out.stdout);
  }

  /** Every file of a tree: path key → mode and blob. */
  async listTree(tree: string): Promise<Map<string, TreeEntry & { path: Buffer }>> {
    await this.ready();
    const out = await this.git(["ls-tree", "-r", "-z", "--full-tree", tree]);
    const files = new Map<string, TreeEntry & { path: Buffer }>();
    for (const record of splitNul(out.stdout)) {
      const tab = record.indexOf(0x09);
      if (tab === -1) continue;
      const [mode = "", type = "", blob = ""] = record.subarray(0, tab).toString("utf8").split(" ");
      if (type !== "blob") continue;
      const path = Buffer.from(record.subarray(tab + 1));
      files.set(pathKey(path), { mode, blob, path });
    }
    return files;
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

interface Candidate {
  path: Buffer;
  /** Whether the last capture had this path. */
  inHead: boolean;
}

/** `git status --porcelain=v2 -z` entries, by path key. Nested repositories ("dir/") are left out. */
export function parseStatus(data: Buffer): Map<string, Candidate> {
  const out = new Map<string, Candidate>();
  for (const record of splitNul(data)) {
    const kind = record[0];
    let path: Buffer;
    let inHead = false;
    if (kind === 0x3f /* ? */) path = record.subarray(2);
    else if (kind === 0x31 /* 1 */) {
      // "1 XY sub mH mI mW hH hI path": the path follows the eighth space.
      let at = 0;
      for (let n = 0; n < 8 && at !== -1; n++) at = record.indexOf(0x20, at + (n === 0 ? 0 : 1));
      if (at === -1) continue;
      const fields = record.subarray(0, at).toString("utf8").split(" ");
      inHead = fields[3] !== "000000";
      path = record.subarray(at + 1);
    } else continue;
    if (path.length === 0 || path[path.length - 1] === 0x2f) continue;
    const copy = Buffer.from(path);
    out.set(pathKey(copy), { path: copy, inHead });
  }
  return out;
}

/** `git diff-tree -r -z --raw` records: ":oldmode newmode oldblob newblob S\0path\0". */
export function parseRawDiff(data: Buffer): TreeDiffEntry[] {
  const parts = splitNul(data);
  const out: TreeDiffEntry[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const head = parts[i]!.toString("utf8");
    if (!head.startsWith(":")) {
      i -= 1; // a tree id line (diff-tree with one commit): skip one piece
      continue;
    }
    const [oldMode = "", newMode = "", oldBlob = "", newBlob = "", letter = ""] = head.slice(1).split(" ");
    if (oldMode === "160000" || newMode === "160000") continue;
    const status: ChangeStatus = letter.startsWith("A") ? "added" : letter.startsWith("D") ? "deleted" : "modified";
    out.push({ path: Buffer.from(parts[i + 1]!), status, oldMode, newMode, oldBlob, newBlob });
  }
  return out;
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

/**
 * Reads blobs through one `git cat-file --batch` process: `read(blob)` resolves with the content,
 * or null when the object is missing. Requests are answered in order, one at a time.
 */
export class BlobReader {
  readonly #child: ReturnType<typeof spawn>;
  #buffer: Buffer = Buffer.alloc(0);
  #waiting: { resolve: (b: Buffer | null) => void; reject: (e: Error) => void } | null = null;
  #chain: Promise<unknown> = Promise.resolve();
  #failed: Error | null = null;

  constructor(hooksDir: string, globalArgs: string[]) {
    this.#child = spawn("git", ["-c", `core.hooksPath=${hooksDir}`, "-c", "core.fsmonitor=false", ...globalArgs, "cat-file", "--batch"], {
      cwd: hooksDir,
      env: gitEnvironment(),
      stdio: ["pipe", "pipe", "ignore"],
    });
    this.#child.on("error", (error) => this.#fail(new GitError("failed", `git cat-file could not run: ${error.message}`)));
    this.#child.on("close", () => this.#fail(new GitError("damaged", "git cat-file stopped before answering: the checkpoint store may be damaged.")));
    this.#child.stdin!.on("error", () => undefined);
    this.#child.stdout!.on("data", (chunk: Buffer) => {
      this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
      this.#drain();
    });
  }

  #fail(error: Error): void {
    this.#failed ??= error;
    const w = this.#waiting;
    this.#waiting = null;
    w?.reject(this.#failed);
  }

  #drain(): void {
    const w = this.#waiting;
    if (!w) return;
    const nl = this.#buffer.indexOf(0x0a);
    if (nl === -1) return;
    const header = this.#buffer.subarray(0, nl).toString("utf8");
    if (header.endsWith(" missing")) {
      this.#buffer = this.#buffer.subarray(nl + 1);
      this.#waiting = null;
      w.resolve(null);
      return;
    }
    const size = Number(header.split(" ")[2]);
    if (!Number.isFinite(size)) return this.#fail(new GitError("damaged", `git cat-file answered "${header.slice(0, 100)}".`));
    if (this.#buffer.length < nl + 1 + size + 1) return;
    const content = Buffer.from(this.#buffer.subarray(nl + 1, nl + 1 + size));
    this.#buffer = this.#buffer.subarray(nl + 1 + size + 1);
    this.#waiting = null;
    w.resolve(content);
  }

  read(blob: string): Promise<Buffer | null> {
    const run = this.#chain.then(
      () =>
        new Promise<Buffer | null>((resolve, reject) => {
          if (this.#failed) return reject(this.#failed);
          this.#waiting = { resolve, reject };
          this.#child.stdin!.write(`${blob}\n`);
          this.#drain();
        }),
    );
    this.#chain = run.catch(() => undefined);
    return run;
  }

  close(): void {
    this.#child.removeAllListeners("close");
    this.#child.stdin!.end();
  }
}
