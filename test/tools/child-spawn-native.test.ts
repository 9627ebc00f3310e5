// What only the native start of children with pipes has to get right (native/pipe-spawn.c through
// app/main/tools/child-spawn.ts): SIGPIPE and every other signal at its default and none blocked
// (Node ignores SIGPIPE); no descriptor of ours in the child; 200 starts in a row and 20 at once
// leave no descriptor, thread or zombie behind; no copy-on-write fault after a start (a fork
// faults once per page Lathe writes); errors (ENOTDIR, E2BIG, EMFILE, a NUL) named and leaving
// nothing open; PATH searched in the child's environment, first executable match, cached.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { type Child, type ChildOptions, findProgram, spawnChild } from "../../app/main/tools/child-spawn.ts";
import { loadNativeReader } from "../../app/main/tools/pty-reader.ts";
import { describeWhen } from "../support/requirements.ts";
import { tempDir } from "./helpers.ts";

const scratch = tempDir("lathe-child-native-");
afterAll(() => scratch.cleanup());

const needsNative =
  process.platform !== "linux" ? `needs Linux (this is ${process.platform})` : loadNativeReader().module?.spawnPipes ? null : "the native module has no spawnPipes";

function closed(child: Child): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; error?: NodeJS.ErrnoException }> {
  let out = "";
  let error: NodeJS.ErrnoException | undefined;
  child.stdout?.on("data", (chunk: Buffer) => (out += chunk.toString()));
  child.on("error", (err) => (error = err));
  return new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal, out, error })));
}

const run = (file: string, args: string[], options: ChildOptions = {}) => closed(spawnChild(file, args, { cwd: scratch.dir, ...options }));

/** This process's descriptors: number → flags (octal, from /proc/self/fdinfo). */
function descriptors(): Map<number, number> {
  const open = new Map<number, number>();
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      open.set(Number(fd), parseInt(/flags:\s*(\d+)/.exec(readFileSync(`/proc/self/fdinfo/${fd}`, "utf8"))![1]!, 8));
    } catch {
      // the descriptor readdir itself used, closed by now
    }
  }
  return open;
}

const threads = () => readdirSync("/proc/self/task").length;

/** The threads that wait for a child (spawn-common.c), still running. */
const waiters = () =>
  readdirSync("/proc/self/task").filter((task) => {
    try {
      return readFileSync(`/proc/self/task/${task}/comm`, "utf8").trim() === "lathe-pipe-wait";
    } catch {
      return false; // ended meanwhile
    }
  }).length;

/** Children of this process that are zombies (ended, not reaped). */
function zombies(): number[] {
  const pids = readdirSync("/proc/self/task").flatMap((task) => readFileSync(`/proc/self/task/${task}/children`, "utf8").trim().split(/\s+/).filter(Boolean));
  return pids
    .filter((pid) => {
      try {
        return / Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\)/, ""));
      } catch {
        return false;
      }
    })
    .map(Number);
}

