// Worker threads that open the database with their own better-sqlite3 connection (the WAL
// checkpointer, the search word list's fill). Such a worker is never stopped with
// `worker.terminate()`: terminating a thread while it loads the driver or runs one of its calls
// aborts the whole process (FATAL ERROR: Error::New napi_get_last_error_info; better-sqlite3 issue
// 1507, reproduced here with 13.2.0 within 1,500 start-and-terminate cycles). It is asked to close
// instead: every such worker's script handles the message "close" by closing its connection and
// its port, after the call it is running, and then exits by itself. A worker asked to close may
// still fail (its start, opening the database, can fail after the close was asked): that error is
// of no interest any more, and is listened for so that it never becomes an uncaught exception of
// this thread (which would end the app). Never throws.
import { createRequire } from "node:module";
import type { Worker } from "node:worker_threads";

/** The message a driver worker answers by closing its connection and exiting. */
const CLOSE_DRIVER_WORKER = "close";

/** Where better-sqlite3 is, for a worker to `require`; undefined when it cannot be located (an unusual bundle). */
export function driverPath(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve("better-sqlite3");
  } catch {
    return undefined;
  }
}

/** How long closing waits for a worker to exit: its call may wait up to busy_timeout (5 s) for a lock. */
const EXIT_WAIT_MS = 6_000;

/**
 * Asks `worker` to close its connection and exit; it stays unreferenced, so it never holds the
 * process open, and a later failure of it is ignored. Resolves once the thread has exited (or
 * after EXIT_WAIT_MS): until then it may still read or write the database's files, and even
 * create its -wal and -shm again.
 */
export function closeDriverWorker(worker: Worker): Promise<void> {
  worker.unref();
  worker.on("error", () => undefined);
  return new Promise((resolve) => {
    // -1 once the thread no longer runs (its "exit" may already have been emitted).
    if (worker.threadId === -1) return resolve();
    const timer = setTimeout(resolve, EXIT_WAIT_MS);
    timer.unref();
    worker.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    try {
      worker.postMessage(CLOSE_DRIVER_WORKER);
    } catch {
      // Already gone: its exit comes (or came) by itself.
    }
  });
}
