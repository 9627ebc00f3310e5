// What a rewind would do to each file, decided from the checkpoints alone (pure; never throws; in
// slices, slices.ts: a rewind may cover 100,000 files). Also what a preview names of a plan and its
// totals, whether a fresh plan still does what was confirmed, and a decided plan's steps.
//
// Input: the files that differ between the target checkpoint and now (a tree diff), the large
// files of both (recorded, not stored), and the intervals between consecutive checkpoints since
// the target, each marked as Lathe's own work for this session (between a turn's before and after
// checkpoints, or a rewind's own writes) or as outside work (everything else: you, an editor,
// another session, or a turn whose after-checkpoint is missing).
//
// Rules, per file that differs:
// - Changed only by Lathe since the target: restored (modified or deleted files get their old
//   content back; a file that did not exist then is removed).
// - Created outside Lathe since the target, never touched by it: kept, and listed as yours.
// - Otherwise changed outside Lathe (alone or besides Lathe): a conflict, listed; the default is
//   to keep it; the person can choose to restore it.
// - A file whose old or current version is over the size limit (not stored) is left as it is: a
//   rewind never changes a file whose content it could not put back on undo.
import { Buffer } from "node:buffer";
import { MAX_LISTED_FILES } from "../../shared/ipc/checkpoint-schemas.ts";
import { pathId, pathKey } from "./path-bytes.ts";
import type { RewindStep } from "./rewind-apply.ts";
import type { LargeFile, TreeDiffEntry } from "./shadow-types.ts";
import { mapInSlices, Slices } from "./slices.ts";

export type PlanAction = "restore" | "remove" | "keep";

export interface PlannedFile {
  path: Buffer;
  /** How the file differs now from the checkpoint. */
  change: "added" | "modified" | "deleted";
  /** What will be done unless the person decides otherwise. */
  action: PlanAction;
  /** Changed outside Lathe since the checkpoint: the person must choose (default: keep). */
  conflict: boolean;
  /** Why, for the preview. */
  reason: "agent" | "yours" | "changed-outside" | "too-large";
  /** Blob and mode at the checkpoint (to write back), null when the file did not exist then. */
  target: { mode: string; blob: string } | null;
  /** Blob now (what must still be there when the file is changed), null when absent now. */
  current: { mode: string; blob: string } | null;
}

export interface Interval {
  /** Lathe's own work for this session (a turn of it, or its rewind's writes). */
  lathe: boolean;
  /** Paths (pathKey) changed in the interval. */
  paths: ReadonlySet<string>;
}

const ABSENT = "0000000000000000000000000000000000000000";

export async function planRewind(
  diff: readonly TreeDiffEntry[],
  intervals: readonly Interval[],
  targetLarge: readonly LargeFile[],
  nowLarge: readonly LargeFile[],
  slices = new Slices(),
): Promise<PlannedFile[]> {
  const byLathe = new Set<string>();
  const outside = new Set<string>();
  for (const interval of intervals)
    for (const p of interval.paths) {
      (interval.lathe ? byLathe : outside).add(p);
      if (slices.due()) await slices.yield();
    }
  const largeThen = new Map(targetLarge.map((f) => [f.path, f]));
  const largeNow = new Map(nowLarge.map((f) => [f.path, f]));
  const planned: PlannedFile[] = [];
  const seen = new Set<string>();

  for (const entry of diff) {
    if (slices.due()) await slices.yield();
    const key = pathKey(entry.path);
    seen.add(key);
    const target = entry.oldBlob === ABSENT || entry.status === "added" ? null : { mode: entry.oldMode, blob: entry.oldBlob };
    const current = entry.newBlob === ABSENT || entry.status === "deleted" ? null : { mode: entry.newMode, blob: entry.newBlob };
    const base = { path: entry.path, change: entry.status, target, current };
    if ((target === null && largeThen.has(key)) || (current === null && largeNow.has(key))) {
      planned.push({ ...base, change: "modified", action: "keep", conflict: false, reason: "too-large" });
      continue;
    }
    const lathe = byLathe.has(key);
    const theirs = outside.has(key) || !lathe;
    if (!theirs) {
      planned.push({ ...base, action: entry.status === "added" ? "remove" : "restore", conflict: false, reason: "agent" });
    } else if (entry.status === "added" && !lathe) {
      planned.push({ ...base, action: "keep", conflict: false, reason: "yours" });
    } else {
      planned.push({ ...base, action: "keep", conflict: true, reason: "changed-outside" });
    }
  }
  // Large files that changed (their content is in neither tree): listed, left as they are.
  for (const [key, now] of largeNow) {
    if (seen.has(key)) continue;
    const then = largeThen.get(key);
    if (then && then.size === now.size && then.mtimeMs === now.mtimeMs) continue;
    planned.push({ path: Buffer.from(key, "latin1"), change: then ? "modified" : "added", action: "keep", conflict: false, reason: "too-large", target: null, current: null });
  }
  for (const [key] of largeThen) {
    if (seen.has(key) || largeNow.has(key)) continue;
    planned.push({ path: Buffer.from(key, "latin1"), change: "deleted", action: "keep", conflict: false, reason: "too-large", target: null, current: null });
  }
  return planned;
}

