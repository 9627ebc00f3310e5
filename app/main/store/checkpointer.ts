// WAL checkpoints off the main thread. SQLite's automatic checkpoint runs inside whichever commit
// crosses the threshold and fsyncs, blocking that commit for several milliseconds; the loop's
// writes must not wait for it. So the main connection turns it off and a worker thread with its
// own connection runs PASSIVE checkpoints (which never block writers) every 200 ms while writes
// come. If the worker cannot start (the driver cannot be located, e.g. in an unusual bundle), the
// store falls back to SQLite's automatic checkpoint: correct, just with occasional slow commits.
// The worker starts with the first write (a moment after it), not when the store opens: a start
// that only reads does not pay for a thread and a second connection.
import type { Database } from "better-sqlite3";
import { Worker } from "node:worker_threads";
import { closeDriverWorker, driverPath } from "./driver-worker.ts";

const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driverPath);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma("busy_timeout = 5000");
parentPort.on("message", (message) => {
  if (message === "close") { db.close(); parentPort.close(); return; }
  try { db.pragma("wal_checkpoint(PASSIVE)"); } catch (err) { parentPort.postMessage(String(err && err.message || err)); }
});
parentPort.postMessage("ready");
`;

/** Only ever waited on, to sleep a few milliseconds between checkpoint attempts. */
const SLEEPER = new Int32Array(new SharedArrayBuffer(4));

export class Checkpointer {
  readonly #db: Database;
  readonly #file: string;
  readonly #intervalMs: number;
  #worker: Worker | null = null;
  #timer: ReturnType<typeof setInterval> | null = null;
  #dirty = false;
  #starting: ReturnType<typeof setTimeout> | null = null;
  #started = false;

  constructor(db: Database, file: string, intervalMs = 200) {
    this.#db = db;
    this.#file = file;
    this.#intervalMs = intervalMs;
  }

  #start(): void {
    this.#starting = null;
    if (this.#started || !this.#db.open) return;
    this.#started = true;
    const db = this.#db;
    const file = this.#file;
    const intervalMs = this.#intervalMs;
    const driver = driverPath();
    if (!driver || file === ":memory:") return;
    try {
      const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driverPath: driver, file } });
      worker.unref();
      worker.on("error", () => this.#fallBack());
      worker.on("exit", () => this.#fallBack());
      worker.on("message", (message) => {
        if (message !== "ready") console.error(`[store] background checkpoint failed: ${String(message)}`);
      });
      this.#worker = worker;
      db.pragma("wal_autocheckpoint = 0");
      this.#timer = setInterval(() => this.#tick(), intervalMs);
      this.#timer.unref?.();
    } catch {
      this.#fallBack();
    }
  }

  /** True while checkpoints run in the worker. */
  get inWorker(): boolean {
    return this.#worker !== null;
  }

  /** Notes that something was committed (the first time, the worker starts just after). */
  noteWrite(): void {
    this.#dirty = true;
    if (this.#started || this.#starting !== null) return;
    this.#starting = setTimeout(() => this.#start(), 0);
    this.#starting.unref?.();
  }

  #tick(): void {
    if (!this.#dirty || !this.#worker) return;
    this.#dirty = false;
    this.#worker.postMessage("checkpoint");
  }

  #fallBack(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    this.#worker = null;
    if (this.#db.open) this.#db.pragma("wal_autocheckpoint = 1000");
  }

  /**
   * Checkpoints and truncates the WAL on the calling thread, blocking. A background checkpoint in
   * progress holds SQLite's checkpoint lock (an attempt then fails at once), so this retries every
   * 2 ms for up to `waitMs`. Returns false if the WAL could not be fully checkpointed by then.
   */
  checkpointNow(waitMs: number): boolean {
    const deadline = Date.now() + waitMs;
    for (;;) {
      const [row] = this.#db.pragma("wal_checkpoint(TRUNCATE)") as { busy: number }[];
      if (row?.busy === 0) return true;
      if (Date.now() >= deadline) return false;
      Atomics.wait(SLEEPER, 0, 0, 2);
    }
  }

  /** Stops the worker (the store then checkpoints on close); resolves once its thread has exited. */
  close(): Promise<void> {
    if (this.#starting !== null) clearTimeout(this.#starting);
    this.#starting = null;
    this.#started = true;
    const worker = this.#worker;
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    this.#worker = null;
    if (!worker) return Promise.resolve();
    worker.removeAllListeners("exit");
    return closeDriverWorker(worker);
  }
}
