// The first snapshot stored by the snapshot process's workers (first-snapshot.ts, workers/pack-writer.ts,
// workers/index-writer.ts, workers/tree-writer.ts), checked with git itself: the tree is the one
// `git add -A` makes of the same files (modes, links, odd names, duplicates, empty files, ignored
// files left out, names that sort differently as folders), its trees are packed too; the packs
// pass `git fsck`; the index's stat data is valid (with files older than the snapshot, `git
// diff-files` finds nothing without reading a file, and a second capture finds no change); stat
// data a change could repeat (a file written just before the snapshot) is smudged, so a change
// within the same second is still captured by the next turn.
import { Buffer } from "node:buffer";
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readdirSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ShadowRepo } from "../../app/main/checkpoints/shadow-repo.ts";
import { forkHelper } from "../../app/main/workers/snapshot-client.ts";
import { cleanup, RecordingGitRunner, tempDir, write } from "./helpers.ts";

const dirs: string[] = [];
afterEach(() => cleanup(...dirs.splice(0)));

const FILES = 700;
const env = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };

function setup() {
  const project = tempDir("lathe-cp-workers-");
  const data = tempDir("lathe-cp-workers-data-");
  dirs.push(project, data);
  const gitDir = path.join(data, "1.git");
  const runner = new RecordingGitRunner(path.join(data, "no-hooks"));
  const calls = runner.calls;
  const repo = new ShadowRepo(gitDir, project, runner, false, { launch: forkHelper });
  const git = (args: string[], extraEnv: Record<string, string> = {}) =>
    execFileSync("git", [`--git-dir=${gitDir}`, `--work-tree=${project}`, ...args], { encoding: "utf8", env: { ...env, ...extraEnv } });
  return { project, data, gitDir, repo, git, calls };
}

/** A project of FILES files of every kind a tree records; mtimes an hour old unless `fresh`. */
function makeProject(project: string, fresh = false) {
  for (let i = 0; i < FILES; i++) write(project, `src/d${i % 13}/f${i}.txt`, `file ${i}\n`.repeat(1 + (i % 50)));
  write(project, "dup/a.txt", "same\n");
  write(project, "dup/b.txt", "same\n");
  write(project, "empty.txt", "");
  // Names that sort differently as a folder ("a/" after "a-b" and "a.b") than as a file.
  for (const name of ["sort/a-b", "sort/a.b", "sort/a/x", "sort/a0", "sort/b/c/d"]) write(project, name, `${name}\n`);
  write(project, "bin/run.sh", "#!/bin/sh\necho hi\n");
  chmodSync(path.join(project, "bin/run.sh"), 0o755);
  symlinkSync("src/d1/f1.txt", path.join(project, "link"));
  symlinkSync("/nowhere/at/all", path.join(project, "dangling"));
  writeFileSync(Buffer.concat([Buffer.from(`${project}/`), Buffer.from("odd-\xe9-\x01 name.txt", "latin1")]), "odd\n");
  write(project, "big.bin", Buffer.alloc(300_000, 7).toString("latin1"));
  write(project, ".gitignore", "ignored/\n");
  write(project, "ignored/x.txt", "not stored\n");
  mkdirSync(path.join(project, "node_modules/pkg"), { recursive: true });
  write(project, "node_modules/pkg/index.js", "not stored\n");
  if (!fresh) {
    const old = new Date(Date.now() - 3_600_000);
    execFileSync("find", [project, "(", "-type", "f", "-o", "-type", "l", ")", "-exec", "touch", "-h", "-d", old.toISOString(), "{}", "+"]);
  }
}

describe("a first snapshot stored by the workers", () => {
  it("stores the tree git add -A makes, in valid packs, with no update-index call", async () => {
    const { project, data, repo, git, calls } = setup();
    makeProject(project);
    const capture = await repo.capture("first", 1e9, []);
    expect(calls).not.toContain("update-index");
    expect(calls).toContain("write-tree");
    const tempIndex = path.join(data, "check-index");
    git(["add", "-A"], { GIT_INDEX_FILE: tempIndex });
    const expected = git(["write-tree"], { GIT_INDEX_FILE: tempIndex }).trim();
    expect(capture.tree).toBe(expected);
    // The trees were written into a pack with the files: write-tree found each stored and wrote
    // none loose; the only loose object is the commit.
    const loose = readdirSync(path.join(data, "1.git", "objects"))
      .filter((d) => /^[0-9a-f]{2}$/.test(d))
      .flatMap((d) => readdirSync(path.join(data, "1.git", "objects", d)));
    expect(loose).toHaveLength(1);
    const files = git(["ls-tree", "-r", "--name-only", "-z", capture.tree]).split("\0").filter(Boolean);
    expect(files).toContain("link");
    expect(files).not.toContain("ignored/x.txt");
    expect(files.some((f) => f.startsWith("node_modules/"))).toBe(false);
    expect(git(["ls-tree", capture.tree, "bin/run.sh"])).toMatch(/^100755 /);
    expect(git(["ls-tree", capture.tree, "link"])).toMatch(/^120000 /);
    git(["fsck", "--strict", "--no-dangling"]);
    // The blob of the big file reads back exactly.
    expect(git(["cat-file", "-p", `${capture.tree}:big.bin`]).length).toBe(300_000);
  }, 60_000);

  it("writes valid stat data: nothing differs for git diff-files, a second capture finds no change", async () => {
    const { project, repo, git } = setup();
    makeProject(project);
    const first = await repo.capture("first", 1e9, []);
    // diff-files does not refresh: an entry whose stat data does not match is listed.
    expect(git(["diff-files", "--name-only"])).toBe("");
    const second = await repo.capture("second", 1e9, []);
    expect(second.commit).toBe(first.commit);
    expect(second.changes).toEqual([]);
    write(project, "src/d2/f2.txt", "changed\n");
    const third = await repo.capture("third", 1e9, []);
    expect(third.changes.map((c) => [c.path.toString(), c.status])).toEqual([["src/d2/f2.txt", "modified"]]);
  }, 60_000);

  it("smudges fresh stat data: a same-size change right after the snapshot is captured next turn", async () => {
    const { project, repo, git } = setup();
    makeProject(project, true);
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(path.join(project, "src/d3/f3.txt"), old, old);
    write(project, "fresh.txt", "aaaa\n");
    // Fresh whenever it is read, however long the snapshot's process takes to start on a loaded
    // machine: its mtime is ahead of the clock.
    const soon = new Date(Date.now() + 120_000);
    utimesSync(path.join(project, "fresh.txt"), soon, soon);
    const first = await repo.capture("first", 1e9, []);
    const sizes = new Map(
      git(["ls-files", "--debug", "--", "fresh.txt", "src/d3/f3.txt"])
        .split(/\n(?=\S)/)
        .map((block) => [block.split("\n")[0], /size: (\d+)/.exec(block)?.[1]]),
    );
    expect(sizes.get("fresh.txt")).toBe("0");
    expect(sizes.get("src/d3/f3.txt")).toBe(String("file 3\n".repeat(4).length));
    write(project, "fresh.txt", "bbbb\n");
    utimesSync(path.join(project, "fresh.txt"), soon, soon);
    const next = await repo.capture("next", 1e9, []);
    expect(next.commit).not.toBe(first.commit);
    expect(next.changes.map((c) => c.path.toString())).toEqual(["fresh.txt"]);
    expect(git(["cat-file", "-p", `${next.tree}:fresh.txt`])).toBe("bbbb\n");
  }, 60_000);
});
