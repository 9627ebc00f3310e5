// node-pty 1.1.0 rewrites its spawn helper's path from "app.asar" to "app.asar.unpacked" even
// when it was itself loaded from app.asar.unpacked, as the pty host's worker (which runs unpacked
// beside app.asar) loads it: the path becomes ".../app.asar.unpacked.unpacked/.../spawn-helper",
// which does not exist, and on macOS, where node-pty starts every command through that helper,
// every command would fail (microsoft/node-pty#923). `withSpawnHelperFixed` wraps node-pty's native
// fork so that the helper's path it is given is corrected. Never throws.

/** The helper's path with a doubled ".unpacked" (or "node_modules.asar.unpacked") made single. */
export function fixedSpawnHelperPath(helperPath: string): string {
  return helperPath.replace(/(app|node_modules)\.asar\.unpacked\.unpacked/g, "$1.asar.unpacked");
}

type NativePty = { fork?: (...args: unknown[]) => unknown };

/** Wraps `native.fork` (node-pty's native module: its 10th argument is the helper's path). */
export function withSpawnHelperFixed(native: NativePty): void {
  const fork = native.fork;
  if (typeof fork !== "function") return;
  native.fork = function (this: unknown, ...args: unknown[]) {
    if (typeof args[9] === "string") args[9] = fixedSpawnHelperPath(args[9]);
    return fork.apply(this, args);
  };
}
