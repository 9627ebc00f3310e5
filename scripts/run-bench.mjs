// Runs a benchmark the way the code ships: bench/NAME.bench.ts is bundled with esbuild to plain
// JavaScript first (as the app's main process is), so the figures do not include Node's
// TypeScript stripper (about 40 MB of RSS). Usage: node scripts/run-bench.mjs NAME [args...]
import "./check-node.mjs";
import { build } from "esbuild";
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

const [name, ...args] = process.argv.slice(2);
if (!name) {
  console.error("usage: node scripts/run-bench.mjs NAME [args...]");
  process.exit(2);
}
const root = fileURLToPath(new URL("..", import.meta.url));
const outfile = `${root}out/bench/${name}.bench.mjs`;
// The compute pool's worker thread, beside the bundle as in the app (see scripts/build.mjs).
await build({
  entryPoints: [`${root}app/main/workers/compute-worker.ts`],
  outfile: `${root}out/bench/compute-worker.cjs`,
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node22",
  logLevel: "warning",
});
// The first checkpoint's process, beside the bundle as in the app (its compute pool finds the worker beside it).
await build({
  entryPoints: [`${root}app/main/workers/snapshot-process.ts`],
  outfile: `${root}out/bench/snapshot-process.cjs`,
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node22",
  define: { "import.meta.url": "__lathe_import_meta_url" },
  banner: { js: 'var __lathe_import_meta_url = require("url").pathToFileURL(__filename).href;' },
  logLevel: "warning",
});
// The terminal reader's binary, beside the bundle as in the app (app/main/tools/pty-reader.ts).
const ptyReader = `${root}app/main/tools/native/build/Release/pty_reader.node`;
spawnSync(process.execPath, [`${root}scripts/build-native.mjs`, "--if-stale"], { stdio: "inherit" });
if (existsSync(ptyReader)) {
  mkdirSync(`${root}out/bench/native`, { recursive: true });
  copyFileSync(ptyReader, `${root}out/bench/native/pty_reader.node`);
}
await build({
  entryPoints: [`${root}bench/${name}.bench.ts`],
  outfile,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node22",
  // Bundled like the app: everything but the native modules, which load from node_modules.
  external: ["better-sqlite3", "node-pty"],
  // esbuild's ESM output needs a require for the CommonJS packages it bundles.
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  logLevel: "warning",
});
const run = spawnSync(process.execPath, ["--expose-gc", outfile, ...args], { stdio: "inherit" });
process.exit(run.status ?? 1);
