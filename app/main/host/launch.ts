// Entry of the built host (out/host/index.mjs; scripts/build.mjs): checks the Node.js version
// before anything else loads (better-sqlite3's binary segfaults on Node 20 as it loads), turns on
// Node's compile cache for the modules loaded after it, then runs cli.ts, which the build puts in a
// chunk of its own (so none of its imports loads before the check, and it is cached). Compiling the
// host's code is about a third of a start; with the cache, later starts read V8's bytecode instead
// (kept in Node's default folder under the OS's temporary folder; a missing or stale cache only
// costs the compile). node:module is imported whole: a named import of enableCompileCache would
// fail to link on a Node without it, before the check could speak. The sources run cli.ts directly.
import * as nodeModule from "node:module";
import { EXIT_NODE_TOO_OLD, nodeVersionProblem } from "../../shared/node-version.ts";

const problem = nodeVersionProblem(process.versions.node, process.execPath);
if (problem) {
  console.error(problem);
  process.exit(EXIT_NODE_TOO_OLD);
}
nodeModule.enableCompileCache?.();
await import("./cli.ts");
