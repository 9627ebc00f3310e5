// The walk to a path's real path (app/main/tools/real-path.ts), which the tools (tools/paths.ts)
// and the permission judge (permissions/path-facts.ts) share. path-facts.test.ts and
// path-shortcuts.test.ts check it through the judge with stand-in systems; here: a real link on
// the disk with the host's realpath, the Windows walk (path.win32 and a stand-in system), and the
// general walk of a path that is not normal. Kept with the judge's tests: the permissions
// mutation target measures the module (stryker.config.mjs).
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { hostRealpath, realPathOf, type Realpath } from "../../app/main/tools/real-path.ts";

const scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "lathe-real-path-")));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A realpath that records the length of every path it is asked about. */
function counting(inner: Realpath): { realpath: Realpath; asked: number[] } {
  const asked: number[] = [];
  return { asked, realpath: (p) => (asked.push(p.length), inner(p)) };
}

describe("on the disk, with the host's realpath", () => {
  const project = path.join(scratch, "project");
  const outside = path.join(scratch, "outside");
  mkdirSync(path.join(project, "src"), { recursive: true });
  mkdirSync(outside);
  symlinkSync(outside, path.join(project, "out"));
  writeFileSync(path.join(project, "src", "a.ts"), "");
  symlinkSync(path.join(project, "src", "a.ts"), path.join(project, "alias.ts"));

  it("a path of 200,000 names through a link is the link's target's, asking no prefix of PATH_MAX characters or more, at once", () => {
    const names = "a/".repeat(200_000);
    const { realpath, asked } = counting(hostRealpath);
    const started = process.threadCpuUsage();
    const real = realPathOf(`${project}/out/${names}x.txt`, realpath);
    const cpu = process.threadCpuUsage(started);
    expect(real).toBe(`${outside}/${names}x.txt`);
    expect(Math.max(...asked)).toBeLessThan(4096);
    expect(asked.length).toBeLessThan(2100);
    // Measured: about 13 ms; a walk of one question a name took 2 s. CPU time: a loaded machine
    // stretches the wall clock.
    expect((cpu.user + cpu.system) / 1000).toBeLessThan(1_000);
    // The host's realpath by default; inside the project, not through the link, it stays inside.
    expect(realPathOf(`${project}/out/${names}x.txt`)).toBe(`${outside}/${names}x.txt`);
    expect(realPathOf(`${project}/src/${names}x.txt`)).toBe(`${project}/src/${names}x.txt`);
  });

  it("follows links of the nearest existing ancestor, or of the path itself", () => {
    expect(realPathOf(path.join(project, "out", "new", "file.txt"))).toBe(path.join(outside, "new", "file.txt"));
    expect(realPathOf(path.join(project, "out"))).toBe(outside);
    expect(realPathOf(path.join(project, "alias.ts"))).toBe(path.join(project, "src", "a.ts"));
    expect(realPathOf(path.join(project, "missing", "out"))).toBe(path.join(project, "missing", "out"));
    // Not normal (`..`, a trailing `/`): the general walk, and the system resolves the `..`.
    expect(realPathOf(`${project}/out/../src/new.ts`)).toBe(path.join(scratch, "src", "new.ts"));
    expect(realPathOf(`${project}/out/`)).toBe(outside);
    expect(hostRealpath(path.join(project, "missing"))).toBeUndefined();
  });
});

