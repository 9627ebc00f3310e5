// Checkpoints and rewind with real git and real files: a bash command's edits, creations and
// deletions are undone exactly; your own files and your later edits are never overwritten
// silently; a rewind can be undone; a non-git project and a project with hooks work.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_PREVIEWS } from "../../app/main/checkpoints/rewinder.ts";
import { bash, cleanup, FakeSession, makeService, snapshot, tempDir, write } from "./helpers.ts";

const dirs: string[] = [];
const services: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.close()));
  cleanup(...dirs.splice(0));
});

function setup(init: (project: string) => void = () => undefined, maxFileBytes?: number) {
  const project = tempDir("lathe-cp-project-");
  const data = tempDir("lathe-cp-data-");
  dirs.push(project, data);
  init(project);
  const notices: string[] = [];
  const { cp, rewinder } = makeService(data, notices, maxFileBytes);
  services.push(cp);
  const session = new FakeSession(cp, project);
  return { project, data, cp, rewinder, session, notices };
}

async function rewindAll(rewinder: ReturnType<typeof setup>["rewinder"], session: FakeSession, target: { position: number } | { undoOf: number }, restore: string[] = []) {
  const preview = await rewinder.preview(session, session.sessionId, target);
  const result = await rewinder.apply(session, preview.previewId, { restore, destination: "project" });
  if (!("done" in result)) throw new Error("files changed since the preview");
  return { preview, done: result.done };
}

