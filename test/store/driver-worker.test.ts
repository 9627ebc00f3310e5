// Stopping the store's driver workers (driver-worker.ts): a worker thread with its own
// better-sqlite3 connection must never be terminated while it loads the driver or runs a call, or
// the whole process aborts (FATAL ERROR: Error::New napi_get_last_error_info; seen in a full test
// run, and reproduced in a script: 1,500 start-and-terminate cycles at random moments aborted
// every run, 1,500 start-and-close cycles never did). The abort depends on timing too fine for a
// test that fails every time, so what is tested is that the store's workers are asked to close.
import fs from "node:fs";
import path from "node:path";
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import { afterAll, afterEach, expect, it, vi } from "vitest";
import { Checkpointer } from "../../app/main/store/checkpointer.ts";
import { closeDriverWorker } from "../../app/main/store/driver-worker.ts";
import { openStore } from "../../app/main/store/index.ts";
import { tempDir } from "../tools/helpers.ts";

const scratch = tempDir("lathe-driver-worker-");
afterAll(() => scratch.cleanup());
afterEach(() => vi.restoreAllMocks());

it("closes the checkpointer's worker by asking it, never by terminating it", async () => {
  const terminate = vi.spyOn(Worker.prototype, "terminate");
  const post = vi.spyOn(Worker.prototype, "postMessage");
  const file = path.join(scratch.dir, "checkpointer.db");
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  const checkpointer = new Checkpointer(db, file, 200);
  checkpointer.noteWrite();
  await vi.waitFor(() => expect(checkpointer.inWorker).toBe(true));
  checkpointer.close();
  db.close();
  expect(terminate).not.toHaveBeenCalled();
  expect(post).toHaveBeenLastCalledWith("close");
});

/** Descriptors this process (any thread) holds on files of `dir`. */
function openFilesIn(dir: string): string[] {
  const out: string[] = [];
  for (const fd of fs.readdirSync("/proc/self/fd")) {
    try {
      const target = fs.readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(`${dir}/`)) out.push(target);
    } catch {
      // Closed meanwhile.
    }
  }
  return out;
}

it("closed() resolves only once the store's worker threads have exited and let go of the database", async () => {
  const unref = vi.spyOn(Worker.prototype, "unref");
  const dataDir = fs.mkdtempSync(path.join(scratch.dir, "data-"));
  const { store } = openStore({ dataDir });
  const project = store.openProject("/work/app");
  const session = store.createSession({ projectId: project.id, baseToolNames: ["read"], model: "anthropic/claude-test" });
  store.appendMessages(session.id, [{ role: "user", content: "hello", timestamp: 1 }]);
  // The checkpointer's worker starts just after the first write; closed at once, it is still
  // loading the driver: it would open the database (creating its -wal and -shm again) after the
  // store closed, while a quit or a test removes the data folder (ENOTEMPTY seen in CI).
  await vi.waitFor(() => expect(unref).toHaveBeenCalled());
  const worker = unref.mock.contexts[0] as Worker;
  store.close();
  await store.closed();
  expect(worker.threadId).toBe(-1);
  expect(openFilesIn(dataDir)).toEqual([]);
});

it("closeDriverWorker resolves on the worker's exit, or at once for one already gone, and leaves no timer behind", async () => {
  // The fallback wait (EXIT_WAIT_MS) is a fake timer that never fires here: only the worker's exit,
  // or its being gone already, can settle the close.
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  try {
    const live = new Worker(`require("node:worker_threads").parentPort.on("message", (m) => m === "close" && require("node:worker_threads").parentPort.close());`, {
      eval: true,
    });
    await new Promise((resolve) => live.once("online", resolve));
    await closeDriverWorker(live);
    expect(live.threadId).toBe(-1);
    expect(vi.getTimerCount()).toBe(0);
    const gone = new Worker("", { eval: true });
    await new Promise((resolve) => gone.once("exit", resolve));
    await closeDriverWorker(gone);
    expect(vi.getTimerCount()).toBe(0);
  } finally {
    vi.useRealTimers();
  }
});
