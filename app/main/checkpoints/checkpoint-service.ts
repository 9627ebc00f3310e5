// CheckpointService: takes the checkpoints of every session's turns and answers what each turn
// changed. One shadow repository per project (checkpoints/projects/<project id>.git in the data
// folder, see shadow-repo.ts) and one index (checkpoint-db.ts). Rewinds are in rewinder.ts.
//
// When: `prepare` (a session of the project is created or starts running) takes its first snapshot
// in the background (1.5 s later, its git at the lowest CPU priority), so a turn's own checkpoints
// only record what changed; `beforeTurn` is
// awaited by the loop's beforeToolCall gate before the first call of a turn that can change
// files runs; `afterTurn` starts when the turn ends (turn_end) and is not awaited by the loop,
// but every capture of a project runs in order, so it completes before the next turn's
// before-checkpoint. Whatever changed the files (edit, write, bash, an editor) is captured.
// Failure: a capture that fails (the project folder is gone, the disk is full, git is missing,
// the store is damaged) never stops the turn: the turn runs without a checkpoint and one notice
// per project and cause says why. A damaged store is moved aside
// (<id>.git.damaged-<time>) and a new one started at the next capture, with a notice.
// Nothing here blocks the main thread for long: git runs as child processes, file states and
// diffs are computed in the compute pool's workers, the SQLite index writes a few rows.
import { Buffer } from "node:buffer";
import { existsSync, mkdtempSync, renameSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentMessage, AssistantMessage } from "../../shared/agent-types.ts";
import { MAX_LISTED_FILES } from "../../shared/ipc/checkpoint-schemas.ts";
import { type ComputePool, computePool } from "../workers/compute-pool.ts";
import { forkHelper, type HelperLauncher } from "../workers/snapshot-client.ts";
import { MAX_DIFF_FILE_BYTES } from "../tools/file-jobs.ts";
import { CheckpointDb, type CheckpointKind, type CheckpointRow, type TurnPlace } from "./checkpoint-db.ts";
import { checkpointsDir, GitError, GitRunner } from "./git-runner.ts";
import { displayPath, fromPathId, pathId, pathKey } from "./path-bytes.ts";
import { ShadowRepo } from "./shadow-repo.ts";
import { mapInSlices, setInSlices, Slices } from "./slices.ts";
import { CheckpointError, type Change, type ChangeStatus, type LargeFile } from "./shadow-types.ts";
import { attribute, turnAt, turnsOf, type SessionLineage, type TurnInfo } from "./turns.ts";
import { turnCheckpointKey, type TurnScope } from "./turn-hooks.ts";

/** Files over this are recorded as changed but not stored (Settings can change it). */
export const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;
/** How long after a session is created its project's first snapshot starts. */
const PREPARE_DELAY_MS = 1_500;

export type { TurnScope };

/** What the service needs to know of a session (from the sessions service). */
export interface SessionSource {
  /** The session's project and fork lineage, without its messages (cheap at any length). */
  place(sessionId: number): { projectId: number; projectDir: string; lineage: SessionLineage };
  /** The same with the whole transcript (reads every message of a stored session). */
  transcript(sessionId: number): { messages: readonly AgentMessage[]; projectId: number; projectDir: string; lineage: SessionLineage };
  /** The message at `position` of the session's transcript (one row of a stored session), if any. */
  messageAt(sessionId: number, position: number): AgentMessage | undefined;
}

export interface ChangedFile {
  id: string;
  path: string;
  status: ChangeStatus;
  /** Over the size limit: recorded as changed, content not stored (no diff, cannot be restored). */
  large: boolean;
  toolCallIds: string[];
  /** Whether toolCallIds surely made the change (false: one of them, or unknown). */
  certain: boolean;
}

export interface TurnChanges {
  key: string;
  position: number;
  userPosition: number;
  beforeId: number;
  afterId: number | null;
  /** The first MAX_LISTED_FILES files it changed. */
  files: ChangedFile[];
  /** How many files it changed. */
  fileCount: number;
}

