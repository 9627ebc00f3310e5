// The agent's commands run at a lower CPU priority than Lathe: their session's autogroup and their
// own nice, PRIORITY_STEP above Lathe's, for the command and what it starts, through both terminal
// spawners; nothing changes with the setting off; Lathe's own group is never touched, also for a
// process that has not made its session yet.
import { spawn } from "node:child_process";
import { getPriority } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createBashTool } from "../../app/main/tools/bash.ts";
import { autogroupNice, lowerCommandPriority, PRIORITY_STEP } from "../../app/main/tools/command-priority.ts";
import { describeWhen, itWhen, type Missing, needsLinux } from "../support/requirements.ts";
import { runTool, tempDir } from "./helpers.ts";

const project = tempDir("lathe-priority-");
afterAll(() => project.cleanup());
afterEach(() => {
  delete process.env.LATHE_PTY_SPAWN;
});

const ownNice = getPriority();
const ownGroupNice = autogroupNice("self");
const lowered = (nice: number) => Math.min(19, nice + PRIORITY_STEP);
const needsAutogroups = (): Missing => needsLinux() ?? (ownGroupNice === undefined ? "needs a kernel with autogroups (/proc/self/autogroup)" : null);

// After a pause (the priority is set just after the start), the shell's nice, its autogroup's, and
// the nice of a process it starts then.
const REPORT = `sleep 0.3; echo "nice $(cut -d' ' -f19 /proc/$$/stat)"; cat /proc/$$/autogroup; sh -c 'echo "child $(cut -d" " -f19 /proc/$$/stat)"'`;

async function report(lowerPriority: boolean): Promise<{ nice: number; group: number | undefined; child: number }> {
  const bash = createBashTool({ projectDir: project.dir, outputDir: path.join(project.dir, ".out"), lowerPriority: () => lowerPriority });
  const run = await runTool(bash, { command: REPORT });
  expect(run.isError, run.text).toBe(false);
  const group = / nice (-?\d+)/.exec(run.text)?.[1];
  return { nice: Number(/^nice (-?\d+)/m.exec(run.text)?.[1]), group: group === undefined ? undefined : Number(group), child: Number(/^child (-?\d+)/m.exec(run.text)?.[1]) };
}

describeWhen(needsLinux(), "the bash tool's commands", () => {
  for (const spawner of ["posix_spawn", "node-pty"]) {
    it(`run below Lathe's priority by default, and what they start too (${spawner})`, async () => {
      if (spawner === "node-pty") process.env.LATHE_PTY_SPAWN = "node";
      const seen = await report(true);
      expect(seen.nice).toBe(lowered(ownNice));
      expect(seen.child).toBe(lowered(ownNice));
      if (ownGroupNice !== undefined) expect(seen.group).toBe(lowered(ownGroupNice));
      expect(autogroupNice("self")).toBe(ownGroupNice);
    });
  }

  it("run at Lathe's own priority in a new group of nice 0 with the setting off", async () => {
    const seen = await report(false);
    expect(seen.nice).toBe(ownNice);
    expect(seen.child).toBe(ownNice);
    if (ownGroupNice !== undefined) expect(seen.group).toBe(0);
  });
});

describe("lowerCommandPriority", () => {
  it("does nothing where there is no nice (Windows)", async () => {
    expect(await lowerCommandPriority(process.pid, { platform: "win32" })).toEqual({});
  });

  itWhen(
    needsLinux(),
    "never writes the autogroup of a process that does not lead its session (it would be Lathe's own)",
    async () => {
      const child = spawn("sleep", ["10"], { stdio: "ignore" });
      try {
        const result = await lowerCommandPriority(child.pid!);
        expect(result.nice).toBe(lowered(ownNice));
        expect(result.autogroupNice).toBeUndefined();
        expect(autogroupNice("self")).toBe(ownGroupNice);
      } finally {
        child.kill("SIGKILL");
      }
    },
    10_000,
  );

  itWhen(needsLinux(), "leaves a command alone once it has exited (its pid may be another's)", async () => {
    const child = spawn("sleep", ["10"], { stdio: "ignore", detached: true });
    try {
      const result = await lowerCommandPriority(child.pid!, { running: () => false });
      expect(result.autogroupNice).toBeUndefined();
      expect(autogroupNice(child.pid!)).toBe(0);
    } finally {
      child.kill("SIGKILL");
    }
  });

  // What a user (no CAP_SYS_ADMIN) meets: one change of an autogroup's nice per 100 ms system-wide.
  itWhen(needsAutogroups(), "takes the kernel's limit on unprivileged changes (EAGAIN within 100 ms) in turn, and lowers every command", async () => {
    const children = [0, 1, 2, 3].map(() => spawn("sleep", ["10"], { stdio: "ignore", detached: true }));
    let last = -Infinity;
    const written: number[] = [];
    let refused = 0;
    const writeAutogroup = (pid: number) => {
      const now = performance.now();
      if (now - last < 100) {
        refused++;
        throw Object.assign(new Error("EAGAIN: resource temporarily unavailable, write"), { code: "EAGAIN" });
      }
      last = now;
      written.push(pid);
    };
    try {
      const results = await Promise.all(children.map((child) => lowerCommandPriority(child.pid!, { writeAutogroup })));
      expect(results.map((r) => r.autogroupNice)).toEqual(children.map(() => lowered(ownGroupNice!)));
      expect(written.sort()).toEqual(children.map((child) => child.pid).sort());
      // One at a time: each waits once for the one before, none spins.
      expect(refused).toBeLessThanOrEqual(children.length - 1);
    } finally {
      for (const child of children) child.kill("SIGKILL");
    }
  });

  itWhen(needsAutogroups(), "retries only the rate limit, and stops retrying once the command has exited", async () => {
    const child = spawn("sleep", ["10"], { stdio: "ignore", detached: true });
    try {
      let calls = 0;
      const gone = await lowerCommandPriority(child.pid!, {
        writeAutogroup: () => {
          calls++;
          throw Object.assign(new Error("ENOENT"), { code: "ENOENT" });
        },
      });
      expect(gone.autogroupNice).toBeUndefined();
      expect(calls).toBe(1);
      let running = true;
      calls = 0;
      const limited = lowerCommandPriority(child.pid!, {
        running: () => running,
        writeAutogroup: () => {
          if (++calls === 3) running = false;
          throw Object.assign(new Error("EAGAIN"), { code: "EAGAIN" });
        },
      });
      expect((await limited).autogroupNice).toBeUndefined();
      expect(calls).toBe(3);
    } finally {
      child.kill("SIGKILL");
    }
  });
});
