// What the policy knows about particular commands (command-knowledge.ts), driven directly: the
// warnings for destructive commands, options and environment variables that make a command run
// other code, and the builtins that evaluate some of their arguments as code.
import { describe, expect, it } from "vitest";
import { destructiveWarning, evaluatesCode, isCodeRunningOption, isCodeRunningVariable } from "../../app/main/permissions/command-knowledge.ts";

const warn = (line: string) => destructiveWarning(line.split(" "));

describe("destructiveWarning", () => {
  it("warns for every command that destroys data, by name", () => {
    for (const name of ["rm", "rmdir", "shred", "unlink", "truncate", "dd", "mkfs", "wipefs"])
      expect(warn(`${name} x`)).toBe(`${name} destroys data: the rule allows only this exact command.`);
    expect(warn("ls x")).toBeUndefined();
    expect(destructiveWarning([])).toBeUndefined();
  });

  it("warns for git push that rewrites or deletes remote history, options clustered or not", () => {
    const push = "git push that rewrites or deletes remote history: the rule allows only this exact command.";
    for (const line of [
      "git push --force",
      "git push -f origin",
      "git push -uf origin",
      "git push --force-with-lease",
      "git push --mirror",
      "git push --delete origin x",
      "git push -d origin x",
      "git --no-pager push -f",
    ])
      expect([line, warn(line)]).toEqual([line, push]);
    for (const line of ["git push origin main", "git push -u origin", "git push --follow-tags", "git push origin -fx-", "git push origin f"])
      expect([line, warn(line)]).toEqual([line, undefined]);
  });

  it("warns for the other git subcommands that discard or rewrite work", () => {
    expect(warn("git reset --hard")).toBe("git reset that discards work: the rule allows only this exact command.");
    expect(warn("git reset --merge")).toBe("git reset that discards work: the rule allows only this exact command.");
    expect(warn("git reset --keep HEAD~1")).toBe("git reset that discards work: the rule allows only this exact command.");
    expect(warn("git reset HEAD")).toBeUndefined();
    expect(warn("git clean -fd")).toBe("git clean deletes untracked files: the rule allows only this exact command.");
    expect(warn("git checkout .")).toBe("discards uncommitted changes: the rule allows only this exact command.");
    expect(warn("git restore -- .")).toBe("discards uncommitted changes: the rule allows only this exact command.");
    expect(warn("git checkout main")).toBeUndefined();
    expect(warn("git add .")).toBeUndefined();
    expect(warn("git branch -D x")).toBe("deletes a branch: the rule allows only this exact command.");
    expect(warn("git branch --delete x")).toBe("deletes a branch: the rule allows only this exact command.");
    expect(warn("git branch -vD x")).toBe("deletes a branch: the rule allows only this exact command.");
    expect(warn("git branch -d x")).toBeUndefined();
    expect(warn("git stash drop")).toBe("drops stashed work: the rule allows only this exact command.");
    expect(warn("git stash clear")).toBe("drops stashed work: the rule allows only this exact command.");
    expect(warn("git stash list")).toBeUndefined();
    expect(warn("git filter-branch x")).toBe("rewrites history: the rule allows only this exact command.");
    expect(warn("git filter-repo x")).toBe("rewrites history: the rule allows only this exact command.");
    expect(warn("git status")).toBeUndefined();
    // Each option or word counts for its own subcommand only.
    expect(warn("git checkout --merge main")).toBeUndefined();
    expect(warn("git tag --delete v1")).toBeUndefined();
    expect(warn("git add clear")).toBeUndefined();
    expect(warn("git")).toBeUndefined();
  });
});

