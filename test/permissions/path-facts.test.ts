// What a path is for the rules (path-facts.ts), read directly: which writes are protected (the real
// path's relative form first, then the given one's; case folded on macOS; package.json only when
// its scripts change or that cannot be known), whether package.json scripts differ, and the facts
// of a path when the project folder is itself a link or its real path is answered unnormalized
// (the general path of relativeInside, the one Windows takes for every path).
import { describe, expect, it } from "vitest";
import { packageScriptsChange, pathFacts, protectedPath, realPathOf, type PathFacts, type PathPlatform } from "../../app/main/permissions/path-facts.ts";

const linux: PathPlatform = { platform: "linux", home: "/h", realpath: () => undefined };
const mac: PathPlatform = { ...linux, platform: "darwin" };
/** Facts of a path inside /p whose real and given relative forms are as given. */
const facts = (relative: string | null, givenRelative: string | null = relative): PathFacts => ({
  given: "/p/x",
  real: "/p/x",
  relative,
  givenRelative,
  inside: relative !== null,
});
const warning = (f: PathFacts, platform = linux, scriptsChange?: boolean) => protectedPath(f, platform, scriptsChange)?.warning;

describe("protectedPath", () => {
  it("names each kind of file that makes tools run code, by its last segments", () => {
    expect(warning(facts(".git/hooks/pre-commit"))).toBe(".git/hooks/pre-commit: files in .git/ (config, hooks) make git run programs.");
    expect(warning(facts("a/.husky/pre-push"))).toBe("a/.husky/pre-push: .husky/ holds git hooks that run on commit.");
    expect(warning(facts(".vscode/tasks.json"))).toBe(".vscode/tasks.json: .vscode/tasks.json defines commands the editor runs.");
    expect(warning(facts("sub/.envrc"))).toBe("sub/.envrc: .envrc is run by direnv when you enter the folder.");
    for (const name of [".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs"])
      expect(warning(facts(`pkg/${name}`)), name).toBe(`pkg/${name}: package manager settings can name programs to run (script-shell, hooks).`);
    for (const name of [".pre-commit-config.yaml", "lefthook.yml", ".lefthook.yml"]) expect(warning(facts(name)), name).toBe(`${name}: this file names hooks that run on commit.`);
    for (const other of ["src/a.ts", "x.npmrc", "my.git/config", "tasks.json", "undefined", "a/undefined", "."]) expect(warning(facts(other)), other).toBeUndefined();
  });

  it("gives the reason alone beside the warning (the warning's path may hold a colon)", () => {
    expect(protectedPath(facts("a:b/.envrc"), linux, undefined)).toEqual({
      warning: "a:b/.envrc: .envrc is run by direnv when you enter the folder.",
      reason: ".envrc is run by direnv when you enter the folder.",
    });
    expect(protectedPath(facts("p:q/package.json"), linux, true)).toEqual({
      warning: "p:q/package.json: package.json scripts run on npm install, npm test and npm run (this changes them).",
      reason: "package.json scripts run on npm install, npm test and npm run (this changes them).",
    });
  });

  it("looks at the real path's relative form first, then the given one's; a path outside has none", () => {
    expect(warning(facts("notes.txt", ".envrc"))).toBe(".envrc: .envrc is run by direnv when you enter the folder.");
    expect(warning(facts(".git/config", ".envrc"))).toBe(".git/config: files in .git/ (config, hooks) make git run programs.");
    expect(warning(facts(null, ".envrc"))).toBe(".envrc: .envrc is run by direnv when you enter the folder.");
    expect(warning(facts(null, null))).toBeUndefined();
  });

  it("folds case where the file system does", () => {
    expect(warning(facts(".GIT/config"), mac)).toBe(".GIT/config: files in .git/ (config, hooks) make git run programs.");
    expect(warning(facts(".GIT/config"))).toBeUndefined();
  });

  it("counts package.json unless its scripts are known to stay, and says when they change", () => {
    expect(warning(facts("package.json"), linux, true)).toBe("package.json: package.json scripts run on npm install, npm test and npm run (this changes them).");
    expect(warning(facts("web/package.json"), linux, undefined)).toBe("web/package.json: package.json scripts run on npm install, npm test and npm run.");
    expect(warning(facts("package.json"), linux, false)).toBeUndefined();
    expect(warning(facts("package.json.bak"), linux, true)).toBeUndefined();
  });
});

