// Reads a node-pty terminal's output. Where the project's native reader is built (Linux, macOS:
// native/pty-reader.c), a thread of its own reads the pty and hands over batches of up to 256 KB:
// about 1,500 calls on the main thread for 100 MB instead of node-pty's 24,000 events of 4 KB
// (bench:tools: the bash tool 24 % faster, its main thread's CPU a fifth). Elsewhere, or when the
// binary is missing or fails to load, node-pty's own events (`onData`), as before.
// Contract: chunks reach `onChunk` in order, on the main thread, each byte once, each valid during
// its call only (the native reader's memory takes the next batch: copy what must be kept), at most
// SLICE_BYTES each, and the event loop turns once a turn's chunks have taken TURN_MS; node-pty's socket
// never reads the terminal while the native reader does (it is stopped before the event loop turns,
// so no byte can go to both). `finish()` (call it once the command has exited) resolves after the
// last chunk (also when onChunk threw): the native reader then takes what the pty holds at that
// moment and ends, and closes its copy of the descriptor. Never throws:
// a reader that cannot start falls back to `onData`. Set LATHE_PTY_READER=node to force the fallback.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { IPty } from "node-pty";

export const PTY_READER_BINARY = "pty_reader.node";

/** The native reader's batches reach onChunk in slices of this size at most. */
export const SLICE_BYTES = 64 * 1024;
/** Slices of one batch are delivered in one turn of the event loop until it has taken this long. */
export const TURN_MS = 4;

interface NativeReaderHandle {
  stop(): void;
  /** The last batch is done: the next may come. */
  ack(): void;
}

interface NativeReaderModule {
  /** `chunk` is valid until the handle's ack() (its memory then takes the next batch). */
  start(fd: number, onData: (chunk: Uint8Array | null, end: boolean) => void): NativeReaderHandle;
  /** native/pty-spawn.c (Linux with glibc 2.29 or later): a command in a new terminal, without fork(). */
  spawn?(
    file: string,
    args: string[],
    env: string[],
    cwd: string,
    cols: number,
    rows: number,
    onExit: (exitCode: number, signal: number) => void,
  ): { pid: number; fd: number; ptsName: string };
  /** native/pipe-spawn.c (the same systems): a program with pipes (true) or /dev/null (false) for 0, 1, 2, without fork(). */
  spawnPipes?(
    file: string,
    args: string[],
    env: string[],
    cwd: string,
    stdio: [boolean, boolean, boolean],
    onExit: (exitCode: number, signal: number) => void,
  ): { pid: number; stdin: number; stdout: number; stderr: number };
}

/** A terminal whose master side is ours to read and close (pty-spawn.ts's SpawnedTerminal). */
interface OwnedTerminal {
  readonly pid: number;
  readonly fd: number | undefined;
  closeMaster(): void;
}

export interface TerminalReader {
  /** Which reader runs: the native thread, or node-pty's events. */
  readonly kind: "native" | "node-pty";
  /** Stops reading (what the terminal holds now is still delivered); resolves after the last chunk. */
  finish(): Promise<void>;
}

/** Where the binary is: node-gyp's output when running from source, `native/` beside a bundle. */
export function nativeReaderPath(moduleUrl = import.meta.url): string {
  const here = fileURLToPath(moduleUrl);
  const dir = path.dirname(here);
  if (here.endsWith(".ts")) return path.join(dir, "native", "build", "Release", PTY_READER_BINARY);
  // Packaged: the binary is kept unpacked beside app.asar (native code cannot load from inside it).
  return path.join(dir, "native", PTY_READER_BINARY).replace(/app\.asar([\\/])/, "app.asar.unpacked$1");
}

let loaded: { module?: NativeReaderModule; problem?: string } | undefined;

/** The native module, or why there is none (loaded once). */
export function loadNativeReader(): { module?: NativeReaderModule; problem?: string } {
  if (loaded) return loaded;
  const file = nativeReaderPath();
  if (process.platform === "win32") loaded = { problem: "Windows terminals have no file descriptor to read" };
  else if (!existsSync(file)) loaded = { problem: `${file} is not built (npm install builds it: scripts/build-native.mjs)` };
  else {
    try {
      loaded = { module: createRequire(import.meta.url)(file) as NativeReaderModule };
    } catch (err) {
      loaded = { problem: `${file} could not be loaded: ${(err as Error).message}` };
    }
  }
  return loaded;
}

