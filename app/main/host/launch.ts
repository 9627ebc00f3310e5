// Entry of the built host (out/host/index.mjs; scripts/build.mjs): turns on Node's compile cache
// for the modules loaded after it, then runs cli.ts, which the build puts in a chunk of its own.
// Compiling the host's code is about a third of a start; with the cache, later starts read V8's
// bytecode instead (kept in Node's default folder under the OS's temporary folder; a missing or
// stale cache only costs the compile). The sources run cli.ts directly.
import { enableCompileCache } from "node:module";

enableCompileCache?.();
await import("./cli.ts");
