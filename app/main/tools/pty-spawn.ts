// Starts a command in a new terminal. On Linux, with the project's native module built
// (native/pty-spawn.c), through posix_spawn: the process is not forked, so starting a command
// costs the main thread about the same whatever Lathe's size (node-pty's fork copies the page
// tables of the whole process on the main thread: 5 ms at 50 MB of RSS, 18 at 250, 25 to 34 at 550
// on the project's 2-core test machine). Elsewhere, for a program named without a path, or with
// LATHE_PTY_SPAWN=node (or LATHE_PTY_READER=node), node-pty's spawn as before.
// Contract: the terminal's command is a session leader whose controlling terminal is the new pty
// (its pid is its process group's id, as with node-pty); `onExit` listeners are called once, on
// the main thread, after the command has been reaped, also when added after the end; `write`
// queues what the command can not take yet, up to MAX_PENDING_INPUT_BYTES (pty-input-bound.ts):
// beyond, it throws CommandInputFull and takes nothing of that input; else it never throws (after
// `closeMaster`, input is dropped); node-pty's terminals are bounded alike. A native terminal's
// master side is read by readTerminal (pty-reader.ts), which closes it once it has read the end.
// Throws when the command cannot start (the system's reason), as node-pty does.
import { closeSync, writeSync } from "node:fs";
import path from "node:path";
import * as pty from "node-pty";
import { argumentTooLong } from "./argument-limit.ts";
import { boundNodePtyInput, refuseInputBeyondBound } from "./pty-input-bound.ts";
import { loadNativeReader } from "./pty-reader.ts";

export interface TerminalExit {
  exitCode: number;
  signal?: number;
}

/** A terminal, whichever started it: node-pty's, or the native module's. */
export type Terminal = pty.IPty | SpawnedTerminal;

export interface TerminalOptions {
  cols: number;
  rows: number;
  cwd: string;
  env: Record<string, string>;
}

/** How long a write waits when the terminal's input is full (a command that does not read its input). */
const RETRY_WRITE_MS = 10;

/** A terminal started by the native module: its master side is a descriptor of ours. */
export class SpawnedTerminal {
  readonly pid: number;
  readonly ptsName: string;
  #fd: number | undefined;
  #exit: TerminalExit | undefined;
  readonly #listeners: ((exit: TerminalExit) => void)[] = [];
  readonly #pending: Buffer[] = [];
  #pendingBytes = 0;
  #waiting = false;

  constructor(started: { pid: number; fd: number; ptsName: string }, exited: (listener: (exit: TerminalExit) => void) => void) {
    this.pid = started.pid;
    this.#fd = started.fd;
    this.ptsName = started.ptsName;
    exited((exit) => {
      this.#exit = exit;
      for (const listener of this.#listeners.splice(0)) listener(exit);
    });
  }

  /** The master side's descriptor, while it is open. */
  get fd(): number | undefined {
    return this.#fd;
  }

  onExit(listener: (exit: TerminalExit) => void): void {
    const exit = this.#exit;
    if (exit) queueMicrotask(() => listener(exit));
    else this.#listeners.push(listener);
  }

  /** Input written to no terminal yet: the command has not read what came before. */
  get pendingInputBytes(): number {
    return this.#pendingBytes;
  }

  write(data: string): void {
    if (this.#fd === undefined || data === "") return;
    refuseInputBeyondBound(this.#pendingBytes, Buffer.byteLength(data, "utf8"));
    const bytes = Buffer.from(data, "utf8");
    this.#pending.push(bytes);
    this.#pendingBytes += bytes.length;
    this.#drain();
  }

  /** Closes the master side (the reader has read the end); input still queued is dropped. */
  closeMaster(): void {
    const fd = this.#fd;
    this.#fd = undefined;
    this.#dropPending();
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // Already closed: nothing to release.
      }
    }
  }

  // Synchronous: the master side is non-blocking (native/pty-spawn.c), so a write takes what the
  // terminal can hold now and never waits. Not fs.write: it runs on libuv's threadpool, where a
  // write queued behind busy threads could run after closeMaster, into whatever file has since
  // taken the descriptor's number (and input would wait for unrelated file and DNS work).
  #drain(): void {
    if (this.#waiting) return;
    for (let next = this.#pending[0]; next && this.#fd !== undefined; next = this.#pending[0]) {
      let written: number;
      try {
        written = writeSync(this.#fd, next);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "EAGAIN") {
          this.#waiting = true;
          setTimeout(() => {
            this.#waiting = false;
            this.#drain();
          }, RETRY_WRITE_MS);
        } else this.#dropPending(); // the command is gone (EIO): nobody reads
        return;
      }
      this.#pendingBytes -= written;
      if (written < next.length) this.#pending[0] = next.subarray(written);
      else this.#pending.shift();
    }
  }

  #dropPending(): void {
    this.#pending.length = 0;
    this.#pendingBytes = 0;
  }
}

/** Starts `file args` in a new terminal (see the header). */
export function spawnTerminal(file: string, args: string[], options: TerminalOptions): Terminal {
  const native = process.env.LATHE_PTY_SPAWN === "node" || process.env.LATHE_PTY_READER === "node" ? undefined : loadNativeReader().module?.spawn;
  if (!native || !path.isAbsolute(file)) {
    // Bytes, not strings: the bash tool decodes a batch of chunks at once (pty-batch.ts).
    const term = pty.spawn(file, args, { name: options.env.TERM ?? "xterm-256color", cols: options.cols, rows: options.rows, cwd: options.cwd, env: options.env, encoding: null });
    return boundNodePtyInput(term);
  }
  const tooLong = argumentTooLong(file, args, options.cwd);
  if (tooLong) throw tooLong;
  // As node-pty sets them.
  const env = Object.entries({ ...options.env, PWD: options.cwd, TERM: options.env.TERM ?? "xterm-256color" }).map(([name, value]) => `${name}=${value}`);
  let report: ((exit: TerminalExit) => void) | undefined;
  const started = native(file, [file, ...args], env, options.cwd, options.cols, options.rows, (exitCode, signal) => report?.({ exitCode, signal }));
  return new SpawnedTerminal(started, (listener) => (report = listener));
}
