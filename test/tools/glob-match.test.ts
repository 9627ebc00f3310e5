// A model's glob cannot freeze the app. picomatch compiles `*?` eleven times and `Q` to a regex
// that backtracks about n^11 steps on a name it does not match: 2 to 11 s of the main thread per
// ordinary 34-character name, far more for a longer glob, with no way to abort (find, grep's
// glob). Such a glob is now matched in the compute pool with a time budget; everyday globs still
// run inline.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import picomatch from "picomatch";
import { afterAll, describe, expect, it } from "vitest";
import { blockMonitor } from "../../bench/support/block-monitor.ts";
import { backtracksHard, everydayGlob, GLOB_BATCH, globMatcher } from "../../app/main/tools/glob-match.ts";
import { createFindTool } from "../../app/main/tools/find.ts";
import { createGrepTool } from "../../app/main/tools/grep.ts";
import { findRipgrep } from "../../app/main/tools/grep-search.ts";
import { runTool, tempDir } from "./helpers.ts";

const project = tempDir("lathe-glob-");
afterAll(() => project.cleanup());
const HOSTILE = `${"*?".repeat(11)}Q`;
/** Alternatives without a repeat: 2^24 ways to fail on a name without Q (found in review: 0.7 s per name inline). */
const ALTERNATIVES = `${"{,?}".repeat(24)}Q`;
const NAMES = ["component-registry-loader.spec.tsx", "component-registry-loader.impl.tsx", "component-registry-loader.main.tsx"];
mkdirSync(path.join(project.dir, "src"));
for (const name of NAMES) writeFileSync(path.join(project.dir, "src", name), "needle\n");

/** Runs `fn` and reports the longest its own code held this (main) thread meanwhile. */
async function longestBlock<T>(fn: () => Promise<T>): Promise<{ value: T; maxMs: number }> {
  const blocks = blockMonitor();
  blocks.start();
  try {
    const value = await fn();
    return { value, maxMs: blocks.max };
  } finally {
    blocks.stop();
  }
}

describe("which globs run inline", () => {
  it.each(["*.ts", "**/*.ts", "src/**/*.test.ts", "{README,LICENSE}*", "*test*", "*.test.*", "[a-z]*.js", "**/node_modules/**", "*.{js,ts}", "a?b?c?d"])(
    "%s runs inline (at most two repeats)",
    (glob) => {
      expect(everydayGlob(glob)).toBe(true);
      expect(backtracksHard(picomatch.makeRe(glob, { dot: true }).source)).toBe(false);
      expect(globMatcher(glob).inline).not.toBeNull();
    },
  );

  it.each([ALTERNATIVES, `${"{?,?}".repeat(26)}Q`, "*({?,?})Q", "{a,b}{c,d}{e,f}", "{a,{b,c}}", "{1..9}", "{a}", "x}", "!(a)", "a|b", "@(a)"])(
    "%s goes to the compute pool: not an everyday glob (alternatives of wildcards, groups, ranges, more than two lists)",
    (glob) => {
      expect(everydayGlob(glob)).toBe(false);
      expect(globMatcher(glob).inline).toBeNull();
    },
  );

  it("reads brackets and escapes in a glob as single characters", () => {
    expect(everydayGlob("[(|)]a\\(b\\|c\\)")).toBe(true);
    expect(everydayGlob("{a-b,c.d,e_f}x{g,h}")).toBe(true);
  });

  it.each(["*a*a*b", "*test*.*", "**/*.test.*", HOSTILE, "a+(b|c)", "*(a*)", "@(a|b)+(x*y)"])("%s goes to the compute pool", (glob) => {
    expect(backtracksHard(picomatch.makeRe(glob, { dot: true }).source)).toBe(true);
    expect(globMatcher(glob).inline).toBeNull();
  });

  it("reads a class and an escape as one atom, and {n,} as a repeat", () => {
    expect(backtracksHard("[*+*]a\\*\\+\\*b")).toBe(false);
    expect(backtracksHard("a*b*c{2,}")).toBe(true);
    expect(backtracksHard("(?:ab){3}c*")).toBe(false);
    expect(backtracksHard("(?:a*){3}")).toBe(true);
    expect(backtracksHard("(?:a|b){2,5}")).toBe(true);
  });
});

