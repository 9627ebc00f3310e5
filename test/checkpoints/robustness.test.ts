// Checkpoints under hostile conditions: an editor writing a file all the time, thousands of files
// with a node_modules folder, a data folder on a full disk (a real tmpfs; skipped where it cannot
// be mounted), a damaged store that is set aside.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { describeWhen } from "../support/requirements.ts";
import { scratchTmpfs } from "../support/tmpfs.ts";
import { bash, cleanup, FakeSession, makeService, snapshot, tempDir, write } from "./helpers.ts";

const dirs: string[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
  cleanup(...dirs.splice(0));
});

function setup(notices: string[] = [], dataDir?: string) {
  const project = tempDir("lathe-cp-robust-");
  const data = dataDir ?? tempDir("lathe-cp-robust-data-");
  dirs.push(project);
  if (!dataDir) dirs.push(data);
  const { cp, rewinder } = makeService(data, notices);
  closers.push(() => cp.close());
  return { project, data, cp, rewinder, session: new FakeSession(cp, project) };
}

describe("checkpoints under pressure", () => {
  it("works while another program keeps rewriting a file, which the rewind then leaves alone", async () => {
    const { project, rewinder, session } = setup();
    write(project, "code.ts", "v1\n");
    write(project, "editor.txt", "start\n");
    // It saves as editors do, by renaming a whole new file over the old one (its temporary file
    // outside the project): a save in place would leave the file empty for a moment, and when the
    // turn's after-checkpoint and the preview both found it empty, nothing had changed since the
    // turn, and the rewind rightly restored it (seen on a loaded CI machine).
    const scratch = tempDir("lathe-cp-robust-editor-");
    dirs.push(scratch);
    const save = `echo saved $i > ${scratch}/next && mv -f ${scratch}/next editor.txt`;
    const editor = spawn("bash", ["-c", `i=0; while :; do i=$((i+1)); ${save}; sleep 0.003; done`], { cwd: project, stdio: "ignore" });
    try {
      // The editor is saving before the first checkpoint is taken.
      const until = Date.now() + 20_000;
      while (readFileSync(path.join(project, "editor.txt"), "utf8") === "start\n" && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
      const asked = session.user("edit code");
      await session.turn([{ name: "bash" }], () => write(project, "code.ts", "v2\n"));
      // And saves after the turn too (it may be starved of CPU on a loaded machine: one save for sure).
      write(project, "editor.txt", "saved after the turn\n");
      const preview = await rewinder.preview(session, session.sessionId, { position: asked });
      // Never restored silently: a kept conflict (or, if its last save went unseen, not listed).
      const listed = preview.files.find((f) => f.path === "editor.txt");
      if (listed) expect(listed).toMatchObject({ conflict: true, action: "keep" });
      // The editor's file is kept: its changes since the preview do not invalidate it.
      const result = await rewinder.apply(session, preview.previewId, { restore: [], destination: "project" });
      if (!("done" in result)) throw new Error("the preview was refused although only a kept file changed");
      expect(result.done.written).toBe(1);
      expect(readFileSync(path.join(project, "code.ts"), "utf8")).toBe("v1\n");
    } finally {
      editor.kill("SIGKILL");
    }
  });

  it("handles thousands of files beside a node_modules folder", async () => {
    const { project, rewinder, session, cp } = setup();
    for (let i = 0; i < 3000; i++) write(project, `src/d${i % 30}/f${i}.ts`, `export const x${i} = ${i};\n`);
    for (let i = 0; i < 1500; i++) write(project, `node_modules/pkg${i % 10}/i${i}.js`, "module.exports = 1;\n");
    const before = snapshot(project);
    const asked = session.user("refactor");
    await session.turn([{ name: "bash" }], () => {
      bash(project, "for i in 1 2 3 4 5; do echo changed >> src/d$i/f$i.ts; rm src/d1$i/f1$i.ts; echo new > src/new$i.ts; done; touch node_modules/pkg1/added.js");
    });
    const [turn] = await cp.sessionChanges(session, session.sessionId);
    expect(turn!.files).toHaveLength(15);
    await rewinder.apply(session, (await rewinder.preview(session, session.sessionId, { position: asked })).previewId, { restore: [], destination: "project" });
    expect(snapshot(project)).toEqual(before);
    expect(existsSync(path.join(project, "node_modules/pkg1/added.js"))).toBe(true);
  }, 120_000);

  it("streams a first snapshot of many files into packs, and lets status use the untracked cache", async () => {
    const { project, data, session, cp } = setup();
    for (let i = 0; i < 1200; i++) write(project, `src/d${i % 12}/f${i}.ts`, `export const x${i} = ${i};\n`);
    const gitDir = path.join(data, "checkpoints", "projects", "1.git");
    const git = (...args: string[]) => execFileSync("git", [`--git-dir=${gitDir}`, ...args], { encoding: "utf8" });
    await session.turn([{ name: "bash" }], () => {
      bash(project, "echo changed >> src/d1/f1.ts; mkdir src/d1/sub; echo new > src/d1/sub/n.ts; echo new > src/d2/n2.ts");
    });
    // The first snapshot's process packs the 1,200 blobs (a pack per run of files: four) and the
    // trees (one more); what is loose is a turn's few files, trees and the commits; no temporary
    // index or pack is left.
    const packFiles = readdirSync(path.join(gitDir, "objects", "pack"));
    expect(packFiles.filter((f) => f.endsWith(".pack")).length).toBe(5);
    expect(packFiles.filter((f) => f.startsWith("tmp_"))).toEqual([]);
    expect(readdirSync(gitDir).filter((f) => f.startsWith("index."))).toEqual([]);
    const loose = Number(/^count: (\d+)$/m.exec(git("count-objects", "-v"))![1]);
    expect(loose).toBeLessThan(60);
    expect(git("cat-file", "-p", "HEAD:src/d5/f5.ts")).toBe("export const x5 = 5;\n");
    // The index carries the untracked cache (extension "UNTR"), which `status -uall` would never use.
    expect(readFileSync(path.join(gitDir, "index")).includes(Buffer.from("UNTR"))).toBe(true);
    const [turn] = await cp.sessionChanges(session, session.sessionId);
    expect(turn!.files.map((f) => `${f.status} ${f.path}`).sort()).toEqual(["added src/d1/sub/n.ts", "added src/d2/n2.ts", "modified src/d1/f1.ts"]);
  }, 60_000);

  it("sets a damaged store aside with a notice and starts a new one", async () => {
    const notices: string[] = [];
    const { project, data, session, cp } = setup(notices);
    write(project, "a.txt", "1\n");
    session.user("go");
    await session.turn([{ name: "bash" }], () => write(project, "a.txt", "2\n"));
    const gitDir = path.join(data, "checkpoints", "projects", "1.git");
    // Damage: every object file emptied.
    for (const dir of readdirSync(path.join(gitDir, "objects"))) {
      if (!/^[0-9a-f]{2}$/.test(dir)) continue;
      for (const file of readdirSync(path.join(gitDir, "objects", dir))) writeFileSync(path.join(gitDir, "objects", dir, file), "");
    }
    write(project, "a.txt", "3\n");
    const row = await cp.capture({ sessionId: 1, projectId: 1, projectDir: project }, "before", "1:x");
    expect(row).not.toBeNull();
    expect(notices.join("\n")).toMatch(/damaged .* moved to .*1\.git\.damaged-/s);
    expect(readdirSync(path.join(data, "checkpoints", "projects")).some((n) => n.startsWith("1.git.damaged-"))).toBe(true);
    expect(readFileSync(path.join(project, "a.txt"), "utf8")).toBe("3\n");
  });
});

const tmpfs = scratchTmpfs("lathe-cp-tmpfs-", "600k");
const mountPoint = tmpfs.dir;

describeWhen(tmpfs.missing, "a data folder on a full disk", () => {
  it("takes no checkpoint, says the disk is full, and leaves the files alone", async () => {
    const notices: string[] = [];
    const data = path.join(mountPoint, "data");
    mkdirSync(data);
    const { project, session, rewinder } = setup(notices, data);
    // Incompressible: 2 MB of content cannot fit in 600 KB.
    for (let i = 0; i < 20; i++) write(project, `blob${i}.txt`, randomBytes(75_000).toString("base64"));
    const asked = session.user("go");
    await session.turn([{ name: "bash" }], () => write(project, "blob0.txt", "changed"));
    expect(notices.join("\n")).toMatch(/disk is full/i);
    await expect(rewinder.preview(session, session.sessionId, { position: asked })).rejects.toThrow(/Nothing to rewind|disk is full/);
    expect(readFileSync(path.join(project, "blob0.txt"), "utf8")).toBe("changed");
  });

  it("a first snapshot's own process on a full disk: says so and leaves no half-written pack or index", async () => {
    rmSync(path.join(mountPoint, "data"), { recursive: true, force: true });
    const notices: string[] = [];
    const data = path.join(mountPoint, "data-first");
    mkdirSync(data);
    try {
      const { project, cp } = setup(notices, data);
      // 600 files (the process stores 500 or more), 2.4 MB incompressible: past the 600 KB.
      for (let i = 0; i < 600; i++) write(project, `d${i % 7}/f${i}.txt`, randomBytes(3_000).toString("base64"));
      const row = await cp.capture({ sessionId: 1, projectId: 1, projectDir: project }, "before", "1:x");
      expect(row).toBeNull();
      expect(notices.join("\n")).toMatch(/disk is full/i);
      const gitDir = path.join(data, "checkpoints", "projects", "1.git");
      const packDir = path.join(gitDir, "objects", "pack");
      expect(existsSync(packDir) ? readdirSync(packDir).filter((n) => n.startsWith("tmp_")) : []).toEqual([]);
      expect(existsSync(path.join(gitDir, "index"))).toBe(false);
      expect(existsSync(path.join(gitDir, "index.lock"))).toBe(false);
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  }, 60_000);
});
