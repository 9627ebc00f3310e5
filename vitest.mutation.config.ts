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

const SLOW_TESTS: Record<string, string[]> = {
  loop: [],
  // The app harness (router, sessions, a scripted model) per test. The corpus stays: its real
  // shell runs reach no code of this folder, so per-test coverage never reruns them.
  permissions: ["approval-flow.test.ts", "dialogs.test.ts"],
  // The permissions service and the files only it uses (stryker.config.mjs): judged by the
  // whole-app tests, the only ones that reach them.
  "permissions-app": [],
  // A writer killed with SIGKILL in a child process; a 100,000-message session built and read
  // whole (a minute and more per test here).
  store: ["crash.test.ts", "paging.test.ts"],
};

const target = process.env.LATHE_MUTATE ?? "loop";

export default mergeConfig(base, defineConfig({ test: { include: ["**/*.test.ts"], exclude: [...configDefaults.exclude, ...(SLOW_TESTS[target] ?? [])] } }));
