// sed's own commands that run programs (e, s///e), write files (w, W, s///w) or read them (r, R):
// a `sed *` rule let `sed '1e touch x' f` run a program (a reviewer ran it). Only scripts read as
// plain text editing are covered by a rule; the everyday ones still are.
import { describe, expect, it } from "vitest";
import { isPlainSedScript, sedScriptOf } from "../../app/main/permissions/sed-scripts.ts";

describe("sed scripts", () => {
  it.each([
    "s/a/b/",
    "s/a/b/g",
    "s|a/b|c|g",
    "s/a\\/b/c/2",
    "1,5p",
    "$p",
    "/^#/d",
    "/start/,/end/{p}",
    "1!G;h;$!d",
    "10~2d",
    "2q",
    "q5",
    "y/abc/xyz/",
    "s/(a|b)+/x/gI; s/c/d/",
    "=",
    "N;P;D",
    "",
    "s/a/b/\n/c/d",
  ])("%j is plain", (script) => expect(isPlainSedScript(script)).toBe(true));

  it.each([
    "1e touch x",
    "e",
    "s/a/touch x/e",
    "s/a/b/w /tmp/x",
    "w /tmp/x",
    "1W out",
    "r /etc/passwd",
    "$R f",
    "a\\text",
    "i hello",
    "c x",
    ":a;N;ba",
    "/x/bend",
    "s/a/b",
    "s/a/b/e;p",
    "p;e",
    "{e}",
    "s\nanewline",
    "F",
    "v",
  ])("%j is not", (script) => expect(isPlainSedScript(script)).toBe(false));

  it("finds the script: the first operand after the options, none with -e or -f", () => {
    expect(sedScriptOf(["-n", "1p", "f"])).toBe("1p");
    expect(sedScriptOf(["-E", "-i", "s/a/b/", "f"])).toBe("s/a/b/");
    expect(sedScriptOf(["-l", "5", "l", "f"])).toBe("l");
    expect(sedScriptOf(["--", "-p", "f"])).toBe("-p");
    expect(sedScriptOf(["-e", "p", "f"])).toBeUndefined();
    expect(sedScriptOf(["-nf", "script.sed", "f"])).toBeUndefined();
    expect(sedScriptOf(["--expression=p", "f"])).toBeUndefined();
    expect(sedScriptOf(["--follow-symlinks", "1e touch x", "f"])).toBe("1e touch x");
    expect(sedScriptOf([])).toBeUndefined();
  });
});
