// The parent's side of the snapshot process (snapshot-process.ts): starts it, sends it one request,
// and waits for its reply, its exit, the deadline or the abort signal, whichever comes first.
// How it is started is a HelperLauncher: forkHelper (child_process.fork of the same Node) by
// default; the Electron app passes one that uses utilityProcess (app/main/electron, the only place
// that may import electron).
// Contract: runSnapshotProcess never rejects. It resolves with the process's reply, or with a
// failure: `unavailable` (it could not start, crashed, or was killed by someone else), `timeout`
// (past timeoutMs: killed), `aborted` (the signal: killed). Whenever it resolves with a failure
// the process has exited, so its half-written files can be removed; after a reply it is killed (its
// work is done), so it never outlives the call.
import { fork } from "node:child_process";
import { existsSync } from "node:fs";
import { setPriority } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { SnapshotFailure, SnapshotReply, SnapshotRequest } from "./snapshot-job.ts";

/** File name of the bundled snapshot process, beside each bundle in out/. */
export const SNAPSHOT_PROCESS_BUNDLE = "snapshot-process.cjs";

/** A started helper process, as the launcher gives it. */
export interface HelperProcess {
  readonly pid: number | undefined;
  send(message: unknown): void;
  kill(): void;
  onMessage(listener: (message: unknown) => void): void;
  /** Called once when the process has exited (or could not start); `why` says how, for a person. */
  onExit(listener: (why: string) => void): void;
}

export type HelperLauncher = (file: string) => HelperProcess;

/** Where the snapshot process's script is: beside this module from source, beside the bundle when bundled (unpacked when packaged). */
export function snapshotProcessFile(moduleUrl: string = import.meta.url): string {
  const here = fileURLToPath(moduleUrl);
  const file = here.endsWith(".ts") ? path.join(path.dirname(here), "snapshot-process.ts") : path.join(path.dirname(here), SNAPSHOT_PROCESS_BUNDLE);
  const unpacked = file.replace(/app\.asar([\\/])/, "app.asar.unpacked$1");
  return unpacked !== file && existsSync(unpacked) ? unpacked : file;
}

/** Starts `file` with child_process.fork (this same Node binary; structured-clone messages). */
export function forkHelper(file: string): HelperProcess {
  const child = fork(file, [], { serialization: "advanced", stdio: ["ignore", "ignore", "pipe", "ipc"], execArgv: [] });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString("utf8")).slice(-2_000)));
  const exitListeners: ((why: string) => void)[] = [];
  let exited: string | undefined;
  const exit = (why: string) => {
    if (exited !== undefined) return;
    exited = why;
    for (const listener of exitListeners) listener(why);
  };
  child.on("error", (error) => {
    // A process that never started emits no exit.
    if (child.pid === undefined) exit(`it could not start (${error.message})`);
  });
  child.on("exit", (code, signal) => {
    const last = stderr.trim().split("\n").pop();
    exit(`${signal ? `it was stopped by ${signal}` : `it exited with code ${code}`}${last ? ` (${last})` : ""}`);
  });
  return {
    pid: child.pid,
    send: (message) => child.send(message as never, (error) => error && child.kill("SIGKILL")),
    kill: () => child.kill("SIGKILL"),
    onMessage: (listener) => child.on("message", listener),
    onExit: (listener) => (exited !== undefined ? listener(exited) : exitListeners.push(listener)),
  };
}

export interface SnapshotRunOptions {
  launch: HelperLauncher;
  file?: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Lowest CPU priority for the whole process (its worker threads inherit it). */
  background: boolean;
}

export type SnapshotOutcome = SnapshotReply | { ok: false; failure: SnapshotFailure | "aborted"; message: string };

/** Runs one first snapshot in a process of its own (see the header). */
export function runSnapshotProcess(request: SnapshotRequest, options: SnapshotRunOptions): Promise<SnapshotOutcome & { pid: number | undefined }> {
  return new Promise((resolve) => {
    if (options.signal?.aborted) return resolve({ ok: false, failure: "aborted", message: "The snapshot was stopped.", pid: undefined });
    let child: HelperProcess;
    try {
      child = options.launch(options.file ?? snapshotProcessFile());
    } catch (error) {
      return resolve({ ok: false, failure: "unavailable", message: `The snapshot process could not start: ${(error as Error).message}`, pid: undefined });
    }
    let outcome: SnapshotOutcome | undefined;
    let done = false;
    const finish = (result: SnapshotOutcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      // Read now: a utility process has its pid only once it has started.
      resolve({ ...result, pid: child.pid });
    };
    // Stops the process; the outcome is given once it has exited.
    const stop = (result: SnapshotOutcome) => {
      outcome ??= result;
      child.kill();
    };
    const onAbort = () => stop({ ok: false, failure: "aborted", message: "The snapshot was stopped." });
    const timer = setTimeout(
      () => stop({ ok: false, failure: "timeout", message: `The snapshot took longer than ${Math.round(options.timeoutMs / 1000)} s and was stopped.` }),
      Math.min(options.timeoutMs, 2 ** 31 - 1),
    );
    options.signal?.addEventListener("abort", onAbort, { once: true });
    child.onMessage((message) => {
      if (outcome) return;
      const reply = message as SnapshotReply;
      if (reply.ok) {
        // Its work is done: it is ended now, never left behind.
        child.kill();
        finish(reply);
      } else {
        // Its half-written files are removed by the caller: wait until it has exited.
        stop(reply);
      }
    });
    child.onExit((why) => finish(outcome ?? { ok: false, failure: "unavailable", message: `The snapshot process ended before it answered: ${why}.` }));
    if (options.background && child.pid !== undefined) {
      try {
        setPriority(child.pid, 19);
      } catch {
        // Not allowed here: it runs at normal priority.
      }
    }
    try {
      child.send(request);
    } catch (error) {
      stop({ ok: false, failure: "unavailable", message: `The snapshot process could not be reached: ${(error as Error).message}` });
    }
  });
}
