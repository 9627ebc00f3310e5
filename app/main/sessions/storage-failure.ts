// What the user is told when a session's writes fail (disk full, I/O error): one notice per
// outage, saying what happened, that the run was stopped so nothing acts unsaved, and how much
// space to free. Pure functions over numbers; never throws.
import { statfsSync } from "node:fs";
import type { StoreError } from "../store/index.ts";

/** SQLite writes whole pages, first to the WAL and again to the database when it checkpoints. */
const PAGE = 4096;
/** Room for the WAL index, the next checkpoint and the search index to move. */
const RESERVE = 1024 * 1024;

/** Bytes that must be free for the waiting writes to succeed (generously rounded up). */
export function bytesNeeded(backlogBytes: number, units: number): number {
  return 2 * (backlogBytes + units * 4 * PAGE) + RESERVE;
}

export function freeBytes(dir: string): number | undefined {
  try {
    const stats = statfsSync(dir);
    return Number(stats.bavail) * Number(stats.bsize);
  } catch {
    return undefined;
  }
}

export function formatSize(bytes: number): string {
  if (bytes < 1024 * 1024) return `${Math.max(1, Math.ceil(bytes / 1024))} KB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  return `${(bytes / (1024 * 1024 * 1024)).toFixed(1)} GB`;
}

export interface StorageFailure {
  sessionId: number;
  title: string | null;
  error: StoreError;
  /** The data folder. */
  dir: string;
  backlogBytes: number;
  units: number;
}

export function storageFailureMessage(f: StorageFailure): string {
  const name = f.title ? `session ${f.sessionId} (“${f.title}”)` : `session ${f.sessionId}`;
  const what = f.error.failure === "disk-full" ? `the disk holding ${f.dir} is full` : f.error.message.replace(/\.$/, "");
  const needed = bytesNeeded(f.backlogBytes, f.units);
  const free = freeBytes(f.dir);
  const space = `Free at least ${formatSize(needed)} there` + (free === undefined ? "" : ` (${formatSize(free)} free now)`) + ".";
  return (
    `Lathe could not save ${name}: ${what}. The run was stopped, so nothing runs unsaved; ` +
    `what was not written is kept in memory and is written as soon as it can be. ${space} Then press Retry or send a message.`
  );
}

/** The abort reason the stopped answer carries in the transcript. */
export const STOPPED_UNSAVED = "Stopped: Lathe could not save this session (see the notice), so the run was stopped before anything else ran.";

/** The result a tool call gets when its assistant message is not stored. */
export const NOT_RUN_UNSAVED = "Not run: Lathe could not save the message that asked for this call, and nothing runs unsaved.";