async function settled(check: () => boolean): Promise<void> {
  for (let waited = 0; !check() && waited < 5000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
}

describeWhen(needsNative, "children with pipes started without fork()", () => {
  it("the child gets SIGPIPE at its default: a writer whose reader went away ends by it", async () => {
    const child = spawnChild("yes", [], { cwd: scratch.dir });
    child.stdout!.once("data", () => child.stdout!.destroy());
    const ended = await new Promise<[number | null, string | null]>((resolve) => child.on("close", (code, signal) => resolve([code, signal])));
    expect(ended).toEqual([null, "SIGPIPE"]);
  });

  it("no signal blocked or ignored in the child", async () => {
    const { out } = await run("cat", ["/proc/self/status"]);
    expect(out.match(/^Sig(Blk|Ign):.*$/gm)).toEqual(["SigBlk:\t0000000000000000", "SigIgn:\t0000000000000000"]);
  });

  it("the child has 0, 1 and 2 and no other descriptor of ours (only those every child inherits)", async () => {
    // Descriptors this process leaves open across exec (its starter's, such as a test runner's):
    // any child gets them; the pipes must not be among what it gets besides.
    const before = descriptors();
    const inherited = [...before].filter(([fd, flags]) => fd > 2 && (flags & 0o2000000) === 0).map(([fd]) => fd);
    // A shell that waits on its input once it has said so (a program just started may still have
    // its libraries open: ld.so opens them as 3).
    const child = spawnChild("/bin/sh", ["-c", "echo ready; read line"], { cwd: scratch.dir });
    try {
      await new Promise((resolve) => child.stdout!.once("data", resolve));
      const fds = readdirSync(`/proc/${child.pid}/fd`).map(Number);
      expect(fds.filter((fd) => fd <= 2).sort()).toEqual([0, 1, 2]);
      expect(fds.filter((fd) => fd > 2).sort()).toEqual(inherited.sort());
      // Our ends: three, close-on-exec and non-blocking.
      const added = [...descriptors()].filter(([fd]) => !before.has(fd));
      expect(added).toHaveLength(3);
      for (const [, flags] of added) expect(flags & 0o2004000).toBe(0o2004000);
    } finally {
      child.stdin!.end("\n");
      expect((await closed(child)).code).toBe(0);
    }
  });

  it("200 starts in a row and 20 at once leave no descriptor, thread or zombie behind", async () => {
    await run("/bin/true", []); // the module loaded, its first thread come and gone
    await settled(() => waiters() === 0);
    const fdsBefore = descriptors().size;
    const threadsBefore = threads();
    for (let i = 0; i < 200; i++) expect((await run("/bin/sh", ["-c", `echo ${i}`])).out).toBe(`${i}\n`);
    // 20 at once: each waits for its input, so all run (and a thread waits for each) until it comes.
    const children = Array.from({ length: 20 }, (_, i) => spawnChild("/bin/sh", ["-c", `read line; exit ${i}`], { cwd: scratch.dir }));
    const ends = children.map((child) => closed(child));
    await settled(() => waiters() === 20);
    expect(waiters()).toBe(20);
    for (const child of children) child.stdin!.end("\n");
    const parallel = await Promise.all(ends);
    expect(parallel.map((p) => p.code)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    await settled(() => threads() <= threadsBefore && descriptors().size <= fdsBefore);
    expect(descriptors().size).toBe(fdsBefore);
    expect(threads()).toBeLessThanOrEqual(threadsBefore);
    expect(waiters()).toBe(0);
    expect(zombies()).toEqual([]);
  }, 60_000);

  it("starting a child copies none of Lathe's memory: no copy-on-write fault afterwards (child_process's fork: one per page)", async () => {
    const pages = Array.from({ length: 256 }, () => Buffer.alloc(64 * 1024, 1));
    const faultsAfterStart = async (viaNode: boolean) => {
      if (viaNode) process.env.LATHE_CHILD_SPAWN = "node";
      try {
        const child = spawnChild("/bin/sleep", ["0.2"], { cwd: scratch.dir });
        const before = process.resourceUsage().minorPageFault;
        for (const page of pages) page[0] = 2;
        const faults = process.resourceUsage().minorPageFault - before;
        await closed(child);
        return faults;
      } finally {
        delete process.env.LATHE_CHILD_SPAWN;
      }
    };
    // One per page written after a fork (a few fewer seen on a loaded machine); none without.
    expect(await faultsAfterStart(true)).toBeGreaterThanOrEqual(192);
    expect(await faultsAfterStart(false)).toBeLessThan(64);
  });

  it("a file as the folder, an argument too long, a NUL: clear errors, nothing left open", async () => {
    const file = path.join(scratch.dir, "a-file");
    writeFileSync(file, "");
    const before = descriptors().size;
    const notDir = await run("/bin/true", [], { cwd: file });
    expect(notDir.error).toMatchObject({ code: "ENOTDIR", message: expect.stringMatching(/^spawn \/bin\/true ENOTDIR: could not start \/bin\/true in .*: Not a directory$/) });
    const tooLong = await run("/bin/echo", ["x".repeat(256 * 1024)]);
    expect(tooLong.error).toMatchObject({ code: "E2BIG", message: expect.stringContaining("spawn /bin/echo E2BIG: could not start /bin/echo in") });
    expect(() => spawnChild("/bin/echo", ["a\0b"])).toThrow(TypeError);
    expect(descriptors().size).toBe(before);
    expect(zombies()).toEqual([]);
  });

  it("out of descriptors: EMFILE, and the pipes made before are closed", () => {
    // In a process of its own, with 2 descriptors left: the first pipe is made, the second fails.
    const script = path.join(scratch.dir, "emfile.ts");
    const module = path.join(import.meta.dirname, "../../app/main/tools/child-spawn.ts");
    writeFileSync(
      script,
      `import { openSync, closeSync, readdirSync } from "node:fs";
      import { spawnChild, childSpawnKind } from ${JSON.stringify(module)};
      if (childSpawnKind() !== "posix_spawn") throw new Error("not native");
      const held = [];
      try { for (;;) held.push(openSync("/dev/null", "r")); } catch {}
      closeSync(held.pop()); closeSync(held.pop());
      const before = readdirSync("/proc/self/fd").length;
      const child = spawnChild("/bin/true", []);
      child.on("error", (error) => {
        const after = readdirSync("/proc/self/fd").length;
        for (const fd of held) closeSync(fd);
        const again = spawnChild("/bin/true", []);
        again.on("close", (code) => console.log(JSON.stringify({ code: error.code, message: error.message, before, after, again: code })));
      });`,
    );
    const result = spawnSync("/bin/sh", ["-c", `ulimit -n 64 && exec "${process.execPath}" "${script}"`], { encoding: "utf8", timeout: 30_000 });
    expect(result.status, result.stderr).toBe(0);
    const seen = JSON.parse(result.stdout) as { code: string; message: string; before: number; after: number; again: number };
    expect(seen).toMatchObject({ code: "EMFILE", before: seen.after, again: 0 });
    expect(seen.message).toMatch(/^spawn \/bin\/true EMFILE: .*: Too many open files$/);
  });

  it("a name is searched in the child's PATH: the first executable match, cached, found again once it moved", async () => {
    const [first, second, moved] = ["first", "second", "moved"].map((name) => path.join(scratch.dir, name));
    for (const dir of [first!, second!, moved!]) mkdirSync(dir);
    writeFileSync(path.join(first!, "lathe-tool"), "#!/bin/sh\necho first\n"); // not executable: skipped
    writeFileSync(path.join(second!, "lathe-tool"), "#!/bin/sh\necho second\n");
    chmodSync(path.join(second!, "lathe-tool"), 0o755);
    const env = { PATH: `${first}:${second}:${moved}` };
    expect((await run("lathe-tool", [], { env })).out).toBe("second\n");
    expect(findProgram("lathe-tool", env.PATH, scratch.dir)).toEqual({ path: path.join(second!, "lathe-tool"), cached: true });
    // Not this process's PATH: the child's.
    expect((await run("lathe-tool", [])).error?.code).toBe("ENOENT");
    renameSync(path.join(second!, "lathe-tool"), path.join(moved!, "lathe-tool"));
    expect((await run("lathe-tool", [], { env })).out).toBe("second\n");
    expect(findProgram("lathe-tool", env.PATH, scratch.dir).path).toBe(path.join(moved!, "lathe-tool"));
  });
});
