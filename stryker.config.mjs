// Mutation testing (npm run test:mutation): StrykerJS with the Vitest runner over the loop, the
// permissions layer and the store, one folder at a time (scripts/mutation.mjs sets
// LATHE_MUTATE), each judged by the tests of that folder. Not in `npm test` or CI: it is slow (see
// docs/mutation-testing.md for the measured scores, how long runs take, and the surviving mutants
// known to be equivalent). Scope a run to files with `--mutate`, e.g.
// `LATHE_MUTATE=loop npx stryker run --mutate app/main/loop/coercion.ts`.

/**
 * The permissions service and the six files only it uses answer the app (dialogs, questions,
 * the rules screen); only the whole-app tests reach them. They are their own target, judged by
 * those tests, so that the judge and redaction (the rest of the folder) are judged by fast unit
 * tests alone (vitest.mutation.config.ts says which tests each target leaves out).
 */
const PERMISSIONS_APP = ["permissions-service", "call-judge", "output-redaction", "questions", "call-summary", "mcp-rules", "rule-migration"].map(
  (file) => `app/main/permissions/${file}.ts`,
);

/** Which folder is mutated, and which tests judge it. */
const TARGETS = {
  loop: { mutate: ["app/main/loop/**/*.ts", "!app/main/loop/test/**"], dir: "app/main/loop" },
  permissions: { mutate: ["app/main/permissions/**/*.ts", ...PERMISSIONS_APP.map((file) => `!${file}`)], dir: "test/permissions" },
  "permissions-app": { mutate: PERMISSIONS_APP, dir: "test/permissions" },
  store: { mutate: ["app/main/store/**/*.ts"], dir: "test/store" },
};

const name = process.env.LATHE_MUTATE ?? "loop";
const target = TARGETS[name];
if (!target) throw new Error(`LATHE_MUTATE must be one of ${Object.keys(TARGETS).join(", ")}; got "${name}"`);

const config = {
  testRunner: "vitest",
  // Forks, as in npm test: node-pty is not thread-safe. One fork per Stryker worker.
  vitest: { configFile: "vitest.mutation.config.ts", dir: target.dir, related: false, pool: "forks" },
  mutate: target.mutate,
  coverageAnalysis: "perTest",
  // Module-level constants need a fresh module graph per mutant: slow, and they are tables and
  // messages; they are left out (reported as ignored, not counted).
  ignoreStatic: true,
  // The machine is shared by several people at once: two workers at most.
  concurrency: Number(process.env.LATHE_MUTATE_CONCURRENCY ?? 2),
  timeoutMS: 20_000,
  // The dry run of a whole folder's tests can take longer than Stryker's 5 minutes on a loaded
  // machine (permissions-app's whole-app tests did).
  dryRunTimeoutMinutes: 30,
  timeoutFactor: 2,
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: `reports/mutation/${name}.html` },
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  // With --incremental, a later run (e.g. scoped with --mutate to one file) reuses this run's
  // results for unchanged code and tests, and keeps the results of files it does not mutate.
  incrementalFile: `reports/mutation/${name}-incremental.json`,
  thresholds: { high: 90, low: 85, break: 85 },
  // One folder per target, so two targets can run at once.
  tempDirName: `.stryker-tmp/${name}`,
  ignorePatterns: ["out", "dist", "reports", "screenshots", "test-results", ".stryker-tmp", "test/renderer", "bench"],
  cleanTempDir: "always",
};

export default config;
