// The spill file of a command's full output: what is appended is what the file holds, byte for
// byte, whatever the mix of ASCII, other text and sizes, with writes off the main thread finishing
// in any order; a failure is kept and named, never thrown.
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SPILL_BYTES, SpillFile } from "../../app/main/tools/spill-file.ts";
import { itWhen, needsLinux } from "../support/requirements.ts";
import { tempDir } from "./helpers.ts";

const dir = tempDir("lathe-spill-");
afterAll(() => dir.cleanup());

const isAscii = (text: string) => Buffer.byteLength(text) === text.length;

describe("SpillFile", () => {
  it("holds exactly what was appended, in order: small and large pieces, ASCII and not", async () => {
    const file = new SpillFile(() => path.join(dir.dir, "nested", "out-1.txt"));
    const pieces: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const size = i % 97 === 0 ? SPILL_BYTES * 5 : (i * 7919) % 3000;
      const piece = i % 5 === 0 ? `é${"ü€".repeat(size >> 2)}😀\n` : `${i}:${"x".repeat(size)}\n`;
      pieces.push(piece);
      file.append(piece, isAscii(piece));
      if (i % 400 === 0) file.flush();
    }
    await file.close();
    expect(file.error).toBeUndefined();
    expect(readFileSync(file.path!, "utf8")).toBe(pieces.join(""));
    expect(statSync(file.path!).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file.path!)).mode & 0o777).toBe(0o700);
  });

  it("keeps going when the disk falls behind (every buffer in flight): the text is still whole", async () => {
    const file = new SpillFile(() => path.join(dir.dir, "out-2.txt"));
    // Appends without yielding: no write can finish, so the buffers run out and the rest is
    // written synchronously, at its own place in the file.
    const piece = `${"abcdefgh".repeat(1023)}\n`;
    for (let i = 0; i < 200; i++) file.append(piece, true);
    await file.close();
    expect(readFileSync(file.path!, "utf8")).toBe(piece.repeat(200));
  });

  it("an empty file when nothing was appended", async () => {
    const file = new SpillFile(() => path.join(dir.dir, "out-3.txt"));
    file.append("", true);
    file.flush();
    await file.close();
    expect(readFileSync(file.path!, "utf8")).toBe("");
  });

  it("names a file it cannot create, and takes text without throwing", async () => {
    // A folder inside a file: ENOTDIR.
    const notAFolder = path.join(dir.dir, "plain-file");
    writeFileSync(notAFolder, "");
    const file = new SpillFile(() => path.join(notAFolder, "sub", "out.txt"));
    expect((file.error as NodeJS.ErrnoException | undefined)?.code).toBe("ENOTDIR");
    file.append("text", true);
    file.flush();
    await file.close();
    expect(existsSync(path.join(notAFolder, "sub"))).toBe(false);
  });

  itWhen(needsLinux(), "keeps the first failed write as its error (a full disk), and drops what follows", async () => {
    const file = new SpillFile(() => "/dev/full");
    for (let i = 0; i < 10; i++) file.append("y".repeat(SPILL_BYTES), true);
    await file.close();
    expect((file.error as NodeJS.ErrnoException | undefined)?.code).toBe("ENOSPC");
    file.append("late", true);
    await file.close();
  });

  it("a path that throws is an error, not a throw", async () => {
    const file = new SpillFile(() => {
      throw new Error("no output folder");
    });
    expect(file.error?.message).toBe("no output folder");
    await file.close();
  });
});
