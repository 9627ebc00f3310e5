// The checkpoint store's vocabulary, shared by the store (shadow-repo.ts), the index
// (checkpoint-db.ts) and rewinds: what a capture returns, what changed, and the one error type
// whose message is written for a person. Types only, plus CheckpointError: no behaviour.
import type { Buffer } from "node:buffer";

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
