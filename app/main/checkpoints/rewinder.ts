// Rewinds: restore a session's project files to a checkpoint, after a preview.
//
// preview(session, target): captures the project now (so what you changed since is known), plans
// every differing file (rewind-plan.ts: restored, removed, kept as yours, or a conflict you decide)
// and keeps the plan for a while under a preview id. The target is the before-checkpoint of the
// first turn after a user message (files as they were when the agent started on it), or the state
// just before an earlier rewind (undo).
// apply(preview, choices): captures again (the undo point, kind "rewind"); if any planned file
// changed since the preview, nothing is done and the fresh preview comes back to be confirmed
// again. Otherwise it journals the steps, writes them (rewind-apply.ts: each file is changed only
// if it still holds what the plan saw), captures the result (kind "restored", same key as the
// undo point, so the rewind's own writes count as Lathe's in later plans), and ends the journal.
// recover(): at start, finishes every journaled rewind a crash interrupted (steps are idempotent).
// forkToWorktree: `git worktree add` of the project's repository (hooks off), then the checkpoint's
// files written into it. Errors are CheckpointError/GitError with messages for a person.
import { randomUUID } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import type { CheckpointRow } from "./checkpoint-db.ts";
import type { CheckpointService, SessionSource, TurnScope } from "./checkpoint-service.ts";
import { GitError } from "./git-runner.ts";
import { displayPath, fromPathId, pathId, pathKey, splitNul } from "./path-bytes.ts";
import { applyRewindSteps, type ApplyOutcome, type RewindStep } from "./rewind-apply.ts";
import { applyDecisions, listed, planRewind, samePlan, stepsOf, totalsOf, type Interval, type PlannedFile, type PlanTotals } from "./rewind-plan.ts";
import { type JournalPlan, RewindJournal } from "./rewind-journal.ts";
import type { ShadowRepo } from "./shadow-repo.ts";
import { mapInSlices, setInSlices } from "./slices.ts";
import { CheckpointError } from "./shadow-types.ts";
import { turnsOf } from "./turns.ts";

export interface PreviewFile {
  id: string;
  path: string;
  change: PlannedFile["change"];
  action: PlannedFile["action"];
  conflict: boolean;
  reason: PlannedFile["reason"];
}

export interface RewindPreview {
  previewId: string;
  sessionId: number;
  /** The user message rewound to (null for an undo). */
  position: number | null;
  /** The rewind this undoes, if it is an undo. */
  undoOf: number | null;
  /** At most MAX_LISTED_FILES: the conflicts first, then the others. */
  files: PreviewFile[];
  /** Over every file planned, listed or not (conflicts count as kept). */
  totals: PlanTotals;
  warnings: string[];
  /** The project is in a git repository: a fork can go to a new worktree. */
  gitRepository: boolean;
}

export interface RewindOutcome extends ApplyOutcome {
  rewindId: number;
  /** The folder written: the project, or the new worktree's project folder. */
  folder: string;
  worktree: boolean;
}

interface StoredPreview {
  preview: RewindPreview;
  scope: TurnScope;
  target: CheckpointRow;
  plan: PlannedFile[];
  createdAt: number;
}

const PREVIEW_TTL_MS = 30 * 60_000;
/** Previews kept at once: past it, the oldest is dropped (each holds a plan of up to a whole turn's files). */
export const MAX_PREVIEWS = 20;

export class Rewinder {
  readonly #cp: CheckpointService;
  readonly #previews = new Map<string, StoredPreview>();

  readonly #untrustedRepository: (dir: string) => string | undefined;

  /** `untrustedRepository`: the repository at the top of a folder, when a sandboxed command created it. */
  constructor(checkpoints: CheckpointService, untrustedRepository: (dir: string) => string | undefined = () => undefined) {
    this.#cp = checkpoints;
    this.#untrustedRepository = untrustedRepository;
    this.#journal = new RewindJournal(checkpoints.db, join(checkpoints.dir, "journals"));
  }

  readonly #journal: RewindJournal;

