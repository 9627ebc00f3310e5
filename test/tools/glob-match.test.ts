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
import { ComputePool, ComputeTimeoutError } from "../../app/main/workers/compute-pool.ts";
import { createFindTool } from "../../app/main/tools/find.ts";
import { createGrepTool } from "../../app/main/tools/grep.ts";
import { findRipgrep } from "../../app/main/tools/grep-search.ts";
import { runTool, tempDir } from "./helpers.ts";

const project = tempDir("lathe-glob-");
afterAll(() => project.cleanup());
const HOSTILE = `${"*?".repeat(11)}Q`;
/** Alternatives without a repeat: 2^24 ways to fail on a name without Q (found in review: 0.7 s per name inline). */
const ALTERNATIVES = `${"{,?}".repeat(24)}Q`;
/** The same, 2^30 ways: past a budget of 0.5 s on a name of 34 characters on any machine. */
const SLOW_ALTERNATIVES = `${"{,?}".repeat(30)}Q`;
const NAMES = ["component-registry-loader.spec.tsx", "component-registry-loader.impl.tsx", "component-registry-loader.main.tsx"];
mkdirSync(path.join(project.dir, "src"));
for (const name of NAMES) writeFileSync(path.join(project.dir, "src", name), "needle\n");

/** The error of a glob stopped at a budget of 0.5 s, its last batch `batch`. */
function tooSlow(glob: string, batch: string): string {
  return (
    `The glob ${JSON.stringify(glob)} took more than 0.5 s in all to match names in this call (the last batch: ${batch}) and was stopped: ` +
    "a glob of many * wildcards, alternatives or extglobs backtracks on long names. Use a simpler glob."
  );
}

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
    expect(run).toMatchObject({ isError: true, text: tooSlow(HOSTILE, "4 names from src") });
    expect(maxMs).toBeLessThan(1_000);
  });

  it("find answers a glob of alternatives the same way, and matches it within a budget that allows it", async () => {
    const find = createFindTool({ projectDir: project.dir, globBudgetMs: 500 });
    const { value: run, maxMs } = await longestBlock(() => runTool(find, { pattern: SLOW_ALTERNATIVES }));
    expect(run).toMatchObject({ isError: true, text: tooSlow(SLOW_ALTERNATIVES, "4 names from src") });
    expect(maxMs).toBeLessThan(1_000);
    // ALTERNATIVES takes 0.1 to 0.7 s a name, by the machine: never on the main thread (2 s there for these 3 names).
    const patient = createFindTool({ projectDir: project.dir, globBudgetMs: 60_000 });
    const { value: matched, maxMs: patientMaxMs } = await longestBlock(() => runTool(patient, { pattern: ALTERNATIVES }));
    expect(matched).toMatchObject({ isError: false, text: `No files match ${JSON.stringify(ALTERNATIVES)} in ..` });
    expect(patientMaxMs).toBeLessThan(1_000);
  }, 60_000);

  it("find still finds with a glob matched there", async () => {
    const find = createFindTool({ projectDir: project.dir });
    const run = await runTool(find, { pattern: "*registry*loader*.spec.*" });
    expect(run.text).toBe("src/component-registry-loader.spec.tsx");
  });

  it("grep (both engines, name and path globs) neither blocks nor hangs on it, and answers each exactly", async () => {
    const none = { isError: false, text: 'No matches for "needle" in ..' };
    const stopped = (glob: string) => ({ isError: true, text: tooSlow(glob, `3 names from ${glob.startsWith("src/") ? "src/" : ""}component-registry-loader.impl.tsx`) });
    const expected = {
      // ripgrep matches a name glob itself (its globs do not backtrack): no file matches. A path
      // glob that is not an everyday one is left to the JavaScript engine (ripgrepCanFilter).
      auto: { [HOSTILE]: none, [`src/${HOSTILE}`]: stopped(`src/${HOSTILE}`), [SLOW_ALTERNATIVES]: none },
      // Matched in the pool, each past its budget on the first name of 34 characters.
      javascript: { [HOSTILE]: stopped(HOSTILE), [`src/${HOSTILE}`]: stopped(`src/${HOSTILE}`), [SLOW_ALTERNATIVES]: stopped(SLOW_ALTERNATIVES) },
    };
    const engines = findRipgrep() ? (["auto", "javascript"] as const) : (["javascript"] as const);
    for (const engine of engines) {
      const grep = createGrepTool({ projectDir: project.dir, engine, regexBudgetMs: 500 });
      for (const [glob, answer] of Object.entries(expected[engine])) {
        const { value: run, maxMs } = await longestBlock(() => runTool(grep, { pattern: "needle", glob }));
        expect(maxMs, `${engine} ${glob}`).toBeLessThan(1_000);
        expect({ isError: run.isError, text: run.text }, `${engine} ${glob}`).toEqual(answer);
      }
      const found = await runTool(grep, { pattern: "needle", glob: "src/*registry*loader*.spec.*" });
      expect(found.text, engine).toBe("src/component-registry-loader.spec.tsx:1: needle");
    }
  }, 60_000);

  it("spends one budget of matching time over all the batches of a call", async () => {
    // Tens of milliseconds of matching per call of 3 names (7 stars and Q on names of 34 characters).
    const glob = `${"*?".repeat(7)}Q`;
    const matcher = globMatcher(glob, { budgetMs: 1_500 });
    let calls = 0;
    let longestMs = 0;
    const stopped = await (async () => {
      for (; calls < 400; calls++) {
        const started = performance.now();
        expect(await matcher.filter(NAMES)).toEqual([false, false, false]);
        longestMs = Math.max(longestMs, performance.now() - started);
      }
    })().then(
      () => null,
      (err: Error) => err.message,
    );
    // With a budget per batch, each call stayed far within it and all 400 passed.
    expect(stopped).toBe(tooSlow(glob, "3 names from component-registry-loader.spec.tsx").replace("0.5 s", "1.5 s"));
    expect(calls).toBeGreaterThan(1);
    expect(longestMs).toBeLessThan(1_500);
    // The budget stays spent for the rest of the call.
    await expect(matcher.filter(["x"])).rejects.toThrow(/^The glob "(\*\?){7}Q" took more than 1\.5 s in all to match names in this call \(the last batch: x\)/);
  }, 120_000);

  it("does not count a wait for a free worker as the glob's time", async () => {
    const single = new ComputePool({ size: 1 });
    try {
      // Another call's runaway glob holds the only worker for 1.5 s.
      const busy = single.run({ kind: "glob", source: picomatch.makeRe(HOSTILE, { dot: true }).source, flags: "", glob: HOSTILE, subjects: NAMES }, { timeoutMs: 1_500 });
      const waited = globMatcher("*test*.*", { pool: single, budgetMs: 1_000 }).filter(["a.test.ts", "b.ts"]);
      await expect(busy).rejects.toBeInstanceOf(ComputeTimeoutError);
      // Before, its 1 s ran out in the queue: "took more than 1 s ... (a wait for a free worker included)".
      expect(await waited).toEqual([true, false]);
    } finally {
      await single.close();
    }
  });

  it("caps the time a call waits and matches in all, with one error naming the glob", async () => {
    const single = new ComputePool({ size: 1 });
    const blocker = new AbortController();
    try {
      const busy = single.run(
        { kind: "glob", source: picomatch.makeRe(HOSTILE, { dot: true }).source, flags: "", glob: HOSTILE, subjects: NAMES },
        { timeoutMs: 60_000, signal: blocker.signal },
      );
      busy.catch(() => undefined);
      const matcher = globMatcher("*test*.*", { pool: single, capMs: 1_000 });
      const started = performance.now();
      await expect(matcher.filter(["a.test.ts"])).rejects.toThrow(
        /^The glob "\*test\*\.\*" was not matched within 1 s in this call, waits for a free background worker included, and was stopped: the workers were busy/,
      );
      expect(performance.now() - started).toBeLessThan(5_000);
      // The cap is the call's: once spent, a later batch is refused at once.
      await expect(matcher.filter(["b.test.ts"])).rejects.toThrow(/was not matched within 1 s in this call/);
    } finally {
      blocker.abort();
      await single.close();
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
