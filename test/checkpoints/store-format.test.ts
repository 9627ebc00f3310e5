// The shadow repository's own format, checked with git itself: the commits Lathe writes from Node
// (loose-object.ts) are valid and chained, so `git gc` keeps every checkpoint; the index is split
// (a turn rewrites only its changed part); a bulk store's git calls get the longer time bound of
// first-snapshot.ts, a turn's the default; a git call past its bound is stopped, not waited on.
import { execFileSync } from "node:child_process";
import { chmodSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { bulkStoreTimeoutMs } from "../../app/main/checkpoints/first-snapshot.ts";
import { GitError, gitEnvironment, GitRunner, type GitOptions } from "../../app/main/checkpoints/git-runner.ts";
import { commitBody } from "../../app/main/checkpoints/loose-object.ts";
import { ShadowRepo } from "../../app/main/checkpoints/shadow-repo.ts";
import { bash, cleanup, FakeSession, makeService, RecordingGitRunner, snapshot, tempDir, write } from "./helpers.ts";

const dirs: string[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
  cleanup(...dirs.splice(0));
});

function setup() {
  const project = tempDir("lathe-cp-format-");
  const data = tempDir("lathe-cp-format-data-");
  dirs.push(project, data);
  const { cp, rewinder } = makeService(data);
  closers.push(() => cp.close());
  const gitDir = path.join(data, "checkpoints", "projects", "1.git");
  const git = (...args: string[]) =>
    execFileSync("git", [`--git-dir=${gitDir}`, ...args], { encoding: "utf8", env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" } });
  return { project, data, gitDir, git, cp, rewinder, session: new FakeSession(cp, project) };
}

describe("the checkpoint store's format", () => {
  it("writes valid, chained commits that git gc keeps: a rewind after gc restores exactly", async () => {
    const { project, gitDir, git, cp, rewinder, session } = setup();
    write(project, "a.txt", "1\n");
    write(project, "dir/b.txt", "b\n");
    session.user("first");
    await session.turn([{ name: "bash" }], () => {
      bash(project, "echo 2 > a.txt; echo new > dir/c.txt");
    });
    const expected = snapshot(project);
    const second = session.user("second");
    await session.turn([{ name: "bash" }], () => {
      bash(project, "echo 3 > a.txt; rm dir/b.txt; echo d > d.txt");
    });
    session.user("third");
    await session.turn([{ name: "bash" }], () => {
      bash(project, "echo 4 > a.txt");
    });
    // Every checkpoint's commit names its tree; the commits form one chain from HEAD.
    const rows = cp.db.projectRange(1, 0, Number.MAX_SAFE_INTEGER);
    expect(rows.length).toBeGreaterThanOrEqual(4);
    for (const row of rows) expect(git("rev-parse", `${row.commit}^{tree}`).trim()).toBe(row.tree);
    const chain = git("rev-list", "HEAD").trim().split("\n");
    for (const row of rows) expect(chain).toContain(row.commit);
    expect(git("cat-file", "-p", "HEAD")).toMatch(/^tree [0-9a-f]{40}\nparent [0-9a-f]{40}\nauthor Lathe <checkpoints@lathe\.invalid> \d+ \+0000\ncommitter /);
    // git's strictest check of every object, then a gc that drops whatever nothing reaches.
    execFileSync("git", [`--git-dir=${gitDir}`, "fsck", "--strict", "--no-dangling", "--no-progress"], { stdio: "pipe" });
    git("-c", "gc.pruneExpire=now", "gc", "--prune=now", "--quiet");
    expect(readdirSync(path.join(gitDir, "objects", "pack")).some((f) => f.endsWith(".pack"))).toBe(true);
    for (const row of rows) expect(git("cat-file", "-t", row.tree).trim()).toBe("tree");
    // Rewind to before the second message: the state after the first turn comes back.
    const preview = await rewinder.preview(session, session.sessionId, { position: second });
    const result = await rewinder.apply(session, preview.previewId, { restore: [], destination: "project" });
    expect("done" in result).toBe(true);
    expect(snapshot(project)).toEqual(expected);
  }, 60_000);

  it("keeps a commit message to one bounded line whatever a key holds", () => {
    const body = commitBody("a".repeat(40), null, `after 1:call\n\0\x1bnext${"x".repeat(500)}`, new Date(0)).toString("utf8");
    const message = body.split("\n\n")[1]!;
    expect(message.endsWith("\n")).toBe(true);
    // eslint-disable-next-line no-control-regex -- control characters are what must be absent
    expect(message.slice(0, -1)).not.toMatch(/[\u0000-\u001f]/);
    expect(message.length).toBeLessThanOrEqual(201);
    expect(body.startsWith(`tree ${"a".repeat(40)}\nauthor Lathe <checkpoints@lathe.invalid> 0 +0000\n`)).toBe(true);
  });

  it("rebuilds an unreadable index (corrupt, or its shared part gone) from the last capture and keeps the store", async () => {
    const notices: string[] = [];
    const project = tempDir("lathe-cp-index-");
    const data = tempDir("lathe-cp-index-data-");
    dirs.push(project, data);
    const { cp } = makeService(data, notices);
    closers.push(() => cp.close());
    const session = new FakeSession(cp, project);
    const gitDir = path.join(data, "checkpoints", "projects", "1.git");
    for (let i = 0; i < 20; i++) write(project, `f${i}.txt`, `${i}\n`);
    session.user("one");
    await session.turn([{ name: "bash" }], () => write(project, "f1.txt", "one\n"));
    writeFileSync(path.join(gitDir, "index"), "DIRC garbage");
    session.user("two");
    await session.turn([{ name: "bash" }], () => write(project, "f2.txt", "two\n"));
    for (const name of readdirSync(gitDir).filter((f) => f.startsWith("sharedindex."))) rmSync(path.join(gitDir, name));
    session.user("three");
    await session.turn([{ name: "bash" }], () => write(project, "f3.txt", "three\n"));
    expect(notices).toEqual([]);
    expect(readdirSync(data + "/checkpoints/projects").filter((f) => f.includes("damaged"))).toEqual([]);
    const turns = await cp.sessionChanges(session, session.sessionId);
    expect(turns.map((t) => t.files.map((f) => `${f.status} ${f.path}`))).toEqual([["modified f1.txt"], ["modified f2.txt"], ["modified f3.txt"]]);
  }, 60_000);

  it("splits the index: a turn rewrites the changed entries, not the index of every file", async () => {
    const { project, gitDir, session } = setup();
    // Files older than the first snapshot's index, as a project's files usually are: git keeps the
    // entries of files changed in the same second as the index ("racily clean") in the split part.
    const past = new Date(Date.now() - 60_000);
    for (let i = 0; i < 600; i++) {
      const file = `src/d${i % 6}/file-with-a-long-name-${i}.ts`;
      write(project, file, `export const x${i} = ${i};\n`);
      utimesSync(path.join(project, file), past, past);
    }
    session.user("go");
    await session.turn([{ name: "bash" }], () => {
      bash(project, "echo changed >> src/d1/file-with-a-long-name-1.ts");
    });
    const shared = readdirSync(gitDir).filter((f) => f.startsWith("sharedindex."));
    expect(shared.length).toBe(1);
    expect(statSync(path.join(gitDir, "index")).size * 4).toBeLessThan(statSync(path.join(gitDir, shared[0]!)).size);
  }, 60_000);
});

describe("time bounds of the store's git calls", () => {
  it("gives a first snapshot 10 minutes to list the files and 120 s plus 1 s per MB to store them, and a turn's calls the default", async () => {
    expect(bulkStoreTimeoutMs(0)).toBe(120_000);
    expect(bulkStoreTimeoutMs(200 * 1024 * 1024)).toBe(320_000);
    const project = tempDir("lathe-cp-bounds-");
    const data = tempDir("lathe-cp-bounds-data-");
    dirs.push(project, data);
    const calls: { command: string; timeoutMs: number | undefined }[] = [];
    class Recording extends GitRunner {
      override run(args: string[], options: GitOptions = {}) {
        calls.push({ command: args.filter((a) => !a.startsWith("-") && !a.includes("=")).join(" "), timeoutMs: options.timeoutMs });
        return super.run(args, options);
      }
      override start(args: string[], marker: string, options: Omit<GitOptions, "input"> = {}) {
        calls.push({ command: args.filter((a) => !a.startsWith("-") && !a.includes("=")).join(" "), timeoutMs: options.timeoutMs });
        return super.start(args, marker, options);
      }
    }
    const repo = new ShadowRepo(path.join(data, "1.git"), project, new Recording(path.join(data, "no-hooks")));
    const content = "x".repeat(4096);
    for (let i = 0; i < 600; i++) write(project, `f${i}.txt`, content);
    await repo.capture("first", 1e9, []);
    const bulk = calls.filter((c) => c.command === "update-index");
    expect(bulk.length).toBeGreaterThan(0);
    const megabytes = Math.ceil((600 * 4096) / (1024 * 1024));
    for (const c of bulk) expect(c.timeoutMs).toBe(120_000 + megabytes * 1_000);
    expect(calls.find((c) => c.command === "status")?.timeoutMs).toBe(600_000);
    expect(calls.find((c) => c.command === "write-tree")?.timeoutMs).toBe(120_000 + megabytes * 1_000);
    calls.length = 0;
    write(project, "f1.txt", "changed");
    await repo.capture("turn", 1e9, []);
    // A turn: status, its files stored and the tree written, all by one spawn.
    expect(calls.map((c) => c.command)).toEqual(["lathe-capture"]);
    for (const c of calls) expect(c.timeoutMs).toBeUndefined();
  }, 60_000);

  it("stops a git call that outlives its bound with a timeout error", async () => {
    const data = tempDir("lathe-cp-slow-git-");
    dirs.push(data);
    const slowGit = path.join(data, "slow-git");
    writeFileSync(slowGit, "#!/bin/sh\nexec sleep 30\n");
    chmodSync(slowGit, 0o755);
    const runner = new GitRunner(path.join(data, "no-hooks"), slowGit);
    const started = Date.now();
    const error = await runner.run(["-c", "status.showUntrackedFiles=all", "status"], { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitError);
    expect((error as GitError).failure).toBe("timeout");
    expect((error as GitError).message).toMatch(/^git status took longer than/);
    expect(Date.now() - started).toBeLessThan(25_000);
  });
});

describe("a turn's capture in one spawn", () => {
  it("lists, stores what a turn changed and writes the tree git add -A makes with one git alias", async () => {
    const project = tempDir("lathe-cp-alias-");
    const data = tempDir("lathe-cp-alias-data-");
    dirs.push(project, data);
    const gitDir = path.join(data, "1.git");
    const runner = new RecordingGitRunner(path.join(data, "no-hooks"));
    const calls = runner.calls;
    const repo = new ShadowRepo(gitDir, project, runner);
    for (let i = 0; i < 20; i++) write(project, `d${i % 3}/f${i}.txt`, `${i}\n`);
    await repo.capture("first", 1e9, []);
    const expected = () => {
      const temp = path.join(data, `check-${calls.length}`);
      const git = (...args: string[]) =>
        // Unsplit: a split temporary index would expire (delete) the store's shared index.
        execFileSync("git", ["-c", "core.splitIndex=false", `--git-dir=${gitDir}`, `--work-tree=${project}`, ...args], {
          encoding: "utf8",
          env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1", GIT_INDEX_FILE: temp },
        });
      git("add", "-A");
      return git("write-tree").trim();
    };
    calls.length = 0;
    write(project, "d1/f1.txt", "changed\n");
    write(project, "d2/new.txt", "new\n");
    const turn = await repo.capture("turn", 1e9, []);
    expect(calls).toEqual(["lathe-capture"]);
    expect(turn.tree).toBe(expected());
    expect(turn.changes.map((c) => [c.path.toString(), c.status]).sort()).toEqual([
      ["d1/f1.txt", "modified"],
      ["d2/new.txt", "added"],
    ]);
    // A deletion takes the calls that can remove (update-index --force-remove, write-tree).
    calls.length = 0;
    rmSync(path.join(project, "d0/f0.txt"));
    write(project, "d0/f3.txt", "changed too\n");
    const next = await repo.capture("next", 1e9, []);
    expect(next.tree).toBe(expected());
    expect(calls).toEqual(["lathe-capture", "update-index", "update-index", "write-tree"]);
    // Nothing changed: the status alone, the alias told to stop there.
    calls.length = 0;
    const same = await repo.capture("same", 1e9, []);
    expect(calls).toEqual(["lathe-capture"]);
    expect(same.commit).toBe(next.commit);
    expect(same.changes).toEqual([]);
  }, 60_000);

  it("tells the end of the status from any file name, the marker's own included", async () => {
    const project = tempDir("lathe-cp-marker-");
    const data = tempDir("lathe-cp-marker-data-");
    dirs.push(project, data);
    const repo = new ShadowRepo(path.join(data, "1.git"), project, new GitRunner(path.join(data, "no-hooks")));
    write(project, "a.txt", "a\n");
    await repo.capture("first", 1e9, []);
    const names = ["lathe-status-end", "x\nlathe-status-end", "lathe-status-end\n", "? lathe-status-end", "d/lathe-status-end"];
    for (const name of names) write(project, name, `${name}\n`);
    const turn = await repo.capture("turn", 1e9, []);
    expect(turn.changes.map((c) => [c.path.toString(), c.status]).sort()).toEqual(names.map((n) => [n, "added"]).sort());
    const stored = await repo.listTree(turn.tree);
    expect([...stored.keys()].sort()).toEqual(["a.txt", ...names].sort());
  }, 60_000);

  it("reads a status of many chunks whole: a turn that adds 6,000 files with long names", async () => {
    const project = tempDir("lathe-cp-many-");
    const data = tempDir("lathe-cp-many-data-");
    dirs.push(project, data);
    const repo = new ShadowRepo(path.join(data, "1.git"), project, new GitRunner(path.join(data, "no-hooks")));
    write(project, "a.txt", "a\n");
    await repo.capture("first", 1e9, []);
    // About 1 MB of status: many reads of the pipe before the marker comes.
    const long = "n".repeat(150);
    bash(project, `mkdir -p many && cd many && for i in $(seq 1 6000); do : > ${long}-$i; done`);
    const turn = await repo.capture("turn", 1e9, []);
    expect(turn.changes).toHaveLength(6000);
    expect(new Set(turn.changes.map((c) => c.path.toString())).size).toBe(6000);
    expect((await repo.listTree(turn.tree)).size).toBe(6001);
  }, 120_000);

  it("gives git (and the shell of its alias) no BASH_ENV or ENV script to run", () => {
    const env = gitEnvironment({ PATH: "/usr/bin", BASH_ENV: "/tmp/run-me.sh", ENV: "/tmp/run-me-too.sh", GIT_DIR: "/elsewhere" });
    expect(env.PATH).toBe("/usr/bin");
    expect(env).not.toHaveProperty("BASH_ENV");
    expect(env).not.toHaveProperty("ENV");
    expect(env).not.toHaveProperty("GIT_DIR");
  });
});
