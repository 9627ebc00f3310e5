// A real tmpfs of a given size, for the tests of a full disk. Mounting needs root on Linux: where
// it cannot be mounted, `missing` says so (for describeWhen). Registers its own unmount with the
// suite's afterAll; call it at the top level of a test file.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll } from "vitest";
import type { Missing } from "./requirements.ts";

export interface ScratchTmpfs {
  /** The mount point (a plain empty folder when the mount failed). */
  dir: string;
  missing: Missing;
  /** Remounts with a new size (for example "64m"), as when space comes back. */
  resize(size: string): void;
}

export function scratchTmpfs(prefix: string, size: string): ScratchTmpfs {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  let missing: Missing = null;
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size},mode=0700`, "tmpfs", dir], { stdio: "ignore" });
  } catch {
    missing = "needs to mount a tmpfs (root on Linux)";
  }
  afterAll(() => {
    if (missing === null) execFileSync("umount", ["-l", dir], { stdio: "ignore" });
    rmSync(dir, { recursive: true, force: true });
  });
  return { dir, missing, resize: (newSize) => execFileSync("mount", ["-o", `remount,size=${newSize}`, dir]) };
}
