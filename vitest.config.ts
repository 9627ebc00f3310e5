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
    reporters: ["default", "./test/support/summary-reporter.ts"],
  },
});
