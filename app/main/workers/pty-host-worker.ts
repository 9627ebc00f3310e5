// Entry point of the pty host's worker thread (tools/pty-host.ts): starts commands in
// pseudo-terminals (node-pty) and reads their output here, so that the main thread, which owns the
// loop and every window's events, neither pays for each of the kernel's ~4 KB reads nor delays
// them: a reader that falls behind fills the pty's small buffer and stalls the command.
// Output is sent in batches (PtyFlowLimits: up to `batchBytes`, at most `batchMs` after its first
// byte), the bytes transferred, not copied. Flow control: once `highBytes` of a terminal's output
// are sent and not yet acknowledged, its reading pauses (the command then blocks on a full
// terminal, as under a slow terminal emulator) until the main thread catches up to `lowBytes`.
// node-pty destroys the terminal 200 ms after its process exited if the output has not been read
// to its end by then (unixTerminal.js, DESTROY_SOCKET_TIMEOUT_MS): a paused terminal whose process
// has exited is resumed at once, whatever is unacknowledged, so no output is lost.
// Built to out/*/pty-host-worker.cjs for the app (scripts/build.mjs); run from source in tests.
// Never throws out of a message handler: a spawn that fails is answered "failed".
import { parentPort, workerData } from "node:worker_threads";
import * as pty from "node-pty";
import type { PtyFlowLimits, PtyHostReply, PtyHostRequest } from "../tools/pty-host-protocol.ts";

const limits = workerData as PtyFlowLimits;
/** How often a paused terminal is checked for an exited process (well under node-pty's 200 ms). */
const EXITED_CHECK_MS = 40;

const post = (reply: PtyHostReply, transfer?: ArrayBuffer[]) => parentPort!.postMessage(reply, transfer);
/** Batch buffers the main thread gave back (at most as many as can be in flight). */
const spare: ArrayBuffer[] = [];
const MAX_SPARE = Math.ceil(limits.highBytes / limits.batchBytes) + 2;
const newBatch = (): Buffer => {
  const buffer = spare.pop();
  return buffer ? Buffer.from(buffer, 0, limits.batchBytes) : Buffer.allocUnsafeSlow(limits.batchBytes);
};

class HostedTerminal {
  private batch = newBatch();
  private used = 0;
  private timer: NodeJS.Timeout | undefined;
  private unacked = 0;
  private pausedCheck: NodeJS.Timeout | undefined;
  private exited = false;

  readonly id: number;
  readonly term: pty.IPty;

  constructor(id: number, term: pty.IPty) {
    this.id = id;
    this.term = term;
    term.onData((chunk: string | Buffer) => this.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk));
    term.onExit(({ exitCode, signal }) => {
      this.exited = true;
      this.flush();
      this.resume();
      terminals.delete(id);
      post({ op: "exit", id, exitCode, signal });
    });
  }

  private push(chunk: Buffer): void {
    if (this.used + chunk.length > this.batch.length) this.flush();
    if (chunk.length >= this.batch.length) {
      this.send(new Uint8Array(chunk));
      return;
    }
    chunk.copy(this.batch, this.used);
    this.used += chunk.length;
    if (this.used === this.batch.length) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), limits.batchMs);
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.used === 0) return;
    let bytes: Uint8Array;
    if (this.used * 4 >= this.batch.length) {
      // A well-filled batch goes as it is (transferred); the next one gets a new buffer.
      bytes = new Uint8Array(this.batch.buffer, this.batch.byteOffset, this.used);
      this.batch = newBatch();
    } else {
      bytes = new Uint8Array(this.batch.subarray(0, this.used)); // a copy of its own size
    }
    this.used = 0;
    this.send(bytes);
  }

  private send(bytes: Uint8Array): void {
    this.unacked += bytes.length;
    post({ op: "data", id: this.id, bytes }, [bytes.buffer as ArrayBuffer]);
    if (this.unacked >= limits.highBytes && !this.exited && this.pausedCheck === undefined) {
      this.term.pause();
      this.pausedCheck = setInterval(() => {
        if (processExited(this.term)) this.resume();
      }, EXITED_CHECK_MS);
    }
  }

  ack(bytes: number): void {
    this.unacked = Math.max(0, this.unacked - bytes);
    if (this.unacked <= limits.lowBytes) this.resume();
  }

  private resume(): void {
    if (this.pausedCheck === undefined) return;
    clearInterval(this.pausedCheck);
    this.pausedCheck = undefined;
    this.term.resume();
  }
}

/**
 * Whether node-pty has seen the process exit (it then waits for the output's end, at most 200 ms).
 * Read from its private `_boundClose`; if a later node-pty has no such field, the answer is
 * "exited", which only turns flow control off (nothing can be lost).
 */
function processExited(term: pty.IPty): boolean {
  const bound = (term as unknown as { _boundClose?: unknown })._boundClose;
  return typeof bound !== "boolean" || bound;
}

const terminals = new Map<number, HostedTerminal>();

parentPort?.on("message", (request: PtyHostRequest) => {
  switch (request.op) {
    case "spawn": {
      let term: pty.IPty;
      try {
        term = pty.spawn(request.file, request.args, { ...request.options, encoding: null });
      } catch (error) {
        post({ op: "failed", id: request.id, message: error instanceof Error ? error.message : String(error) });
        return;
      }
      terminals.set(request.id, new HostedTerminal(request.id, term));
      post({ op: "spawned", id: request.id, pid: term.pid, ptsName: (term as unknown as { ptsName?: string }).ptsName });
      return;
    }
    case "write":
      terminals.get(request.id)?.term.write(request.data);
      return;
    case "ack":
      if (request.buffer?.byteLength === limits.batchBytes && spare.length < MAX_SPARE) spare.push(request.buffer);
      terminals.get(request.id)?.ack(request.bytes);
      return;
  }
});
