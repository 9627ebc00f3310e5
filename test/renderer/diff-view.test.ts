// The diff view's reading of unified diffs (noise headers dropped, line numbers, Lathe's notes,
// argument previews), its side-by-side pairing, and syntax highlighting cut back into lines.
import { describe, expect, test } from "vitest";
import { diffStats, parseDiff, splitRows } from "../../app/renderer/src/session/diff-parse.ts";
import { highlightFile, languageOf } from "../../app/renderer/src/session/diff-highlight.ts";

const JSDIFF = [
  "Index: src/math.js",
  "===================================================================",
  "--- src/math.js",
  "+++ src/math.js",
  "@@ -1,3 +1,3 @@",
  " export function add(a, b) {",
  "-  return a - b;",
  "+  return a + b;",
  " }",
  "",
].join("\n");

describe("parseDiff", () => {
  test("drops Index and ===== headers and numbers old and new lines", () => {
    const [file, ...rest] = parseDiff(JSDIFF);
    expect(rest).toHaveLength(0);
    expect(file).toMatchObject({ path: "src/math.js", added: 1, removed: 1 });
    expect(file!.hunks[0]!.lines.map((l) => [l.kind, l.oldLine, l.newLine, l.text])).toEqual([
      ["context", 1, 1, "export function add(a, b) {"],
      ["del", 2, null, "  return a - b;"],
      ["add", null, 2, "  return a + b;"],
      ["context", 3, 3, "}"],
    ]);
    expect(JSON.stringify(parseDiff(JSDIFF))).not.toContain("Index:");
    expect(diffStats(JSDIFF)).toEqual({ files: ["src/math.js"], added: 1, removed: 1 });
  });

  test("git headers, several files, a new file, notes and '\\ No newline'", () => {
    const text = [
      "diff --git a/a.ts b/a.ts",
      "index 1234abc..5678def 100644",
      "--- a/a.ts",
      "+++ b/a.ts",
      "@@ -0,0 +1,2 @@",
      "+one",
      "+two",
      "\\ No newline at end of file",
      "--- /dev/null",
      "+++ b/new.py",
      "@@ -1 +1 @@",
      "-x",
      "+y",
      "@@ diff too large to show in full @@",
    ].join("\n");
    const files = parseDiff(text);
    expect(files.map((f) => [f.path, f.added, f.removed])).toEqual([
      ["a.ts", 2, 0],
      ["new.py", 1, 1],
    ]);
    expect(files[0]!.hunks[0]!.lines[0]).toMatchObject({ kind: "add", newLine: 1 });
    expect(files[0]!.hunks[0]!.lines[2]).toMatchObject({ kind: "note", text: "No newline at end of file" });
    expect(files[1]!.hunks[0]!.lines.at(-1)).toMatchObject({ kind: "note", text: "diff too large to show in full" });
  });

  test("argument previews (@@ edit @@ pieces) and content lines that look like headers", () => {
    const files = parseDiff(["--- notes.txt", "+++ notes.txt", "@@ edit @@", "--- old", "+++ new", "@@ edit @@", "-a", "+b"].join("\n"));
    expect(files).toHaveLength(1);
    expect(files[0]!.hunks.map((h) => h.lines.map((l) => `${l.kind}:${l.text}`))).toEqual([
      ["del:-- old", "add:++ new"],
      ["del:a", "add:b"],
    ]);
  });

  test("side by side pairs each run of removals with the additions after it", () => {
    const hunk = parseDiff(["@@ -1,4 +1,3 @@", " a", "-b", "-c", "+B", " d", "+e"].join("\n"))[0]!.hunks[0]!;
    expect(splitRows(hunk).map((r) => [r.left?.text ?? null, r.right?.text ?? null])).toEqual([
      ["a", "a"],
      ["b", "B"],
      ["c", null],
      ["d", "d"],
      [null, "e"],
    ]);
  });
});

describe("highlighting", () => {
  test("languages come from file names; unknown ones stay plain", () => {
    expect(languageOf("src/a.tsx")).toBe("typescript");
    expect(languageOf("Makefile")).toBe("makefile");
    expect(languageOf("notes.txt")).toBeUndefined();
    expect(highlightFile(parseDiff(["--- a.txt", "+++ a.txt", "@@ -1 +1 @@", "-x", "+y"].join("\n"))[0]!).size).toBe(0);
  });

  test("each line gets its own segments, a comment spanning lines included", () => {
    const file = parseDiff(["--- a.js", "+++ a.js", "@@ -1,2 +1,3 @@", " /* start", "+still comment */", " const x = 'q';"].join("\n"))[0]!;
    const colours = highlightFile(file);
    const [first, second, third] = file.hunks[0]!.lines;
    expect(colours.get(first!)?.[0]).toMatchObject({ className: "hljs-comment" });
    expect(colours.get(second!)?.map((s) => s.className)).toEqual(["hljs-comment"]);
    expect(colours.get(third!)?.some((s) => s.className === "hljs-keyword" && s.text === "const")).toBe(true);
    expect(
      colours
        .get(third!)
        ?.map((s) => s.text)
        .join(""),
    ).toBe("const x = 'q';");
  });
});
