// grep through ripgrep with every core: ripgrep is not asked to sort (which makes it
// single-threaded), and the results come back sorted as `rg --sort path` would give them, each
// file's lines in order; on a fixed tree the output equals a sorted ripgrep search's.
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGrepTool } from "../../app/main/tools/grep.ts";
import { findRipgrep, searchWithRipgrep, sortedByPath } from "../../app/main/tools/grep-search.ts";
import { describeWhen } from "../support/requirements.ts";
import { runTool, tempDir } from "./helpers.ts";

const project = tempDir("lathe-grep-parallel-");
afterAll(() => project.cleanup());

function put(rel: string, content: string): void {
  const abs = path.join(project.dir, rel);
  mkdirSync(path.dirname(abs), { recursive: true });
  writeFileSync(abs, content);
}

beforeAll(() => {
  // Names whose order differs between a plain string sort and a sorted walk (`a/` before `a.txt`).
  for (const name of ["a.txt", "a/b.txt", "a-b.txt", "a/a/z.txt", "B.txt", "_x.txt", "\u00e9t\u00e9.txt", "z/\u00e9.txt"]) put(name, "one needle 1\nnothing\nneedle again 2\n");
  for (let d = 0; d < 12; d++)
    for (let f = 0; f < 40; f++) put(`pkg${d}/src/file${f}.ts`, `const a = ${f};\n${(d * 40 + f) % 7 === 0 ? `// needle ${d}/${f}\n` : ""}const b = 2;\n`);
});

describeWhen(findRipgrep() ? null : "needs ripgrep (rg) on PATH", "grep with ripgrep on every core", () => {
  it("gives the same lines, in the same order, as a sorted ripgrep search", async () => {
    const rg = findRipgrep()!;
    const sorted = spawnSync(
      rg,
      ["--sort", "path", "--no-config", "--hidden", "--no-require-git", "--glob", "!.git", "--glob", "!node_modules", "-n", "--no-heading", "--regexp", "needle", "--"],
      { cwd: project.dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
    );
    const expected = sorted.stdout
      .trim()
      .split("\n")
      .map((l) => l.replace(/^([^:]+):(\d+):/, "$1:$2: "));
    expect(expected.length).toBeGreaterThan(80);
    const grep = createGrepTool({ projectDir: project.dir });
    for (let i = 0; i < 3; i++) {
      const run = await runTool(grep, { pattern: "needle", limit: 10_000 });
      expect(run.isError).toBe(false);
      expect(run.text.split("\n")).toEqual(expected);
    }
  });
});

describe("ripgrep's results sorted afterwards", () => {
  it("does not ask ripgrep to sort, and sorts what arrives in any order by path, lines kept in order", async () => {
    // A stand-in ripgrep that records its arguments and answers files out of order.
    const fake = path.join(project.dir, "fake-rg.sh");
    const argsFile = path.join(project.dir, "fake-rg.args");
    const match = (file: string, line: number) => JSON.stringify({ type: "match", data: { path: { text: file }, lines: { text: `hit ${line}\n` }, line_number: line } });
    const answer = [match("z/y.ts", 1), match("z/y.ts", 5), match("a.txt", 3), match("a/b.txt", 2), match("a/b.txt", 9), match("B.txt", 1)].join("\n");
    writeFileSync(fake, `#!/bin/sh\nprintf '%s\\n' "$@" > '${argsFile}'\ncat <<'EOF'\n${answer}\nEOF\n`);
    chmodSync(fake, 0o755);
    const outcome = await searchWithRipgrep(fake, {
      pattern: "hit",
      root: project.dir,
      projectDir: project.dir,
      ignoreCase: false,
      literal: false,
      context: 0,
      limit: 100,
      noIgnore: false,
    });
    expect(readFileSync(argsFile, "utf8").split("\n")).not.toContain("--sort");
    expect(outcome.lines.map((l) => `${l.file}:${l.line}`)).toEqual(["B.txt:1", "a/b.txt:2", "a/b.txt:9", "a.txt:3", "z/y.ts:1", "z/y.ts:5"]);
  });

  it("orders folders before longer names that share their start, bytewise", () => {
    const line = (file: string, n: number) => ({ file, line: n, text: "", isMatch: true });
    const lines = [line("b.txt", 1), line("a.txt", 1), line("a/b.txt", 2), line("a/b.txt", 1), line("\u00e9.txt", 1), line("Z.txt", 1)];
    expect(sortedByPath(lines).map((l) => `${l.file}:${l.line}`)).toEqual(["Z.txt:1", "a/b.txt:2", "a/b.txt:1", "a.txt:1", "b.txt:1", "\u00e9.txt:1"]);
  });
});