export interface CheckpointServiceOptions {
  dataDir: string;
  pool?: ComputePool;
  maxFileBytes?: () => number;
  readOnly?: boolean;
  /** A session's checkpoints changed (to refresh its files-changed lists). */
  onChange?: (sessionId: number) => void;
  onNotice?: (level: "warning" | "error", message: string) => void;
  gitCommand?: string;
  /**
   * How a new project's first snapshot is stored: "process" (default), by a process of its own
   * with two worker threads (first-snapshot.ts), which exits when done, so its memory does not stay
   * with the app (kept, it made every later spawn of git or bash about 7 times slower); "git", by
   * git's update-index processes (also the fallback when the process cannot run).
   */
  firstSnapshot?: "process" | "git";
  /** Starts the snapshot process: child_process.fork by default; the Electron app passes utilityProcess. */
  launchHelper?: HelperLauncher;
}

export class CheckpointService {
  readonly db: CheckpointDb;
  readonly pool: ComputePool;
  readonly git: GitRunner;
  readonly dir: string;
  readonly readOnly: boolean;
  readonly #o: CheckpointServiceOptions;
  readonly #repos = new Map<number, ShadowRepo>();
  /** Stops first snapshots' processes when the service closes. */
  readonly #closing = new AbortController();
  readonly #turns = new Map<string, Promise<CheckpointRow | null>>();
  readonly #warned = new Set<string>();
  readonly #prepared = new Set<number>();
  readonly #inFlight = new Set<Promise<unknown>>();
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();

  constructor(options: CheckpointServiceOptions) {
    this.#o = options;
    this.dir = checkpointsDir(options.dataDir);
    this.readOnly = options.readOnly ?? false;
    this.db = new CheckpointDb(this.dir, { readOnly: this.readOnly });
    this.pool = options.pool ?? computePool();
    // Read-only, nothing is created in the data folder: the empty hooks folder is a temporary one.
    this.git = new GitRunner(this.readOnly ? mkdtempSync(join(tmpdir(), "lathe-no-hooks-")) : join(this.dir, "no-hooks"), options.gitCommand);
    for (const notice of this.db.notices) options.onNotice?.("warning", notice);
  }

  get maxFileBytes(): number {
    return this.#o.maxFileBytes?.() ?? DEFAULT_MAX_FILE_BYTES;
  }

  repo(projectId: number, projectDir: string): ShadowRepo {
    let repo = this.#repos.get(projectId);
    if (!repo || repo.projectDir !== projectDir) {
      const snapshot = this.#o.firstSnapshot === "git" ? null : { launch: this.#o.launchHelper ?? forkHelper };
      repo = new ShadowRepo(join(this.dir, "projects", `${projectId}.git`), projectDir, this.git, this.readOnly, snapshot, this.#closing.signal);
      this.#repos.set(projectId, repo);
    }
    return repo;
  }

  /** The checkpoint key of a turn (before `callName` runs), or null when it needs none (turn-hooks.ts). */
  turnKey(sessionId: number, message: AssistantMessage, callName?: string): string | null {
    return turnCheckpointKey(sessionId, message, callName);
  }

  /** Takes the project's first snapshot in the background if it has none. Never throws. */
  prepare(scope: Omit<TurnScope, "sessionId"> & { sessionId?: number }): void {
    if (this.readOnly || this.#prepared.has(scope.projectId)) return;
    this.#prepared.add(scope.projectId);
    // A moment later, so a session's first seconds (its first request, a dialog) come first; a turn
    // that starts before then takes the first snapshot itself.
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      if (this.db.lastOfProject(scope.projectId)) return;
      void this.capture({ sessionId: scope.sessionId ?? 0, projectId: scope.projectId, projectDir: scope.projectDir }, "baseline", null);
    }, PREPARE_DELAY_MS);
    timer.unref?.();
    this.#timers.add(timer);
  }