describe("isCodeRunningOption", () => {
  it("matches an option as the whole word, with =value, or a short option with its value attached", () => {
    expect(isCodeRunningOption("git", "-c")).toBe(true);
    expect(isCodeRunningOption("git", "-cuser.name=x")).toBe(true);
    expect(isCodeRunningOption("git", "--exec-path=/x")).toBe(true);
    expect(isCodeRunningOption("git", "--exec-path")).toBe(true);
    expect(isCodeRunningOption("git", "--exec-pathx")).toBe(false);
    // getopt_long takes any unambiguous start of a long option: a start of a listed one counts.
    expect(isCodeRunningOption("git", "--e")).toBe(true);
    expect(isCodeRunningOption("sort", "--comp=./x")).toBe(true);
    expect(isCodeRunningOption("sort", "--out=/x")).toBe(true);
    expect(isCodeRunningOption("sort", "--reverse")).toBe(false);
    expect(isCodeRunningOption("git", "--")).toBe(false);
    // A short option among others (`-uo`), and not a letter after a value (`--stat`, `-5`).
    expect(isCodeRunningOption("sort", "-uo")).toBe(true);
    expect(isCodeRunningOption("sed", "-ni")).toBe(true);
    expect(isCodeRunningOption("sort", "-rn")).toBe(false);
    expect(isCodeRunningOption("git", "-am")).toBe(false);
    expect(isCodeRunningOption("cargo", "-Zflag")).toBe(true);
    expect(isCodeRunningOption("npm", "-C.")).toBe(true);
    expect(isCodeRunningOption("git", "status")).toBe(false);
    expect(isCodeRunningOption("git", "c")).toBe(false);
    expect(isCodeRunningOption("git", "")).toBe(false);
    expect(isCodeRunningOption("ls", "-c")).toBe(false);
    expect(isCodeRunningOption("git", "-v")).toBe(false);
  });

  it("never takes a longer single-dash option's tail as its value (find -executable is not -exec)", () => {
    expect(isCodeRunningOption("find", "-exec")).toBe(true);
    expect(isCodeRunningOption("find", "-execdir")).toBe(true);
    expect(isCodeRunningOption("find", "-executable")).toBe(false);
    expect(isCodeRunningOption("zip", "-TTx")).toBe(false);
    expect(isCodeRunningOption("go", "-toolexec=x")).toBe(true);
  });

  it("takes make's variable overrides as code-running, in every assignment form", () => {
    for (const word of ["CC=gcc", "SHELL=/bin/sh", "a.b+=x", "X:=1", "X?=1", "X!=cmd", "_x=1"]) expect([word, isCodeRunningOption("make", word)]).toEqual([word, true]);
    for (const word of ["1X=1", "all", "X-Y=1", "install"]) expect([word, isCodeRunningOption("make", word)]).toEqual([word, false]);
    expect(isCodeRunningOption("cmake", "CC=gcc")).toBe(false);
  });
});

describe("isCodeRunningVariable", () => {
  it("knows variables by name, by prefix and by suffix", () => {
    for (const name of [
      "PAGER",
      "PATH",
      "LD_PRELOAD",
      "LD_FOO",
      "DYLD_INSERT_LIBRARIES",
      "GIT_SSH_COMMAND",
      "npm_config_x",
      "BASH_FUNC_f%%",
      "RUSTFLAGS",
      "MY_PAGER",
      "FOO_EDITOR",
      "X_OPTIONS",
      "X_OPTS",
    ])
      expect([name, isCodeRunningVariable(name)]).toEqual([name, true]);
    for (const name of ["A", "LANG", "TERM", "NODE_ENV", "undefined", "undefinedX", "Xundefined", "OPTS_X"]) expect([name, isCodeRunningVariable(name)]).toEqual([name, false]);
  });

  // Each of these made a real program run other code for a reviewer, or is read as such by one.
  it("knows npm's whatever their case, and those of Go, Rust, pytest, make and compilers", () => {
    for (const name of [
      "Npm_Config_Script_Shell",
      "NPM_CONFIG_SCRIPT_SHELL",
      "npm_CONFIG_script_shell",
      "GOFLAGS",
      "GOENV",
      "GOTOOLCHAIN",
      "GOPROXY",
      "CGO_CFLAGS",
      "RUSTC_WORKSPACE_WRAPPER",
      "RUSTDOCFLAGS",
      "RUSTUP_TOOLCHAIN",
      "PYTEST_ADDOPTS",
      "PYTEST_PLUGINS",
      "PYTHONUSERBASE",
      "PYTHONWARNINGS",
      "PYTHONBREAKPOINT",
      "GNUMAKEFLAGS",
      "MAKEFILES",
      "CFLAGS",
      "LDFLAGS",
      "GCONV_PATH",
      "ELECTRON_RUN_AS_NODE",
      "OPENSSL_CONF",
      "CMAKE_C_COMPILER_LAUNCHER",
      "XDG_DATA_DIRS",
      "PIP_INDEX_URL",
      "MY_TOOL_PATH",
      "SOME_PLUGINS",
    ])
      expect([name, isCodeRunningVariable(name)]).toEqual([name, true]);
    for (const name of [
      "CI",
      "NODE_ENV",
      "node_env",
      "FORCE_COLOR",
      "NO_COLOR",
      "DEBUG",
      "LC_ALL",
      "TZ",
      "GOOS",
      "GOARCH",
      "CGO_ENABLED",
      "RUST_BACKTRACE",
      "RUST_LOG",
      "PYTHONUNBUFFERED",
      "PYTHONDONTWRITEBYTECODE",
      "PORT",
    ])
      expect([name, isCodeRunningVariable(name)]).toEqual([name, false]);
  });
});