  /** Plans a rewind to before user message `position`, or the undo of rewind `undoOf`. */
  async preview(source: SessionSource, sessionId: number, target: { position: number } | { undoOf: number }): Promise<RewindPreview> {
    const { messages, projectId, projectDir, lineage } = source.transcript(sessionId);
    const scope: TurnScope = { sessionId, projectId, projectDir };
    const warnings: string[] = [];
    let row: CheckpointRow | undefined;
    if ("position" in target) {
      if (messages[target.position]?.role !== "user") throw new CheckpointError("failed", `Message ${target.position} is not one of your messages.`);
      const turns = turnsOf(messages, lineage, projectDir).filter((t) => t.position > target.position);
      const rows = this.#cp.db.ofTurns(turns.map((t) => t.key)).filter((r) => r.kind === "before" && r.projectId === projectId);
      const first = turns.findIndex((t) => rows.some((r) => r.turnKey === t.key));
      row = first === -1 ? undefined : rows.find((r) => r.turnKey === turns[first]!.key);
      if (!row) throw new CheckpointError("failed", "Nothing to rewind: no turn after this message changed files through Lathe (or none has a checkpoint).");
      if (first > 0)
        warnings.push(`${first} turn${first === 1 ? "" : "s"} right after this message had no checkpoint: what ${first === 1 ? "it" : "they"} changed cannot be undone.`);
    } else {
      const rewind = this.#cp.db.rewind(target.undoOf);
      if (!rewind || rewind.sessionId !== sessionId) throw new CheckpointError("failed", `Session ${sessionId} has no rewind ${target.undoOf}.`);
      if (rewind.destination !== projectDir) throw new CheckpointError("failed", "That rewind wrote to a worktree, not to this project: there is nothing here to undo.");
      row = this.#cp.db.checkpoint(rewind.undoId);
      if (!row) throw new CheckpointError("damaged", "The checkpoint taken before that rewind is missing from the checkpoint index.");
    }
    const repo = this.#cp.repo(projectId, projectDir);
    if (!(await repo.has(row.commit))) {
      throw new CheckpointError(
        "damaged",
        `The checkpoint store of this project is missing or damaged (${repo.gitDir}): the files cannot be restored to that point. Your files and the session are unchanged.`,
      );
    }
    const now = await this.#cp.capture(scope, "preview", null, true);
    const plan = await this.#plan(source, scope, row, now!);
    const previewId = randomUUID();
    const preview: RewindPreview = {
      previewId,
      sessionId,
      position: "position" in target ? target.position : null,
      undoOf: "undoOf" in target ? target.undoOf : null,
      files: await mapInSlices(listed(plan), (f) => ({
        id: pathId(f.path),
        path: displayPath(f.path),
        change: f.change,
        action: f.action,
        conflict: f.conflict,
        reason: f.reason,
      })),
      totals: totalsOf(plan),
      warnings,
      gitRepository: "position" in target && (await gitTopLevel(this.#cp, projectDir)) !== null,
    };
    this.#sweep();
    this.#previews.set(previewId, { preview, scope, target: row, plan, createdAt: Date.now() });
    return preview;
  }

  async #plan(source: SessionSource, scope: TurnScope, target: CheckpointRow, now: CheckpointRow): Promise<PlannedFile[]> {
    const repo = this.#cp.repo(scope.projectId, scope.projectDir);
    const diff = await repo.exclusive(() => repo.diffTrees(target.tree, now.tree));
    const { messages, lineage, projectDir } = source.transcript(scope.sessionId);
    const ownKeys = new Set(turnsOf(messages, lineage, projectDir).map((t) => t.key));
    for (const r of this.#cp.db.rewindsOf(scope.sessionId)) ownKeys.add(rewindKeyOf(r.undoId, this.#cp));
    const rows = [target, ...this.#cp.db.projectRange(scope.projectId, target.id, now.id)];
    const intervals: Interval[] = [];
    for (let k = 1; k < rows.length; k++) {
      const a = rows[k - 1]!;
      const b = rows[k]!;
      const lathe =
        a.turnKey !== null && a.turnKey === b.turnKey && ownKeys.has(a.turnKey) && ((a.kind === "before" && b.kind === "after") || (a.kind === "rewind" && b.kind === "restored"));
      const changes = await this.#cp.changesBetween(scope.projectId, scope.projectDir, a, b);
      intervals.push({ lathe, paths: await setInSlices(changes, (c) => pathKey(c.path)) });
    }
    return planRewind(diff, intervals, target.large, now.large);
  }

  /** Applies a preview with the person's choices. Returns the fresh preview instead when files changed since. */
  async apply(
    source: SessionSource,
    previewId: string,
    choices: { restore: readonly string[]; destination: "project" | "worktree" },
  ): Promise<{ done: RewindOutcome } | { changed: RewindPreview }> {
    const stored = this.#previews.get(previewId);
    if (!stored) throw new CheckpointError("failed", "That preview is no longer kept (it expired after 30 minutes, or 20 newer ones were opened): open the rewind again.");
    const restore = new Set(choices.restore.map((id) => pathKey(fromPathId(id))));
    if (choices.destination === "worktree") return { done: await this.#toWorktree(stored) };
    const { scope, target } = stored;
    const key = `rewind:${randomUUID()}`;
    const undo = await this.#cp.capture(scope, "rewind", key, true);
    const plan = await this.#plan(source, scope, target, undo!);
    if (!(await samePlan(plan, stored.plan, restore))) {
      this.#previews.delete(previewId);
      const fresh = await this.preview(source, scope.sessionId, stored.preview.undoOf !== null ? { undoOf: stored.preview.undoOf } : { position: stored.preview.position! });
      fresh.warnings.unshift("Files changed since the preview: look at it again before rewinding.");
      return { changed: fresh };
    }
    this.#previews.delete(previewId);
    const decided = await applyDecisions(plan, restore);
    const steps = await stepsOf(decided);
    const repo = this.#cp.repo(scope.projectId, scope.projectDir);
    const targetDirs = steps.some((s) => s.op === "remove") ? await treeDirs(repo, target.tree) : [];
    const counts = {
      restored: steps.filter((s) => s.op === "write").length,
      removed: steps.filter((s) => s.op === "remove").length,
      kept: decided.filter((f) => f.action === "keep").length,
    };
    const rewind = this.#cp.db.insertRewind({
      sessionId: scope.sessionId,
      projectId: scope.projectId,
      targetId: target.id,
      undoId: undo!.id,
      destination: scope.projectDir,
      summary: { ...counts, label: stored.preview.undoOf !== null ? `undo of rewind ${stored.preview.undoOf}` : `before message ${stored.preview.position}` },
    });
    if (stored.preview.undoOf !== null) this.#cp.db.markUndone(stored.preview.undoOf, rewind.id);
    const journal: JournalPlan = {
      sessionId: scope.sessionId,
      projectId: scope.projectId,
      projectDir: scope.projectDir,
      root: scope.projectDir,
      key,
      rewindId: rewind.id,
      steps,
      targetDirs,
    };
    const outcome = await this.#run(journal, await this.#journal.begin(journal));
    return { done: { ...outcome, rewindId: rewind.id, folder: scope.projectDir, worktree: false } };
  }

  /** A preview still waiting to be applied. */
  pending(previewId: string): RewindPreview | undefined {
    return this.#previews.get(previewId)?.preview;
  }

  /** Test and progress hook: called after each file of a rewind. */
  onStep: ((done: number, total: number) => void | Promise<void>) | undefined;

  async #run(plan: JournalPlan, journalId: number): Promise<ApplyOutcome> {
    const repo = this.#cp.repo(plan.projectId, plan.projectDir);
    const outcome = await repo.exclusive(async () => {
      const blobs = repo.blobReader();
      try {
        return await applyRewindSteps({
          root: plan.root,
          steps: plan.steps,
          blobs,
          pool: this.#cp.pool,
          maxBytes: this.#cp.maxFileBytes,
          targetDirs: new Set(plan.targetDirs),
          onStep: this.onStep,
        });
      } finally {
        blobs.close();
      }
    });
    // The result is recorded next in the project's queue (before any later capture), while the
    // window already shows the files restored; the journal ends once it is.
    const recorded =
      plan.root === plan.projectDir
        ? this.#cp.capture({ sessionId: plan.sessionId, projectId: plan.projectId, projectDir: plan.projectDir }, "restored", plan.key)
        : Promise.resolve(null);
    this.#settling = recorded.then(() => this.#journal.end(journalId)).catch(() => undefined);
    return outcome;
  }

  #settling: Promise<unknown> = Promise.resolve();

  /** Resolves when the last rewind's result is recorded. */
  settled(): Promise<unknown> {
    return this.#settling;
  }

  /** Finishes rewinds a crash interrupted; returns a notice for each. Never throws. */
  async recover(): Promise<string[]> {
    if (this.#cp.readOnly) return [];
    const notices: string[] = [];
    for (const row of this.#cp.db.journals()) {
      const plan = await this.#journal.read(row);
      if (!plan) {
        await this.#journal.end(row.id);
        continue;
      }
      if (!existsSync(plan.root)) {
        await this.#journal.end(row.id);
        notices.push(`A rewind interrupted when Lathe stopped could not be finished: ${plan.root} is gone.`);
        continue;
      }
      try {
        const outcome = await this.#run(plan, row.id);
        await this.#settling;
        const left =
          outcome.skipped.length > 0
            ? `; ${outcome.skipped.length} file${outcome.skipped.length === 1 ? " was" : "s were"} changed meanwhile and left as ${outcome.skipped.length === 1 ? "it was" : "they were"} (${outcome.skipped
                .slice(0, 3)
                .map((s) => s.path)
                .join(", ")})`
            : "";
        notices.push(
          `A rewind of ${plan.root} was interrupted when Lathe stopped; it was completed (${outcome.written + outcome.removed} file${outcome.written + outcome.removed === 1 ? "" : "s"} written or removed now, ${outcome.alreadyDone} already done)${left}.`,
        );
      } catch (error) {
        notices.push(
          `A rewind of ${plan.root} was interrupted when Lathe stopped and could not be completed: ${(error as Error).message} It will be tried again at the next start.`,
        );
      }
    }
    await this.#journal.sweep();
    return notices;
  }

  async #toWorktree(stored: StoredPreview): Promise<RewindOutcome> {
    const { scope, target } = stored;
    const top = await gitTopLevel(this.#cp, scope.projectDir);
    if (!top) throw new CheckpointError("failed", `${scope.projectDir} is not in a git repository: a fork can only restore its files into the project folder.`);
    const untrusted = this.#untrustedRepository(top.root);
    if (untrusted) {
      throw new CheckpointError(
        "failed",
        `The git repository ${untrusted} was created by a command inside the sandbox, so its config and hooks are untrusted: Lathe forks no worktree from it. Review .git/config and .git/hooks (or re-create the repository outside the sandbox), or restore into the project folder.`,
      );
    }
    // Defence in depth for any repository: no filter driver of its config runs on checkout (hooks,
    // fsmonitor and transports are off for every git call, git-runner.ts).
    const neutral = await filterOverrides(this.#cp, top.root);
    const run = (args: string[], cwd: string) => this.#cp.git.run(args, { cwd, globalArgs: neutral });
    try {
      await run(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], top.root);
    } catch {
      throw new CheckpointError("failed", "The project's repository has no commit yet: a worktree needs one. Commit once, or restore into the project folder.");
    }
    let n = 1;
    while (existsSync(`${top.root}-fork-${n}`)) n++;
    const worktree = `${top.root}-fork-${n}`;
    await run(["worktree", "add", "--detach", "--no-checkout", worktree, "HEAD"], top.root);
    await run(["read-tree", "-u", "--reset", "HEAD"], worktree);
    const folder = top.prefix ? join(worktree, top.prefix) : worktree;
    const repo = this.#cp.repo(scope.projectId, scope.projectDir);
    const files = await repo.exclusive(() => repo.listTree(target.tree));
    const tracked = splitNul((await run(["ls-files", "-z", "--", "."], folder)).stdout);
    const wanted = [...files.values()];
    const extra = tracked.filter((p) => !files.has(pathKey(p)));
    const ids = [...wanted.map((f) => pathId(f.path)), ...extra.map((p) => pathId(p))];
    const { states } = await this.#cp.pool.run({ kind: "fileStates", root: folder, paths: ids, maxBytes: Number.MAX_SAFE_INTEGER }, { timeoutMs: 10 * 60_000 });
    const steps: RewindStep[] = [];
    ids.forEach((id, i) => {
      const state = states[i]!;
      const from = typeof state === "object" ? state : null;
      const entry = i < wanted.length ? wanted[i]! : null;
      if (entry && from?.blob === entry.blob && from.mode === entry.mode) return;
      if (!entry && !from) return;
      steps.push({ path: id, op: entry ? "write" : "remove", from, to: entry ? { blob: entry.blob, mode: entry.mode } : null });
    });
    const rewind = this.#cp.db.insertRewind({
      sessionId: scope.sessionId,
      projectId: scope.projectId,
      targetId: target.id,
      undoId: target.id,
      destination: folder,
      summary: {
        restored: steps.filter((s) => s.op === "write").length,
        removed: steps.filter((s) => s.op === "remove").length,
        kept: 0,
        label: `fork into ${basename(worktree)}`,
      },
    });
    const plan: JournalPlan = {
      sessionId: scope.sessionId,
      projectId: scope.projectId,
      projectDir: scope.projectDir,
      root: folder,
      key: `worktree:${rewind.id}`,
      rewindId: rewind.id,
      steps,
      targetDirs: [],
    };
    const outcome = await this.#run(plan, await this.#journal.begin(plan));
    this.#previews.delete(stored.preview.previewId);
    return { ...outcome, rewindId: rewind.id, folder, worktree: true };
  }