  /**
   * The checkpoint before a turn's first call runs; the same promise for every call of the turn.
   * `place` (where the turn's message is in the transcript) lets sessionChanges list the turn
   * without reading the transcript.
   */
  beforeTurn(scope: TurnScope, key: string, place?: TurnPlace): Promise<CheckpointRow | null> {
    const id = `before:${key}`;
    let pending = this.#turns.get(id);
    if (!pending) {
      if (place && !this.readOnly) {
        try {
          this.db.recordTurnPlace(key, place);
        } catch {
          // Without its place the turn is found by reading the transcript (sessionChanges).
        }
      }
      pending = this.capture(scope, "before", key);
      this.#turns.set(id, pending);
    }
    return pending;
  }

  /** The checkpoint after a turn's last call, if the turn had a before-checkpoint. */
  afterTurn(scope: TurnScope, key: string): Promise<CheckpointRow | null> {
    const before = this.#turns.get(`before:${key}`);
    if (!before) return Promise.resolve(null);
    this.#turns.delete(`before:${key}`);
    return before.then((row) => (row ? this.capture(scope, "after", key) : null));
  }

  /**
   * Captures the project now and records it. Never rejects: a failure is reported once (per
   * project and cause) and yields null. `strict` rethrows instead (rewinds need to know).
   */
  capture(scope: TurnScope, kind: CheckpointKind, key: string | null, strict = false): Promise<CheckpointRow | null> {
    const running = this.#capture(scope, kind, key, strict);
    this.#inFlight.add(running);
    void running.finally(() => this.#inFlight.delete(running)).catch(() => undefined);
    return running;
  }

  async #capture(scope: TurnScope, kind: CheckpointKind, key: string | null, strict: boolean): Promise<CheckpointRow | null> {
    if (this.readOnly) {
      if (strict) throw new CheckpointError("failed", "This Lathe opened its data folder read-only: it takes no checkpoints and restores nothing.");
      return null;
    }
    const repo = this.repo(scope.projectId, scope.projectDir);
    try {
      let row: CheckpointRow;
      try {
        row = await this.#record(repo, scope, kind, key);
      } catch (error) {
        if (!(error instanceof GitError && error.failure === "damaged")) throw error;
        this.#setAside(repo, scope.projectId, error);
        row = await this.#record(this.repo(scope.projectId, scope.projectDir), scope, kind, key);
      }
      if (kind === "after" || kind === "restored") this.#o.onChange?.(scope.sessionId);
      return row;
    } catch (error) {
      if (strict) throw error;
      this.#warnOnce(scope.projectId, error);
      return null;
    }
  }

  /** Captures and records in one turn of the repository's queue, so the index and HEAD agree. */
  #record(repo: ShadowRepo, scope: TurnScope, kind: CheckpointKind, key: string | null): Promise<CheckpointRow> {
    return repo.exclusive(() => this.#recordHeld(repo, scope, kind, key));
  }

