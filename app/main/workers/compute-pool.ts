// The compute pool: a few worker threads that run the work a tool call or a permission dialog
// may make expensive (matching and diffing large files, running a model-supplied regex), so that
// the main process, which owns every window's events, never computes it. Shared by the tools and
// the permissions layer through `computePool()`.
//
// Contract:
// - `run(job, { timeoutMs, signal, clock })` resolves with the job's result, or rejects with
//   ComputeTimeoutError (past timeoutMs, counted from the call, queueing included, or with
//   clock "run" from when a worker takes the job, so that only its own running counts; never the
//   start-up of a new worker: a one-time cost that a loaded machine can stretch past a dialog's
//   budget; a worker that has not started after START_TIMEOUT_MS counts as failed),
//   ComputeAbortedError (the signal aborted), ComputeJobError (the job threw: its name, message
//   and kind), or ComputeUnavailableError (the worker could not start, or died, e.g. out of
//   memory). It never rejects with anything else and never blocks the caller.
// - A job past its deadline or aborted is stopped by terminating its worker (the only way to stop
//   a runaway regex); a fresh worker replaces it on demand. At most `size` workers run jobs at a
//   time; more jobs wait in order. Idle workers exit after `idleMs` and never keep the process alive.
// - Each worker's heap is capped (`maxHeapMb`): a job that exhausts it kills only its worker.
// The worker script is compute-worker.ts when running from source, and compute-worker.cjs beside
// the bundle when bundled (scripts/build.mjs writes one next to each bundle; the packaged app
// keeps it unpacked next to app.asar, see electron-builder.config.ts).
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { ComputeJob, ComputeResult, WorkerMessage, WorkerReply } from "./compute-jobs.ts";

/** File name of the bundled worker script, beside each bundle in out/. */
export const COMPUTE_WORKER_BUNDLE = "compute-worker.cjs";
/** setTimeout's largest delay; longer ones fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** A worker not ready after this long is given up (ComputeUnavailableError). */
export const START_TIMEOUT_MS = 30_000;

export class ComputeTimeoutError extends Error {
  readonly timeoutMs: number;
  constructor(timeoutMs: number) {
    super(`The computation took longer than ${formatMs(timeoutMs)} and was stopped.`);
    this.name = "ComputeTimeoutError";
    this.timeoutMs = timeoutMs;
  }
}

export class ComputeAbortedError extends Error {
  constructor() {
    super("The computation was aborted.");
    this.name = "ComputeAbortedError";
  }
}

export class ComputeUnavailableError extends Error {
  constructor(why: string) {
    super(`The background worker failed: ${why}`);
    this.name = "ComputeUnavailableError";
  }
}

/** An error the job itself threw, carried across the thread boundary. */
export class ComputeJobError extends Error {
  readonly remoteName: string;
  readonly kind: string | undefined;
  constructor(remoteName: string, message: string, kind: string | undefined) {
    super(message);
    this.name = "ComputeJobError";
    this.remoteName = remoteName;
    this.kind = kind;
  }
}

