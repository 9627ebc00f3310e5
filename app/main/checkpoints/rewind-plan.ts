// What a rewind would do to each file, decided from the checkpoints alone (pure; never throws; in
// slices, slices.ts: a rewind may cover 100,000 files).
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
import { pathKey } from "./path-bytes.ts";
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
