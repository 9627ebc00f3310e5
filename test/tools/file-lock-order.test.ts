// Writes and edits of one file run in the order their calls began, as a parallel batch starts them
// all in one turn, even though each call's real path is asked off the event loop (which answers
// in any order): a deep path and a short link to the same folder, or the same path twice. Found in
// review: the later call's lookup finished first and it took the lock first, 20 runs in 20. Each
// session's calls are admitted on their own line.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createEditTool } from "../../app/main/tools/edit.ts";
import { FileLockAdmission, withFileLock } from "../../app/main/tools/file-lock.ts";
import { createWriteTool } from "../../app/main/tools/write.ts";
import { tempDir } from "./helpers.ts";

const project = tempDir();
afterAll(() => project.cleanup());
const deep = "a/b/c/d/e/f/g";
mkdirSync(path.join(project.dir, deep), { recursive: true });
symlinkSync(path.join(project.dir, deep), path.join(project.dir, "L"));
const write = createWriteTool({ projectDir: project.dir });
const edit = createEditTool({ projectDir: project.dir });
const run = (tool: typeof write | typeof edit, args: unknown) => tool.execute("c", args as never, undefined, () => undefined);

describe("the file lock", () => {
  it("admits calls in the order they began, whatever order their real paths are found in", async () => {
    for (let i = 0; i < 10; i++) {
      const name = `new${i}.txt`;
      await Promise.all([run(write, { path: `${deep}/${name}`, content: "first" }), run(write, { path: `L/${name}`, content: "second" })]);
      expect(readFileSync(path.join(project.dir, deep, name), "utf8")).toBe("second");
    }
  });

  it("applies edits of one file in call order: the second edits what the first wrote", async () => {
    for (let i = 0; i < 10; i++) {
      const name = `edit${i}.txt`;
      writeFileSync(path.join(project.dir, deep, name), "foo\n");
      await Promise.all([
        run(edit, { path: `${deep}/${name}`, edits: [{ oldText: "foo", newText: "bar" }] }),
        run(edit, { path: `L/${name}`, edits: [{ oldText: "bar", newText: "baz" }] }),
      ]);
      expect(readFileSync(path.join(project.dir, deep, name), "utf8")).toBe("baz\n");
    }
  });

  it("admits each session's calls on its own: one held up (a mount that does not answer) holds no other session's writes", async () => {
    const stuck = new FileLockAdmission();
    stuck.last = new Promise(() => undefined); // an admission that never ends
    const held = withFileLock(path.join(project.dir, "held.txt"), async () => "ran", stuck);
    const other = createWriteTool({ projectDir: project.dir, admission: new FileLockAdmission() });
    await run(other, { path: "free.txt", content: "written" });
    expect(readFileSync(path.join(project.dir, "free.txt"), "utf8")).toBe("written");
    expect(await Promise.race([held, new Promise((r) => setTimeout(() => r("still waiting"), 50))])).toBe("still waiting");
  });
});
