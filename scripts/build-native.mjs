// Builds the project's own native module, the terminal reader (app/main/tools/native/, Node-API),
// with node-gyp: run by `npm install` / `npm ci` (postinstall) and by hand after a change of the C
// file. The binary lands in app/main/tools/native/build/Release/pty_reader.node; scripts/build.mjs
// copies it beside the bundles. Node-API: one binary serves Node.js and Electron.
// Without a C compiler (or on Windows, where terminals have no file descriptor) it prints why and
// exits 0: the bash tool then reads terminals through node-pty, as before, only slower.
// With --if-stale (scripts/build.mjs, scripts/run-bench.mjs) it builds only when the binary is
// missing or older than its sources: after a pull that changed the C file, a build or a bench does
// not ship or measure the old binary.
import { spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const directory = path.join(root, "app/main/tools/native");

const binary = path.join(directory, "build/Release/pty_reader.node");
const sources = ["pty-reader.c", "pty-spawn.c", "pipe-spawn.c", "spawn-common.c", "spawn-common.h", "binding.gyp"].map((file) => path.join(directory, file));
if (process.argv.includes("--if-stale") && existsSync(binary) && sources.every((file) => statSync(file).mtimeMs <= statSync(binary).mtimeMs)) process.exit(0);

if (process.platform === "win32") {
  console.log("build-native: skipped on Windows (the bash tool reads terminals through node-pty there)");
  process.exit(0);
}

// npm names its own node-gyp to lifecycle scripts; otherwise the project's (a dev dependency).
const nodeGyp = process.env.npm_config_node_gyp || fileURLToPath(import.meta.resolve("node-gyp/bin/node-gyp.js"));
// Headers: those npm is configured with, else the running Node's own (a Node from a tarball ships
// them), so nothing is downloaded.
const prefix = path.resolve(path.dirname(process.execPath), "..");
const nodedir = process.env.npm_config_nodedir || (existsSync(path.join(prefix, "include/node/node_api.h")) ? prefix : undefined);
const args = [nodeGyp, "rebuild", `--directory=${directory}`, ...(nodedir ? [`--nodedir=${nodedir}`] : []), "--loglevel=warn"];
const result = spawnSync(process.execPath, args, { stdio: "inherit" });
if (result.status !== 0) {
  console.warn(
    "build-native: could not build app/main/tools/native (needs python3, make and a C compiler, as node-pty does);" +
      " the bash tool will read terminals through node-pty, which is slower.",
  );
}
