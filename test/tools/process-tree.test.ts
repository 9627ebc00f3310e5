// Process-tree helpers of the bash tool: descendants read from the children lists (what a kill
// signals at once, on the main thread, without scanning /proc) match what a full scan finds below
// the root, nested and setsid'd children included; the full scan is the worker's, and happens
// here only when the pool fails or is late.
import { spawn } from "node:child_process";
import { expect, it } from "vitest";
import { descendantsOf, isAlive, killFamily, processFamily, procScanCount, readProcInfo, sessionFormed } from "../../app/main/tools/process-tree.ts";
import { familyOf } from "../../app/main/tools/process-tree-off-thread.ts";
import { ptyCommandLine } from "../../app/main/tools/pty-command.ts";
import type { ComputePool } from "../../app/main/workers/compute-pool.ts";
import * as pty from "node-pty";
import { describeWhen, needsLinux } from "../support/requirements.ts";

describeWhen(needsLinux(), "process tree", () => {
  it("finds nested and setsid'd descendants without scanning /proc", async () => {
    const child = spawn("bash", ["-c", "sleep 30 & setsid sleep 30 & bash -c 'sleep 30 & wait' & wait"], { stdio: "ignore" });
    const root = child.pid!;
    let family: number[] = [];
    for (let i = 0; i < 100 && family.length < 5; i++) {
      await new Promise((r) => setTimeout(r, 50));
      family = processFamily(root);
    }
    expect(family.length).toBe(5); // bash, its sleep, the setsid'd sleep, the inner bash and its sleep
    const scans = procScanCount();
    const descendants = descendantsOf(root);
    expect(procScanCount()).toBe(scans);
    expect([...descendants].sort((a, b) => a - b)).toEqual([...family].sort((a, b) => a - b));
    await killFamily(root);
    expect(family.filter(isAlive)).toEqual([]);
  });
});

describeWhen(needsLinux(), "the family found off the main thread", () => {
  const stub = (run: () => Promise<unknown>) => ({ run }) as unknown as ComputePool;

  it("takes the worker's answer without scanning /proc here", async () => {
    const scans = procScanCount();
    expect(
      await familyOf(
        process.pid,
        stub(async () => [process.pid, 42]),
      ),
    ).toEqual([process.pid, 42]);
    expect(procScanCount()).toBe(scans);
  });

  it("scans here when the pool fails or does not answer in time (a kill must find every process)", async () => {
    const scans = procScanCount();
    expect(
      await familyOf(
        process.pid,
        stub(() => Promise.reject(new Error("no worker"))),
      ),
    ).toContain(process.pid);
    expect(
      await familyOf(
        process.pid,
        stub(() => new Promise(() => undefined)),
      ),
    ).toContain(process.pid);
    expect(procScanCount()).toBe(scans + 2);
  });
});

describeWhen(needsLinux(), "a pty child's session", () => {
  it("is awaited until the child leads it: its process group can then be signalled", async () => {
    // The bash tool's own command line. (A plain `sh -c "sleep 30"` is no good here: dash, signalled
    // in its first moments, may go on and run the command; 32 of 200 here.)
    const [file, ...args] = ptyCommandLine("/bin/bash", "sleep 30");
    for (let i = 0; i < 20; i++) {
      const term = pty.spawn(file!, args, { encoding: null });
      const exited = new Promise<number>((resolve) => term.onExit(({ signal }) => resolve(signal ?? 0)));
      expect(await sessionFormed(term.pid)).toBe(true);
      expect(readProcInfo(term.pid)?.session).toBe(term.pid);
      process.kill(-term.pid, "SIGINT");
      expect(await exited).toBe(2);
    }
  });

  it("is never formed by a process that stays in ours, or one that is gone", async () => {
    const child = spawn("sleep", ["30"], { stdio: "ignore" });
    const started = Date.now();
    expect(await sessionFormed(child.pid!, 200)).toBe(false);
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
    expect(await sessionFormed(child.pid!, 5_000)).toBe(false);
  });
});
