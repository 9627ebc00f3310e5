// call-summary.ts driven directly: what a permission dialog says about a call (title, command,
// path, diff), the job it hands the compute pool for a diff (a stand-in pool that runs the real
// job in this thread, or records it), and what it shows when the preview cannot be made: no diff
// for arguments the tool would refuse or a failed job, a note when the job took too long. Never
// rejects.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PREVIEW_TIMEOUT_MS, summarizeCall } from "../../app/main/permissions/call-summary.ts";
import { callSubjects } from "../../app/main/permissions/policy.ts";
import { loadShellParser } from "../../app/main/permissions/shell-parser.ts";
import { runComputeJob, type ComputeJob } from "../../app/main/workers/compute-jobs.ts";
import { ComputeJobError, ComputeTimeoutError, type ComputePool, type RunOptions } from "../../app/main/workers/compute-pool.ts";

beforeAll(() => loadShellParser());

const project = mkdtempSync(path.join(tmpdir(), "lathe-summary-"));
const outside = mkdtempSync(path.join(tmpdir(), "lathe-summary-out-"));
afterAll(() => {
  rmSync(project, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});
writeFileSync(path.join(project, "a.txt"), "one\ntwo\nthree\n");

/** A pool that runs each job here (the worker's own function), or answers as `answer` says; records every run. */
function pool(answer?: (job: ComputeJob) => unknown) {
  const runs: { job: ComputeJob; options: RunOptions }[] = [];
  const p = {
    runs,
    run: async (job: ComputeJob, options: RunOptions) => {
      runs.push({ job, options });
      if (answer) return answer(job);
      return runComputeJob(job);
    },
  };
  return p as typeof p & ComputePool;
}

const summary = (tool: string, args: unknown, options: Parameters<typeof summarizeCall>[3] = {}) => summarizeCall(tool, args, callSubjects(tool, args, project), options);

describe("titles", () => {
  it("shows a command exactly, never marked outside the project", async () => {
    expect(await summary("bash", { command: "cat /etc/passwd && rm -rf ~" })).toEqual({ title: "Run a command", command: "cat /etc/passwd && rm -rf ~", outsideProject: false });
    // Subjects without a command (never built by callSubjects for bash, but the type allows it).
    expect(await summarizeCall("bash", {}, { ...callSubjects("read", { path: "x" }, project), command: undefined })).toMatchObject({ command: "" });
  });

  it("names other tools with a capital and their first path, and says when it is outside the project", async () => {
    expect(await summary("read", { path: "src/a.ts" })).toEqual({ title: "Read src/a.ts", path: "src/a.ts", outsideProject: false });
    expect(await summary("grep", { pattern: "x", path: outside })).toEqual({ title: `Grep ${outside} (outside the project)`, path: outside, outsideProject: true });
    // A tool without a path: no trailing blank; an unknown tool's name as given.
    expect(await summarizeCall("lookup", { q: 1 }, callSubjects("lookup", { q: 1 }, project))).toEqual({ title: "Lookup", path: undefined, outsideProject: false });
    expect(await summarizeCall("", null, callSubjects("", null, project))).toEqual({ title: "", path: undefined, outsideProject: false });
    expect(await summarizeCall("éclair", undefined, callSubjects("éclair", undefined, project))).toMatchObject({ title: "Éclair" });
  });

  it("titles edits and writes with their path, inside and outside the project", async () => {
    const p = pool();
    expect(await summary("edit", { path: "a.txt", edits: [{ oldText: "two", newText: "2" }] }, { pool: p })).toMatchObject({
      title: "Edit a.txt",
      path: "a.txt",
      outsideProject: false,
    });
    const out = path.join(outside, "b.txt");
    expect(await summary("write", { path: out, content: "x" }, { pool: p })).toMatchObject({ title: `Write ${out} (outside the project)`, path: out, outsideProject: true });
  });
});

describe("diffs", () => {
  it("shows the diff an edit would make, from the file as it is, without writing it", async () => {
    const p = pool();
    const s = await summary("edit", { path: "a.txt", edits: [{ oldText: "two", newText: "2" }] }, { pool: p });
    expect(s.diff).toContain("--- a/a.txt");
    expect(s.diff).toContain("+++ b/a.txt");
    expect(s.diff).toContain("-two");
    expect(s.diff).toContain("+2");
    expect(p.runs).toHaveLength(1);
    expect(p.runs[0]!.job).toEqual({
      kind: "edit",
      path: path.join(project, "a.txt"),
      shown: "a.txt",
      edits: [{ oldText: "two", newText: "2" }],
      oldName: "a/a.txt",
      newName: "b/a.txt",
    });
    expect(p.runs[0]!.options).toEqual({ timeoutMs: PREVIEW_TIMEOUT_MS, signal: undefined });
    expect(PREVIEW_TIMEOUT_MS).toBe(2_000);
  });

  it("shows the diff a write would make, a new file whole", async () => {
    const p = pool();
    const signal = new AbortController().signal;
    const s = await summary("write", { path: "new.txt", content: "hello\n" }, { pool: p, signal, timeoutMs: 750 });
    expect(s.diff).toContain("+hello");
    expect(p.runs[0]!.job).toEqual({ kind: "fileDiff", path: path.join(project, "new.txt"), shown: "new.txt", content: "hello\n", oldName: "a/new.txt", newName: "b/new.txt" });
    expect(p.runs[0]!.options).toEqual({ timeoutMs: 750, signal });
    const changed = await summary("write", { path: "a.txt", content: "one\nTWO\nthree\n" }, { pool: p });
    expect(changed.diff).toContain("-two");
    expect(changed.diff).toContain("+TWO");
  });

  it("shows no diff, and runs no job, for edits the tool would refuse", async () => {
    const p = pool();
    for (const edits of [
      undefined,
      null,
      "two",
      { oldText: "a", newText: "b" },
      [null],
      [{ oldText: "two" }],
      [{ newText: "2" }],
      [{ oldText: 1, newText: "2" }],
      [{ oldText: "a", newText: "b" }, 7],
    ]) {
      const s = await summary("edit", { path: "a.txt", edits }, { pool: p });
      expect(s.diff, JSON.stringify(edits)).toBeUndefined();
      expect(s.title).toBe("Edit a.txt");
    }
    for (const content of [undefined, null, 5, ["x"], { text: "x" }]) expect((await summary("write", { path: "a.txt", content }, { pool: p })).diff).toBeUndefined();
    // No path (arguments the tool refuses): nothing to diff, and the title says no "undefined".
    expect(await summary("write", { content: "x" }, { pool: p })).toMatchObject({ title: "Write", diff: undefined });
    expect(await summary("edit", null, { pool: p })).toMatchObject({ title: "Edit", diff: undefined });
    expect(p.runs).toEqual([]);
  });

  it("shows no diff when the job fails (an edit that would not apply, an unreadable file)", async () => {
    const p = pool();
    expect((await summary("edit", { path: "a.txt", edits: [{ oldText: "four", newText: "4" }] }, { pool: p })).diff).toBeUndefined();
    expect((await summary("edit", { path: "missing.txt", edits: [{ oldText: "a", newText: "b" }] }, { pool: p })).diff).toBeUndefined();
    expect(p.runs).toHaveLength(2);
    const failing = pool(() => {
      throw new ComputeJobError("Error", "the worker ran out of memory", undefined);
    });
    expect((await summary("write", { path: "a.txt", content: "x" }, { pool: failing })).diff).toBeUndefined();
    expect((await summary("edit", { path: "a.txt", edits: [{ oldText: "two", newText: "2" }] }, { pool: failing })).diff).toBeUndefined();
  });

  it("says the diff is not shown when computing it took too long, with the time limit in seconds", async () => {
    const slow = pool(() => {
      throw new ComputeTimeoutError(1);
    });
    expect((await summary("edit", { path: "a.txt", edits: [{ oldText: "two", newText: "2" }] }, { pool: slow })).diff).toBe(
      "The diff is not shown: computing it took longer than 2 s.\n",
    );
    expect((await summary("write", { path: "a.txt", content: "x" }, { pool: slow, timeoutMs: 250 })).diff).toBe("The diff is not shown: computing it took longer than 0.25 s.\n");
    expect((await summary("edit", { path: "a.txt", edits: [] }, { pool: slow, timeoutMs: 1500 })).diff).toBe("The diff is not shown: computing it took longer than 1.5 s.\n");
  });

  it("hands a huge write to the job as it is (the job bounds the diff), and keeps the title short", async () => {
    const p = pool(() => ({ diff: "bounded" }));
    const content = "x".repeat(5_000_000);
    const s = await summary("write", { path: "big.txt", content }, { pool: p });
    expect(s).toMatchObject({ title: "Write big.txt", diff: "bounded" });
    expect((p.runs[0]!.job as { content: string }).content).toBe(content);
  });
});