  /** Drops expired previews, and the oldest ones past MAX_PREVIEWS - 1 (a new one is about to be kept). */
  #sweep(): void {
    const now = Date.now();
    for (const [id, p] of this.#previews) if (now - p.createdAt > PREVIEW_TTL_MS) this.#previews.delete(id);
    // A Map iterates in insertion order: the first keys are the oldest previews.
    for (const id of this.#previews.keys()) {
      if (this.#previews.size < MAX_PREVIEWS) break;
      this.#previews.delete(id);
    }
  }
}

function rewindKeyOf(undoId: number, cp: CheckpointService): string {
  return cp.db.checkpoint(undoId)?.turnKey ?? "";
}

async function treeDirs(repo: ShadowRepo, tree: string): Promise<string[]> {
  const out = await repo.exclusive(() => repo.git(["ls-tree", "-r", "-d", "-z", "--name-only", tree]));
  return splitNul(out.stdout).map((p) => pathKey(p));
}

/**
 * `-c filter.<driver>.{clean,smudge,process}=` (empty: no filter) and `required=false` for every
 * filter driver the repository's config (includes resolved) names, so a checkout runs none.
 */
async function filterOverrides(cp: CheckpointService, root: string): Promise<string[]> {
  const out = await cp.git.run(["config", "--get-regexp", "^filter\\."], { cwd: root, okCodes: [1] });
  const drivers = new Set<string>();
  for (const line of out.stdout.toString("utf8").split("\n")) {
    const key = line.split(" ", 1)[0] ?? "";
    const lastDot = key.lastIndexOf(".");
    if (lastDot > "filter.".length) drivers.add(key.slice("filter.".length, lastDot));
  }
  return [...drivers].flatMap((d) => ["-c", `filter.${d}.clean=`, "-c", `filter.${d}.smudge=`, "-c", `filter.${d}.process=`, "-c", `filter.${d}.required=false`]);
}

/** The repository's top folder and the project's place in it, or null when it is not in one. */
async function gitTopLevel(cp: CheckpointService, projectDir: string): Promise<{ root: string; prefix: string } | null> {
  try {
    if (!statSync(projectDir).isDirectory()) return null;
    const out = await cp.git.run(["rev-parse", "--show-toplevel", "--show-prefix"], { cwd: projectDir });
    const [root = "", prefix = ""] = out.stdout.toString("utf8").split("\n");
    if (!root) return null;
    return { root, prefix: prefix.replace(/\/$/, "") };
  } catch (error) {
    if (error instanceof GitError && error.failure === "missing") throw error;
    return null;
  }
}
