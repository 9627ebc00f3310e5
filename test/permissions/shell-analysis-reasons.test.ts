// analyzeShell gathers a line's reasons in one set that every call shares (no set made per line):
// a call that throws part way, after reasons were gathered (here the parser not loaded yet, in this
// file's own module graph), must leave none of them to the next call.
import { expect, it } from "vitest";
import { analyzeShell } from "../../app/main/permissions/shell-analysis.ts";
import { loadShellParser } from "../../app/main/permissions/shell-parser.ts";
import { characterReasons } from "../../app/main/permissions/shell-text-checks.ts";

const where = { cwd: "/p", home: "/h" };

it("a call that threw leaves none of its reasons to the next call", async () => {
  const control = "echo \u0001";
  // The characters' reasons come before the parse, which throws.
  expect(characterReasons(control).length).toBeGreaterThan(0);
  expect(() => analyzeShell(control, where)).toThrow(/not loaded/);
  await loadShellParser();
  expect(analyzeShell("ls -l", where).opaque).toEqual([]);
  // The same line, now read, gives its reasons again: the first call had gathered them.
  expect(analyzeShell(control, where).opaque).toEqual([...characterReasons(control)]);
});
