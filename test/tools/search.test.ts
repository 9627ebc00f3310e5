import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFindTool } from "../../app/main/tools/find.ts";
import { createGrepTool, type GrepDetails } from "../../app/main/tools/grep.ts";
import { findRipgrep } from "../../app/main/tools/grep-search.ts";
import { createLsTool } from "../../app/main/tools/ls.ts";
import { runTool, tempDir } from "./helpers.ts";

const project = tempDir();
afterAll(() => project.cleanup());

function put(rel: string, content: string | Buffer = ""): void {
  const abs = path.join(project.dir, rel);
  mkdirSync(path.dirname(abs), { recursive: true });
  writeFileSync(abs, content);
}

beforeAll(() => {
  put(".gitignore", "dist/\n*.log\n");
  put("README.md", "# Demo\nTODO: write docs\n");
  put("src/app.ts", "export const todo = 1;\n// TODO: fix app\nconst x = 2;\nconst y = 3;\n");
  put("src/util.ts", "export function helper() {}\n// todo lower\n");
  put("src/gen/.gitignore", "generated.ts\n");
  put("src/gen/generated.ts", "// TODO: generated\n");
  put("src/gen/kept.ts", "// TODO: kept\n");
  put("dist/out.js", "// TODO: built\n");
  put("debug.log", "TODO: log\n");
  put("node_modules/lib/index.js", "// TODO: dependency\n");
  put(".git/HEAD", "ref: TODO\n");
  put("bin/data.bin", Buffer.from([0, 1, 2, 84, 79, 68, 79, 0]));
  put(".env.example", "TODO=1\n");
  for (let i = 0; i < 30; i++) put(`many/file${String(i).padStart(2, "0")}.txt`, `match here ${i}\n`);
});

describe("ls", () => {
  it("lists sorted entries with folders marked, and bounds them with a notice", async () => {
    const ls = createLsTool({ projectDir: project.dir });
    const run = await runTool(ls, {});
    expect(run.text.split("\n")).toEqual([".env.example", ".git/", ".gitignore", "bin/", "debug.log", "dist/", "many/", "node_modules/", "README.md", "src/"]);
    const limited = await runTool(ls, { path: "many", limit: 5 });
    expect(limited.text).toContain("file04.txt\n\n[Showing 5 of 30 entries.");
    expect(limited.result!.details).toMatchObject({ entries: 30, shown: 5, truncated: true });
    expect((await runTool(ls, { path: "nowhere" })).text).toBe("Folder not found: nowhere");
  });
});

describe("find", () => {
  const find = createFindTool({ projectDir: project.dir });

  it("matches globs, respecting nested .gitignore files and skipping .git and node_modules", async () => {
    const run = await runTool(find, { pattern: "*.{ts,js,log}" });
    expect(run.text.split("\n")).toEqual(["src/app.ts", "src/gen/kept.ts", "src/util.ts"]);
    const all = await runTool(find, { pattern: "*.{ts,js,log}", noIgnore: true });
    expect(all.text.split("\n")).toEqual(["debug.log", "dist/out.js", "node_modules/lib/index.js", "src/app.ts", "src/gen/generated.ts", "src/gen/kept.ts", "src/util.ts"]);
  });

  it("matches paths for patterns with a slash, applies the root .gitignore when searching a subfolder, and caps results", async () => {
    expect((await runTool(find, { pattern: "gen/*.ts", path: "src" })).text).toBe("gen/kept.ts");
    expect((await runTool(find, { pattern: "src/**/*.ts" })).text.split("\n")).toHaveLength(3);
    const capped = await runTool(find, { pattern: "*.txt", limit: 10 });
    expect(capped.text).toContain("[Showing the first 10 matches; there are more.");
    expect((await runTool(find, { pattern: "*.nothing" })).text).toBe('No files match "*.nothing" in ..');
  });
});

