// Prints the closing line CI reads: "N passed, N failed, N skipped". A file that fails to load
// or whose hooks fail, and an unhandled error, each count as a failure, so a broken file never
// disappears from the count. With LATHE_FAIL_ON_SKIP=1 (set by .ci/run) a skipped test is a
// failure too, named on its own line (its reason was printed when its file loaded: see
// test/support/requirements.ts), and the run exits non-zero.
import type { Reporter, TestModule } from "vitest/node";

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    const failOnSkip = process.env.LATHE_FAIL_ON_SKIP === "1";
    for (const mod of testModules) {
      let failedHere = 0;
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failedHere++;
        else if (failOnSkip) {
          failedHere++;
          process.stdout.write(`skipped, counted as a failure (LATHE_FAIL_ON_SKIP=1): ${mod.moduleId} > ${test.fullName}\n`);
        } else skipped++;
      }
      // A file that failed without a failing test (it did not load, or a hook threw) is a failure.
      if (mod.state() === "failed" && failedHere === 0) failedHere = 1;
      failed += failedHere;
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
    if (failed > 0) process.exitCode = 1;
  }
}
