// The edit tool changes only the bytes it is asked to change: characters outside the surrogate
// plane survive the chunked write of the temporary file whatever their position, and a file that
// is not valid UTF-8 is refused (left byte for byte as it was) rather than rewritten with U+FFFD.
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createEditTool } from "../../app/main/tools/edit.ts";
import { firstInvalidUtf8 } from "../../app/main/tools/file-jobs.ts";
import { runTool, tempDir } from "./helpers.ts";

const project = tempDir();
afterAll(() => project.cleanup());
const edit = createEditTool({ projectDir: project.dir });
const file = (name: string) => path.join(project.dir, name);

/** The edit file-jobs.ts writes in chunks of this many UTF-16 units. */
const CHUNK = 1 << 20;

describe("edit keeps the bytes it does not change", () => {
  it("keeps an astral character that straddles the write chunk boundary, byte for byte", async () => {
    const before = Buffer.from("a".repeat(CHUNK - 1) + "😀" + "\nold line\n");
    writeFileSync(file("big.txt"), before);
    const run = await runTool(edit, { path: "big.txt", edits: [{ oldText: "old line", newText: "new line" }] });
    expect(run.isError).toBe(false);
    const after = readFileSync(file("big.txt"));
    expect(after.subarray(CHUNK - 1, CHUNK + 4).toString("hex")).toBe("f09f98800a");
    expect(after.equals(Buffer.from(before.toString("latin1").replace("old line", "new line"), "latin1"))).toBe(true);
  });

  it("keeps it in a CRLF file with a BOM, and in a long newText, too", async () => {
    const body = "b".repeat(CHUNK - 1) + "𝄞" + "\r\nold line\r\n";
    writeFileSync(file("win.txt"), "\uFEFF" + body);
    const newText = "c".repeat(CHUNK - 1) + "🎉" + "\nnew line";
    const run = await runTool(edit, { path: "win.txt", edits: [{ oldText: "old line", newText }] });
    expect(run.isError).toBe(false);
    const expected = Buffer.from("\uFEFF" + body.replace("old line", newText.replaceAll("\n", "\r\n")));
    expect(readFileSync(file("win.txt")).equals(expected)).toBe(true);
    expect(run.result!.details).toMatchObject({ lineEnding: "crlf", bom: true });
  });

  it("refuses an oldText that would leave half of a surrogate pair, changing nothing", async () => {
    const before = Buffer.from("smile 😀 here\n");
    writeFileSync(file("half.txt"), before);
    const run = await runTool(edit, { path: "half.txt", edits: [{ oldText: "smile \uD83D", newText: "frown " }] });
    expect(run.isError).toBe(true);
    expect(run.text).toContain("in the middle of a character");
    expect(readFileSync(file("half.txt")).equals(before)).toBe(true);
  });

  it("refuses a file that is not valid UTF-8, saying where, and leaves it byte-identical", async () => {
    const before = Buffer.concat([Buffer.from("caf"), Buffer.from([0xe9]), Buffer.from(" au lait\nold line\n")]);
    writeFileSync(file("latin1.txt"), before);
    const run = await runTool(edit, { path: "latin1.txt", edits: [{ oldText: "old line", newText: "new line" }] });
    expect(run.isError).toBe(true);
    expect(run.text).toContain("latin1.txt is not valid UTF-8 text (first invalid byte at offset 3, line 1)");
    expect(run.text).toContain("the edit tool only edits UTF-8 files");
    expect(readFileSync(file("latin1.txt")).equals(before)).toBe(true);
  });

  it("finds an invalid byte far past the head that the binary sniffing looks at", async () => {
    const head = "x".repeat(99) + "\n";
    const before = Buffer.concat([Buffer.from("\uFEFF" + head.repeat(1000)), Buffer.from([0xff]), Buffer.from("\nold line\n")]);
    writeFileSync(file("late.txt"), before);
    const run = await runTool(edit, { path: "late.txt", edits: [{ oldText: "old line", newText: "new line" }] });
    expect(run.isError).toBe(true);
    expect(run.text).toContain("(first invalid byte at offset 100003, line 1001)");
    expect(readFileSync(file("late.txt")).equals(before)).toBe(true);
  });

  it("still edits valid UTF-8 that holds U+FFFD, other astral characters and a second BOM", async () => {
    const before = Buffer.from("\uFEFF\uFEFFkeep \uFFFD and 𐍈 ✓\nold line\n");
    writeFileSync(file("valid.txt"), before);
    const run = await runTool(edit, { path: "valid.txt", edits: [{ oldText: "old line", newText: "new line" }] });
    expect(run.isError).toBe(false);
    expect(readFileSync(file("valid.txt")).equals(Buffer.from("\uFEFF\uFEFFkeep \uFFFD and 𐍈 ✓\nnew line\n"))).toBe(true);
  });

  it("firstInvalidUtf8 agrees with TextDecoder on where the bytes stop being UTF-8", () => {
    const cases: [number[], number][] = [
      [[0x61, 0x62], -1],
      [[0xf0, 0x9f, 0x98, 0x80], -1],
      [[0x61, 0xc0, 0x80], 1], // overlong
      [[0x61, 0xe0, 0x80, 0x80], 1], // overlong
      [[0xed, 0xa0, 0x80], 0], // encoded surrogate
      [[0xf4, 0x90, 0x80, 0x80], 0], // past U+10FFFF
      [[0x61, 0x62, 0xe2, 0x82], 2], // cut at the end
      [[0xe2, 0x28, 0xa1], 0],
      [[0x80], 0],
      [[0xf5, 0x80, 0x80, 0x80], 0],
      [[0xef, 0xbf, 0xbd, 0xe9], 3],
    ];
    for (const [bytes, expected] of cases) {
      const data = Uint8Array.from(bytes);
      expect(firstInvalidUtf8(data)).toBe(expected);
      let valid = true;
      try {
        new TextDecoder("utf-8", { fatal: true }).decode(data);
      } catch {
        valid = false;
      }
      expect(valid).toBe(expected === -1);
    }
  });
});
