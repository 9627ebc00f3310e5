// The pty host: every bash command's pseudo-terminal lives in one worker thread
// (workers/pty-host-worker.ts), which reads the output and sends it here in batches, so the main
// thread handles a few hundred messages per 100 MB instead of ~25,000 kernel reads, and a busy
// main thread no longer stalls the command (VS Code runs its terminals in a pty host process for
// the same reasons). Flow control bounds what waits for the main thread (PtyFlowLimits): each
// batch is acknowledged once its `onData` listener returned.
// Contract: `spawn` resolves with a HostedPty or rejects with the spawn's own error (a missing
// program, a bad folder). A HostedPty's listeners get every output byte, in order, then one exit:
// `hostError` set when the worker itself failed (it died, or could not start), in which case the
// command's process may still be running (the caller kills its family). The worker starts on first
// use, is replaced after a failure, and keeps the process alive only while a command runs.
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { PtyFlowLimits, PtyHostReply, PtyHostRequest, PtySpawnOptions } from "./pty-host-protocol.ts";

export const PTY_HOST_WORKER_BUNDLE = "pty-host-worker.cjs";

export const DEFAULT_FLOW_LIMITS: PtyFlowLimits = { highBytes: 1024 * 1024, lowBytes: 256 * 1024, batchBytes: 128 * 1024, batchMs: 4 };

export interface PtyExit {
  exitCode: number;
  signal: number | undefined;
  /** Set when the pty host failed: the exit code and signal are then not the command's. */
  hostError?: string;
}

export interface HostedPty {
  readonly pid: number;
  /** The terminal's device (/dev/pts/N), when node-pty says. */
  readonly ptsName: string | undefined;
  /** `bytes` is valid only until the listener returns (its memory is then reused): copy what you keep. */
  onData(listener: (bytes: Buffer) => void): { dispose(): void };
  onExit(listener: (exit: PtyExit) => void): { dispose(): void };
  write(data: string): void;
}

/** Where the worker script is: beside this module's folder from source, beside the bundle when bundled. */
export function defaultPtyWorkerFile(moduleUrl: string = import.meta.url): string {
  const here = fileURLToPath(moduleUrl);
  const file = here.endsWith(".ts") ? path.join(path.dirname(here), "../workers/pty-host-worker.ts") : path.join(path.dirname(here), PTY_HOST_WORKER_BUNDLE);
  // Packaged: the worker is kept unpacked beside app.asar (a worker thread loads it like any file).
  const unpacked = file.replace(/app\.asar([\\/])/, "app.asar.unpacked$1");
  return unpacked !== file && existsSync(unpacked) ? unpacked : file;
}

class Terminal implements HostedPty {
  readonly dataListeners = new Set<(bytes: Buffer) => void>();
  readonly exitListeners = new Set<(exit: PtyExit) => void>();
  exited = false;

  private readonly host: PtyHost;
  readonly id: number;
  readonly pid: number;
  readonly ptsName: string | undefined;

  constructor(host: PtyHost, id: number, pid: number, ptsName: string | undefined) {
    this.host = host;
    this.id = id;
    this.pid = pid;
    this.ptsName = ptsName;
  }

  onData(listener: (bytes: Buffer) => void) {
    this.dataListeners.add(listener);
    return { dispose: () => void this.dataListeners.delete(listener) };
  }

  onExit(listener: (exit: PtyExit) => void) {
    this.exitListeners.add(listener);
    return { dispose: () => void this.exitListeners.delete(listener) };
  }

  write(data: string): void {
    if (!this.exited) this.host.send({ op: "write", id: this.id, data });
  }

  exit(exit: PtyExit): void {
    if (this.exited) return;
    this.exited = true;
    for (const listener of [...this.exitListeners]) listener(exit);
  }
}

interface Pending {
  resolve: (pty: HostedPty) => void;
  reject: (error: Error) => void;
}

export class PtyHost {
  private worker: Worker | undefined;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  private readonly terminals = new Map<number, Terminal>();
  private readonly workerFile: string;
  private readonly limits: PtyFlowLimits;

  constructor(options: { workerFile?: string; limits?: Partial<PtyFlowLimits> } = {}) {
    this.workerFile = options.workerFile ?? defaultPtyWorkerFile();
    this.limits = { ...DEFAULT_FLOW_LIMITS, ...options.limits };
  }

  spawn(file: string, args: string[], options: PtySpawnOptions): Promise<HostedPty> {
    const id = ++this.nextId;
    return new Promise<HostedPty>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.busy();
      this.send({ op: "spawn", id, file, args, options });
    });
  }

  /** Commands started and not yet exited (spawns in flight included). */
  get running(): number {
    return this.pending.size + this.terminals.size;
  }

  send(request: PtyHostRequest): void {
    this.ensureWorker().postMessage(request);
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.workerFile, { workerData: this.limits, resourceLimits: { maxYoungGenerationSizeMb: 4 } });
    worker.on("message", (reply: PtyHostReply) => this.receive(reply));
    worker.on("error", (error) => this.fail(worker, `The terminal host failed: ${error.message}`));
    worker.on("exit", (code) => this.fail(worker, `The terminal host stopped (exit code ${code}).`));
    this.worker = worker;
    return worker;
  }

  private receive(reply: PtyHostReply): void {
    switch (reply.op) {
      case "spawned": {
        const pending = this.pending.get(reply.id);
        this.pending.delete(reply.id);
        const terminal = new Terminal(this, reply.id, reply.pid, reply.ptsName);
        this.terminals.set(reply.id, terminal);
        pending?.resolve(terminal);
        return;
      }
      case "failed": {
        const pending = this.pending.get(reply.id);
        this.pending.delete(reply.id);
        this.idle();
        pending?.reject(new Error(reply.message));
        return;
      }
      case "data": {
        const terminal = this.terminals.get(reply.id);
        if (!terminal) return;
        const { buffer, byteOffset, byteLength } = reply.bytes;
        for (const listener of [...terminal.dataListeners]) listener(Buffer.from(buffer, byteOffset, byteLength));
        // A full-size batch buffer goes back to the worker (listeners keep no reference: see onData).
        const reuse = buffer instanceof ArrayBuffer && buffer.byteLength === this.limits.batchBytes ? buffer : undefined;
        this.ensureWorker().postMessage({ op: "ack", id: reply.id, bytes: byteLength, buffer: reuse } satisfies PtyHostRequest, reuse ? [reuse] : []);
        return;
      }
      case "exit": {
        const terminal = this.terminals.get(reply.id);
        this.terminals.delete(reply.id);
        this.idle();
        terminal?.exit({ exitCode: reply.exitCode, signal: reply.signal || undefined });
        return;
      }
    }
  }

  /** The worker died or could not start: every command in it ends with the reason. */
  private fail(worker: Worker, reason: string): void {
    if (this.worker !== worker) return;
    this.worker = undefined;
    const pending = [...this.pending.values()];
    const terminals = [...this.terminals.values()];
    this.pending.clear();
    this.terminals.clear();
    for (const p of pending) p.reject(new Error(reason));
    for (const t of terminals) t.exit({ exitCode: -1, signal: undefined, hostError: reason });
  }

  private busy(): void {
    this.ensureWorker().ref();
  }

  private idle(): void {
    if (this.running === 0) this.worker?.unref();
  }

  /** Stops the worker (tests); running commands end with a host error. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    await worker.terminate();
    this.fail(worker, "The terminal host was closed.");
  }
}

let shared: PtyHost | undefined;

/** The process-wide pty host, made on first use. */
export function ptyHost(): PtyHost {
  shared ??= new PtyHost();
  return shared;
}
