import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { describeToolPaths } from "../../app/main/tools/paths.ts";
import { createReadTool, type ReadDetails } from "../../app/main/tools/read.ts";
import { createWriteTool, type WriteDetails } from "../../app/main/tools/write.ts";
import { runTool, tempDir } from "./helpers.ts";

const project = tempDir();
const outside = tempDir("lathe-outside-");
afterAll(() => {
  project.cleanup();
  outside.cleanup();
});
const read = createReadTool({ projectDir: project.dir });
const write = createWriteTool({ projectDir: project.dir });
const file = (name: string) => path.join(project.dir, name);

describe("read", () => {
  it("returns numbered lines from offset for limit lines, naming the next offset", async () => {
    writeFileSync(file("lines.txt"), Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join("\n") + "\n");
    const run = await runTool(read, { path: "lines.txt", offset: 10, limit: 5 });
    expect(run.isError).toBe(false);
    expect(run.text).toContain("    10\tline 10\n");
    expect(run.text).toContain("    14\tline 14");
    expect(run.text).not.toContain("line 15\n");
    expect(run.text).toContain("Use offset=15 to continue");
    expect(run.result!.details).toMatchObject({ startLine: 10, endLine: 14, totalLines: 50, nextOffset: 15, truncated: true });
  });

  it("cuts long files at 2,000 lines and strips CRLF and BOM from what it shows", async () => {
    writeFileSync(file("long.txt"), "\uFEFF" + Array.from({ length: 3000 }, (_, i) => `row ${i + 1}`).join("\r\n"));
    const run = await runTool(read, { path: "long.txt" });
    const details = run.result!.details as ReadDetails;
    expect(details).toMatchObject({ endLine: 2000, totalLines: 3000, nextOffset: 2001 });
    expect(run.text.startsWith("     1\trow 1\n")).toBe(true);
    expect(run.text).not.toContain("\r");
    expect(run.text).toContain("Use offset=2001 to continue");
  });

  it("bounds the output by bytes and handles a single enormous line", async () => {
    writeFileSync(file("huge-line.txt"), "short\n" + "y".repeat(5_000_000) + "\nafter\n");
    const first = await runTool(read, { path: "huge-line.txt" });
    expect(first.text).toContain("     1\tshort");
    expect(first.text).toContain("Use offset=2 to continue");
    const second = await runTool(read, { path: "huge-line.txt", offset: 2 });
    expect(second.isError).toBe(false);
    expect(Buffer.byteLength(second.text)).toBeLessThan(52 * 1024);
    expect(second.text).toContain("Line 2 is 5000000 characters long");
    expect(second.text).toContain("Use offset=3 to continue");
  });

  it("returns images detected from their bytes, whatever the extension", async () => {
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(32, 1)]);
    writeFileSync(file("picture.dat"), png);
    const run = await runTool(read, { path: "picture.dat" });
    expect(run.isError).toBe(false);
    const image = run.result!.content.find((c) => c.type === "image");
    expect(image).toMatchObject({ type: "image", mimeType: "image/png", data: png.toString("base64") });
    writeFileSync(file("anim.gif"), Buffer.concat([Buffer.from("GIF89a"), Buffer.alloc(20)]));
    expect((await runTool(read, { path: "anim.gif" })).result!.details).toMatchObject({ kind: "image", mimeType: "image/gif" });
    writeFileSync(file("photo.webp"), Buffer.concat([Buffer.from("RIFF"), Buffer.alloc(4), Buffer.from("WEBPVP8 "), Buffer.alloc(10)]));
    expect((await runTool(read, { path: "photo.webp" })).result!.details).toMatchObject({ mimeType: "image/webp" });
    writeFileSync(file("photo.png"), Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46]));
    expect((await runTool(read, { path: "photo.png" })).result!.details).toMatchObject({ mimeType: "image/jpeg" });
  });

  it("refuses other binary files, directories, missing files and offsets past the end, clearly", async () => {
    writeFileSync(file("blob.bin"), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 3, 0, 0]));
    expect((await runTool(read, { path: "blob.bin" })).text).toMatch(/binary file \(an ELF executable/);
    expect((await runTool(read, { path: "." })).text).toMatch(/is a directory/);
    expect((await runTool(read, { path: "nope.txt" })).text).toBe("File not found: nope.txt");
    writeFileSync(file("three.txt"), "a\nb\nc\n");
    expect((await runTool(read, { path: "three.txt", offset: 9 })).text).toBe("Offset 9 is beyond the end of three.txt (3 lines).");
    writeFileSync(file("empty.txt"), "");
    expect((await runTool(read, { path: "empty.txt" })).text).toBe("(empty file)");
  });
});

describe("write", () => {
  it("creates parent folders and reports what it wrote", async () => {
    const run = await runTool(write, { path: "deep/er/new.txt", content: "one\ntwo\n" });
    expect(run.isError).toBe(false);
    expect(readFileSync(file("deep/er/new.txt"), "utf8")).toBe("one\ntwo\n");
    expect(run.text).toBe("Created deep/er/new.txt (2 lines, 8 B).");
    expect(run.result!.details).toMatchObject({ created: true, bytes: 8, lines: 2, outsideProject: false } satisfies Partial<WriteDetails>);
  });

  it("replaces atomically, keeps the mode, leaves no temporary file, and writes through symlinks", async () => {
    writeFileSync(file("script.sh"), "#!/bin/sh\necho old\n");
    chmodSync(file("script.sh"), 0o755);
    const run = await runTool(write, { path: "script.sh", content: "#!/bin/sh\necho new\n" });
    expect(run.text).toMatch(/^Overwrote script.sh/);
    expect(statSync(file("script.sh")).mode & 0o777).toBe(0o755);
    expect(readdirSync(project.dir).filter((n) => n.endsWith(".tmp"))).toEqual([]);
    writeFileSync(file("target.txt"), "target");
    symlinkSync(file("target.txt"), file("link.txt"));
    await runTool(write, { path: "link.txt", content: "via link" });
    expect(readFileSync(file("target.txt"), "utf8")).toBe("via link");
    expect(statSync(file("link.txt")).isFile()).toBe(true);
  });

  it("marks paths outside the project in details", async () => {
    const target = path.join(outside.dir, "x.txt");
    const run = await runTool(write, { path: target, content: "x" });
    expect(run.result!.details).toMatchObject({ outsideProject: true, path: target });
    expect(existsSync(target)).toBe(true);
  });
});

describe("describeToolPaths", () => {
  it("resolves against the project, expands ~ and flags outside paths, following symlinks", async () => {
    mkdirSync(file("src"), { recursive: true });
    symlinkSync(outside.dir, file("escape"));
    expect(await describeToolPaths("read", { path: "src/a.ts" }, project.dir)).toEqual([{ path: file("src/a.ts"), outsideProject: false }]);
    expect(await describeToolPaths("ls", {}, project.dir)).toEqual([{ path: project.dir, outsideProject: false }]);
    expect((await describeToolPaths("edit", { path: "../x" }, project.dir))[0]!.outsideProject).toBe(true);
    expect(await describeToolPaths("write", { path: "~/notes.txt" }, project.dir)).toEqual([{ path: path.join(homedir(), "notes.txt"), outsideProject: true }]);
    expect((await describeToolPaths("write", { path: "escape/new/file.txt" }, project.dir))[0]!.outsideProject).toBe(true);
    expect(await describeToolPaths("bash", { command: "rm -rf /" }, project.dir)).toEqual([]);
    expect(await describeToolPaths("read", { path: 42 }, project.dir)).toEqual([]);
  });
});