describe("evaluatesCode", () => {
  it("is false for names it does not know", () => {
    expect(evaluatesCode("echo", ["a[$(x)]", null])).toBe(false);
  });

  it("always for let", () => {
    expect(evaluatesCode("let", ["x=1"])).toBe(true);
  });

  it("for declarations with a computed word, -i, or a subscript before =", () => {
    for (const name of ["declare", "typeset", "local", "export", "readonly"]) {
      expect([name, evaluatesCode(name, ["-i", "n=1"])]).toEqual([name, true]);
      expect([name, evaluatesCode(name, ["a=1"])]).toEqual([name, false]);
    }
    expect(evaluatesCode("declare", [null])).toBe(true);
    expect(evaluatesCode("declare", ["a=$x"])).toBe(true);
    expect(evaluatesCode("declare", ["a=`x`"])).toBe(true);
    expect(evaluatesCode("declare", ["-ri", "n=1"])).toBe(true);
    expect(evaluatesCode("declare", ["--i"])).toBe(false);
    expect(evaluatesCode("declare", ["x-i"])).toBe(false);
    expect(evaluatesCode("declare", ["a[1]=x"])).toBe(true);
    expect(evaluatesCode("declare", ["ab[1]=x"])).toBe(true);
    expect(evaluatesCode("declare", ["a=[1]"])).toBe(false);
    expect(evaluatesCode("declare", ["-r", "a=1"])).toBe(false);
  });

  it("for read, unset, mapfile and readarray with a computed word or a subscript among their operands", () => {
    for (const name of ["read", "unset", "mapfile", "readarray"]) {
      expect([name, evaluatesCode(name, ["a[1]"])]).toEqual([name, true]);
      expect([name, evaluatesCode(name, ["a"])]).toEqual([name, false]);
      expect([name, evaluatesCode(name, [null])]).toEqual([name, true]);
    }
    expect(evaluatesCode("read", ["$x"])).toBe(true);
    expect(evaluatesCode("read", ["`x`"])).toBe(true);
    expect(evaluatesCode("read", ["-a[", "x"])).toBe(false);
    expect(evaluatesCode("read", ["-r", "a[1]"])).toBe(true);
  });

  it("for printf -v with a computed name or subscript, in both spellings", () => {
    expect(evaluatesCode("printf", ["-v", "a[1]", "x"])).toBe(true);
    expect(evaluatesCode("printf", ["-va[1]", "x"])).toBe(true);
    expect(evaluatesCode("printf", ["-v", null, "x"])).toBe(true);
    expect(evaluatesCode("printf", ["-v"])).toBe(true);
    expect(evaluatesCode("printf", ["-v", "a", "%s", "a[1]"])).toBe(false);
    expect(evaluatesCode("printf", ["-va", "x"])).toBe(false);
    expect(evaluatesCode("printf", ["%s", "a[1]"])).toBe(false);
    expect(evaluatesCode("printf", ["%s", "ab[1]"])).toBe(false);
    expect(evaluatesCode("printf", ["%s", null])).toBe(true);
  });

  it("for test and [ -v with anything but a plain name", () => {
    for (const name of ["test", "["]) {
      expect([name, evaluatesCode(name, ["-v", "a[1]"])]).toEqual([name, true]);
      expect([name, evaluatesCode(name, ["-v", "_a1"])]).toEqual([name, false]);
      expect([name, evaluatesCode(name, ["-v"])]).toEqual([name, true]);
    }
    expect(evaluatesCode("test", ["-v", "1a"])).toBe(true);
    expect(evaluatesCode("test", ["-v", "a b"])).toBe(true);
    expect(evaluatesCode("test", ["-f", "a[1]"])).toBe(false);
    expect(evaluatesCode("test", ["a[1]", "-v"])).toBe(true);
  });
});
