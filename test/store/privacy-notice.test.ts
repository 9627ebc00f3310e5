// The privacy notice's words (app/main/store/private-folder.ts) and private file creation.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createPrivateFile, privacyNotice } from "../../app/main/store/private-folder.ts";
import { tempDir } from "./helpers.ts";

describe("privacyNotice", () => {
  it("says what was tightened and what could not be, or nothing", () => {
    expect(privacyNotice("/d", { tightened: [], failed: [] })).toBeNull();
    expect(privacyNotice("/d", { tightened: ["the folder (was 755)", "lathe.db (was 644)"], failed: [] })).toBe(
      "Other users of this computer could read your Lathe data in /d: the folder (was 755), lathe.db (was 644). It is now readable by you only.",
    );
    expect(privacyNotice("/d", { tightened: [], failed: ["lathe.db (EPERM)"] })).toBe("Lathe could not make these private in /d: lathe.db (EPERM); check who owns them.");
    expect(privacyNotice("/d", { tightened: ["a (was 644)"], failed: ["b (EPERM)", "c (EROFS)"] })).toBe(
      "Other users of this computer could read your Lathe data in /d: a (was 644). It is now readable by you only. Lathe could not make these private in /d: b (EPERM), c (EROFS); check who owns them.",
    );
  });
});

describe("createPrivateFile", () => {
  it("creates an empty 0600 file, leaves an existing one as it is, and reports other failures", () => {
    const dir = tempDir();
    try {
      const file = path.join(dir, "lathe.lock");
      createPrivateFile(file);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      fs.writeFileSync(file, "kept");
      createPrivateFile(file);
      expect(fs.readFileSync(file, "utf8")).toBe("kept");
      expect(() => createPrivateFile(path.join(dir, "missing", "x"))).toThrow(expect.objectContaining({ code: "ENOENT" }));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
