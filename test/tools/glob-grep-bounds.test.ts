// A model's glob or a file's long line cannot hold the main thread. picomatch compiled any glob on
// the main thread, and nested braces or extglobs compile in time quadratic in the glob (16 KB of
// `{{{…}}}` took 5 s, 4 KB of `*(*(…))` 19 s): a glob over the size limits is now refused before
// picomatch sees it. ripgrep's --json output of a long line was re-scanned on every chunk and
// JSON.parsed whole (a 1 MB line of "x" is 45 MB of JSON: 17 s of the main thread): it is now
// split in one pass and a line over RG_JSON_LINE_MAX is read from its head. These tests count
// compiles, parsed bytes and held bytes, never time.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import picomatch from "picomatch";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { checkGlob, GlobLimitError, globMatcher, MAX_GLOB_CHARS, MAX_GLOB_NESTING } from "../../app/main/tools/glob-match.ts";
import { MAX_LINE_TEXT, searchText } from "../../app/main/tools/grep-match.ts";
import { findRipgrep } from "../../app/main/tools/grep-search.ts";
import { RG_JSON_LINE_MAX, RgJsonLines, rgLongLine } from "../../app/main/tools/rg-json-lines.ts";
import type { GrepLine } from "../../app/main/tools/grep-search.ts";
import { createFindTool } from "../../app/main/tools/find.ts";
import { createGrepTool } from "../../app/main/tools/grep.ts";
import { runTool, tempDir } from "./helpers.ts";

const project = tempDir("lathe-bounds-");
afterAll(() => project.cleanup());
afterEach(() => vi.restoreAllMocks());
mkdirSync(path.join(project.dir, "src"));
writeFileSync(path.join(project.dir, "src", "a.ts"), "needle\n");
writeFileSync(path.join(project.dir, "src", "b.js"), "needle\n");
const rg = findRipgrep();

/** 20 KB of nested braces: 10,000 `{` then 10,000 `}`. */
const NESTED_BRACES = `${"{".repeat(10_000)}${"}".repeat(10_000)}`;
/** Nested extglobs, within the length limit: 680 `*(` then 680 `)`. */
const NESTED_EXTGLOBS = `${"*(".repeat(680)}${")".repeat(680)}`;

/** Counts picomatch's compiles (glob-match.ts compiles with picomatch.makeRe only). */
function countCompiles(): { readonly calls: number } {
  const spy = vi.spyOn(picomatch, "makeRe");
  return {
    get calls() {
      return spy.mock.calls.length;
    },
  };
}

