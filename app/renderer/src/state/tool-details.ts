// The `details` shapes of the coding tools, as the renderer reads them. They mirror
// BashProgressDetails/BashResultDetails/EditDetails/WriteDetails/ReadDetails in app/main/tools
// (which cannot be imported here, even as types: those modules reference Node's types, which the
// renderer's compilation does not load). Keep in sync; the right home for both is app/shared.
// Every field is read defensively by the views, so a drift shows as a missing detail, not a crash.

export interface BashProgressDetails {
  phase: "running";
  command: string;
  pid: number;
  chunk: string;
  skippedBytes: number;
  waitingForInput: boolean;
  elapsedMs: number;
}

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
}

export type BashDetails = BashProgressDetails | BashResultDetails;

export interface EditDetails {
  path: string;
  absolutePath: string;
  outsideProject: boolean;
  diff: string;
  firstChangedLine: number;
  editCount: number;
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
}

export interface ReadDetails {
  path: string;
  absolutePath: string;
  outsideProject: boolean;
  kind: "text" | "image";
  mimeType?: string;
  startLine?: number;
  endLine?: number;
  totalLines?: number;
  truncated: boolean;
  nextOffset?: number;
}
