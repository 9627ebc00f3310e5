// The compute pool: jobs run in worker threads; a job past its deadline, or aborted, is stopped by
// terminating its worker (a runaway regex included) and the pool goes on with a fresh one; a job's
// own error comes back with its name and kind; a worker that cannot start or dies fails only its
// job; idle workers exit; the main thread stays free throughout.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { afterAll, describe, expect, it } from "vitest";
import { ComputeAbortedError, ComputeJobError, ComputePool, ComputeTimeoutError, ComputeUnavailableError, defaultWorkerFile } from "../../app/main/workers/compute-pool.ts";
import type { GrepJob } from "../../app/main/tools/grep-match.ts";
import { tempDir } from "../tools/helpers.ts";

const project = tempDir("lathe-pool-");
const pool = new ComputePool({ size: 2 });
afterAll(async () => {
  await pool.close();
  project.cleanup();
});

const file = (name: string, content: string) => {
  const abs = path.join(project.dir, name);
  writeFileSync(abs, content);
  return abs;
};
const grep = (abs: string, source: string): GrepJob => ({
  kind: "grep",
  files: [{ rel: path.basename(abs), abs }],
  source,
  ignoreCase: false,
  context: 0,
  maxFileBytes: 1 << 20,
  softLimitMs: 1000,
});

