// The judge walks a path tool's path once: through the platform it is given (path-facts.ts), not
// also through the host's file system (tools/paths.ts asks whether the path is outside the
// project; the judge has its own answer).
import type * as Fs from "node:fs";
import { vi, expect, it } from "vitest";

const asked = vi.hoisted(() => ({ paths: [] as string[] }));
vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof Fs>();
  const existsSync = (p: Fs.PathLike) => {
    asked.paths.push(String(p));
    return fs.existsSync(p);
  };
  return { ...fs, default: { ...fs, existsSync }, existsSync };
});

const { callSubjects } = await import("../../app/main/permissions/call-parts.ts");

it("a path tool's call asks the host's file system nothing when the judge is given its own system", () => {
  const realpath = vi.fn((): string | undefined => undefined);
  const parts = callSubjects("write", { path: "src/deep/file.txt", content: "" }, "/project-that-is-not-here", { platform: "linux", home: "/h", realpath });
  expect(parts.absolutePaths).toEqual(["/project-that-is-not-here/src/deep/file.txt"]);
  expect(realpath).toHaveBeenCalled();
  expect(asked.paths).toEqual([]);
});
