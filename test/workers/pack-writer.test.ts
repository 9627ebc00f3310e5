// The first snapshot's storing job (workers/pack-writer.ts) on paths that are not plain files by
// the time it reads them: a path gone, a FIFO (never waited on), a folder are left out (`stored`
// 0); a symbolic link is stored as its target, never followed; a job's packs pass `git verify-pack`.
// And first-snapshot.ts falls back to git when the pool's worker cannot start.
import { Buffer } from "node:buffer";
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { getPriority } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { GitRunner, type GitOptions } from "../../app/main/checkpoints/git-runner.ts";
import { ShadowRepo } from "../../app/main/checkpoints/shadow-repo.ts";
import { ComputePool } from "../../app/main/workers/compute-pool.ts";
import { indexVarint } from "../../app/main/workers/index-writer.ts";
import { runStoreBlobsJob, windowBitsFor } from "../../app/main/workers/pack-writer.ts";
import { forkHelper } from "../../app/main/workers/snapshot-client.ts";
import { cleanup, tempDir, write } from "../checkpoints/helpers.ts";

const dirs: string[] = [];
afterEach(() => cleanup(...dirs.splice(0)));
const env = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
const nulJoined = (names: string[]) => Buffer.from(names.map((n) => `${n}\0`).join(""));

describe("the storing job", () => {
  it("leaves out what is not a file or link, stores a link's target, writes packs git verifies", () => {
    const project = tempDir("lathe-pack-job-");
    const gitDir = tempDir("lathe-pack-job-store-");
    dirs.push(project, gitDir);
    execFileSync("git", ["init", "-q", "--bare", gitDir], { env });
    write(project, "a.txt", "alpha\n");
    write(project, "b.txt", "alpha\n"); // the same blob: stored once
    execFileSync("mkfifo", [path.join(project, "fifo")]);
    mkdirSync(path.join(project, "folder"));
    writeFileSync(path.join(project, "secret"), "outside\n");
    symlinkSync(path.join(project, "secret"), path.join(project, "link"));
    const names = ["a.txt", "gone.txt", "fifo", "folder", "link", "b.txt"];
    const result = runStoreBlobsJob({ kind: "storeBlobs", gitDir, projectDir: project, paths: nulJoined(names), level: 1, lowPriority: false });
    expect([...result.stored]).toEqual([1, 0, 0, 0, 1, 1]);
    const id = (i: number) => Buffer.from(result.ids.subarray(i * 20, i * 20 + 20)).toString("hex");
    const git = (...args: string[]) => execFileSync("git", [`--git-dir=${gitDir}`, ...args], { encoding: "utf8", env });
    expect(git("cat-file", "-p", id(0))).toBe("alpha\n");
    expect(id(5)).toBe(id(0));
    expect(git("cat-file", "-p", id(4))).toBe(path.join(project, "secret"));
    expect(result.stat[4 * 10 + 6]).toBe(0o120000);
    expect(result.stat[0 * 10 + 6]).toBe(0o100644);
    const packs = execFileSync("find", [path.join(gitDir, "objects", "pack"), "-name", "*.idx"], { encoding: "utf8" })
      .trim()
      .split("\n");
    expect(packs).toHaveLength(1);
    expect(git("verify-pack", "-v", packs[0]!)).toMatch(/^non delta: 2 objects$/m);
  });

  it("runs a background store at the lowest priority, in a pool of its own", async () => {
    const project = tempDir("lathe-pack-nice-");
    const gitDir = tempDir("lathe-pack-nice-store-");
    dirs.push(project, gitDir);
    write(project, "a.txt", "alpha\n");
    const pool = new ComputePool({ size: 1 });
    try {
      const job = { kind: "storeBlobs", gitDir, projectDir: project, paths: nulJoined(["a.txt"]), level: 1 } as const;
      const normal = await pool.run({ ...job, lowPriority: false }, { timeoutMs: 30_000 });
      const low = await pool.run({ ...job, lowPriority: true }, { timeoutMs: 30_000 });
      expect(normal.priority).toBe(getPriority());
      if (process.platform === "linux") expect(low.priority).toBe(19);
      // The thread's priority, not the process's.
      expect(getPriority()).toBe(normal.priority);
    } finally {
      await pool.close();
    }
  });

  it("encodes index varints and fits zlib's window as git expects", () => {
    expect([...indexVarint(0)]).toEqual([0]);
    expect([...indexVarint(127)]).toEqual([127]);
    expect([...indexVarint(128)]).toEqual([0x80, 0]);
    expect([...indexVarint(300)]).toEqual([0x81, 0x2c]);
    expect(windowBitsFor(0)).toBe(9);
    expect(windowBitsFor(10_000)).toBe(14);
    expect(windowBitsFor(1_000_000)).toBe(15);
  });
});

describe("a first snapshot without a working pool", () => {
  it("is stored by git instead (update-index), with the same tree", async () => {
    const project = tempDir("lathe-pack-fallback-");
    const data = tempDir("lathe-pack-fallback-data-");
    dirs.push(project, data);
    for (let i = 0; i < 520; i++) write(project, `d${i % 7}/f${i}.txt`, `${i}\n`);
    const calls: string[] = [];
    class Recording extends GitRunner {
      override run(args: string[], options: GitOptions = {}) {
        calls.push(args.filter((a) => !a.startsWith("-") && !a.includes("=")).join(" "));
        return super.run(args, options);
      }
    }
    const gitDir = path.join(data, "1.git");
    const repo = new ShadowRepo(gitDir, project, new Recording(path.join(data, "no-hooks")), false, { launch: forkHelper, file: path.join(data, "missing-process.mjs") });
    const capture = await repo.capture("first", 1e9, []);
    expect(calls).toContain("update-index");
    const temp = path.join(data, "check-index");
    const git = (...args: string[]) => execFileSync("git", [`--git-dir=${gitDir}`, `--work-tree=${project}`, ...args], { encoding: "utf8", env: { ...env, GIT_INDEX_FILE: temp } });
    git("add", "-A");
    expect(capture.tree).toBe(git("write-tree").trim());
  }, 60_000);
});