describe("compute pool", () => {
  it("finds its worker script beside the module, and beside a bundle (unpacked next to app.asar when packaged)", () => {
    expect(defaultWorkerFile()).toMatch(/app\/main\/workers\/compute-worker\.ts$/);
    expect(defaultWorkerFile("file:///opt/Lathe/resources/app.asar/out/main/index.cjs")).toBe("/opt/Lathe/resources/app.asar/out/main/compute-worker.cjs");
    const resources = path.join(project.dir, "resources");
    mkdirSync(path.join(resources, "app.asar.unpacked", "out", "main"), { recursive: true });
    writeFileSync(path.join(resources, "app.asar.unpacked", "out", "main", "compute-worker.cjs"), "");
    expect(defaultWorkerFile(pathToFileURL(path.join(resources, "app.asar", "out", "main", "index.cjs")).href)).toBe(
      path.join(resources, "app.asar.unpacked", "out", "main", "compute-worker.cjs"),
    );
  });

  it("runs jobs and returns their results", async () => {
    const abs = file("plain.txt", "alpha\nbeta\ngamma\n");
    const result = await pool.run(grep(abs, "^b"), { timeoutMs: 10_000 });
    expect(result.lines[0]!.map((l) => l.text)).toEqual(["beta"]);
  });

  it("stops a catastrophic regex at its deadline without blocking this thread, then runs the next job", async () => {
    const abs = file("evil.txt", `${"a".repeat(40)}b\n`);
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const started = performance.now();
    await expect(pool.run(grep(abs, "^(a+)+$"), { timeoutMs: 300 })).rejects.toBeInstanceOf(ComputeTimeoutError);
    delay.disable();
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(delay.max / 1e6).toBeLessThan(200);
    const next = await pool.run(grep(abs, "b$"), { timeoutMs: 10_000 });
    expect(next.lines[0]).toHaveLength(1);
  });

  it("stops a job when its signal aborts, and refuses one whose signal already did", async () => {
    const abs = file("evil2.txt", `${"a".repeat(40)}b\n`);
    const controller = new AbortController();
    const running = pool.run(grep(abs, "^(a|aa)+$"), { timeoutMs: 60_000, signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(running).rejects.toBeInstanceOf(ComputeAbortedError);
    await expect(pool.run(grep(abs, "a"), { timeoutMs: 1000, signal: controller.signal })).rejects.toBeInstanceOf(ComputeAbortedError);
  });

  it("queues jobs beyond its size and counts the wait in the deadline", async () => {
    const single = new ComputePool({ size: 1 });
    const evil = file("evil3.txt", `${"a".repeat(40)}b\n`);
    const ok = file("ok.txt", "x\n");
    const first = expect(single.run(grep(evil, "^(a+)+$"), { timeoutMs: 400 })).rejects.toBeInstanceOf(ComputeTimeoutError);
    const second = single.run(grep(ok, "x"), { timeoutMs: 10_000 });
    const starved = expect(single.run(grep(ok, "x"), { timeoutMs: 100 })).rejects.toBeInstanceOf(ComputeTimeoutError);
    await first;
    await starved;
    expect((await second).lines[0]).toHaveLength(1);
    await single.close();
  });

  it('with clock "run", counts the deadline from when a worker takes the job, not the wait in the queue', async () => {
    const single = new ComputePool({ size: 1 });
    const evil = file("evil4.txt", `${"a".repeat(40)}b\n`);
    const ok = file("ok2.txt", "x\n");
    const first = expect(single.run(grep(evil, "^(a+)+$"), { timeoutMs: 400 })).rejects.toBeInstanceOf(ComputeTimeoutError);
    const waited = single.run(grep(ok, "x"), { timeoutMs: 100, clock: "run" });
    await first;
    expect((await waited).lines[0]).toHaveLength(1);
    // Its running still counts: a runaway job is stopped at its deadline.
    await expect(single.run(grep(evil, "^(a+)+$"), { timeoutMs: 300, clock: "run" })).rejects.toBeInstanceOf(ComputeTimeoutError);
    await single.close();
  });

  it("returns a job's own error with its name and kind", async () => {
    const abs = file("amb.txt", "x\nx\n");
    const error = await pool
      .run({ kind: "edit", path: abs, shown: "amb.txt", edits: [{ oldText: "x", newText: "y" }], oldName: "a", newName: "b" }, { timeoutMs: 10_000 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ComputeJobError);
    expect(error).toMatchObject({ remoteName: "EditError", kind: "ambiguous" });
  });

  it("fails a job whose worker cannot start or runs out of memory, and keeps working", async () => {
    const broken = new ComputePool({ workerFile: path.join(project.dir, "no-such-worker.cjs") });
    await expect(broken.run(grep(file("a.txt", "a"), "a"), { timeoutMs: 10_000 })).rejects.toBeInstanceOf(ComputeUnavailableError);
    await broken.close();
    const small = new ComputePool({ maxHeapMb: 16 });
    const big = file("big.txt", "word \u201Cx\u201D   \n".repeat(1_000_000));
    const error = await small
      .run({ kind: "edit", path: big, shown: "big.txt", edits: [{ oldText: "nowhere to be found", newText: "y" }], oldName: "a", newName: "b" }, { timeoutMs: 30_000 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ComputeUnavailableError);
    expect((error as Error).message).toMatch(/out of memory/);
    expect((await small.run(grep(file("b.txt", "b"), "b"), { timeoutMs: 10_000 })).lines[0]).toHaveLength(1);
    await small.close();
  });

  it("does not count a new worker's start-up against a job's time (a loaded machine can stretch it)", async () => {
    // A worker that takes 800 ms to load its code, then becomes the real worker.
    const slow = path.join(project.dir, "slow-worker.mjs");
    writeFileSync(slow, `Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 800);\nawait import(${JSON.stringify(pathToFileURL(defaultWorkerFile()).href)});\n`);
    const starting = new ComputePool({ workerFile: slow });
    const result = await starting.run(grep(file("d.txt", "d"), "d"), { timeoutMs: 300 });
    expect(result.lines[0]).toHaveLength(1);
    // Once started, the job's own time counts as before.
    await expect(starting.run(grep(file("e.txt", `${"a".repeat(40)}!`), "^(a+)+$"), { timeoutMs: 300 })).rejects.toBeInstanceOf(ComputeTimeoutError);
    await starting.close();
  });

  it("lets idle workers exit", async () => {
    const brief = new ComputePool({ idleMs: 50 });
    await brief.run(grep(file("c.txt", "c"), "c"), { timeoutMs: 10_000 });
    expect(brief.workerCount).toBe(1);
    await new Promise((r) => setTimeout(r, 300));
    expect(brief.workerCount).toBe(0);
    await brief.close();
  });
});
