// A rewind killed halfway (SIGKILL of the process doing it) is completed by the next start, from
// its journal; a fork restores a checkpoint into a new git worktree without touching the project
// or running its hooks.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Rewinder } from "../../app/main/checkpoints/rewinder.ts";
import { bash, cleanup, FakeSession, makeService, snapshot, tempDir, write } from "./helpers.ts";

const dirs: string[] = [];
afterEach(() => cleanup(...dirs.splice(0)));

async function waitFor(file: string, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!existsSync(file)) {
    if (Date.now() > until) throw new Error(`${file} did not appear`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("crash in the middle of a rewind", () => {
  it("is completed at the next start from its journal", async () => {
    const project = tempDir("lathe-cp-crash-project-");
    const data = tempDir("lathe-cp-crash-data-");
    const marker = path.join(data, "halfway");
    dirs.push(project, data);
    const child = spawn(process.execPath, [path.join(import.meta.dirname, "fixtures", "crash-rewinder.ts"), data, project, marker], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise((resolve) => child.on("exit", resolve));
    try {
      await Promise.race([waitFor(marker, 60_000), exited.then(() => Promise.reject(new Error(`fixture exited early: ${stderr}`)))]);
    } finally {
      child.kill("SIGKILL");
    }
    await exited;
    const halfway = snapshot(project);
    const values = Object.entries(halfway)
      .filter(([k]) => k.startsWith("f"))
      .map(([, v]) => v);
    expect(Object.keys(halfway).some((k) => k.startsWith("new/"))).toBe(false);
    expect(values).toContain("v1\n");
    expect(values).toContain("v2\n");

    const { cp, rewinder } = makeService(data);
    try {
      // The journal row names its plan's file (the plan itself is not in the index).
      expect(cp.db.journals()).toHaveLength(1);
      const { planFile } = JSON.parse(cp.db.journals()[0]!.plan) as { planFile: string };
      const journals = path.join(data, "checkpoints", "journals");
      expect(JSON.parse(readFileSync(path.join(journals, planFile), "utf8")).steps.length).toBeGreaterThan(0);
      const notices = await rewinder.recover();
      expect(notices.join("\n")).toMatch(/interrupted .* completed/);
      expect(cp.db.journals()).toHaveLength(0);
      expect(readdirSync(journals)).toEqual([]);
      const expected: Record<string, string> = {};
      for (let i = 0; i < 30; i++) expected[`f${String(i).padStart(2, "0")}.txt`] = "v1\n";
      expect(snapshot(project)).toEqual(expected);
      expect(await rewinder.recover()).toEqual([]);
    } finally {
      await cp.close();
    }
  }, 90_000);
});

describe("journals at the next start", () => {
  it("finishes a journal an earlier version kept in the index, drops one whose plan file is gone, and removes plan files no journal names", async () => {
    const project = tempDir("lathe-cp-journal-project-");
    const data = tempDir("lathe-cp-journal-data-");
    dirs.push(project, data);
    write(project, "a.txt", "1\n");
    const { cp, rewinder } = makeService(data);
    try {
      const plan = { sessionId: 1, projectId: 1, projectDir: project, root: project, key: "rewind:old", rewindId: 1, steps: [], targetDirs: [] };
      cp.db.beginJournal(1, JSON.stringify(plan));
      cp.db.beginJournal(1, JSON.stringify({ planFile: "gone.json" }));
      const journals = path.join(data, "checkpoints", "journals");
      mkdirSync(journals, { recursive: true });
      writeFileSync(path.join(journals, "left-by-a-crash.json"), "{}");
      const notices = await rewinder.recover();
      expect(notices).toHaveLength(1);
      expect(notices[0]).toMatch(/was interrupted when Lathe stopped; it was completed \(0 files written or removed now/);
      expect(cp.db.journals()).toEqual([]);
      expect(readdirSync(journals)).toEqual([]);
    } finally {
      await cp.close();
    }
  });
});

describe("a journal row naming a file outside the journals folder (a damaged index)", () => {
  it("is dropped at the next start without reading or removing that file", async () => {
    const project = tempDir("lathe-cp-journal-project-");
    const data = tempDir("lathe-cp-journal-data-");
    dirs.push(project, data);
    const outside = path.join(data, "outside.json");
    writeFileSync(outside, JSON.stringify({ sessionId: 1, projectId: 1, projectDir: project, root: project, key: "k", rewindId: 1, steps: [], targetDirs: [] }));
    const { cp, rewinder } = makeService(data);
    try {
      cp.db.beginJournal(1, JSON.stringify({ planFile: "../../outside.json" }));
      expect(await rewinder.recover()).toEqual([]);
      expect(cp.db.journals()).toEqual([]);
      expect(existsSync(outside)).toBe(true);
    } finally {
      await cp.close();
    }
  });
});

describe("fork into a worktree", () => {
  it("writes the checkpoint's files into a new git worktree and leaves the project as it is", async () => {
    const parent = tempDir("lathe-cp-wt-");
    const project = path.join(parent, "repo");
    const data = tempDir("lathe-cp-wt-data-");
    dirs.push(parent, data);
    write(project, "tracked.txt", "committed\n");
    write(project, "gone.txt", "will be deleted\n");
    bash(project, "git init -q && git config user.email t@t && git config user.name t && git add -A && git commit -qm init");
    for (const hook of ["post-checkout", "post-index-change", "reference-transaction"]) {
      writeFileSync(path.join(project, ".git/hooks", hook), `#!/bin/sh\ntouch "${parent}/hook-ran"\n`, { mode: 0o755 });
    }
    // Uncommitted work of yours at the checkpoint is part of it.
    write(project, "tracked.txt", "committed\nplus uncommitted\n");
    write(project, "untracked.txt", "untracked\n");
    const atCheckpoint = snapshot(project);

    const { cp, rewinder } = makeService(data);
    try {
      const session = new FakeSession(cp, project);
      const asked = session.user("change things");
      await session.turn([{ name: "bash" }], () => {
        bash(project, "echo agent > tracked.txt && rm gone.txt && echo n > agent-new.txt");
      });
      const afterTurn = snapshot(project);
      const preview = await rewinder.preview(session, session.sessionId, { position: asked });
      expect(preview.gitRepository).toBe(true);
      const result = await rewinder.apply(session, preview.previewId, { restore: [], destination: "worktree" });
      if (!("done" in result)) throw new Error("changed");
      expect(result.done.worktree).toBe(true);
      expect(result.done.folder).toBe(path.join(parent, "repo-fork-1"));
      expect(snapshot(result.done.folder)).toEqual(atCheckpoint);
      expect(snapshot(project)).toEqual(afterTurn);
      expect(bash(project, "git worktree list --porcelain")).toContain("repo-fork-1");
      expect(existsSync(path.join(parent, "hook-ran"))).toBe(false);
      expect(readFileSync(path.join(result.done.folder, ".git"), "utf8")).toMatch(/^gitdir: /);
    } finally {
      await cp.close();
    }
  });

  it("runs no filter driver of the repository's config on checkout, and no transport", async () => {
    const parent = tempDir("lathe-cp-wt-filter-");
    const project = path.join(parent, "repo");
    const data = tempDir("lathe-cp-wt-filter-data-");
    dirs.push(parent, data);
    write(project, ".gitattributes", "*.txt filter=evil\n*.md filter=evil2\n");
    write(project, "a.txt", "a\n");
    write(project, "b.md", "b\n");
    bash(project, "git init -q && git config user.email t@t && git config user.name t && git add -A && git commit -qm init");
    bash(
      project,
      `git config filter.evil.smudge 'touch "${parent}/smudge-ran"; cat' && git config filter.evil.required true && git config filter.evil2.process 'touch "${parent}/process-ran"'`,
    );
    const { cp, rewinder } = makeService(data);
    try {
      const session = new FakeSession(cp, project);
      const asked = session.user("change");
      await session.turn([{ name: "bash" }], () => void bash(project, "echo changed > a.txt"));
      const preview = await rewinder.preview(session, session.sessionId, { position: asked });
      const result = await rewinder.apply(session, preview.previewId, { restore: [], destination: "worktree" });
      if (!("done" in result)) throw new Error("changed");
      expect(readFileSync(path.join(result.done.folder, "a.txt"), "utf8")).toBe("a\n");
      expect(existsSync(path.join(parent, "smudge-ran"))).toBe(false);
      expect(existsSync(path.join(parent, "process-ran"))).toBe(false);
      // The same checkout by plain git runs them: the test shows what the overrides prevent.
      bash(project, "rm a.txt && git checkout -- a.txt 2>/dev/null || true");
      expect(existsSync(path.join(parent, "smudge-ran"))).toBe(true);
    } finally {
      await cp.close();
    }
  });

  it("refuses a repository a sandboxed command created, naming it", async () => {
    const parent = tempDir("lathe-cp-wt-untrusted-");
    const project = path.join(parent, "repo");
    const data = tempDir("lathe-cp-wt-untrusted-data-");
    dirs.push(parent, data);
    write(project, "a.txt", "a\n");
    bash(project, "git init -q && git config user.email t@t && git config user.name t && git add -A && git commit -qm init");
    const { cp } = makeService(data);
    const asked: string[] = [];
    const rewinder = new Rewinder(cp, (dir) => (asked.push(dir), dir === project ? path.join(project, ".git") : undefined));
    try {
      const session = new FakeSession(cp, project);
      const position = session.user("change");
      await session.turn([{ name: "bash" }], () => void bash(project, "echo changed > a.txt"));
      const preview = await rewinder.preview(session, session.sessionId, { position });
      await expect(rewinder.apply(session, preview.previewId, { restore: [], destination: "worktree" })).rejects.toThrow(
        `The git repository ${path.join(project, ".git")} was created by a command inside the sandbox`,
      );
      expect(asked).toContain(project);
      expect(existsSync(path.join(parent, "repo-fork-1"))).toBe(false);
    } finally {
      await cp.close();
    }
  });
});