describe("glob size limits", () => {
  it("find refuses 20 KB of nested braces with an error naming the length limit, compiling nothing", async () => {
    const compiles = countCompiles();
    const run = await runTool(createFindTool({ projectDir: project.dir }), { pattern: NESTED_BRACES });
    expect(run.isError).toBe(true);
    expect(run.text).toBe(
      `The glob ${JSON.stringify(`${"{".repeat(200)}…`)} is 20000 characters long, over the limit of ${MAX_GLOB_CHARS}: use a shorter glob, or search in several calls.`,
    );
    expect(compiles.calls).toBe(0);
  });

  it("find refuses nested extglobs within the length limit with an error naming the nesting limit, compiling nothing", async () => {
    expect(NESTED_EXTGLOBS.length).toBeLessThanOrEqual(MAX_GLOB_CHARS);
    const compiles = countCompiles();
    const run = await runTool(createFindTool({ projectDir: project.dir }), { pattern: NESTED_EXTGLOBS });
    expect(run.isError).toBe(true);
    expect(run.text).toMatch(/^The glob "\*\(\*\(.*…" nests braces or parentheses 680 deep \(unclosed ones count\), over the limit of 6: flatten it/);
    expect(compiles.calls).toBe(0);
  });

  it.each([
    ["ripgrep", "auto"],
    ["javascript", "javascript"],
  ] as const)("grep (%s) refuses them too, as a name glob and as a path glob, compiling nothing", async (name, engine) => {
    if (name === "ripgrep" && !rg) return;
    const grep = createGrepTool({ projectDir: project.dir, engine });
    const compiles = countCompiles();
    for (const glob of [NESTED_BRACES, `src/${NESTED_BRACES}`, NESTED_EXTGLOBS, `src/${NESTED_EXTGLOBS}`, `${"{".repeat(MAX_GLOB_NESTING + 1)}a`]) {
      const run = await runTool(grep, { pattern: "needle", glob });
      expect(run.isError).toBe(true);
      expect(run.text).toMatch(/^The glob ".*" (is \d+ characters long, over the limit of 2048|nests braces or parentheses \d+ deep \(unclosed ones count\), over the limit of 6)/);
    }
    expect(compiles.calls).toBe(0);
  });

  it("keeps globs within the limits working as picomatch's own", async () => {
    const deepest = `{a,{b,{c,{d,{e,{f,g}}}}}}.ts`;
    expect(() => checkGlob(deepest)).not.toThrow();
    const names = ["a.ts", "f.ts", "g.ts", "h.ts", "a.js"];
    const expected = names.map((n) => picomatch(deepest, { dot: true })(n));
    expect(expected).toEqual([true, true, true, false, false]);
    expect(await globMatcher(deepest).filter(names)).toEqual(expected);
    // A brace list of plain words as long as allowed runs inline.
    const words = Array.from({ length: 400 }, (_, i) => `n${i}`).join(",");
    const longest = `{${words}}`.padEnd(MAX_GLOB_CHARS - 3, "x").slice(0, MAX_GLOB_CHARS - 3);
    const list = `${longest.replace(/,[^,]*$/, "")}}.ts`;
    expect(list.length).toBeLessThanOrEqual(MAX_GLOB_CHARS);
    const matcher = globMatcher(list);
    expect(matcher.inline).not.toBeNull();
    expect(["n0.ts", "n7.ts", "n9999.ts"].map((n) => matcher.inline!(n))).toEqual(["n0.ts", "n7.ts", "n9999.ts"].map((n) => picomatch(list, { dot: true })(n)));
    expect(() => checkGlob("a".repeat(MAX_GLOB_CHARS + 1))).toThrow(GlobLimitError);
    // Escaped or unclosed, a `{` or `(` counts; closed ones do not add up.
    expect(() => checkGlob(`${"\\{".repeat(MAX_GLOB_NESTING + 1)}`)).toThrow(GlobLimitError);
    expect(() => checkGlob("{a,b}".repeat(300))).not.toThrow();
  });

  it("compiles a glob once for a grep with a path glob (ripgrepCanFilter, then the search)", async () => {
    if (!rg) return;
    const compiles = countCompiles();
    const glob = "src/**/*.{ts,tsx}";
    const run = await runTool(createGrepTool({ projectDir: project.dir }), { pattern: "needle", glob });
    expect(run.text).toBe("src/a.ts:1: needle");
    expect(compiles.calls).toBeLessThanOrEqual(1);
  });
});

/** Decodes every line of `rg --json` output the old way (whole), for comparison. */
function wholeLines(json: string): GrepLine[] {
  const out: GrepLine[] = [];
  for (const line of json.split("\n")) {
    if (!line) continue;
    const event = JSON.parse(line) as { type: string; data: { path: { text: string }; lines: { text?: string; bytes?: string }; line_number: number } };
    if (event.type !== "match" && event.type !== "context") continue;
    const text = event.data.lines.text ?? Buffer.from(event.data.lines.bytes!, "base64").toString("utf8");
    out.push({ file: event.data.path.text, line: event.data.line_number, text: text.replace(/\r?\n$/, ""), isMatch: event.type === "match" });
  }
  return out;
}

