// Entry point of a compute pool worker thread (see compute-pool.ts): runs each job it is sent with
// runComputeJob and posts back the result or the error, one job at a time. Says it is ready once
// its code is loaded (the pool does not count a worker's start-up against a job's time). Built to
// out/*/compute-worker.cjs for the app (scripts/build.mjs); run from source in tests.
import { parentPort } from "node:worker_threads";
import { type ComputeJob, runComputeJob, type WorkerReply } from "./compute-jobs.ts";

parentPort?.on("message", (message: { id: number; job: ComputeJob }) => {
  let reply: WorkerReply;
  try {
    reply = { id: message.id, ok: true, result: runComputeJob(message.job) };
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    const kind = (e as { kind?: unknown }).kind;
    reply = { id: message.id, ok: false, error: { name: e.name, message: e.message, kind: typeof kind === "string" ? kind : undefined } };
  }
  parentPort!.postMessage(reply);
});
parentPort?.postMessage({ ready: true });
