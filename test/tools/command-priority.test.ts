// Lathe's running commands share the CPU like one program: with n running, each session's
// autogroup goes shareNice(n) steps below Lathe's own, and back up as commands end; a command
// alone is left as it is; through both terminal spawners; nothing changes with the setting off;
// Lathe's own group is never touched, also for a process that has not made its session yet; the
// kernel's rate limit on unprivileged changes is taken in turn.
import { type ChildProcess, spawn } from "node:child_process";
import { getPriority } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createBashTool } from "../../app/main/tools/bash.ts";
import { autogroupNice, commandSharesSettled, shareCommandPriority, shareNice } from "../../app/main/tools/command-priority.ts";
import { describeWhen, itWhen, type Missing, needsLinux } from "../support/requirements.ts";
import { runTool, tempDir } from "./helpers.ts";

const project = tempDir("lathe-priority-");
const children: ChildProcess[] = [];
afterAll(() => project.cleanup());
afterEach(() => {
  delete process.env.LATHE_PTY_SPAWN;
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

const ownNice = getPriority();
const ownGroupNice = autogroupNice("self");
const needsAutogroups = (): Missing => needsLinux() ?? (ownGroupNice === undefined ? "needs a kernel with autogroups (/proc/self/autogroup)" : null);
const below = (nice: number, steps: number) => Math.min(19, nice + steps);
/** A session leader of its own (as a command is), running until the test ends. */
const sessionLeader = () => {
  const child = spawn("sleep", ["30"], { stdio: "ignore", detached: true });
  children.push(child);
  return child.pid!;
};
const eagain = () => Object.assign(new Error("EAGAIN: resource temporarily unavailable, write"), { code: "EAGAIN" });

it("shareNice: n groups whose weights add up to about one (nice 0 weighs 1024, each step 1.25 times less)", () => {
  expect([1, 2, 3, 4, 8, 16, 1_000_000].map(shareNice)).toEqual([0, 3, 5, 6, 9, 12, 19]);
});

// After a pause (the groups are set just after the starts), each shell's own nice and autogroup;
// then a pause again, so that every command still runs when the others report.
const REPORT = `sleep 0.5; echo "own $(cut -d' ' -f19 /proc/$$/stat)"; cat /proc/$$/autogroup; sleep 0.5`;

async function parallel(count: number, lowerPriority: boolean): Promise<{ group: number; own: number }[]> {
  const bash = createBashTool({ projectDir: project.dir, outputDir: path.join(project.dir, ".out"), lowerPriority: () => lowerPriority });
  const runs = await Promise.all(Array.from({ length: count }, (_, i) => runTool(bash, { command: REPORT }, { id: `c${i}` })));
  return runs.map((run) => {
    expect(run.isError, run.text).toBe(false);
    const group = / nice (-?\d+)/.exec(run.text)?.[1];
    return { group: Number(group), own: Number(/own (-?\d+)/.exec(run.text)?.[1]) };
  });
}

describeWhen(needsAutogroups(), "the bash tool's commands", () => {
  it("a command alone keeps its group's share", async () => {
    expect(await parallel(1, true)).toEqual([{ group: ownGroupNice, own: ownNice }]);
  });

  for (const spawner of ["posix_spawn", "node-pty"]) {
    it(`two at once share one program's: their groups 3 steps below Lathe's (${spawner})`, async () => {
      if (spawner === "node-pty") process.env.LATHE_PTY_SPAWN = "node";
      const seen = await parallel(2, true);
      expect(seen.map((s) => s.group)).toEqual([below(ownGroupNice!, 3), below(ownGroupNice!, 3)]);
      // The second started while the first ran: its own nice too (what cgroups go by).
      expect(seen.map((s) => s.own).sort((a, b) => a - b)).toEqual([ownNice, below(ownNice, 3)]);
      expect(autogroupNice("self")).toBe(ownGroupNice);
    });
  }

  it("keep new groups of nice 0 and Lathe's nice with the setting off", async () => {
    expect(await parallel(2, false)).toEqual([
      { group: 0, own: ownNice },
      { group: 0, own: ownNice },
    ]);
  });
});

describeWhen(needsAutogroups(), "shareCommandPriority", () => {
  it("sets every running command's group to the share of their number, and raises them again as they end", async () => {
    const commands = [0, 1, 2, 3].map(() => ({ pid: sessionLeader() })).map(({ pid }) => ({ pid, shared: shareCommandPriority(pid) }));
    await commandSharesSettled();
    expect(commands.map(({ pid }) => autogroupNice(pid))).toEqual(commands.map(() => below(ownGroupNice!, 6)));
    commands[0]!.shared.end();
    commands[1]!.shared.end();
    await commandSharesSettled();
    expect(commands.slice(2).map(({ pid }) => autogroupNice(pid))).toEqual([below(ownGroupNice!, 3), below(ownGroupNice!, 3)]);
    commands[2]!.shared.end();
    await commandSharesSettled();
    expect(autogroupNice(commands[3]!.pid)).toBe(ownGroupNice);
    commands[3]!.shared.end();
    expect(autogroupNice("self")).toBe(ownGroupNice);
  });

  // What a user (no CAP_SYS_ADMIN) meets: one change of an autogroup's nice per 100 ms system-wide.
  it("takes the kernel's limit on unprivileged changes (EAGAIN within 100 ms) in turn", async () => {
    let last = -Infinity;
    const written = new Map<number, number>();
    let refused = 0;
    const writeAutogroup = (pid: number, nice: number) => {
      const now = performance.now();
      if (now - last < 100) {
        refused++;
        throw eagain();
      }
      last = now;
      written.set(pid, nice);
    };
    const pids = [0, 1, 2, 3].map(() => sessionLeader());
    const shared = pids.map((pid) => shareCommandPriority(pid, { writeAutogroup }));
    await commandSharesSettled();
    expect(pids.map((pid) => written.get(pid))).toEqual(pids.map(() => below(ownGroupNice!, 6)));
    // One at a time: each waits once for the one before, none spins.
    expect(refused).toBeLessThanOrEqual(pids.length - 1);
    for (const s of shared) s.end();
  });

  it("does not retry other refusals, and writes nothing for a command that ended", async () => {
    const calls: number[] = [];
    const first = sessionLeader();
    const second = sessionLeader();
    const a = shareCommandPriority(first, {
      writeAutogroup: (pid) => {
        calls.push(pid);
        throw Object.assign(new Error("ENOENT"), { code: "ENOENT" });
      },
    });
    const b = shareCommandPriority(second, { writeAutogroup: (pid) => calls.push(pid) });
    b.end(); // before its session was even checked
    await commandSharesSettled();
    // One left: its share is Lathe's group's (a write only where that is not 0, refused once).
    expect(calls).toEqual(ownGroupNice === 0 ? [] : [first]);
    const c = shareCommandPriority(sessionLeader(), { writeAutogroup: () => undefined });
    await commandSharesSettled();
    // Two: once more for the new share, not again after the refusal.
    expect(calls).toEqual(ownGroupNice === 0 ? [first] : [first, first]);
    a.end();
    c.end();
  });

  it("never writes the group of a process that does not lead its session (it would be Lathe's own)", async () => {
    const child = spawn("sleep", ["30"], { stdio: "ignore" });
    children.push(child);
    const calls: number[] = [];
    const other = sessionLeader();
    const shared = [shareCommandPriority(child.pid!, { writeAutogroup: (pid) => calls.push(pid) }), shareCommandPriority(other, { writeAutogroup: (pid) => calls.push(pid) })];
    await commandSharesSettled();
    expect(calls).toEqual([other]);
    expect(autogroupNice("self")).toBe(ownGroupNice);
    for (const s of shared) s.end();
  }, 10_000);
});

describe("shareCommandPriority elsewhere", () => {
  itWhen(needsLinux(), "does nothing on Windows (and counts nothing)", async () => {
    const pid = sessionLeader();
    const none = shareCommandPriority(pid, { platform: "win32", writeAutogroup: () => expect.fail("no write on Windows") });
    const writes: number[] = [];
    const alone = shareCommandPriority(sessionLeader(), { writeAutogroup: (_pid, nice) => writes.push(nice) });
    await commandSharesSettled();
    // Alone it keeps the share of Lathe's group: nothing to write unless that is not 0.
    expect(writes).toEqual(ownGroupNice === 0 || ownGroupNice === undefined ? [] : [ownGroupNice]);
    none.end();
    alone.end();
  });
});
