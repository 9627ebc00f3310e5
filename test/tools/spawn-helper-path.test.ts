// node-pty's spawn helper path, corrected when node-pty was loaded from app.asar.unpacked
// (app/main/workers/spawn-helper-path.ts).
import { describe, expect, it } from "vitest";
import { fixedSpawnHelperPath, withSpawnHelperFixed } from "../../app/main/workers/spawn-helper-path.ts";

describe("spawn helper path", () => {
  it("makes a doubled .unpacked single and leaves every other path as it is", () => {
    const app = "/Applications/Lathe.app/Contents/Resources";
    expect(fixedSpawnHelperPath(`${app}/app.asar.unpacked.unpacked/node_modules/node-pty/build/Release/spawn-helper`)).toBe(
      `${app}/app.asar.unpacked/node_modules/node-pty/build/Release/spawn-helper`,
    );
    expect(fixedSpawnHelperPath("/x/node_modules.asar.unpacked.unpacked/node-pty/spawn-helper")).toBe("/x/node_modules.asar.unpacked/node-pty/spawn-helper");
    for (const fine of [`${app}/app.asar.unpacked/node_modules/node-pty/build/Release/spawn-helper`, "/work/main/node_modules/node-pty/build/Release/spawn-helper"])
      expect(fixedSpawnHelperPath(fine)).toBe(fine);
  });

  it("wraps the native fork so that it gets the corrected path, and passes everything else on", () => {
    const calls: unknown[][] = [];
    const native: { fork?: (...args: unknown[]) => unknown } = {
      fork(...args: unknown[]) {
        calls.push(args);
        return "forked";
      },
    };
    withSpawnHelperFixed(native);
    const args = ["sh", ["-c", "true"], ["A=1"], "/", 80, 24, -1, -1, false, "/r/app.asar.unpacked.unpacked/node_modules/node-pty/build/Release/spawn-helper", () => {}];
    expect(native.fork!(...args)).toBe("forked");
    expect(calls[0]).toEqual([...args.slice(0, 9), "/r/app.asar.unpacked/node_modules/node-pty/build/Release/spawn-helper", args[10]]);
    const empty = {};
    withSpawnHelperFixed(empty);
    expect(empty).toEqual({});
  });
});
