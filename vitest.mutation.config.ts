// Vitest as Stryker runs it (stryker.config.mjs): the project's settings, with test files found at
// any depth under the folder Stryker names as `dir` (test/store, test/permissions, app/main/loop),
// since Vitest matches `include` relative to that folder.
//
// Each folder is judged by its fast unit tests. The whole-app and child-process tests below stay
// in `npm test`, but not here: they cover nearly every line of the folder, so with per-test
// coverage Stryker would rerun them (seconds each) for almost every mutant, turning an hour into
// a day on two shared cores. LATHE_MUTATE names the folder (set by scripts/mutation.mjs).
import { configDefaults, defineConfig, mergeConfig } from "vitest/config";
import base from "./vitest.config.ts";

/** The unit tests of the permissions-app target's files (test/permissions). */
const PERMISSIONS_APP_TESTS = [
  "mcp-rules.test.ts",
  "rule-migration.test.ts",
  "output-redaction.test.ts",
  "call-summary.test.ts",
  "questions.test.ts",
  "call-judge.test.ts",
  "call-judge-no-parser.test.ts",
  "permissions-service.test.ts",
];

/**
 * Test files (relative to the target's folder) each target leaves out, or the only ones it runs;
 * `isolate`: a fresh module graph per test file and run (see below).
 */
const TESTS: Record<string, { exclude?: string[]; only?: string[]; isolate?: boolean }> = {
  loop: {},
  // The app harness (router, sessions, a scripted model) per test. The corpus stays: its real
  // shell runs reach no code of this folder, so per-test coverage never reruns them.
  // Isolated: the folder keeps module-level caches (parsed bash patterns, path matchers, secret
  // scanners, the shell parser's scratch state), and without isolation the fork and its modules
  // outlive a mutant's run, so a later run read what an earlier mutant had cached: mutants of
  // cached code "survived" (bash-rules.ts's parser) and stale results could fail other runs.
  // The unit tests of permissions-app's files (below) are left out too: they judge that target;
  // here they would only add covering tests to mutants already judged by this folder's own unit
  // tests, so the next incremental run would retest every mutant they reach.
  permissions: { exclude: ["approval-flow.test.ts", "dialogs.test.ts", ...PERMISSIONS_APP_TESTS], isolate: true },
  // The permissions service and the files only it uses (stryker.config.mjs), judged by their own
  // unit tests, which build the service and its parts directly with in-memory stand-ins
  // (permission-fakes.ts). The whole-app tests (approval-flow, dialogs) stay in npm test but not
  // here: they start the app harness (router, sessions, a scripted model, real shells) per test
  // and reach nearly every line of these files, so per-test coverage would rerun them, seconds
  // each, for almost every mutant (hours with one worker). Isolated, as the permissions target.
  "permissions-app": { only: PERMISSIONS_APP_TESTS, isolate: true },
  // A writer killed with SIGKILL in a child process; a 100,000-message session built and read
  // whole (35 to 53 s per test on the shared machine).
  store: { exclude: ["crash.test.ts", "paging.test.ts"] },
};

const target = TESTS[process.env.LATHE_MUTATE ?? "loop"] ?? {};

export default mergeConfig(
  base,
  defineConfig({
    test: {
      include: target.only ?? ["**/*.test.ts"],
      exclude: [...configDefaults.exclude, ...(target.exclude ?? [])],
      // One fork reused for every test file of a mutant's run, instead of a new fork (spawn, module
      // graph, environment) per file: measured 2.8 to 2.1 s per mutant on store/tool-calls.ts
      // (docs/mutation-testing.md). Safe only for code without module-level state that outlives a
      // test (the fork, and its modules, are reused by later mutants' runs): the store keeps none
      // but per-connection statement caches, the loop none; the permissions targets set isolate.
      // Still forks, never threads: node-pty is not thread-safe and process.umask() (the store's
      // tests) is refused in worker threads.
      isolate: target.isolate ?? false,
      // Instrumented code runs several times slower, and the dry run counts every test's coverage:
      // keyword-scan.test.ts's grams test (a quarter of a second in npm test) took over 20 s in
      // the permissions target's dry run at load average 7 (2026-12-03), which then failed.
      testTimeout: 90_000,
    },
  }),
);
