// Where the commands of a line run (shell-folders.ts), driven directly: `cd`, `pushd` and `popd`
// read into the folders after them (options, a bare cd, `cd -`, `~`, a computed folder, several
// operands), flows that keep the folders shared, and the union of folder lists, small and large.
import { describe, expect, it } from "vitest";
import { changeFolder, flowOf, stay, union } from "../../app/main/permissions/shell-folders.ts";
import type { ShellWord } from "../../app/main/permissions/shell-words.ts";

const home = "/home/me";
const word = (value: string | null, tilde = false): ShellWord => ({ value, glob: false, tilde });
const cd = (name: string, operands: ShellWord[], cwds: (string | null)[] = ["/work/p"]) => {
  const reasons = new Set<string>();
  const flow = changeFolder(name, [word(name), ...operands], cwds, home, reasons);
  return { ...flow, reasons: [...reasons] };
};

describe("changing folder", () => {
  it("cd DIR runs what follows in DIR when it succeeds, where it was when it fails", () => {
    expect(cd("cd", [word("src")])).toEqual({ success: ["/work/p/src"], failure: ["/work/p"], any: ["/work/p/src", "/work/p"], reasons: [] });
    expect(cd("cd", [word("/etc")]).success).toEqual(["/etc"]);
    expect(cd("cd", [])).toMatchObject({ success: [home], reasons: [] });
    expect(cd("cd", [word("~/notes", true)]).success).toEqual([`${home}/notes`]);
    expect(cd("cd", [word("src")], ["/a", "/b"]).success).toEqual(["/a/src", "/b/src"]);
  });

  it("skips the options -L, -P, -e, -@ and their groupings; anything else is an operand", () => {
    for (const option of ["-L", "-P", "-e", "-@", "-LP", "-Pe@"]) expect(cd("cd", [word(option), word("src")]), option).toMatchObject({ success: ["/work/p/src"], reasons: [] });
    for (const operand of ["-x", "-Lx", "-", "x"]) expect(cd("cd", [word(operand), word("src")]).success, operand).toEqual([null]);
    expect(cd("cd", [word("-L"), word("src")]).success).toEqual(["/work/p/src"]);
  });

  it("a folder known only when it runs is unknown: a computed one, cd -, popd, several operands, a relative one from an unknown folder", () => {
    expect(cd("cd", [word(null)])).toMatchObject({ success: [null], reasons: [] });
    expect(cd("cd", [word("-")])).toMatchObject({ success: [null], reasons: ["cd - returns to a folder that is only known when it runs"] });
    expect(cd("popd", [])).toMatchObject({ success: [null], reasons: ["popd returns to a folder: where later commands run is only known when it runs"] });
    expect(cd("cd", [word("a"), word("b")])).toMatchObject({ success: [null], reasons: ["cd has several operands: where later commands run is only known when it runs"] });
    expect(cd("pushd", [word("a"), word("b")]).reasons).toEqual(["pushd has several operands: where later commands run is only known when it runs"]);
    expect(cd("cd", [word("src")], [null]).success).toEqual([null]);
    expect(cd("cd", [word("/etc")], [null]).success).toEqual(["/etc"]);
  });
});

describe("flows", () => {
  it("share one flow for a statement after which the folders are the same, and keep the three lists otherwise", () => {
    const here = ["/p"];
    const there = ["/q"];
    expect(stay(here)).toBe(stay(here));
    expect(stay(here)).toEqual({ success: here, failure: here, any: here });
    expect(flowOf(here, here, here)).toBe(stay(here));
    expect(flowOf(there, here, here)).toEqual({ success: there, failure: here, any: here });
    expect(flowOf(here, there, here)).toEqual({ success: here, failure: there, any: here });
  });
});

describe("the union of folder lists", () => {
  it("keeps each folder once, in order, and returns a list itself when nothing is added", () => {
    const a = ["/a", "/b"];
    expect(union(a, a)).toBe(a);
    expect(union(a, ["/b"])).toBe(a);
    expect(union(a, [])).toBe(a);
    expect(union(a, ["/c", "/a", "/c"])).toEqual(["/a", "/b", "/c"]);
    expect(union(["/a", "/a", "/b"], ["/b"])).toEqual(["/a", "/b"]);
    expect(union(["/a", "/b", "/a"], [null])).toEqual(["/a", "/b", null]);
    expect(a).toEqual(["/a", "/b"]);
  });

  it("past 32 folders, the same through a set", () => {
    const many = Array.from({ length: 30 }, (_, i) => `/f${i}`);
    expect(union(many, many.slice(0, 5))).toBe(many);
    expect(union(many, ["/new", ...many.slice(0, 5)])).toEqual([...many, "/new"]);
    const repeated = [...many, "/f0"];
    expect(union(repeated, many.slice(0, 5))).toEqual(many);
    expect(union(many, [...many.slice(0, 3), "/f1"])).toBe(many);
  });
});