describe("packageScriptsChange", () => {
  it("compares the scripts, a missing file or a JSON null having none", () => {
    expect(packageScriptsChange(null, '{"name":"x"}')).toBe(false);
    expect(packageScriptsChange(null, '{"scripts":{"a":"b"}}')).toBe(true);
    expect(packageScriptsChange('{"scripts":{}}', "null")).toBe(false);
    expect(packageScriptsChange('{"scripts":{"a":"b"}}', '{"name":"y","scripts":{"a":"b"}}')).toBe(false);
    expect(packageScriptsChange('{"scripts":{"a":"b"}}', '{"scripts":{"a":"c"}}')).toBe(true);
  });

  it("cannot tell when either text is not JSON, or the new text is unknown", () => {
    expect(packageScriptsChange("not json", "{}")).toBeUndefined();
    expect(packageScriptsChange("{}", "not json")).toBeUndefined();
    expect(packageScriptsChange("{}", undefined)).toBeUndefined();
  });
});

describe("pathFacts", () => {
  it("a project folder that is a link: a path given by its real path is inside, but not under the folder as given", () => {
    const linked: PathPlatform = { ...linux, realpath: (p) => (p === "/proj" || p.startsWith("/proj/") ? `/data/proj${p.slice(5)}` : p) };
    expect(pathFacts("/data/proj/a", "/proj", linked)).toEqual({ given: "/data/proj/a", real: "/data/proj/a", relative: "a", givenRelative: null, inside: true });
    expect(pathFacts("/proj/a", "/proj", linked)).toEqual({ given: "/proj/a", real: "/data/proj/a", relative: "a", givenRelative: "a", inside: true });
  });

  it("relates real paths answered unnormalized (a folder with a trailing /) as path.relative does, folded on macOS", () => {
    for (const platform of [linux, mac]) {
      const slashed: PathPlatform = { ...platform, realpath: (p) => (p === "/proj" ? "/proj/" : p) };
      expect(pathFacts("/proj/src/a.ts", "/proj", slashed), platform.platform).toEqual({
        given: "/proj/src/a.ts",
        real: "/proj/src/a.ts",
        relative: "src/a.ts",
        givenRelative: "src/a.ts",
        inside: true,
      });
      expect(pathFacts("/proj", "/proj", slashed), platform.platform).toEqual({ given: "/proj", real: "/proj/", relative: ".", givenRelative: ".", inside: true });
      expect(pathFacts("/other/x", "/proj", slashed), platform.platform).toEqual({ given: "/other/x", real: "/other/x", relative: null, givenRelative: null, inside: false });
      expect(pathFacts("/projx/a", "/proj", slashed).inside, platform.platform).toBe(false);
    }
    const slashed: PathPlatform = { ...mac, realpath: (p) => (p === "/proj" ? "/proj/" : p) };
    expect(pathFacts("/PROJ/Src/A.ts", "/proj", slashed)).toEqual({
      given: "/PROJ/Src/A.ts",
      real: "/PROJ/Src/A.ts",
      relative: "Src/A.ts",
      givenRelative: "Src/A.ts",
      inside: true,
    });
    expect(pathFacts("/PROJ/Src/A.ts", "/proj", { ...slashed, platform: "linux" }).inside).toBe(false);
  });
});

describe("realPathOf", () => {
  it("asks about no prefix of a path longer than a system call takes (a model's path of 200,000 names)", () => {
    const asked: number[] = [];
    const platform: PathPlatform = {
      ...linux,
      realpath: (p) => {
        asked.push(p.length);
        return p === "/proj/link" ? "/elsewhere" : p === "/" || p === "/proj" ? p : undefined;
      },
    };
    const names = "a/".repeat(200_000);
    expect(realPathOf(`/proj/link/${names}x`, platform)).toBe(`/elsewhere/${names}x`);
    expect(Math.max(...asked)).toBeLessThan(4096);
    expect(asked.length).toBeLessThan(2100);
    expect(pathFacts(`/proj/link/${names}x`, "/proj", platform).inside).toBe(false);
    // Just below the bound the path itself is asked about.
    asked.length = 0;
    const justBelow = `/proj/link/${"b".repeat(4095 - "/proj/link/".length)}`;
    expect(justBelow.length).toBe(4095);
    expect(realPathOf(justBelow, platform)).toBe(`/elsewhere/${justBelow.slice("/proj/link/".length)}`);
    expect(asked[0]).toBe(4095);
    asked.length = 0;
    realPathOf(`${justBelow}c`, platform);
    expect(asked[0]).toBe("/proj/link".length);
  });

  it("follows a link however many missing names follow it (the general walk: every path on Windows)", () => {
    const platform: PathPlatform = { ...linux, realpath: (p) => (p === "/proj/link" ? "/elsewhere" : undefined) };
    // Unnormalized (the trailing "."), so it takes the walk Windows takes, not the POSIX shortcut.
    const deep = `/proj/link/${"a/".repeat(5000)}x/.`;
    expect(realPathOf(deep, platform)).toBe(`/elsewhere/${"a/".repeat(5000)}x`);
    expect(pathFacts(deep, "/proj", platform).inside).toBe(false);
  });
});
