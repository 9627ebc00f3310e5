// Lathe's running commands share the CPU like one program: with n running, each session's
// autogroup goes shareNice(n) steps below Lathe's own, and back up as commands end; a command
// alone is left as it is; a command started while others run also gets that step of nice of its
// own (what cgroups go by, where there are no autogroups); through both terminal spawners; nothing
// changes with the setting off; Lathe's own group is never touched, also for a process that has
// not made its session yet; the kernel's rate limit on unprivileged changes is taken in turn.
// The bash tool's tests run on this machine's kernel, with or without autogroups, with Lathe in a
// session's group or in the kernel's default one (the CI's runner: its autogroup file reads
// empty); the policy's tests give CommandShares Lathe's group and see its writes.
import { type ChildProcess, spawn } from "node:child_process";
import { getPriority } from "node:os";
import path from "node:path";
import { afterAll, afterEach, expect, it } from "vitest";
import { createBashTool } from "../../app/main/tools/bash.ts";
import { autogroupNice, CommandShares, lathesGroupNice, shareNice } from "../../app/main/tools/command-priority.ts";
import { describeWhen, needsLinux } from "../support/requirements.ts";
import { runTool, tempDir } from "./helpers.ts";

const project = tempDir("lathe-priority-");
const children: ChildProcess[] = [];
afterAll(() => project.cleanup());
afterEach(() => {
  delete process.env.LATHE_PTY_SPAWN;
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

const ownNice = getPriority();
/** What the commands' groups are counted down from (undefined without autogroups). */
const ownGroupNice = lathesGroupNice();
const ownAutogroup = autogroupNice("self");
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
const REPORT = `sleep 0.5; echo "own $(cut -d' ' -f19 /proc/$$/stat)"; cat /proc/$$/autogroup 2>/dev/null; sleep 0.5`;

/** Each command's autogroup nice (undefined without autogroups) and own nice. */
async function parallel(count: number, lowerPriority: boolean): Promise<{ group: number | undefined; own: number }[]> {
  const bash = createBashTool({ projectDir: project.dir, outputDir: path.join(project.dir, ".out"), lowerPriority: () => lowerPriority });
  const runs = await Promise.all(Array.from({ length: count }, (_, i) => runTool(bash, { command: REPORT }, { id: `c${i}` })));
  return runs.map((run) => {
    expect(run.isError, run.text).toBe(false);
    const group = / nice (-?\d+)/.exec(run.text)?.[1];
    return { group: group === undefined ? undefined : Number(group), own: Number(/own (-?\d+)/.exec(run.text)?.[1]) };
  });
}

/** What a group reads on this machine once set to `nice` (nothing without autogroups). */
const group = (nice: number) => (ownGroupNice === undefined ? undefined : nice);

describeWhen(needsLinux(), "the bash tool's commands", () => {
  it("a command alone keeps its group's share and its nice", async () => {
    expect(await parallel(1, true)).toEqual([{ group: ownGroupNice, own: ownNice }]);
  });

  for (const spawner of ["posix_spawn", "node-pty"]) {
    it(`two at once share one program's: their groups 3 steps below Lathe's, the second's own nice too (${spawner})`, async () => {
      if (spawner === "node-pty") process.env.LATHE_PTY_SPAWN = "node";
      const seen = await parallel(2, true);
      expect(seen.map((s) => s.group)).toEqual([1, 2].map(() => group(below(ownGroupNice ?? 0, 3))));
      // The second started while the first ran: its own nice too (what cgroups go by).
      expect(seen.map((s) => s.own).sort((a, b) => a - b)).toEqual([ownNice, below(ownNice, 3)]);
      expect(autogroupNice("self")).toBe(ownAutogroup);
    });
  }

  it("keep new groups of nice 0 and Lathe's nice with the setting off", async () => {
    expect(await parallel(2, false)).toEqual([
      { group: group(0), own: ownNice },
      { group: group(0), own: ownNice },
    ]);
  });
});

it("counts the groups down from Lathe's autogroup, or its own nice in the kernel's default group, and not at all without autogroups", () => {
  const nice = () => 4;
  expect(lathesGroupNice(() => "/autogroup-6752 nice 2\n", nice)).toBe(2);
  expect(lathesGroupNice(() => "/autogroup-1 nice -3\n", nice)).toBe(-3);
  // The default group's file is empty: Lathe's threads compete at their own nice.
  expect(lathesGroupNice(() => "", nice)).toBe(4);
  const missing = () => {
    throw Object.assign(new Error("ENOENT: no such file or directory"), { code: "ENOENT" });
  };
  expect(lathesGroupNice(missing, nice)).toBeUndefined();
  expect(lathesGroupNice(() => "something else\n", nice)).toBeUndefined();
});

/** Lathe's group in the policy's tests: not 0, so that even one command's share is a write. */
const LATHE_GROUP = 2;

describeWhen(needsLinux(), "CommandShares", () => {
  it("sets every running command's group to the share of their number, and raises them again as they end", async () => {
    const shares = new CommandShares(() => LATHE_GROUP);
    const groups = new Map<number, number>();
    const writeAutogroup = (pid: number, nice: number) => groups.set(pid, nice);
    const commands = [0, 1, 2, 3].map(() => sessionLeader()).map((pid) => ({ pid, shared: shares.add(pid, { writeAutogroup }) }));
    await shares.settled();
    expect(commands.map(({ pid }) => groups.get(pid))).toEqual(commands.map(() => below(LATHE_GROUP, 6)));
    commands[0]!.shared.end();
    commands[1]!.shared.end();
    await shares.settled();
    expect(commands.slice(2).map(({ pid }) => groups.get(pid))).toEqual([5, 5]);
    commands[2]!.shared.end();
    await shares.settled();
    expect(groups.get(commands[3]!.pid)).toBe(LATHE_GROUP);
    commands[3]!.shared.end();
  });

  it("gives a command started while others run the same step of its own nice, and only that one", async () => {
    const shares = new CommandShares(() => LATHE_GROUP);
    const pids = [0, 1, 2].map(() => sessionLeader());
    const shared = pids.map((pid) => shares.add(pid, { writeAutogroup: () => undefined }));
    await shares.settled();
    expect(pids.map((pid) => getPriority(pid))).toEqual([ownNice, below(ownNice, 3), below(ownNice, 5)]);
    for (const s of shared) s.end();
  });

  it("writes no group without autogroups, and still lowers the later commands' own nice", async () => {
    const shares = new CommandShares(() => undefined);
    const pids = [0, 1].map(() => sessionLeader());
    // Recorded, not thrown: the writer's errors are caught (a refusal).
    const written: number[] = [];
    const shared = pids.map((pid) => shares.add(pid, { writeAutogroup: (pid) => written.push(pid) }));
    await shares.settled();
    expect(written).toEqual([]);
    expect(pids.map((pid) => getPriority(pid))).toEqual([ownNice, below(ownNice, 3)]);
    for (const s of shared) s.end();
  });

  // What a user (no CAP_SYS_ADMIN) meets: one change of an autogroup's nice per 100 ms system-wide.
  it("takes the kernel's limit on unprivileged changes (EAGAIN within 100 ms) in turn", async () => {
    const shares = new CommandShares(() => LATHE_GROUP);
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
    const shared = pids.map((pid) => shares.add(pid, { writeAutogroup }));
    await shares.settled();
    expect(pids.map((pid) => written.get(pid))).toEqual(pids.map(() => below(LATHE_GROUP, 6)));
    // One at a time: each waits once for the one before, none spins.
    expect(refused).toBeLessThanOrEqual(pids.length - 1);
    for (const s of shared) s.end();
  });

  for (const lathe of [0, LATHE_GROUP]) {
    it(`does not retry other refusals, and writes nothing for a command that ended (Lathe's group at nice ${lathe})`, async () => {
      const shares = new CommandShares(() => lathe);
      const calls: number[] = [];
      const first = sessionLeader();
      const second = sessionLeader();
      const a = shares.add(first, {
        writeAutogroup: (pid) => {
          calls.push(pid);
          throw Object.assign(new Error("ENOENT"), { code: "ENOENT" });
        },
      });
      const b = shares.add(second, { writeAutogroup: (pid) => calls.push(pid) });
      b.end(); // before its session was even checked
      await shares.settled();
      // One left: its share is Lathe's group's (a write only where that is not 0, refused once).
      expect(calls).toEqual(lathe === 0 ? [] : [first]);
      const c = shares.add(sessionLeader(), { writeAutogroup: () => undefined });
      await shares.settled();
      // Two: once more for the new share, not again after the refusal.
      expect(calls).toEqual(lathe === 0 ? [first] : [first, first]);
      a.end();
      c.end();
    });
  }

  it("never writes the group of a process that does not lead its session (it would be Lathe's own)", async () => {
    const shares = new CommandShares(() => LATHE_GROUP);
    const child = spawn("sleep", ["30"], { stdio: "ignore" });
    children.push(child);
    const calls: number[] = [];
    const other = sessionLeader();
    const shared = [shares.add(child.pid!, { writeAutogroup: (pid) => calls.push(pid) }), shares.add(other, { writeAutogroup: (pid) => calls.push(pid) })];
    await shares.settled();
    expect(calls).toEqual([other]);
    for (const s of shared) s.end();
  }, 10_000);

  it("does nothing on Windows (and counts nothing)", async () => {
    const shares = new CommandShares(() => LATHE_GROUP);
    const windowsWrites: number[] = [];
    const none = shares.add(sessionLeader(), { platform: "win32", writeAutogroup: (pid) => windowsWrites.push(pid) });
    const writes: number[] = [];
    const alonePid = sessionLeader();
    const alone = shares.add(alonePid, { writeAutogroup: (_pid, nice) => writes.push(nice) });
    await shares.settled();
    // Alone (the Windows one not counted): Lathe's group's share, and its own nice untouched.
    expect(writes).toEqual([LATHE_GROUP]);
    expect(windowsWrites).toEqual([]);
    expect(getPriority(alonePid)).toBe(ownNice);
    none.end();
    alone.end();
  });
});
