// Suites that need something of the machine (Chromium, a working sandbox, Linux, root to mount a
// tmpfs) say so here. Without it a suite is skipped, and the reason is printed: a skip is never
// silent. CI runs every suite: .ci/run sets LATHE_FAIL_ON_SKIP=1, and then the summary reporter
// counts each skipped test as a failure and names it.
import { describe, it } from "vitest";

/** Why something the suite needs is missing, or null when it is there. */
export type Missing = string | null;

function report(name: string, missing: string): void {
  process.stderr.write(`[skipped] ${name}: ${missing}\n`);
}

/** `describe`, or, when `missing` says what is missing, a skipped describe with its reason printed. */
export function describeWhen(missing: Missing, name: string, fn: () => void): void {
  if (missing === null) return void describe(name, fn);
  report(name, missing);
  describe.skip(name, fn);
}

/** `it`, or, when `missing` says what is missing, a skipped test with its reason printed. */
export function itWhen(missing: Missing, name: string, fn: () => Promise<void> | void, timeout?: number): void {
  if (missing === null) return void it(name, fn, timeout);
  report(name, missing);
  it.skip(name, fn);
}

export function needsLinux(): Missing {
  return process.platform === "linux" ? null : `needs Linux (this is ${process.platform})`;
}
