// The Node.js version check first: the tests load better-sqlite3, which segfaults on Node 20.
import "./scripts/check-node.mjs";
import { defineConfig } from "vitest/config";

// node-pty is not thread-safe: every test file runs in a forked child process, never a worker thread.
export default defineConfig({
  test: {
    // The loop keeps its conformance tests beside it (app/main/loop/test).
    include: ["test/**/*.test.ts", "app/main/loop/test/**/*.test.ts"],
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // expect.poll waits for what a browser or a process will show "soon" (xterm draws on its next
    // frame): vitest's default of 1 s is too short on a loaded 2-core machine (seen at load 16).
    expect: { poll: { timeout: 5_000 } },
    reporters: ["default", "./test/support/summary-reporter.ts"],
  },
});
