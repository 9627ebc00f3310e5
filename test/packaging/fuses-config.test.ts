import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import config, { NATIVE_MODULES, publishFromEnv } from "../../electron-builder.config.ts";
import { afterPack, FUSES, fuseConfig, readFuses, wrongFuses } from "../../scripts/fuses.ts";

const SENTINEL = "dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX";
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

/** A file carrying Electron's default fuse wire, as the real binary does. */
function fakeElectron(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lathe-fuses-"));
  dirs.push(dir);
  const file = path.join(dir, "lathe");
  fs.writeFileSync(file, Buffer.concat([Buffer.from("binary…"), Buffer.from(SENTINEL), Buffer.from([1, 8]), Buffer.from("10110001"), Buffer.from("…more")]));
  return file;
}

describe("fuses", () => {
  it("afterPack flips every fuse to the state in FUSES", async () => {
    const binary = fakeElectron();
    const before = await readFuses(binary);
    expect(wrongFuses(before).sort()).toEqual(Object.keys(FUSES).sort());
    const { flipFuses } = await import("@electron/fuses");
    const context = {
      electronPlatformName: "linux",
      arch: 1,
      packager: { addElectronFuses: (_ctx: unknown, fuses: Parameters<typeof flipFuses>[1]) => flipFuses(binary, fuses) },
    };
    await afterPack(context as never);
    const after = await readFuses(binary);
    expect(after).toEqual({
      RunAsNode: false,
      EnableNodeOptionsEnvironmentVariable: false,
      EnableNodeCliInspectArguments: false,
      OnlyLoadAppFromAsar: true,
      EnableCookieEncryption: true,
    });
    expect(wrongFuses(after)).toEqual([]);
  });

  it("re-signs ad hoc only for arm64 and universal macOS builds", async () => {
    const fuses = await import("@electron/fuses");
    expect(fuseConfig(fuses, "darwin", 3).resetAdHocDarwinSignature).toBe(true);
    expect(fuseConfig(fuses, "darwin", 1).resetAdHocDarwinSignature).toBe(false);
    expect(fuseConfig(fuses, "linux", 3).resetAdHocDarwinSignature).toBe(false);
    expect(() => fuseConfig({ FuseVersion: { V1: "1" }, FuseV1Options: {} }, "linux", 1)).toThrow(/no fuse named RunAsNode/);
  });
});

describe("electron-builder config", () => {
  it("publishes nowhere unless told, and rejects malformed targets", () => {
    expect(publishFromEnv({})).toBeNull();
    expect(publishFromEnv({ LATHE_UPDATE_URL: "https://updates.example.org/lathe/" })).toEqual([{ provider: "generic", url: "https://updates.example.org/lathe/" }]);
    expect(publishFromEnv({ LATHE_GITHUB_REPO: "acme/lathe" })).toEqual([{ provider: "github", owner: "acme", repo: "lathe" }]);
    expect(() => publishFromEnv({ LATHE_UPDATE_URL: "http://insecure.example.org" })).toThrow(/https/);
    expect(() => publishFromEnv({ LATHE_GITHUB_REPO: "not a repo" })).toThrow(/owner\/repo/);
  });

  it("unpacks the native modules and never rebuilds them", () => {
    expect(config.npmRebuild).toBe(false);
    expect(config.buildDependenciesFromSource).toBe(false);
    for (const name of NATIVE_MODULES) expect(config.asarUnpack).toContain(`node_modules/${name}/**`);
    expect(config.afterPack).toBe(afterPack);
  });

  it("builds AppImage, deb, dmg and NSIS with the Lathe icons", () => {
    expect(config.linux?.target).toEqual(["AppImage", "deb"]);
    expect(config.linux?.category).toBe("Development");
    expect(config.mac?.target).toEqual(["dmg"]);
    expect(config.win?.target).toEqual(["nsis"]);
    for (const icon of [config.mac?.icon, config.win?.icon]) expect(fs.existsSync(String(icon))).toBe(true);
    for (const size of [16, 32, 48, 64, 128, 256, 512, 1024]) expect(fs.existsSync(`build/icons/${size}x${size}.png`)).toBe(true);
  });
});