describe("ripgrep's --json output of long lines", () => {
  const dir = path.join(project.dir, "long");
  mkdirSync(dir);
  // Escapes, quotes, backslashes, multi-byte characters and invalid UTF-8 (sent as base64 "bytes").
  const tricky = `a"b\\c\td\u0001é😀 needle ${'q"\\'.repeat(40)}${"é😀x".repeat(60)}`;
  writeFileSync(path.join(dir, "t.txt"), `short needle\n${tricky}\ncontext line\n${"needle ".repeat(80)}\n`);
  writeFileSync(path.join(dir, "b.txt"), Buffer.concat([Buffer.from("needle "), Buffer.from([0xff, 0xfe]), Buffer.from("é".repeat(300)), Buffer.from("\n")]));

  it("splits lines in any chunking, holding at most maxLine bytes and reading a longer line from its head", () => {
    if (!rg) return;
    const output = execFileSync(rg, ["--json", "--no-config", "--context", "1", "needle", "t.txt", "b.txt"], { cwd: dir });
    const expected = wholeLines(output.toString("utf8"));
    expect(expected.length).toBe(5);
    expect(output.toString("utf8")).toContain('"lines":{"bytes":"');
    let longLines = 0;
    for (const maxLine of [200, 257, 300, 333, 400, 555, 1000, 4000, RG_JSON_LINE_MAX]) {
      for (const chunk of [1, 7, 64, 4096, output.length]) {
        const lines: GrepLine[] = [];
        const cut: boolean[] = [];
        let held = 0;
        const splitter = new RgJsonLines(
          (json) => {
            expect(Buffer.byteLength(json)).toBeLessThanOrEqual(maxLine);
            lines.push(...wholeLines(json));
            cut.push(...wholeLines(json).map(() => false));
          },
          (head, lineNumber) => {
            longLines++;
            const line = rgLongLine(head, lineNumber);
            if (line) {
              lines.push(line);
              cut.push(true);
            }
          },
          maxLine,
        );
        for (let i = 0; i < output.length; i += chunk) {
          splitter.push(output.subarray(i, i + chunk));
          held = Math.max(held, splitter.held);
        }
        expect(held).toBeLessThanOrEqual(maxLine + 64);
        expect(lines.map(({ file, line, isMatch }) => ({ file, line, isMatch }))).toEqual(expected.map(({ file, line, isMatch }) => ({ file, line, isMatch })));
        lines.forEach((line, i) => {
          if (cut[i]) expect(expected[i]!.text.startsWith(line.text), `maxLine ${maxLine}, chunk ${chunk}, line ${i}`).toBe(true);
          else expect(line.text).toBe(expected[i]!.text);
        });
        // Over a few hundred bytes of head, a cut line still shows a good part of its text.
        if (maxLine >= 1000) lines.forEach((line, i) => expect(line.text.length).toBeGreaterThanOrEqual(Math.min(expected[i]!.text.length, 100)));
      }
    }
    // Each of the three long lines was cut at the smaller limits.
    expect(longLines).toBeGreaterThanOrEqual(3 * 5 * 5);
  });

  it("keeps the whole text of a line whose submatches alone pass the limit", () => {
    if (!rg) return;
    const output = execFileSync(rg, ["--json", "--no-config", "e", "t.txt"], { cwd: dir });
    const expected = wholeLines(output.toString("utf8"));
    const long = expected.find((l) => l.text.startsWith("needle needle"))!;
    const lines: GrepLine[] = [];
    const cut: number[] = [];
    const splitter = new RgJsonLines(
      (json) => lines.push(...wholeLines(json)),
      (head, n) => {
        cut.push(n!);
        lines.push(rgLongLine(head, n)!);
      },
      1_000,
    );
    splitter.push(output);
    expect(long.text.length).toBeGreaterThan(500);
    expect(cut).toContain(long.line);
    expect(lines.find((l) => l.line === long.line)).toEqual(long);
  });

  it("grep (ripgrep) answers a file of one 2 MB line with the line cut, parsing no JSON line over the limit", async () => {
    if (!rg) return;
    writeFileSync(path.join(dir, "one-line.txt"), `${"x".repeat(2 * 1024 * 1024)}\n`);
    const parse = vi.spyOn(JSON, "parse");
    const run = await runTool(createGrepTool({ projectDir: project.dir }), { pattern: "x", path: "long/one-line.txt" });
    const longest = Math.max(0, ...parse.mock.calls.map(([s]) => (typeof s === "string" ? s.length : 0)));
    parse.mockRestore();
    expect(run.text).toBe(`one-line.txt:1: ${"x".repeat(500)}… [line cut]`);
    expect(run.result!.details).toMatchObject({ matches: 1, engine: "ripgrep" });
    expect(longest).toBeLessThanOrEqual(RG_JSON_LINE_MAX);
  });

  it("grep (javascript) answers it the same, its worker sending back at most MAX_LINE_TEXT characters of the line", async () => {
    const run = await runTool(createGrepTool({ projectDir: project.dir, engine: "javascript" }), { pattern: "x", path: "long/one-line.txt" });
    expect(run.text).toBe(`one-line.txt:1: ${"x".repeat(500)}… [line cut]`);
    const found = searchText("f", `a\n${"x".repeat(2 * 1024 * 1024)}\r\nb\r\n`, /x/, /x/m, 1);
    expect(found.map((l) => [l.line, l.text.length, l.isMatch])).toEqual([
      [1, 1, false],
      [2, MAX_LINE_TEXT, true],
      [3, 1, false],
    ]);
  });

  it("shows ordinary lines as before: under the limit whole, over 500 characters cut by grep", async () => {
    if (!rg) return;
    writeFileSync(path.join(dir, "mid.txt"), `${"y".repeat(600)}needle\nneedle "quoted" \\ é\n`);
    for (const engine of ["auto", "javascript"] as const) {
      const run = await runTool(createGrepTool({ projectDir: project.dir, engine }), { pattern: "needle", path: "long/mid.txt" });
      expect(run.text).toBe(`mid.txt:1: ${"y".repeat(500)}… [line cut]\nmid.txt:2: needle "quoted" \\ é`);
    }
  });
});