function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toLocaleString("en-US", { maximumFractionDigits: 1 })} s` : `${Math.round(ms)} ms`;
}

/** Where the worker script is: beside this module from source, beside the bundle when bundled. */
export function defaultWorkerFile(moduleUrl: string = import.meta.url): string {
  const here = fileURLToPath(moduleUrl);
  const file = here.endsWith(".ts") ? path.join(path.dirname(here), "compute-worker.ts") : path.join(path.dirname(here), COMPUTE_WORKER_BUNDLE);
  // Packaged: the worker is kept unpacked beside app.asar (a worker thread loads it like any file).
  const unpacked = file.replace(/app\.asar([\\/])/, "app.asar.unpacked$1");
  return unpacked !== file && existsSync(unpacked) ? unpacked : file;
}

export interface ComputePoolOptions {
  /** Workers running at once. Default 2. */
  size?: number;
  /** An idle worker exits after this long. Default 30 s. */
  idleMs?: number;
  /** Old-generation heap cap of each worker, in MB. Default 1024. */
  maxHeapMb?: number;
  workerFile?: string;
}

export interface RunOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /**
   * Where timeoutMs starts: "call" (the default), queueing included, or "run", when a worker takes
   * the job (a caller that spreads one budget over many jobs; it bounds waits with `signal`).
   */
  clock?: "call" | "run";
}

interface Task {
  id: number;
  job: ComputeJob;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** Time left when the clock was paused (waiting for a new worker to start), or not yet started (clock "run"). */
  remainingMs: number;
  clock: "call" | "run";
  deadline: number;
  onDeadline: () => void;
  cleanup: () => void;
  slot?: Slot;
  settled: boolean;
}

interface Slot {
  worker: Worker;
  /** Set once the worker has loaded its code and said so. */
  ready: boolean;
  startTimer?: ReturnType<typeof setTimeout>;
  task?: Task;
  idleTimer?: ReturnType<typeof setTimeout>;
}

export class ComputePool {
  readonly #size: number;
  readonly #idleMs: number;
  readonly #maxHeapMb: number;
  readonly #workerFile: string;
  readonly #slots = new Set<Slot>();
  readonly #queue: Task[] = [];
  #nextId = 1;
  #closed = false;

  constructor(options: ComputePoolOptions = {}) {
    this.#size = Math.max(1, options.size ?? 2);
    this.#idleMs = options.idleMs ?? 30_000;
    this.#maxHeapMb = options.maxHeapMb ?? 1024;
    this.#workerFile = options.workerFile ?? defaultWorkerFile();
  }

  /** Workers alive now (busy or idle). */
  get workerCount(): number {
    return this.#slots.size;
  }

  run<J extends ComputeJob>(job: J, options: RunOptions): Promise<ComputeResult<J>> {
    return new Promise<ComputeResult<J>>((resolve, reject) => {
      if (this.#closed) return reject(new ComputeUnavailableError("the pool is closed."));
      if (options.signal?.aborted) return reject(new ComputeAbortedError());
      const timeoutMs = Math.min(Math.max(0, options.timeoutMs), MAX_TIMER_MS);
      const onAbort = () => this.#fail(task, new ComputeAbortedError());
      const task: Task = {
        id: this.#nextId++,
        job,
        resolve: resolve as (value: unknown) => void,
        reject,
        timer: undefined,
        remainingMs: timeoutMs,
        deadline: performance.now() + timeoutMs,
        clock: options.clock ?? "call",
        onDeadline: () => this.#fail(task, new ComputeTimeoutError(timeoutMs)),
        cleanup: () => {
          clearTimeout(task.timer);
          options.signal?.removeEventListener("abort", onAbort);
        },
        settled: false,
      };
      if (task.clock === "call") task.timer = setTimeout(task.onDeadline, timeoutMs);
      options.signal?.addEventListener("abort", onAbort, { once: true });
      this.#queue.push(task);
      this.#pump();
    });
  }

  /** Stops every worker and fails queued and running jobs. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const task of this.#queue.splice(0)) this.#settle(task, new ComputeUnavailableError("the pool is closed."));
    const workers = [...this.#slots].map((slot) => {
      if (slot.task) this.#settle(slot.task, new ComputeUnavailableError("the pool is closed."));
      return this.#retire(slot);
    });
    await Promise.all(workers);
  }

  #settle(task: Task, outcome: Error | { value: unknown }): void {
    if (task.settled) return;
    task.settled = true;
    task.cleanup();
    if (outcome instanceof Error) task.reject(outcome);
    else task.resolve(outcome.value);
  }

  /** A task ends early (deadline, abort): dequeue it, or stop the worker running it. */
  #fail(task: Task, error: Error): void {
    if (task.settled) return;
    const queued = this.#queue.indexOf(task);
    if (queued !== -1) this.#queue.splice(queued, 1);
    this.#settle(task, error);
    if (task.slot) {
      void this.#retire(task.slot);
      this.#pump();
    }
  }

  #retire(slot: Slot): Promise<unknown> {
    if (!this.#slots.delete(slot)) return Promise.resolve();
    if (slot.idleTimer) clearTimeout(slot.idleTimer);
    if (slot.startTimer) clearTimeout(slot.startTimer);
    slot.worker.removeAllListeners();
    // A terminated worker may still report an error; nobody is listening for it any more.
    slot.worker.on("error", () => undefined);
    return slot.worker.terminate().catch(() => undefined);
  }

  #pump(): void {
    while (this.#queue.length > 0) {
      let slot = [...this.#slots].find((s) => !s.task);
      if (!slot) {
        if (this.#slots.size >= this.#size) return;
        const started = this.#spawn();
        if (!started) return;
        slot = started;
      }
      const task = this.#queue.shift()!;
      if (slot.idleTimer) clearTimeout(slot.idleTimer);
      slot.idleTimer = undefined;
      slot.task = task;
      task.slot = slot;
      if (!slot.ready) {
        // The clock stops while the new worker starts (see #onReady).
        if (task.clock === "call") {
          clearTimeout(task.timer);
          task.remainingMs = Math.max(0, task.deadline - performance.now());
        }
      } else if (task.clock === "run") {
        task.deadline = performance.now() + task.remainingMs;
        task.timer = setTimeout(task.onDeadline, task.remainingMs);
      }
      slot.worker.ref();
      try {
        slot.worker.postMessage({ id: task.id, job: task.job });
      } catch (error) {
        slot.task = undefined;
        task.slot = undefined;
        slot.worker.unref();
        this.#settle(task, new ComputeUnavailableError(`the job could not be sent (${(error as Error).message}).`));
      }
    }
  }

  #spawn(): Slot | undefined {
    let worker: Worker;
    try {
      worker = new Worker(this.#workerFile, { resourceLimits: { maxOldGenerationSizeMb: this.#maxHeapMb }, stdout: false, stderr: false });
    } catch (error) {
      const task = this.#queue.shift();
      if (task) this.#settle(task, new ComputeUnavailableError(`it could not start (${(error as Error).message}).`));
      return undefined;
    }
    const slot: Slot = { worker, ready: false };
    this.#slots.add(slot);
    worker.on("message", (message: WorkerMessage) => ("ready" in message ? this.#onReady(slot) : this.#onReply(slot, message)));
    const onDeath = (why: string) => {
      const task = slot.task;
      slot.task = undefined;
      void this.#retire(slot);
      if (task) this.#settle(task, new ComputeUnavailableError(why));
      this.#pump();
    };
    worker.on("error", (error: Error) => {
      const oom = (error as NodeJS.ErrnoException).code === "ERR_WORKER_OUT_OF_MEMORY";
      onDeath(oom ? `it ran out of memory (over ${this.#maxHeapMb} MB).` : error.message);
    });
    worker.on("exit", (code) => onDeath(`it exited with code ${code}.`));
    slot.startTimer = setTimeout(() => onDeath(`it did not start within ${formatMs(START_TIMEOUT_MS)}.`), START_TIMEOUT_MS);
    slot.startTimer.unref();
    return slot;
  }

  #onReady(slot: Slot): void {
    if (slot.ready) return;
    slot.ready = true;
    clearTimeout(slot.startTimer);
    slot.startTimer = undefined;
    const task = slot.task;
    if (!task || task.settled) return;
    task.deadline = performance.now() + task.remainingMs;
    task.timer = setTimeout(task.onDeadline, task.remainingMs);
  }

  #onReply(slot: Slot, reply: WorkerReply): void {
    const task = slot.task;
    if (!task || task.id !== reply.id) return;
    slot.task = undefined;
    task.slot = undefined;
    if (reply.ok) this.#settle(task, { value: reply.result });
    else this.#settle(task, new ComputeJobError(reply.error.name, reply.error.message, reply.error.kind));
    slot.worker.unref();
    slot.idleTimer = setTimeout(() => void this.#retire(slot), this.#idleMs);
    slot.idleTimer.unref();
    this.#pump();
  }
}

let shared: ComputePool | undefined;

/** The process-wide pool, made on first use. */
export function computePool(): ComputePool {
  shared ??= new ComputePool();
  return shared;
}
