// The judge's shortcuts around node:path and picomatch (path-facts.ts, path-globs.ts) answer
// exactly what the library calls they replace, for normal and abnormal paths, case-folding
// platforms (a character whose lower case is longer), paths beside the project whose names start
// like it, names starting with `..`, the root as project, and globs on Windows-style input.
import path from "node:path";
import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { pathFacts, realPathOf, resolved, resolvedFrom, type PathPlatform } from "../../app/main/permissions/path-facts.ts";
import { globTest } from "../../app/main/permissions/path-globs.ts";

const PATHS = [
  "/",
  "/p",
  "/proj",
  "/proj/",
  "/proj/a",
  "/proj/a/b.txt",
  "/proj/./a",
  "/proj/a/..",
  "/proj/../proj/a",
  "/proj//a",
  "/proj/..foo",
  "/proj/..",
  "/proj/.",
  "/project/a",
  "/projx",
  "/Proj/A",
  "/proj/İx",
  "/PROJ/İx/ß",
  "//proj",
  "relative/x",
  "",
];
const FOLDERS = ["/", "/proj", "/proj/a", "/proj/", "/proj/./a", "/Proj"];
const NAMES = ["x", "x/y", "../x", "./x", "x/", "/abs", "/abs/../y", "..x", ".", "..", "a//b", "İ"];

