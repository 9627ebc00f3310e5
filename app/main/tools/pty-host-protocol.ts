// The messages between the pty host (pty-host.ts, on the main thread) and its worker thread
// (workers/pty-host-worker.ts). Plain data only: they cross the thread boundary by structured
// clone; output bytes are transferred, not copied.

export interface PtySpawnOptions {
  name: string;
  cols: number;
  rows: number;
  cwd: string;
  env: Record<string, string>;
}

/** Flow control: how many bytes the worker may have sent that the main thread has not taken yet. */
export interface PtyFlowLimits {
  /** The worker stops reading a terminal once this many of its bytes are unacknowledged. */
  highBytes: number;
  /** …and reads again once the unacknowledged bytes fall to this. */
  lowBytes: number;
  /** Output is sent once this many bytes are gathered, */
  batchBytes: number;
  /** …or this long after the first byte of a batch arrived. */
  batchMs: number;
}

export type PtyHostRequest =
  | { op: "spawn"; id: number; file: string; args: string[]; options: PtySpawnOptions }
  | { op: "write"; id: number; data: string }
  /** The main thread took `bytes` bytes of this terminal's output; `buffer`, a batch's memory given back for reuse. */
  | { op: "ack"; id: number; bytes: number; buffer?: ArrayBuffer };

export type PtyHostReply =
  | { op: "spawned"; id: number; pid: number; ptsName: string | undefined }
  | { op: "failed"; id: number; message: string }
  | { op: "data"; id: number; bytes: Uint8Array }
  /** Always after the terminal's last "data". */
  | { op: "exit"; id: number; exitCode: number; signal: number | undefined };