describe("rewind", () => {
  it("keeps at most MAX_PREVIEWS previews: the oldest is refused, saying why, and the newest still applies", async () => {
    const { project, rewinder, session } = setup((p) => write(p, "a.txt", "v1\n"));
    const asked = session.user("change a");
    await session.turn([{ name: "bash", arguments: { command: "…" } }], () => write(project, "a.txt", "v2\n"));
    const previews = [];
    for (let i = 0; i <= MAX_PREVIEWS; i++) previews.push(await rewinder.preview(session, session.sessionId, { position: asked }));
    await expect(rewinder.apply(session, previews[0]!.previewId, { restore: [], destination: "project" })).rejects.toThrow(
      "That preview is no longer kept (it expired after 30 minutes, or 20 newer ones were opened): open the rewind again.",
    );
    const result = await rewinder.apply(session, previews.at(-1)!.previewId, { restore: [], destination: "project" });
    expect("done" in result).toBe(true);
    expect(readFileSync(path.join(project, "a.txt"), "utf8")).toBe("v1\n");
  });

  it("restores exactly what a bash command edited, created and deleted", async () => {
    const { project, cp, rewinder, session } = setup((p) => {
      write(p, "src/a.ts", "export const a = 1;\n");
      write(p, "src/b.ts", "b\n");
      write(p, "keep/c.txt", "c\n");
      write(p, "run.sh", "#!/bin/sh\necho hi\n");
      bash(p, "chmod +x run.sh");
    });
    const before = snapshot(project);
    const asked = session.user("refactor");
    await session.turn([{ name: "bash", arguments: { command: "…" } }], () => {
      bash(project, "sed -i 's/1/2/' src/a.ts && rm src/b.ts && mkdir -p gen/deep && echo new > gen/deep/n.txt && chmod -x run.sh && echo z >> keep/c.txt");
    });
    expect(snapshot(project)).not.toEqual(before);
    const { preview, done } = await rewindAll(rewinder, session, { position: asked });
    expect(preview.files.every((f) => !f.conflict)).toBe(true);
    expect(done.skipped).toEqual([]);
    expect(snapshot(project)).toEqual(before);
    expect(existsSync(path.join(project, "gen"))).toBe(false);
    expect(bash(project, "test -x run.sh && echo exec")).toBe("exec\n");
    // Once recorded, the rewind's journal ends: its row and its plan file go.
    await rewinder.settled();
    expect(cp.db.journals()).toEqual([]);
    expect(readdirSync(path.join(cp.dir, "journals"))).toEqual([]);
  });

  it("a background first snapshot queued during a turn does not count the turn's changes as someone else's", async () => {
    const { project, cp, rewinder, session } = setup((p) => write(p, "a.txt", "original\n"));
    const asked = session.user("change a");
    const scope = { sessionId: session.sessionId, projectId: session.projectId, projectDir: project };
    let baseline: Promise<unknown> | undefined;
    await session.turn([{ name: "bash", arguments: { command: "…" } }], () => {
      write(project, "a.txt", "changed\n");
      // What prepare()'s timer does when it fires while the turn runs (it found no checkpoint yet).
      baseline = cp.capture(scope, "baseline", null);
    });
    await baseline;
    const { preview } = await rewindAll(rewinder, session, { position: asked });
    expect(preview.files.map((f) => `${f.path}:${f.action}`)).toEqual(["a.txt:restore"]);
    expect(readFileSync(path.join(project, "a.txt"), "utf8")).toBe("original\n");
  });

  it("keeps a file you created and lists a file you changed after the checkpoint, restoring it only when asked", async () => {
    const { project, rewinder, session } = setup((p) => write(p, "notes.md", "v1\n"));
    const asked = session.user("edit notes");
    await session.turn([{ name: "edit", arguments: { path: "notes.md" } }], () => write(project, "notes.md", "agent\n"));
    // Between turns: you change the agent's file and create one of your own.
    write(project, "notes.md", "agent\nplus mine\n");
    write(project, "mine.txt", "my own file\n");
    const preview = await rewinder.preview(session, session.sessionId, { position: asked });
    const notes = preview.files.find((f) => f.path === "notes.md")!;
    const mine = preview.files.find((f) => f.path === "mine.txt")!;
    expect(notes).toMatchObject({ conflict: true, action: "keep", reason: "changed-outside" });
    expect(mine).toMatchObject({ conflict: false, action: "keep", reason: "yours" });
    const result = await rewinder.apply(session, preview.previewId, { restore: [], destination: "project" });
    expect("done" in result).toBe(true);
    expect(readFileSync(path.join(project, "notes.md"), "utf8")).toBe("agent\nplus mine\n");
    expect(readFileSync(path.join(project, "mine.txt"), "utf8")).toBe("my own file\n");

    // Asked explicitly, the conflicting file is restored; your new file still stays.
    const again = await rewinder.preview(session, session.sessionId, { position: asked });
    const id = again.files.find((f) => f.path === "notes.md")!.id;
    const second = await rewinder.apply(session, again.previewId, { restore: [id], destination: "project" });
    expect("done" in second).toBe(true);
    expect(readFileSync(path.join(project, "notes.md"), "utf8")).toBe("v1\n");
    expect(existsSync(path.join(project, "mine.txt"))).toBe(true);
  });

  it("refuses to apply a preview when files changed since, and returns the new preview", async () => {
    const { project, rewinder, session } = setup((p) => write(p, "a.txt", "1\n"));
    const asked = session.user("go");
    await session.turn([{ name: "bash" }], () => write(project, "a.txt", "2\n"));
    const preview = await rewinder.preview(session, session.sessionId, { position: asked });
    write(project, "a.txt", "3 (an editor saved meanwhile)\n");
    const result = await rewinder.apply(session, preview.previewId, { restore: [], destination: "project" });
    expect("changed" in result).toBe(true);
    if ("changed" in result) expect(result.changed.files.find((f) => f.path === "a.txt")).toMatchObject({ conflict: true });
    expect(readFileSync(path.join(project, "a.txt"), "utf8")).toBe("3 (an editor saved meanwhile)\n");
  });

  it("undoes a rewind, and undoes the undo", async () => {
    const { project, rewinder, session } = setup((p) => write(p, "f.txt", "original\n"));
    const asked = session.user("change it");
    await session.turn([{ name: "bash" }], () => {
      write(project, "f.txt", "changed\n");
      write(project, "added.txt", "added\n");
    });
    const changed = snapshot(project);
    const first = await rewindAll(rewinder, session, { position: asked });
    expect(snapshot(project)).toEqual({ "f.txt": "original\n" });
    const undo = await rewindAll(rewinder, session, { undoOf: first.done.rewindId });
    expect(undo.preview.files.every((f) => !f.conflict)).toBe(true);
    expect(snapshot(project)).toEqual(changed);
    await rewindAll(rewinder, session, { undoOf: undo.done.rewindId });
    expect(snapshot(project)).toEqual({ "f.txt": "original\n" });
  });

  it("works on a project that is not a git repository, with node_modules left out", async () => {
    const { project, rewinder, session, cp } = setup((p) => {
      write(p, "index.js", "1\n");
      write(p, "node_modules/dep/index.js", "dependency\n");
    });
    const asked = session.user("install and edit");
    await session.turn([{ name: "bash" }], () => {
      write(project, "index.js", "2\n");
      write(project, "node_modules/dep/index.js", "changed dependency\n");
      write(project, "node_modules/other/x.js", "x\n");
    });
    const turns = await cp.sessionChanges(session, session.sessionId);
    expect(turns[0]!.files.map((f) => f.path)).toEqual(["index.js"]);
    await rewindAll(rewinder, session, { position: asked });
    expect(readFileSync(path.join(project, "index.js"), "utf8")).toBe("1\n");
    // Excluded files are neither snapshotted nor touched.
    expect(readFileSync(path.join(project, "node_modules/dep/index.js"), "utf8")).toBe("changed dependency\n");
    expect(existsSync(path.join(project, "node_modules/other/x.js"))).toBe(true);
  });

  it("never runs the project's git hooks and leaves its .git alone", async () => {
    const { project, rewinder, session } = setup((p) => {
      bash(p, "git init -q && git config user.email t@t && git config user.name t && echo a > a.txt && git add a.txt && git commit -qm init");
      for (const hook of ["pre-commit", "post-commit", "post-checkout", "post-index-change", "reference-transaction", "fsmonitor-watchman", "pre-auto-gc"]) {
        writeFileSync(path.join(p, ".git/hooks", hook), `#!/bin/sh\necho ran >> "${p}/../hook-ran-$(basename "${p}")"\n`, { mode: 0o755 });
      }
      bash(p, "git config core.fsmonitor .git/hooks/fsmonitor-watchman");
    });
    const marker = path.join(project, "..", `hook-ran-${path.basename(project)}`);
    const gitBefore = bash(project, "find .git -type f -newer .git/HEAD | sort; git rev-parse HEAD");
    const asked = session.user("go");
    await session.turn([{ name: "bash" }], () => write(project, "a.txt", "b\n"));
    await rewindAll(rewinder, session, { position: asked });
    expect(readFileSync(path.join(project, "a.txt"), "utf8")).toBe("a\n");
    expect(existsSync(marker)).toBe(false);
    expect(bash(project, "find .git -type f -newer .git/HEAD | sort; git rev-parse HEAD")).toBe(gitBefore);
  });

  it("records files over the size limit as changed without storing them, and leaves them alone", async () => {
    const { project, rewinder, session, cp } = setup((p) => write(p, "small.txt", "s\n"), 1024);
    const asked = session.user("make a big file");
    await session.turn([{ name: "bash" }], () => {
      write(project, "big.bin", "x".repeat(4096));
      write(project, "small.txt", "t\n");
    });
    const [turn] = await cp.sessionChanges(session, session.sessionId);
    expect(turn!.files.find((f) => f.path === "big.bin")).toMatchObject({ status: "added", large: true });
    const { preview } = await rewindAll(rewinder, session, { position: asked });
    expect(preview.files.find((f) => f.path === "big.bin")).toMatchObject({ action: "keep", reason: "too-large" });
    expect(readFileSync(path.join(project, "small.txt"), "utf8")).toBe("s\n");
    expect(existsSync(path.join(project, "big.bin"))).toBe(true);
  });

  it("handles names with newlines and non-UTF-8 bytes, and never follows a symbolic link out", async () => {
    const outside = tempDir("lathe-cp-outside-");
    dirs.push(outside);
    write(outside, "secret.txt", "outside\n");
    const { project, rewinder, session } = setup((p) => write(p, "plain.txt", "p\n"));
    const asked = session.user("odd names");
    await session.turn([{ name: "bash" }], () => {
      bash(project, `printf x > "$(printf 'new\\nline.txt')" && printf y > "$(printf 'caf\\xe9.txt')" && ln -s "${outside}" out && mkfifo pipe`);
    });
    const preview = await rewinder.preview(session, session.sessionId, { position: asked });
    expect(preview.files.map((f) => f.path).sort()).toEqual(["caf\\xe9.txt", "new\\nline.txt", "out"]);
    await rewinder.apply(session, preview.previewId, { restore: [], destination: "project" });
    expect(bash(project, "ls -A | LC_ALL=C sort")).toBe("pipe\nplain.txt\n");
    expect(readFileSync(path.join(outside, "secret.txt"), "utf8")).toBe("outside\n");
  });

  it("restores a folder the agent replaced by a symbolic link to outside, without writing through the link", async () => {
    const outside = tempDir("lathe-cp-outside-");
    dirs.push(outside);
    const { project, rewinder, session } = setup((p) => write(p, "d/f.txt", "inside\n"));
    const asked = session.user("swap");
    await session.turn([{ name: "bash" }], () => {
      bash(project, `rm -r d && ln -s "${outside}" d`);
    });
    const { done } = await rewindAll(rewinder, session, { position: asked });
    expect(done.skipped).toEqual([]);
    expect(bash(project, "test -d d && ! test -L d && cat d/f.txt")).toBe("inside\n");
    expect(bash(outside, "ls -A")).toBe("");
  });

  it("shows each turn's files with the call that changed them and a bounded diff", async () => {
    const { project, session, cp } = setup((p) => write(p, "a.txt", "one\ntwo\n"));
    session.user("go");
    await session.turn(
      [
        { name: "edit", arguments: { path: "a.txt" } },
        { name: "bash", arguments: { command: "touch b" } },
      ],
      () => {
        write(project, "a.txt", "one\nTWO\n");
        write(project, "b", "");
      },
    );
    const [turn] = await cp.sessionChanges(session, session.sessionId);
    const a = turn!.files.find((f) => f.path === "a.txt")!;
    const b = turn!.files.find((f) => f.path === "b")!;
    expect(a).toMatchObject({ status: "modified", toolCallIds: ["call-1-1"], certain: true });
    expect(b).toMatchObject({ status: "added", toolCallIds: ["call-1-2"], certain: true });
    const diff = await cp.fileDiff(session, session.sessionId, turn!.beforeId, turn!.afterId!, a.id);
    expect(diff.diff).toContain("-two\n+TWO");
  });

  it("says clearly when the project folder is gone or the store is missing, and changes nothing", async () => {
    const { project, data, rewinder, session, notices } = setup((p) => write(p, "a.txt", "1\n"));
    const asked = session.user("go");
    await session.turn([{ name: "bash" }], () => write(project, "a.txt", "2\n"));
    cleanup(path.join(data, "checkpoints", "projects"));
    await expect(rewinder.preview(session, session.sessionId, { position: asked })).rejects.toThrow(/missing or damaged/);
    expect(readFileSync(path.join(project, "a.txt"), "utf8")).toBe("2\n");
    cleanup(project);
    const scope = { sessionId: 1, projectId: 1, projectDir: project };
    expect(await session.cp.beforeTurn(scope, "1:gone")).toBeNull();
    expect(notices.join("\n")).toMatch(/project folder .* is gone/);
  });
});