/** The plan with the person's choices for conflicts applied (restore or keep). */
export function applyDecisions(plan: readonly PlannedFile[], restore: ReadonlySet<string>): Promise<PlannedFile[]> {
  return mapInSlices(plan, (file) => {
    if (!file.conflict || !restore.has(pathKey(file.path))) return file;
    return { ...file, action: file.target ? "restore" : "remove" };
  });
}

/** Over every file of a plan: what a rewind does unless the person chooses otherwise (conflicts count as kept). */
export interface PlanTotals {
  restore: number;
  remove: number;
  keep: number;
  conflicts: number;
}

/** The files a preview names: the conflicts first (each needs a choice), at most MAX_LISTED_FILES. */
export function listed(plan: readonly PlannedFile[]): PlannedFile[] {
  const out: PlannedFile[] = [];
  for (const f of plan) if (f.conflict && out.length < MAX_LISTED_FILES) out.push(f);
  for (const f of plan) if (!f.conflict && out.length < MAX_LISTED_FILES) out.push(f);
  return out;
}

export function totalsOf(plan: readonly PlannedFile[]): PlanTotals {
  const totals = { restore: 0, remove: 0, keep: 0, conflicts: 0 };
  for (const f of plan) {
    totals[f.action]++;
    if (f.conflict) totals.conflicts++;
  }
  return totals;
}

/**
 * Whether a fresh plan still does what the person confirmed: every file that would be written or
 * removed (planned so, or chosen) is planned the same and holds the same content. Files kept in
 * both may have changed meanwhile (an editor saving): they stay as they are either way.
 */
export async function samePlan(fresh: readonly PlannedFile[], confirmed: readonly PlannedFile[], chosen: ReadonlySet<string>): Promise<boolean> {
  const slices = new Slices();
  const sig = (f: PlannedFile) => `${f.action}|${f.conflict}|${f.current?.blob ?? "-"}|${f.current?.mode ?? "-"}|${f.target?.blob ?? "-"}`;
  const acts = (f: PlannedFile, key: string) => f.action !== "keep" || (f.conflict && chosen.has(key));
  const byKey = async (plan: readonly PlannedFile[]) => {
    const out = new Map<string, PlannedFile>();
    for (const f of plan) {
      out.set(pathKey(f.path), f);
      if (slices.due()) await slices.yield();
    }
    return out;
  };
  const a = await byKey(fresh);
  const b = await byKey(confirmed);
  const pairs: [Map<string, PlannedFile>, Map<string, PlannedFile>][] = [
    [a, b],
    [b, a],
  ];
  for (const [one, other] of pairs)
    for (const [key, f] of one) {
      if (acts(f, key) && (!other.has(key) || sig(other.get(key)!) !== sig(f))) return false;
      if (slices.due()) await slices.yield();
    }
  return true;
}

/** The steps of a decided plan: files restored or removed. */
export async function stepsOf(plan: readonly PlannedFile[]): Promise<RewindStep[]> {
  const slices = new Slices();
  const steps: RewindStep[] = [];
  for (const f of plan) {
    if (slices.due()) await slices.yield();
    if (f.action === "keep") continue;
    steps.push({ path: pathId(f.path), op: f.action === "remove" ? "remove" : "write", from: f.current, to: f.action === "remove" ? null : f.target });
  }
  return steps;
}
