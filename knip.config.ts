// knip (npm run lint): unused files, exports, types and dependencies. Every entry and ignore below
// says why it is there; nothing else is exempt. knip 6 no longer reports unused class members:
// those were checked by hand with TypeScript's find-references when knip was added (issue 20).
import type { KnipConfig } from "knip";

const config: KnipConfig = {
  entry: [
    // What scripts/build.mjs bundles: the Electron main process, the headless host, the compute
    // pool's worker thread and the preload (the renderer's entry comes from vite.config.ts).
    "app/main/electron/main.ts",
    "app/main/host/launch.ts",
    "app/main/workers/compute-worker.ts",
    "app/main/workers/snapshot-process.ts",
    "app/preload/index.ts",
    // The loop is a package of its own: its index is its public API (docs/agent-loop.md), used
    // in part by this app, so its exports are not reported.
    "app/main/loop/index.ts",
    // Run by npm scripts and by hand (node build/make-icons.mjs after editing the icon).
    "scripts/*.{mjs,ts}",
    "bench/*.bench.ts",
    "build/make-icons.mjs",
    // Started as child processes by path (a fake MCP server, a crashing writer, an environment holder).
    "bench/mcp-fixture-server.ts",
    // bench:ui's services process, forked by path.
    "bench/support/ui-host-process.ts",
    "test/**/fixtures/*.ts",
    // Vitest's configuration for mutation testing, named in stryker.config.mjs.
    "vitest.mutation.config.ts",
  ],
  project: ["app/**/*.{ts,tsx}", "scripts/**/*.{mjs,ts}", "bench/**/*.ts", "build/**/*.mjs", "test/**/*.{ts,cjs}", "*.config.{ts,js}"],
  // An export a file also uses itself is part of its contract, not dead code.
  ignoreExportsUsedInFile: true,
  // System programs the tests and benchmarks run, not npm packages: mkfifo (a FIFO that must not
  // hang a tool), script (util-linux's pty baseline), mount/umount (a full tmpfs in test/app/tmpfs),
  // gcc (the terminal reader built with AddressSanitizer in test/tools/pty-reader.test.ts), setpriv
  // (bench:ui starts Chromium without CAP_SYS_NICE when it runs as root), bindfs/fusermount (the
  // FUSE mount bench:hung-mount stops).
  ignoreBinaries: ["mkfifo", "script", "mount", "umount", "gcc", "setpriv", "bindfs", "fusermount"],
  // Pinned on main for the renderer's accessibility scans (the design-tokens commit); no file loads
  // it yet. Listed so lint passes on the merge: remove it here once a scan uses it, or drop the package.
  ignoreDependencies: ["axe-core"],
};

export default config;
