// The scan for git repositories in a project's sub-folders (repository-scan.ts): what counts as
// created or rewritten during a command, and that later scans read only the folders that changed.
import { execFileSync } from "node:child_process";
import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runRepositoryScanJob, type RepositoryScanState } from "../../app/main/sandbox/repository-scan.ts";
import { NestedRepositories } from "../../app/main/sandbox/nested-repositories.ts";
import { ComputePool } from "../../app/main/workers/compute-pool.ts";
import { tempDir } from "../tools/helpers.ts";

const scratch = tempDir("lathe-repo-scan-");
afterAll(() => scratch.cleanup());
let n = 0;

function project(folders = 0): string {
  const dir = path.join(scratch.dir, `p${++n}`);
  for (let i = 0; i < folders; i++) mkdirSync(path.join(dir, `a${i % 10}`, `b${i}`), { recursive: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

const scan = (projectDir: string, commandStartedAt: number, previous?: RepositoryScanState) =>
  runRepositoryScanJob({ kind: "repositoryScan", projectDir, commandStartedAt, previous });
// File times are compared with 50 ms of slack (the kernel's clock is coarse): wait past it.
const pastSlack = () => new Promise((r) => setTimeout(r, 200));
const git = (...args: string[]) => execFileSync("git", args, { stdio: "ignore" });

describe("repository scan", () => {
  it("reports a .git folder, a .git file and a bare layout made below the top since the command started, not the top's own", () => {
    const dir = project(20);
    const started = Date.now();
    git("init", "-q", dir);
    git("init", "-q", path.join(dir, "a1", "b1"));
    mkdirSync(path.join(dir, "a2", "b2", "deep", ".git"), { recursive: true });
    writeFileSync(path.join(dir, "a2", "b2", "deep", ".git", "config"), "[core]\n\tfsmonitor = touch /tmp/pwned\n");
    writeFileSync(path.join(dir, "a3", ".git"), "gitdir: /elsewhere\n");
    git("init", "-q", "--bare", path.join(dir, "a4", "bare.git"));
    // A bare layout whose objects folder is a symbolic link: git uses it all the same.
    git("init", "-q", "--bare", path.join(dir, "a5", "linked.git"));
    renameSync(path.join(dir, "a5", "linked.git", "objects"), path.join(dir, "a5", "objects-elsewhere"));
    symlinkSync("../objects-elsewhere", path.join(dir, "a5", "linked.git", "objects"));
    const result = scan(dir, started);
    expect(result.changed.sort()).toEqual(
      [
        path.join(dir, "a1", "b1", ".git"),
        path.join(dir, "a2", "b2", "deep", ".git"),
        path.join(dir, "a3", ".git"),
        path.join(dir, "a4", "bare.git"),
        path.join(dir, "a5", "linked.git"),
      ].sort(),
    );
    expect(result.state.complete).toBe(true);
  });

  it("reads again only the folders that changed; reports a new repository, a replaced one and a rewritten config, not one merely used", async () => {
    const dir = project(200);
    const vendored = path.join(dir, "a5", "b5");
    git("init", "-q", vendored);
    await pastSlack();
    const first = scan(dir, Date.now());
    expect(first.read).toBe(first.state.dirs.length);
    expect(Object.keys(first.state.repositories)).toEqual([path.join(vendored, ".git")]);
    await pastSlack();

    // Nothing changed: no folder is read.
    const quiet = scan(dir, Date.now(), first.state);
    expect(quiet.read).toBe(0);
    expect(quiet.changed).toEqual([]);
    await pastSlack();

    // A repository made in a new folder, and the existing one's config rewritten.
    let started = Date.now();
    git("init", "-q", path.join(dir, "a7", "new", "sub"));
    git("-C", vendored, "config", "core.fsmonitor", "touch /tmp/pwned");
    const next = scan(dir, started, quiet.state);
    expect(next.changed.sort()).toEqual([path.join(dir, "a7", "new", "sub", ".git"), path.join(vendored, ".git")].sort());
    expect(next.read).toBeLessThan(10);
    // A command that starts right after (within the clock's slack) is not told of them again.
    expect(scan(dir, Date.now(), next.state).changed).toEqual([]);
    await pastSlack();

    // The existing repository used (its index written), not rewritten: not reported.
    started = Date.now();
    writeFileSync(path.join(vendored, "file"), "x");
    git("-C", vendored, "add", "file");
    expect(scan(dir, started, next.state).changed).toEqual([]);
    await pastSlack();

    // Replaced: removed and made again.
    started = Date.now();
    rmSync(path.join(vendored, ".git"), { recursive: true });
    git("init", "-q", vendored);
    expect(scan(dir, started, next.state).changed).toEqual([path.join(vendored, ".git")]);
  });

  it("follows no symbolic link, and stops at its folder bound saying it is incomplete", () => {
    const dir = project(30);
    const outside = project();
    git("init", "-q", path.join(outside, "x"));
    symlinkSync(outside, path.join(dir, "link"));
    const started = Date.now() - 60_000;
    expect(scan(dir, started).changed).toEqual([]);
    const bounded = runRepositoryScanJob({ kind: "repositoryScan", projectDir: dir, commandStartedAt: started, maxDirs: 5 });
    expect(bounded.state.complete).toBe(false);
    expect(bounded.state.dirs).toHaveLength(5);
  });

  it("runs in a compute pool worker, and here when the pool cannot run it", async () => {
    const dir = project(5);
    const started = Date.now();
    git("init", "-q", path.join(dir, "a1", "b1"));
    const pool = new ComputePool({ size: 1 });
    try {
      expect(await new NestedRepositories(() => pool).changedSince(dir, started)).toEqual([path.join(dir, "a1", "b1", ".git")]);
    } finally {
      await pool.close();
    }
    const broken = new ComputePool({ size: 1, workerFile: path.join(scratch.dir, "missing-worker.mjs") });
    try {
      expect(await new NestedRepositories(() => broken).changedSince(dir, started)).toEqual([path.join(dir, "a1", "b1", ".git")]);
    } finally {
      await broken.close();
    }
  });

  it("knows the repositories its last scan found, shallowest first up to a limit, for read-only mounts", async () => {
    const dir = project(0);
    git("init", "-q", path.join(dir, "x", "y", "deep"));
    git("init", "-q", path.join(dir, "top"));
    git("init", "-q", "--bare", path.join(dir, "x", "bare.git"));
    const broken = new ComputePool({ size: 1, workerFile: path.join(scratch.dir, "missing-worker.mjs") });
    try {
      const nested = new NestedRepositories(() => broken);
      expect(nested.known(dir, 16)).toEqual([]);
      await nested.prime(dir);
      expect(nested.known(dir, 16).sort()).toEqual([path.join(dir, "top", ".git"), path.join(dir, "x", "bare.git"), path.join(dir, "x", "y", "deep", ".git")].sort());
      expect(nested.known(dir, 2)).toEqual([path.join(dir, "top", ".git"), path.join(dir, "x", "bare.git")]);
      rmSync(path.join(dir, "top"), { recursive: true });
      await nested.changedSince(dir, Date.now());
      expect(nested.known(dir, 16)).not.toContain(path.join(dir, "top", ".git"));
    } finally {
      await broken.close();
    }
  });

  it("leaves out a .git that links into the project (it would make the project read-only), keeps one linking outside", async () => {
    const dir = project(0);
    const outside = path.join(scratch.dir, `outside-${n}`);
    git("init", "-q", "--bare", outside);
    git("init", "-q", "--bare", path.join(dir, "repos", "inner.git"));
    for (const sub of ["up", "in", "out"]) mkdirSync(path.join(dir, sub));
    symlinkSync("..", path.join(dir, "up", ".git"));
    symlinkSync(path.join(dir, "repos", "inner.git"), path.join(dir, "in", ".git"));
    symlinkSync(outside, path.join(dir, "out", ".git"));
    const broken = new ComputePool({ size: 1, workerFile: path.join(scratch.dir, "missing-worker.mjs") });
    try {
      const nested = new NestedRepositories(() => broken);
      await nested.prime(dir);
      // The repository "in/.git" points to is listed by its own layout.
      expect(nested.known(dir, 16).sort()).toEqual([path.join(dir, "out", ".git"), path.join(dir, "repos", "inner.git")].sort());
      // Links left out do not take places within the limit.
      expect(nested.known(dir, 1)).toEqual([path.join(dir, "out", ".git")]);
    } finally {
      await broken.close();
    }
  });
});