describe("a Windows path (path.win32)", () => {
  const system: Record<string, string> = {
    "C:\\": "C:\\",
    "C:\\proj": "C:\\proj",
    "C:\\proj\\link": "D:\\elsewhere",
    "C:\\proj\\src": "C:\\proj\\src",
    "\\\\server\\share\\": "\\\\server\\share\\",
    "\\\\server\\share\\link": "C:\\target",
  };
  const windows = (p: string) => system[p];

  it("a path of 200,000 names through a link: the path itself, then from the root down to the first missing name", () => {
    const names = "a\\".repeat(200_000);
    const p = `C:\\proj\\link\\${names}x`;
    const asked: string[] = [];
    const real = realPathOf(p, (q) => (asked.push(q), windows(q)), path.win32);
    expect(real).toBe(`D:\\elsewhere\\${names}x`);
    expect(asked).toEqual([p, "C:\\", "C:\\proj", "C:\\proj\\link", "C:\\proj\\link\\a"]);
  });

  it("an existing path is asked about once; a missing root leaves the path as given", () => {
    const asked: string[] = [];
    expect(realPathOf("C:\\proj\\link", (q) => (asked.push(q), windows(q)), path.win32)).toBe("D:\\elsewhere");
    expect(asked).toEqual(["C:\\proj\\link"]);
    expect(realPathOf("Z:\\a\\b", windows, path.win32)).toBe("Z:\\a\\b");
    expect(realPathOf("C:\\", windows, path.win32)).toBe("C:\\");
    expect(realPathOf("Z:\\", windows, path.win32)).toBe("Z:\\");
  });

  it("every name exists but the last; a trailing backslash; a share; a path that is not normal, or relative", () => {
    expect(realPathOf("C:\\proj\\src\\new.ts", windows, path.win32)).toBe("C:\\proj\\src\\new.ts");
    expect(realPathOf("C:\\proj\\link\\new\\", windows, path.win32)).toBe("D:\\elsewhere\\new");
    expect(realPathOf("C:\\proj\\src\\", windows, path.win32)).toBe("C:\\proj\\src");
    expect(realPathOf("\\\\server\\share\\link\\x", windows, path.win32)).toBe("C:\\target\\x");
    expect(realPathOf("C:\\proj\\link\\x\\.", windows, path.win32)).toBe("D:\\elsewhere\\x");
    expect(realPathOf("proj\\x", windows, path.win32)).toBe("proj\\x");
  });

  it("gives what the walk from the end gives, on systems where nothing exists below a missing name", () => {
    // The walk up one name at a time (dirname to the nearest existing ancestor, then the rest joined) as the oracle.
    const oracle = (p: string, realpath: Realpath): string => {
      const rest: string[] = [];
      for (let existing = p; ; existing = path.win32.dirname(existing)) {
        const real = realpath(existing);
        if (real !== undefined) return rest.length === 0 ? real : path.win32.join(real, ...rest.reverse());
        if (path.win32.dirname(existing) === existing) return p;
        rest.push(path.win32.basename(existing));
      }
    };
    const systems: Record<string, string>[] = [
      {},
      { "C:\\": "C:\\" },
      { "C:\\": "C:\\", "C:\\a": "E:\\x", "C:\\a\\b": "E:\\x\\b" },
      { "C:\\": "C:\\", "C:\\a": "C:\\a", "C:\\a\\b": "F:\\", "C:\\a\\b\\c": "F:\\c" },
      { "C:\\": "D:\\root\\" },
    ];
    const paths = ["C:\\", "C:\\a", "C:\\a\\b", "C:\\a\\b\\c", "C:\\a\\b\\c\\d.txt", "C:\\a\\x\\b", "C:\\b\\a", "C:\\a\\b\\", "C:\\a\\b\\c\\"];
    for (const system of systems) {
      const realpath = (p: string) => system[p];
      for (const p of paths) expect(realPathOf(p, realpath, path.win32), `${JSON.stringify(system)} ${p}`).toBe(oracle(p, realpath));
    }
  });
});

describe("a path that is not normal", () => {
  it("a relative path is walked up to its first name, and left as given when none of it exists", () => {
    const system: Record<string, string> = { proj: "/abs/proj", "C:\\": "C:\\", "proj\\a": "D:\\a" };
    expect(realPathOf("proj/x/y", (q) => system[q], path.posix)).toBe("/abs/proj/x/y");
    expect(realPathOf("proj/x", () => undefined, path.posix)).toBe("proj/x");
    expect(realPathOf("x", () => undefined, path.posix)).toBe("x");
    expect(realPathOf("proj\\a\\b", (q) => system[q], path.win32)).toBe("D:\\a\\b");
  });

  // Joined as one string: spread into path.join as arguments, 200,000 names threw (the call stack).
  it("through a link, with 200,000 names after it, is joined without spreading the names", () => {
    const names = 200_000;
    const posix = realPathOf(`/proj/link/${"a/".repeat(names)}x/.`, (q) => (q === "/proj/link" ? "/r/./s/" : undefined), path.posix);
    expect(posix).toBe(`/r/s/${"a/".repeat(names)}x`);
    const windows = realPathOf(`C:\\proj\\link\\${"a\\".repeat(names)}x\\.`, (q) => (q === "C:\\proj\\link" ? "D:\\elsewhere" : undefined), path.win32);
    expect(windows).toBe(`D:\\elsewhere\\${"a\\".repeat(names)}x`);
  });
});