describe("path shortcuts", () => {
  it("resolved and resolvedFrom equal path.resolve", () => {
    for (const p of PATHS) expect(resolved(p), p).toBe(path.resolve(p));
    for (const folder of FOLDERS) for (const name of NAMES) expect(resolvedFrom(folder, name), `${folder} + ${name}`).toBe(path.resolve(folder, name));
  });

  it("pathFacts relates paths to the project as path.relative did, folded or not", () => {
    // The implementation before the shortcuts, as the oracle.
    const relativeInside = (child: string, parent: string, fold: boolean): string | null => {
      const rel = path.relative(fold ? parent.toLowerCase() : parent, fold ? child.toLowerCase() : child);
      if (rel.startsWith("..") || path.isAbsolute(rel)) return null;
      const own = rel === "" ? "." : child.slice(child.length - rel.length);
      return own.split(path.sep).join("/");
    };
    for (const platformName of ["linux", "darwin"] as const) {
      const fold = platformName === "darwin";
      // Every path exists and is its own real path, except under /proj/link, which is /elsewhere.
      const platform: PathPlatform = {
        platform: platformName,
        home: "/home/u",
        realpath: (p) => (p.startsWith("/proj/link") ? `/elsewhere${p.slice("/proj/link".length)}` : p),
      };
      for (const project of ["/", "/proj", "/Proj", "/proj/a"]) {
        for (const p of [...PATHS.filter((x) => x.startsWith("/")), "/proj/link/x", "/proj/link"]) {
          const facts = pathFacts(p, project, platform);
          const given = path.resolve(p);
          const real = given.startsWith("/proj/link") ? `/elsewhere${given.slice("/proj/link".length)}` : given;
          const root = path.resolve(project);
          expect(facts, `${platformName} ${project} ${p}`).toEqual({
            given,
            real,
            relative: relativeInside(real, root, fold),
            givenRelative: relativeInside(given, root, fold),
            inside: relativeInside(real, root, fold) !== null,
          });
        }
      }
    }
  });

  it("realPathOf joins the missing part to the nearest existing ancestor as path.join did", () => {
    const platform: PathPlatform = { platform: "linux", home: "/h", realpath: (p) => (p === "/a" ? "/real/a" : p === "/" ? "/" : undefined) };
    expect(realPathOf("/a/b/c.txt", platform)).toBe(path.join("/real/a", "b", "c.txt"));
    expect(realPathOf("/x/y", platform)).toBe("/x/y");
    expect(realPathOf("/a/../b", { ...platform, realpath: (p) => (p === "/a" ? "/r" : undefined) })).toBe(path.join("/r", "..", "b"));
    expect(realPathOf("/a/b", { ...platform, realpath: (p) => (p === "/a" ? "/r/./s/" : undefined) })).toBe(path.join("/r/./s/", "b"));
    // The walk before the shortcut (dirname up to the nearest existing ancestor, then path.join
    // of the names), as the oracle: every path against file systems where different ancestors
    // exist and are links to other places (the root, a normal path, an abnormal answer).
    const oracle = (p: string, realpath: (p: string) => string | undefined): string => {
      const rest: string[] = [];
      for (let existing = p; ; existing = path.dirname(existing)) {
        const real = realpath(existing);
        if (real !== undefined) return rest.length === 0 ? real : path.join(real, ...rest.reverse());
        if (path.dirname(existing) === existing) return p;
        rest.push(path.basename(existing));
      }
    };
    const systems: Record<string, string>[] = [
      {},
      { "/": "/" },
      { "/": "/", "/proj": "/proj", "/proj/a": "/data/a" },
      { "/": "/", "/proj": "/" },
      { "/": "/", "/proj": "/r/./s/", "/Proj": "/other" },
      { "/proj/a/b.txt": "/x.txt", "/proj/a": "/y", "/": "/" },
      // The root elsewhere (a stand-in system), and a folder answered for its unnormalized form.
      { "/": "/chroot" },
      { "/": "/", "/proj/": "/proj", "/proj/a": "/data/a" },
    ];
    for (const system of systems) {
      const realpath = (p: string) => system[p];
      for (const p of [...PATHS.filter((x) => x.startsWith("/")), "/proj/a/b/c/d.txt", "/proj/a/b.txt/x", "/proj/a/b/", "/proj/a/./b", "/proj/a/b/c/"]) {
        expect(realPathOf(p, { platform: "linux", home: "/h", realpath }), `${JSON.stringify(system)} ${p}`).toBe(oracle(p, realpath));
      }
    }
  });

  it("globTest takes every backslash of a Windows path as a separator, before ( and { too, where picomatch keeps some as escapes", () => {
    const windows = { dot: true, nocase: false, windows: true };
    // Each glob equals its path with `/` for every `\`: taken as itself here; picomatch compares
    // the path with those backslashes kept (`src\(old)/a.ts`), and its expression reads the
    // parentheses and braces as a group and alternatives.
    for (const [glob, input] of [
      ["src/(old)/a.ts", "src\\(old)\\a.ts"],
      ["src/(a|b)/c", "src\\(a|b)\\c"],
      ["src/{a,b}/c", "src\\{a,b}\\c"],
      ["src/+(a)/b", "src\\+(a)\\b"],
    ] as const) {
      expect(globTest(glob, windows)(input), `${glob} ${input}`).toBe(true);
      expect(picomatch(glob, windows)(input), `${glob} ${input}`).toBe(false);
    }
    // Elsewhere both agree: before [ and a lone {, and in globs that do not equal the path.
    for (const [glob, input] of [
      ["src/[x]/a.ts", "src\\[x]\\a.ts"],
      ["src/{a}/b", "src\\{a}\\b"],
      ["src/**", "src\\(old)\\a.ts"],
      ["**/a.ts", "src\\(old)\\a.ts"],
      ["src/*/a.ts", "src\\(old)\\a.ts"],
    ] as const) {
      expect(globTest(glob, windows)(input), `${glob} ${input}`).toBe(true);
      expect(picomatch(glob, windows)(input), `${glob} ${input}`).toBe(true);
    }
    // On POSIX a backslash is a character of the name.
    expect(globTest("src/(old)/a.ts", { ...windows, windows: false })("src\\(old)\\a.ts")).toBe(false);
  });

  it("globTest answers as picomatch's matcher", () => {
    const globs = ["packages/**", "*.ts", "src/*.{ts,tsx}", ".env", "**/.env*", "/abs/**", "a/b", "docs/[a-c]*.md", "docs/x[a-c]*.md", "docs/\\[a].md", "!x", "**"];
    const inputs = [
      "packages/a/b.ts",
      "packages",
      "x.ts",
      ".x.ts",
      "src/a.tsx",
      ".env",
      "a/.env.local",
      "/abs/x",
      "a/b",
      "A/B",
      "docs/b1.md",
      "x",
      "",
      "packages\\a\\b.ts",
      "a\\.env",
      // A glob is taken as itself even where its expression does not match it ([a-c] is not "["), with `\\` as `/` on Windows.
      "docs/[a-c]*.md",
      "docs\\x[a-c]*.md",
      "docs/\\[a].md",
    ];
    for (const glob of globs) {
      for (const options of [
        { dot: true, nocase: false, windows: false },
        { dot: true, nocase: true, windows: false },
        { dot: true, nocase: true, windows: true },
      ]) {
        const reference = picomatch(glob, options);
        const test = globTest(glob, options);
        for (const input of inputs) expect(test(input), `${glob} ${JSON.stringify(options)} ${input}`).toBe(reference(input));
      }
    }
  });
});