/** node-pty's internals the native reader needs: the pty's descriptor and the socket reading it. */
interface PtyInternals {
  _fd?: unknown;
  _socket?: { _read?: unknown; _handle?: { reading?: boolean; readStop?: () => number }; destroy(): void };
}

/** Reads `term` (just spawned: before the event loop has turned) into `onChunk`. */
export function readTerminal(term: IPty | OwnedTerminal, onChunk: (chunk: Uint8Array) => void): TerminalReader {
  if ("closeMaster" in term) return readOwned(term, onChunk);
  const native = process.env.LATHE_PTY_READER === "node" ? undefined : loadNativeReader().module;
  const { _fd: fd, _socket: socket } = term as unknown as PtyInternals;
  const handle = socket?._handle;
  if (native && typeof fd === "number" && socket && typeof handle?.readStop === "function") {
    // node-pty reports the exit once its socket closes; the thread reads a copy of the
    // descriptor, so closing node-pty's loses nothing.
    const reader = startNative(native, fd, () => socket.destroy(), onChunk);
    if (reader) {
      // node-pty's socket starts reading on the next tick (its 'data' listener resumes it, and
      // Readable calls _read to ask for bytes): with _read replaced it never does. Should a Node
      // start reading when the socket is made, readStop ends that before the event loop turns,
      // which is when reads happen: either way no byte goes to node-pty (pty-reader.test.ts).
      socket._read = () => undefined;
      handle.reading = false;
      handle.readStop();
      return reader;
    }
  }
  const subscription = term.onData((chunk: string | Buffer) => onChunk(typeof chunk === "string" ? Buffer.from(chunk) : chunk));
  return {
    kind: "node-pty",
    finish: () => {
      subscription.dispose();
      return Promise.resolve();
    },
  };
}

/**
 * A terminal of pty-spawn.ts: only the native reader can read it (its master side is a bare
 * descriptor), and it closes the master side once it has read the end. Throws, with the command
 * killed, when the reader cannot start.
 */
function readOwned(term: OwnedTerminal, onChunk: (chunk: Uint8Array) => void): TerminalReader {
  const native = loadNativeReader().module;
  const reader = native && term.fd !== undefined ? startNative(native, term.fd, () => term.closeMaster(), onChunk) : undefined;
  if (reader) return reader;
  term.closeMaster();
  try {
    process.kill(-term.pid, "SIGKILL"); // its process group (it leads a session of its own)
  } catch {
    // Gone already.
  }
  throw new Error("Could not read the command's terminal (no thread or descriptor left); the command was stopped.");
}

/** The native reader on `fd`, or undefined when it cannot start (no thread, no descriptor left). */
function startNative(native: NativeReaderModule, fd: number, atEnd: () => void, onChunk: (chunk: Uint8Array) => void): TerminalReader | undefined {
  let ended = false;
  let resolveEnd!: () => void;
  const end = new Promise<void>((resolve) => (resolveEnd = resolve));
  let reader: NativeReaderHandle;
  /** The batch is delivered: the next comes after a turn of the event loop (timers, I/O, other commands). */
  const done = (last: boolean) => {
    if (!last) return void setImmediate(() => reader.ack());
    ended = true;
    atEnd();
    resolveEnd();
  };
  // A batch goes to onChunk in slices; once a call has taken TURN_MS, the rest waits for the next
  // turn (the batch's memory is the reader's until ack()): a batch that is slow to process (the
  // secret scanner on 256 KB of random bytes: 30 to 55 ms) no longer holds the loop all at once.
  const deliver = (chunk: Uint8Array | null, last: boolean, from: number): void => {
    const started = performance.now();
    let later = false;
    try {
      while (chunk && from < chunk.length) {
        const to = Math.min(chunk.length, from + SLICE_BYTES);
        onChunk(from === 0 && to === chunk.length ? chunk : chunk.subarray(from, to));
        from = to;
        if (from < chunk.length && performance.now() - started >= TURN_MS) {
          later = true;
          setImmediate(() => deliver(chunk, last, from));
          return;
        }
      }
    } finally {
      // Also when onChunk throws (the batch's rest is dropped): finish() must not wait for an end
      // already past, nor the reader for an ack.
      if (!later) done(last);
    }
  };
  try {
    reader = native.start(fd, (chunk, last) => deliver(chunk, last, 0));
  } catch {
    return undefined;
  }
  return {
    kind: "native",
    finish: () => {
      if (!ended) reader.stop();
      return end;
    },
  };
}
