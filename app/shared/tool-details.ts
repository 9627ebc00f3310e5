// The `details` each coding tool attaches to its results and updates: what the UI needs to show a
// call well. Shared by the tools (app/main/tools), which produce them, and the renderer, which
// reads them. Plain data only.
import type { BashSandboxDetails } from "./sandbox.ts";

export type ImageMime = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

/** Details of updates while the command runs. */
export interface BashProgressDetails {
  phase: "running";
  command: string;
  pid: number;
  /** Raw terminal output since the previous update, escape sequences included. */
  chunk: string;
  /** Raw characters dropped before `chunk` because updates fell behind (all are in the output file). */
  skippedBytes: number;
  waitingForInput: boolean;
  elapsedMs: number;
}

/** Details of the final result (also carried by the thrown error). */
export interface BashResultDetails {
  phase: "done";
  command: string;
  exitCode: number | null;
  signal: number | null;
  timedOut: boolean;
  aborted: boolean;
  truncated: boolean;
  totalLines: number;
  totalBytes: number;
  outputFile?: string;
  durationMs: number;
  /** Where the command ran, and what the sandbox blocked (absent when no sandbox was involved). */
  sandbox?: BashSandboxDetails;
  /** Secrets removed from the output as it streamed, by kind. */
  redactions?: Record<string, number>;
}

export type BashDetails = BashProgressDetails | BashResultDetails;

export interface EditDetails {
  path: string;
  absolutePath: string;
  outsideProject: boolean;
  /** Unified diff of the change (LF line endings), bounded: a change too large to diff is summarized. */
  diff: string;
  /** False when the diff was summarized or cut (it says so in its text). */
  diffComplete?: boolean;
  /** 1-based line of the first changed line in the new file. */
  firstChangedLine: number;
  editCount: number;
  /** 1-based numbers of edits that matched only after whitespace/quote normalisation. */
  normalizedEdits: number[];
  lineEnding: "lf" | "crlf";
  bom: boolean;
}

export interface WriteDetails {
  path: string;
  absolutePath: string;
  outsideProject: boolean;
  created: boolean;
  bytes: number;
  lines: number;
  previousBytes?: number;
  /** Unified diff against the previous content (LF line endings), bounded like edit's. */
  diff?: string;
  /** False when the diff was summarized, cut or not computed (it says so in its text). */
  diffComplete?: boolean;
}

export interface ReadDetails {
  path: string;
  absolutePath: string;
  outsideProject: boolean;
  kind: "text" | "image";
  mimeType?: ImageMime;
  /** First and last line shown (text only). */
  startLine?: number;
  endLine?: number;
  /** Lines in the file, when counted (files up to 16 MB). */
  totalLines?: number;
  truncated: boolean;
  /** The offset to continue from, when more lines follow. */
  nextOffset?: number;
}

export interface LsDetails {
  path: string;
  absolutePath: string;
  outsideProject: boolean;
  entries: number;
  shown: number;
  truncated: boolean;
}

export interface FindDetails {
  path: string;
  absolutePath: string;
  outsideProject: boolean;
  matches: number;
  truncated: boolean;
}

export interface GrepDetails {
  path: string;
  absolutePath: string;
  outsideProject: boolean;
  matches: number;
  files: number;
  truncated: boolean;
  engine: "ripgrep" | "javascript";
}