describe("a glob matched in the compute pool", () => {
  it("gives picomatch's own answers, over more than one batch", async () => {
    const names = Array.from({ length: GLOB_BATCH + 40 }, (_, i) => [`x${i}.test.ts`, `src/a${i}/b.test.js`, `.hidden${i}.test.md`, `plain${i}`, ""][i % 5]!);
    for (const glob of ["*test*.*", "**/*.test.*", "*e*t*s*"]) {
      const matcher = globMatcher(glob);
      expect(matcher.inline).toBeNull();
      const expected = names.map((n) => picomatch(glob, { dot: true })(n));
      expect(await matcher.filter(names)).toEqual(expected);
      expect(expected.filter(Boolean).length).toBeGreaterThan(0);
    }
  });

  it("find answers a catastrophic glob with a clear error at its budget, without holding the main thread", async () => {
    const find = createFindTool({ projectDir: project.dir, globBudgetMs: 500 });
    const { value: run, maxMs } = await longestBlock(() => runTool(find, { pattern: HOSTILE }));
    expect(run.isError).toBe(true);
    expect(run.text).toMatch(/^The glob "\*\?\*\?.*Q" took more than 0\.5 s to match \d+ names from .* and was stopped/);
    expect(maxMs).toBeLessThan(1_000);
  });

  it("find answers a glob of alternatives the same way", async () => {
    const find = createFindTool({ projectDir: project.dir, globBudgetMs: 500 });
    const { value: run, maxMs } = await longestBlock(() => runTool(find, { pattern: ALTERNATIVES }));
    // Matched in the pool (see "which globs run inline"): within its budget or stopped at it,
    // depending on the machine's speed, never on the main thread (2 s there for these 3 names).
    expect(run.text).toMatch(run.isError ? /took more than 0\.5 s to match/ : /^No files match /);
    expect(maxMs).toBeLessThan(1_000);
  });

  it("find still finds with a glob matched there", async () => {
    const find = createFindTool({ projectDir: project.dir });
    const run = await runTool(find, { pattern: "*registry*loader*.spec.*" });
    expect(run.text).toBe("src/component-registry-loader.spec.tsx");
  });

  it("grep (both engines, name and path globs) neither blocks nor hangs on it", async () => {
    const engines = findRipgrep() ? (["auto", "javascript"] as const) : (["javascript"] as const);
    for (const engine of engines) {
      const grep = createGrepTool({ projectDir: project.dir, engine, regexBudgetMs: 500 });
      for (const glob of [HOSTILE, `src/${HOSTILE}`, ALTERNATIVES]) {
        const { value: run, maxMs } = await longestBlock(() => runTool(grep, { pattern: "needle", glob }));
        expect(maxMs, `${engine} ${glob}`).toBeLessThan(1_000);
        // ripgrep matches a name glob itself (its globs do not backtrack): no file matches.
        if (run.isError) expect(run.text, `${engine} ${glob}`).toMatch(/took more than 0\.5 s|No files were searched/);
        else expect(run.text, `${engine} ${glob}`).toMatch(/^No matches/);
      }
      const found = await runTool(grep, { pattern: "needle", glob: "src/*registry*loader*.spec.*" });
      expect(found.text, engine).toBe("src/component-registry-loader.spec.tsx:1: needle");
    }
  });

  it("an abort stops it at once", async () => {
    const find = createFindTool({ projectDir: project.dir, globBudgetMs: 60_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = performance.now();
    const run = await runTool(find, { pattern: `${"*?".repeat(24)}Q` }, { signal: controller.signal });
    expect(run.text).toBe("Find aborted.");
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