  async #recordHeld(repo: ShadowRepo, scope: TurnScope, kind: CheckpointKind, key: string | null): Promise<CheckpointRow> {
    const last = this.db.lastOfProject(scope.projectId);
    // A background first snapshot queued while a turn's before-checkpoint was being taken would,
    // taken now, record the turn's own changes as outside work: the project has its first snapshot.
    if (kind === "baseline" && last) return last;
    const head = await repo.head().catch(() => null);
    // The index must know the capture HEAD holds; after a new store (or a lost index) start again.
    const previousLarge = last && head === last.commit ? last.large : [];
    const capture = await repo.captureHeld(`${kind} ${key ?? ""} session ${scope.sessionId}`.trim(), this.maxFileBytes, previousLarge, kind === "baseline");
    return this.db.insertCheckpoint({
      projectId: scope.projectId,
      sessionId: scope.sessionId || null,
      kind,
      turnKey: key,
      commit: capture.commit,
      tree: capture.tree,
      changes: last && head === last.commit ? capture.changes : null,
      large: capture.large,
    });
  }

  #setAside(repo: ShadowRepo, projectId: number, error: GitError): void {
    const aside = `${repo.gitDir}.damaged-${new Date().toISOString().replace(/[:.]/g, "-")}`;
    try {
      if (existsSync(repo.gitDir)) renameSync(repo.gitDir, aside);
    } catch {
      // Left in place: the next capture fails again and says so.
    }
    this.#repos.delete(projectId);
    this.#o.onNotice?.("warning", `${error.message} It was moved to ${aside} and a new one started: this project's earlier checkpoints can no longer be restored.`);
  }

  #warnOnce(projectId: number, error: unknown): void {
    const message = error instanceof GitError || error instanceof CheckpointError ? error.message : `Checkpoint failed: ${(error as Error).message}`;
    const id = `${projectId}:${message}`;
    if (this.#warned.has(id)) return;
    this.#warned.add(id);
    this.#o.onNotice?.("warning", `${message} This turn's file changes cannot be rewound.`);
  }

  // Review

  /**
   * The files each turn of a session changed, oldest turn first. The window asks for it when it
   * opens a session: a session (and fork ancestors) without a checkpoint answers at once, without
   * reading its transcript, which may be 100,000 messages long.
   */
  async sessionChanges(source: SessionSource, sessionId: number): Promise<TurnChanges[]> {
    const place = source.place(sessionId);
    const { projectId, projectDir, lineage } = place;
    const rows = this.db.turnsOfSessions([lineage.sessionId, ...lineage.parents.map((p) => p.sessionId)]).filter((r) => r.projectId === projectId);
    if (rows.length === 0) return [];
    const turns = this.#placedTurns(source, sessionId, rows, lineage, projectDir) ?? turnsOf(source.transcript(sessionId).messages, lineage, projectDir);
    // Each turn's first before and after rows, found once (not a scan of every row per turn).
    const firsts = new Map<string, { before?: CheckpointRow; after?: CheckpointRow }>();
    for (const row of rows) {
      if (row.kind !== "before" && row.kind !== "after") continue;
      let pair = firsts.get(row.turnKey!);
      if (!pair) firsts.set(row.turnKey!, (pair = {}));
      pair[row.kind] ??= row;
    }
    const out: TurnChanges[] = [];
    for (const turn of turns) {
      const before = firsts.get(turn.key)?.before;
      if (!before) continue;
      const after = firsts.get(turn.key)?.after ?? null;
      const { files, fileCount } = after ? await this.#turnFiles(projectId, projectDir, turn, before, after) : { files: [], fileCount: 0 };
      out.push({ key: turn.key, position: turn.position, userPosition: turn.userPosition, beforeId: before.id, afterId: after?.id ?? null, files, fileCount });
    }
    return out;
  }

  /**
   * The turns of these checkpoint rows, each read from its one message at its recorded place
   * (O(turns), whatever the transcript's length); null when a turn has no recorded place (taken
   * by an older Lathe): then the whole transcript is read. A place whose message is not that turn
   * (a parent's turn after the fork, a transcript that changed) is not this transcript's turn.
   */
  #placedTurns(source: SessionSource, sessionId: number, rows: readonly CheckpointRow[], lineage: SessionLineage, projectDir: string): TurnInfo[] | null {
    const keys = [...new Set(rows.filter((r) => r.kind === "before").map((r) => r.turnKey!))];
    const places = this.db.turnPlaces(keys);
    if (places.size < keys.length) return null;
    const turns: TurnInfo[] = [];
    for (const key of keys) {
      const { position, userPosition } = places.get(key)!;
      const message = source.messageAt(sessionId, position);
      const turn = message && turnAt(message, position, userPosition, lineage, projectDir);
      if (turn && turn.key === key) turns.push(turn);
    }
    return turns.sort((a, b) => a.position - b.position);
  }

  async #turnFiles(projectId: number, projectDir: string, turn: TurnInfo, before: CheckpointRow, after: CheckpointRow): Promise<{ files: ChangedFile[]; fileCount: number }> {
    const changes = await this.changesBetween(projectId, projectDir, before, after);
    const files = await mapInSlices(changes.slice(0, MAX_LISTED_FILES), (c) => {
      const shown = displayPath(c.path);
      const who = attribute(turn, c.path.toString("utf8"));
      return { id: pathId(c.path), path: shown, status: c.status, large: c.large, toolCallIds: who.toolCallIds, certain: who.certain };
    });
    return { files, fileCount: changes.length };
  }

  /** What differs between two checkpoints of a project (stored list when consecutive, else a tree diff). */
  async changesBetween(projectId: number, projectDir: string, from: CheckpointRow, to: CheckpointRow): Promise<Change[]> {
    const between = this.db.projectRange(projectId, from.id, to.id);
    if (between.length === 1 && between[0]!.changes) return between[0]!.changes;
    const repo = this.repo(projectId, projectDir);
    const diff = await repo.exclusive(() => repo.diffTrees(from.tree, to.tree));
    const slices = new Slices();
    const out: Change[] = await mapInSlices(diff, (d) => ({ path: d.path, status: d.status, large: false }), slices);
    const seen = await setInSlices(out, (c) => pathKey(c.path), slices);
    out.push(...largeChanges(from.large, to.large).filter((c) => !seen.has(pathKey(c.path))));
    return out;
  }

  /** The bounded diff of one file between two checkpoints of the session's project. */
  async fileDiff(
    source: SessionSource,
    sessionId: number,
    fromId: number,
    toId: number,
    fileId: string,
  ): Promise<{ diff: string; complete: boolean; binary: boolean; large: boolean; path: string }> {
    const { projectId, projectDir } = source.place(sessionId);
    const from = this.db.checkpoint(fromId);
    const to = this.db.checkpoint(toId);
    if (!from || !to || from.projectId !== projectId || to.projectId !== projectId) throw new CheckpointError("failed", "Those checkpoints are not of this session's project.");
    const path = fromPathId(fileId);
    const key = pathKey(path);
    const shown = displayPath(path);
    if ([...from.large, ...to.large].some((f) => f.path === key)) return { diff: "", complete: true, binary: false, large: true, path: shown };
    const repo = this.repo(projectId, projectDir);
    const pair = await repo.exclusive(async (): Promise<[Buffer | null, Buffer | null] | "too large"> => {
      const entry = (await repo.diffTrees(from.tree, to.tree)).find((d) => pathKey(d.path) === key);
      if (!entry) return [null, null];
      const blobs = [entry.oldBlob, entry.newBlob].filter((b) => !/^0+$/.test(b));
      const sizes = (await repo.git(["cat-file", "--batch-check=%(objectsize)"], { input: `${blobs.join("\n")}\n` })).stdout.toString("utf8").split("\n").map(Number);
      if (sizes.some((n) => n > MAX_DIFF_FILE_BYTES)) return "too large" as const;
      const reader = repo.blobReader();
      try {
        const read = async (blob: string) => (/^0+$/.test(blob) ? null : await reader.read(blob));
        return [await read(entry.oldBlob), await read(entry.newBlob)];
      } finally {
        reader.close();
      }
    });
    if (pair === "too large")
      return {
        diff: `The diff is not shown: a version of ${shown} is over ${MAX_DIFF_FILE_BYTES / (1024 * 1024)} MB.\n`,
        complete: false,
        binary: false,
        large: false,
        path: shown,
      };
    const [before, after] = pair;
    if (!before && !after) return { diff: "", complete: true, binary: false, large: false, path: shown };
    const result = await this.pool.run({ kind: "contentDiff", name: shown, before, after }, { timeoutMs: 5_000 });
    return { ...result, large: false, path: shown };
  }

  async close(): Promise<void> {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    // A first snapshot still being stored is stopped (its process killed): it is taken again next time.
    this.#closing.abort();
    await Promise.allSettled([...this.#turns.values()]);
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
    this.db.close();
  }
}

/** Large files whose recorded size or time differ between two lists. */
export function largeChanges(from: readonly LargeFile[], to: readonly LargeFile[]): Change[] {
  const before = new Map(from.map((f) => [f.path, f]));
  const out: Change[] = [];
  for (const f of to) {
    const old = before.get(f.path);
    if (!old) out.push({ path: Buffer.from(f.path, "latin1"), status: "added", large: true });
    else if (old.size !== f.size || old.mtimeMs !== f.mtimeMs) out.push({ path: Buffer.from(f.path, "latin1"), status: "modified", large: true });
    before.delete(f.path);
  }
  for (const f of before.values()) out.push({ path: Buffer.from(f.path, "latin1"), status: "deleted", large: true });
  return out;
}
