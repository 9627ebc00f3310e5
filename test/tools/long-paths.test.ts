// A model's path of 200,000 names: what it touches is judged at once, and right. The real path was
// found by walking up from the end, one system call per name, each copying the whole prefix: a
// path of 100,000 names held the main thread 1.5 s, 200,000 about 6 s, a million minutes (and a
// tool argument may hold 8 million characters).
import { mkdirSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { describeToolPaths, realPathOf } from "../../app/main/tools/paths.ts";
import { tempDir } from "./helpers.ts";

const project = tempDir("lathe-long-paths-");
const outside = tempDir("lathe-long-paths-outside-");
afterAll(() => {
  project.cleanup();
  outside.cleanup();
});

it("a path of 200,000 names through a link out of the project is judged outside, in a fraction of the old walk's 6 s", async () => {
  symlinkSync(outside.dir, path.join(project.dir, "out"));
  mkdirSync(path.join(project.dir, "src", "deep"), { recursive: true });
  const names = "a/".repeat(200_000);
  // The main thread's CPU time, not the wall clock: a loaded CI machine stretches the latter (1.2 s
  // seen at load 10 for about 0.3 s of work).
  const started = process.threadCpuUsage();
  const [through] = await describeToolPaths("write", { path: `out/${names}x.txt` }, project.dir);
  const [inside] = await describeToolPaths("write", { path: `src/deep/${names}x.txt` }, project.dir);
  const cpu = process.threadCpuUsage(started);
  const elapsedCpuMs = (cpu.user + cpu.system) / 1000;
  expect(through).toEqual({ path: path.join(project.dir, "out", names, "x.txt"), outsideProject: true });
  expect(inside!.outsideProject).toBe(false);
  expect(realPathOf(path.join(project.dir, "out", names, "x.txt"))).toBe(path.join(outside.dir, names, "x.txt"));
  expect(elapsedCpuMs).toBeLessThan(2_000);
});

it("the nearest existing ancestor is still the one resolved: a link deep inside, a file on the way, a trailing slash", () => {
  mkdirSync(path.join(project.dir, "x", "y"), { recursive: true });
  symlinkSync(outside.dir, path.join(project.dir, "x", "y", "link"));
  expect(realPathOf(path.join(project.dir, "x", "y", "link", "new", "file.txt"))).toBe(path.join(outside.dir, "new", "file.txt"));
  expect(realPathOf(path.join(project.dir, "x", "y", "link"))).toBe(outside.dir);
  expect(realPathOf(`${path.join(project.dir, "x", "y")}/`)).toBe(path.join(project.dir, "x", "y"));
  expect(realPathOf(path.join(project.dir, "x", "missing", "y", "link"))).toBe(path.join(project.dir, "x", "missing", "y", "link"));
});