const engines: ("javascript" | "auto")[] = findRipgrep() ? ["javascript", "auto"] : ["javascript"];

describe.each(engines)("grep (%s engine)", (engine) => {
  const grep = createGrepTool({ projectDir: project.dir, engine });
  const expectedEngine = engine === "auto" ? "ripgrep" : "javascript";

  it("searches by regex, respecting .gitignore and skipping binaries, .git and node_modules", async () => {
    const run = await runTool(grep, { pattern: "TODO:" });
    expect(run.text.split("\n")).toEqual(["README.md:2: TODO: write docs", "src/app.ts:2: // TODO: fix app", "src/gen/kept.ts:1: // TODO: kept"]);
    expect(run.result!.details).toMatchObject({ matches: 3, files: 3, engine: expectedEngine } satisfies Partial<GrepDetails>);
    const unignored = await runTool(grep, { pattern: "TODO:", noIgnore: true });
    expect(unignored.text).toContain("dist/out.js:1:");
    expect(unignored.text).toContain("node_modules/lib/index.js:1:");
    expect(unignored.text).toContain("debug.log:1:");
  });

  it("supports ignoreCase, literal, glob and context", async () => {
    const ci = await runTool(grep, { pattern: "todo", ignoreCase: true, glob: "*.ts" });
    expect(ci.text.split("\n")).toEqual([
      "src/app.ts:1: export const todo = 1;",
      "src/app.ts:2: // TODO: fix app",
      "src/gen/kept.ts:1: // TODO: kept",
      "src/util.ts:2: // todo lower",
    ]);
    const byPath = await runTool(grep, { pattern: "TODO", glob: "src/gen/*.ts" });
    expect(byPath.text).toBe("src/gen/kept.ts:1: // TODO: kept");
    const literal = await runTool(grep, { pattern: "a + b (", literal: true, path: "src" });
    expect(literal.text).toBe('No matches for "a + b (" in src.');
    const ctx = await runTool(grep, { pattern: "fix app", context: 1, path: "src/app.ts" });
    expect(ctx.text.split("\n")).toEqual(["app.ts-1- export const todo = 1;", "app.ts:2: // TODO: fix app", "app.ts-3- const x = 2;"]);
  });

  it('answers no matches when no file passes the glob, or in an empty folder (ripgrep\'s "No files were searched" was an error)', async () => {
    const none = await runTool(grep, { pattern: "TODO", glob: "*.nothing" });
    expect(none.isError).toBe(false);
    expect(none.text).toBe('No matches for "TODO" in ..');
    mkdirSync(path.join(project.dir, "empty"), { recursive: true });
    const empty = await runTool(grep, { pattern: "TODO", path: "empty" });
    expect(empty.text).toBe('No matches for "TODO" in empty.');
    // The same after a warning of ripgrep's (an ignore file's line it cannot read comes first).
    mkdirSync(path.join(project.dir, "badignore"), { recursive: true });
    writeFileSync(path.join(project.dir, "badignore", ".gitignore"), "a{b\n");
    writeFileSync(path.join(project.dir, "badignore", "x.ts"), "zyzzyva\n");
    const warned = await runTool(grep, { pattern: "zyzzyva", path: "badignore", glob: "*.nothing" });
    expect(warned.text).toBe('No matches for "zyzzyva" in badignore.');
  });

  it("caps matches with a notice", async () => {
    const run = await runTool(grep, { pattern: "match here", limit: 7 });
    expect(run.text.split("\n\n")[0]!.split("\n")).toHaveLength(7);
    expect(run.text).toContain("[Stopped at 7 matches; more exist.");
    expect(run.result!.details).toMatchObject({ matches: 7, truncated: true });
  });

  it("rejects an invalid regex clearly", async () => {
    const run = await runTool(grep, { pattern: "(unclosed" });
    expect(run.isError).toBe(true);
    expect(run.text).toMatch(/regex|regular expression|unclosed/i);
  });
});
