// fs-answers.ts: code that asks the file system synchronously gets the same answers as from the
// host, fetched through libuv's threads in a few passes; a file system that stops answering costs
// a FileSystemTimeoutError naming the path, after the run's time limit or (with every slot held by
// a hung question) at once, while the event loop keeps running; once the system answers again,
// runs work again. The file system that hangs is a stand-in whose answers the test releases.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { answeredOffThread, FileSystemTimeoutError, hostAsyncFileSystem, presentOffThread, type AsyncFileSystem } from "../../app/main/tools/fs-answers.ts";
import { smallFileTextSync } from "../../app/main/tools/small-files.ts";
import { realPathOf } from "../../app/main/tools/real-path.ts";
import { snapshotRepository, snapshotRepositoryOffThread } from "../../app/main/sandbox/untrusted-repos.ts";

const root = mkdtempSync(path.join(tmpdir(), "lathe-fs-answers-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A file system whose answers about paths under /hung wait until `answerAll` (the host's otherwise). */
function hangingSystem() {
  const held: (() => void)[] = [];
  const asked: string[] = [];
  const system: AsyncFileSystem = {
    realpath: (p) => {
      asked.push(p);
      if (!p.startsWith("/hung")) return hostAsyncFileSystem.realpath(p);
      return new Promise((resolve) => held.push(() => resolve(p)));
    },
    smallFileText: (p, maxBytes) => {
      asked.push(p);
      if (!p.startsWith("/hung")) return hostAsyncFileSystem.smallFileText(p, maxBytes);
      return new Promise((resolve) => held.push(() => resolve(null)));
    },
  };
  return { system, asked, answerAll: () => held.splice(0).forEach((answer) => answer()) };
}

let release: (() => void) | undefined;
afterEach(() => release?.());

describe("answers fetched off the event loop", () => {
  it("gives the host's own answers: links, missing names, `..`, the root, a package.json", async () => {
    const project = path.join(root, "project");
    mkdirSync(path.join(project, "src/deep"), { recursive: true });
    symlinkSync(path.join(project, "src"), path.join(project, "link"));
    symlinkSync("/etc", path.join(project, "out"));
    writeFileSync(path.join(project, "package.json"), '{"scripts":{"test":"vitest"}}');
    const cases = [
      project,
      path.join(project, "link/deep/new/file.txt"),
      path.join(project, "out/hosts"),
      path.join(project, "missing/a/b/c"),
      `${project}/src/../link/./deep`,
      "/",
      "/nonexistent-top/x",
      `${project}/${"n/".repeat(3000)}end`,
    ];
    for (const p of cases) {
      let passes = 0;
      const answer = await answeredOffThread((fs) => (passes++, realPathOf(p, fs.realpath)));
      expect(answer, p).toBe(realPathOf(p));
      // The whole walk of ancestors is asked in one pass: the second pass has every answer.
      expect(passes, p).toBe(2);
    }
    const json = path.join(project, "package.json");
    symlinkSync(path.join(project, "nowhere"), path.join(project, ".git")); // dangling: there all the same
    expect(await snapshotRepositoryOffThread(project)).toEqual({ dotGit: true, bare: false });
    expect(snapshotRepository(project)).toEqual({ dotGit: true, bare: false });
    expect(await presentOffThread(path.join(project, "missing"))).toBe(false);
    for (const p of [json, path.join(project, "src"), path.join(project, "none.json")]) {
      expect(await answeredOffThread((fs) => fs.smallFileText(p, 1024))).toBe(smallFileTextSync(p, 1024));
    }
    expect(await answeredOffThread((fs) => fs.smallFileText(json, 4))).toBeUndefined(); // longer than allowed
    // Asked first, the seed's answer is there for the first pass.
    let passes = 0;
    expect(await answeredOffThread((fs) => (passes++, fs.realpath(project)), { seed: [project] })).toBe(realPathOf(project));
    expect(passes).toBe(1);
  });

  it("walks a deep Windows path (from its root down, a name a question) in two passes, not one per level", async () => {
    const existing = new Set(["C:\\", "C:\\Users", "C:\\Users\\me", "C:\\Users\\me\\code", "C:\\Users\\me\\code\\proj"]);
    for (const name of ["packages", "app", "src", "components", "ui", "forms", "fields"]) existing.add(`${[...existing].at(-1)}\\${name}`);
    const system: AsyncFileSystem = { realpath: async (p) => (existing.has(p) ? p : undefined), smallFileText: async () => undefined };
    const deep = `${[...existing].at(-1)}\\New.tsx`;
    let passes = 0;
    const real = await answeredOffThread((fs) => (passes++, realPathOf(deep, fs.realpath, path.win32)), { system });
    expect(real).toBe(deep);
    expect(passes).toBe(2);
    // The same walk asked synchronously of the same answers.
    expect(realPathOf(deep, (p) => (existing.has(p) ? p : undefined), path.win32)).toBe(deep);
  });

  it("fails after the time limit, naming the path, while the event loop keeps running", async () => {
    const hanging = hangingSystem();
    release = hanging.answerAll;
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    const started = performance.now();
    const run = answeredOffThread((fs) => realPathOf("/hung/project/src/main.ts", fs.realpath), { system: hanging.system, timeoutMs: 150 });
    const error = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    clearInterval(ticker);
    expect(error).toBeInstanceOf(FileSystemTimeoutError);
    expect((error as FileSystemTimeoutError).path).toBe("/hung/project/src/main.ts");
    expect((error as Error).message).toBe(
      "The file system did not answer about /hung/project/src/main.ts within 0.1 s (a network or FUSE mount that stopped responding?), so Lathe stopped waiting.",
    );
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    expect(ticks).toBeGreaterThan(3);
  });

  it("fails at once while every slot is held by a question past its time, and works again once they are answered", async () => {
    const hanging = hangingSystem();
    release = hanging.answerAll;
    const failures = await Promise.allSettled([
      answeredOffThread((fs) => fs.realpath("/hung/a"), { system: hanging.system, timeoutMs: 50 }),
      answeredOffThread((fs) => fs.realpath("/hung/b"), { system: hanging.system, timeoutMs: 50 }),
    ]);
    expect(failures.map((f) => f.status)).toEqual(["rejected", "rejected"]);
    // Both of libuv's threads Lathe may use are still held: a question about a healthy path fails
    // at once (it would wait for a thread that may never come back), saying which path holds it.
    const started = performance.now();
    const blocked = await answeredOffThread((fs) => fs.realpath(root), { system: hanging.system, timeoutMs: 2_000 }).catch((e: Error) => e);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(blocked).toBeInstanceOf(FileSystemTimeoutError);
    expect((blocked as Error).message).toMatch(/^The file system did not answer about \/hung\/a for 0\.\d s \(a network or FUSE mount/);
    expect(hanging.asked).not.toContain(root);
    // The sandbox's look at the project's top before a command is refused at once too.
    await expect(snapshotRepositoryOffThread(root)).rejects.toBeInstanceOf(FileSystemTimeoutError);
    hanging.answerAll();
    await new Promise((r) => setImmediate(r)); // the answers reach the slots
    expect(await answeredOffThread((fs) => fs.realpath(root), { system: hanging.system, timeoutMs: 2_000 })).toBe(realPathOf(root));
    expect(await snapshotRepositoryOffThread(root)).toEqual(snapshotRepository(root));
  });

  it("serves the questions in order when more runs ask than there are slots", async () => {
    const order: string[] = [];
    const system: AsyncFileSystem = {
      realpath: async (p) => (order.push(p), undefined),
      smallFileText: async () => undefined,
    };
    const names = ["/q/1", "/q/2", "/q/3", "/q/4", "/q/5"];
    const done: string[] = [];
    await Promise.all(names.map((p) => answeredOffThread((fs) => fs.realpath(p), { system }).then(() => void done.push(p))));
    expect(order).toEqual(names);
    expect(done).toEqual(names);
  });

  it("shows a path of any length cut, and gives up after a bounded number of passes", async () => {
    const hanging = hangingSystem();
    release = hanging.answerAll;
    const long = `/hung/${"x".repeat(100_000)}`;
    const error = (await answeredOffThread((fs) => fs.realpath(long), { system: hanging.system, timeoutMs: 30 }).catch((e: Error) => e)) as Error;
    expect(error.message.length).toBeLessThan(400);
    expect(error.message).toContain("(100,006 characters)");
    hanging.answerAll();
    // A pass that asks something new every time (no walk does) stops after 8 passes.
    let n = 0;
    const endless = await answeredOffThread((fs) => fs.realpath(`/nonexistent/${n++}`)).catch((e: Error) => e);
    expect(endless).toBeInstanceOf(FileSystemTimeoutError);
    expect((endless as Error).message).toContain("after 8 rounds of questions");
    expect(n).toBe(8);
  });
});
