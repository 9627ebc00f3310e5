import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createEditTool, type EditDetails } from "../../app/main/tools/edit.ts";
import { EditError } from "../../app/main/tools/edit-match.ts";
import { createWriteTool } from "../../app/main/tools/write.ts";
import { runTool, tempDir } from "./helpers.ts";

const project = tempDir();
afterAll(() => project.cleanup());
const edit = createEditTool({ projectDir: project.dir });
const file = (name: string) => path.join(project.dir, name);

const SOURCE = ["function add(a, b) {", "  return a + b;", "}", "", "function sub(a, b) {", "  return a - b;", "}", ""].join("\n");

async function editError(name: string, edits: { oldText: string; newText: string }[]): Promise<EditError> {
  const run = await runTool(edit, { path: name, edits });
  expect(run.isError).toBe(true);
  expect(run.error).toBeInstanceOf(EditError);
  return run.error as EditError;
}

describe("edit", () => {
  it("applies several edits, each matched against the original, with a diff and the first changed line", async () => {
    writeFileSync(file("math.js"), SOURCE);
    const run = await runTool(edit, {
      path: "math.js",
      edits: [
        { oldText: "  return a - b;", newText: "  return a - b; // difference" },
        { oldText: "function add(a, b) {", newText: "function add(a, b) {\n  // sum" },
      ],
    });
    expect(run.isError).toBe(false);
    expect(readFileSync(file("math.js"), "utf8")).toBe(SOURCE.replace("  return a - b;", "  return a - b; // difference").replace("add(a, b) {", "add(a, b) {\n  // sum"));
    const details = run.result!.details as EditDetails;
    expect(details.firstChangedLine).toBe(2);
    expect(details.diff).toContain("+  // sum");
    expect(details.diff).toContain("-  return a - b;");
    expect(details.normalizedEdits).toEqual([]);
    expect(run.text).toContain("2 replacements");
  });

  it("says not found, showing the closest lines", async () => {
    writeFileSync(file("nf.js"), SOURCE);
    const err = await editError("nf.js", [{ oldText: "function sub(x, y) {\n  return x - y;", newText: "z" }]);
    expect(err.kind).toBe("not_found");
    expect(err.message).toContain("Edit #1: oldText was not found");
    expect(err.message).toContain("closest text is at lines 5-6");
    expect(err.message).toContain("     5\tfunction sub(a, b) {");
    expect(readFileSync(file("nf.js"), "utf8")).toBe(SOURCE);
  });

  it("says how many times an ambiguous oldText is found, and where", async () => {
    writeFileSync(file("amb.js"), SOURCE);
    const err = await editError("amb.js", [{ oldText: "(a, b) {", newText: "(x) {" }]);
    expect(err.kind).toBe("ambiguous");
    expect(err.message).toContain("found 2 times (at lines 1, 5)");
  });

  it("rejects overlapping edits, edits that change nothing, and empty oldText", async () => {
    writeFileSync(file("ov.js"), SOURCE);
    const overlap = await editError("ov.js", [
      { oldText: "function add(a, b) {\n  return a + b;", newText: "x" },
      { oldText: "  return a + b;\n}", newText: "y" },
    ]);
    expect(overlap.kind).toBe("overlap");
    expect(overlap.message).toContain("Edits #1 and #2 overlap");
    const noChange = await editError("ov.js", [{ oldText: "return a + b;", newText: "return a + b;" }]);
    expect(noChange.kind).toBe("no_change");
    const empty = await editError("ov.js", [{ oldText: "", newText: "x" }]);
    expect(empty.kind).toBe("empty_old_text");
    expect(readFileSync(file("ov.js"), "utf8")).toBe(SOURCE);
    expect((await runTool(edit, { path: "missing.js", edits: [{ oldText: "a", newText: "b" }] })).text).toMatch(/File not found: missing.js/);
  });

  it("keeps CRLF line endings and a BOM", async () => {
    const original = "\uFEFF" + SOURCE.replaceAll("\n", "\r\n");
    writeFileSync(file("win.js"), original);
    const run = await runTool(edit, { path: "win.js", edits: [{ oldText: "  return a + b;\n}", newText: "  return a + b + 0;\n}\n// end add" }] });
    expect(run.isError).toBe(false);
    const after = readFileSync(file("win.js"), "utf8");
    expect(after).toBe(original.replace("  return a + b;\r\n}", "  return a + b + 0;\r\n}\r\n// end add"));
    expect(after.startsWith("\uFEFF")).toBe(true);
    expect(after.replaceAll("\r\n", "").includes("\n")).toBe(false);
    expect(run.result!.details).toMatchObject({ lineEnding: "crlf", bom: true });
  });

  it("matches after whitespace and quote normalisation, and says so", async () => {
    writeFileSync(file("q.js"), "const msg = \u201Chello\u201D;   \nconst n = 1;\n");
    const run = await runTool(edit, { path: "q.js", edits: [{ oldText: 'const msg = "hello";\nconst n = 1;', newText: 'const msg = "bye";\nconst n = 2;' }] });
    expect(run.isError).toBe(false);
    expect(readFileSync(file("q.js"), "utf8")).toBe('const msg = "bye";\nconst n = 2;\n');
    expect(run.text).toContain("matched only after normalising whitespace, quotes or dashes");
    expect(run.result!.details).toMatchObject({ normalizedEdits: [1] });
  });

  it("serializes parallel edits and writes of one file, while other files proceed", async () => {
    writeFileSync(file("shared.txt"), "MARKER\n");
    writeFileSync(file("other.txt"), "OTHER\n");
    const write = createWriteTool({ projectDir: project.dir });
    const calls = Array.from({ length: 12 }, (_, i) => runTool(edit, { path: "shared.txt", edits: [{ oldText: "MARKER\n", newText: `MARKER\nline ${i}\n` }] }, { id: `e${i}` }));
    calls.push(runTool(write, { path: "other.txt", content: "OTHER WRITTEN\n" }));
    calls.push(runTool(edit, { path: "./shared.txt", edits: [{ oldText: "MARKER", newText: "MARKER!" }] }));
    const runs = await Promise.all(calls);
    expect(runs.every((r) => !r.isError)).toBe(true);
    const content = readFileSync(file("shared.txt"), "utf8");
    for (let i = 0; i < 12; i++) expect(content).toContain(`line ${i}\n`);
    expect(content.startsWith("MARKER!\n")).toBe(true);
    expect(readFileSync(file("other.txt"), "utf8")).toBe("OTHER WRITTEN\n");
  });
});
