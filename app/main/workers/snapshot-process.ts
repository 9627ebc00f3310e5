// Entry point of the snapshot process: a process of its own that stores a project's first
// snapshot (snapshot-job.ts) with two worker threads and exits, so that the memory the job needed
// (several hundred MB for 200 MB of files) leaves with it: kept in the app's process, that memory
// made every later spawn (git, bash) about 7 times slower (fork of a large process).
// Started by snapshot-client.ts: `child_process.fork` (plain Node: the headless host, tests,
// benches) or Electron's utilityProcess (the app; its RunAsNode fuse is off, so the Electron
// binary cannot be started as Node). It takes one request, posts one reply and is then ended by
// its parent; it exits by itself when its parent goes away (the IPC channel closes), so it never
// outlives Lathe. It runs no git and no project code. Built to out/*/snapshot-process.cjs beside
// each bundle (scripts/build.mjs); run from source in tests.
import { availableParallelism } from "node:os";
import { ComputePool } from "./compute-pool.ts";
import { runSnapshotJob, type SnapshotReply, type SnapshotRequest } from "./snapshot-job.ts";

interface ElectronParentPort {
  on(event: "message", listener: (event: { data: unknown }) => void): void;
  postMessage(message: unknown): void;
}

const electronPort = (process as { parentPort?: ElectronParentPort }).parentPort;

async function handle(request: SnapshotRequest): Promise<SnapshotReply> {
  const pool = new ComputePool({ size: Math.min(2, Math.max(1, availableParallelism())), idleMs: 1_000, maxHeapMb: 2048 });
  try {
    return await runSnapshotJob(pool, request);
  } finally {
    await pool.close();
  }
}

let started = false;
function onRequest(message: unknown, reply: (answer: SnapshotReply) => void): void {
  if (started) return;
  started = true;
  void handle(message as SnapshotRequest).then(reply, (error: unknown) => reply({ ok: false, failure: "failed", message: String(error) }));
}

if (electronPort) {
  electronPort.on("message", (event) => onRequest(event.data, (answer) => electronPort.postMessage(answer)));
} else if (process.send) {
  process.on("message", (message) => onRequest(message, (answer) => process.send?.(answer)));
  // The parent is gone (quit, crashed, killed): nothing is left to do for it.
  process.on("disconnect", () => process.exit(1));
}
