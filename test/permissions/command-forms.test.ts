// The forms of one command that rules are matched against (command-forms.ts, deny-forms.ts), driven directly:
// the allow form after the wrappers that only pass a command through, with the reason no rule may
// allow it, and every command a line may run (deny forms), found through every wrapper, shell
// string and option that runs code, with `unknown` when one of them is computed when it runs.
import { beforeAll, describe, expect, it } from "vitest";
import { allowForm, sharedAllowFormOf } from "../../app/main/permissions/command-forms.ts";
import { denyForms, sharedDenyFormsOf } from "../../app/main/permissions/deny-forms.ts";
import { callSubjects, decide } from "../../app/main/permissions/policy.ts";
import { analyzeShell, type ShellCommand, type ShellWord } from "../../app/main/permissions/shell-analysis.ts";
import { loadShellParser } from "../../app/main/permissions/shell-parser.ts";
import type { PermissionRule } from "../../app/main/store/index.ts";

beforeAll(() => loadShellParser());

/** The line's last command (the outer one when it holds substitutions). */
const commandOf = (line: string): ShellCommand => analyzeShell(line, { cwd: "/p", home: "/h" }).commands.at(-1)!;
const allow = (line: string) => allowForm(commandOf(line));
const deny = (line: string) => denyForms(commandOf(line).words);
const word = (value: string | null, glob = false): ShellWord => ({ value, glob, tilde: false });
const words = (...values: (string | null)[]) => values.map((v) => word(v));

let nextId = 1;
const rule = (pattern: string, action: "allow" | "deny"): PermissionRule => ({ id: nextId++, tool: "bash", pattern, action, scope: "project", scopeId: 1, createdAt: 0 });
const judge = (command: string, rules: PermissionRule[], mode = "ask") => decide({ toolName: "bash", subjects: callSubjects("bash", { command }, "/tmp"), rules, mode });

describe("allow form: wrappers that pass a command through", () => {
  it("unwraps time, nice, timeout, env, command and builtin with their options", () => {
    expect(allow("time -p ls -l")).toEqual({ words: ["ls", "-l"], globbed: [false, false], assignments: [], blocked: undefined });
    expect(allow("nice -n 5 ls").words).toEqual(["ls"]);
    expect(allow("nice -5 ls").words).toEqual(["ls"]);
    expect(allow("nice -15 ls").words).toEqual(["ls"]);
    expect(allow("nice --adjustment=3 ls").words).toEqual(["ls"]);
    expect(allow("timeout 5 ls").words).toEqual(["ls"]);
    expect(allow("timeout -k 3 --signal=KILL 5 ls").words).toEqual(["ls"]);
    expect(allow("timeout --preserve-status -s HUP 5 ls x").words).toEqual(["ls", "x"]);
    expect(allow("env -i ls").words).toEqual(["ls"]);
    expect(allow("env -u HOME ls").words).toEqual(["ls"]);
    expect(allow("env --unset=HOME ls").words).toEqual(["ls"]);
    expect(allow("env -- ls -a").words).toEqual(["ls", "-a"]);
    expect(allow("command -p ls").words).toEqual(["ls"]);
    expect(allow("builtin cd x").words).toEqual(["cd", "x"]);
    expect(allow("env A=1 -i nice -n 5 ls")).toEqual({ words: ["ls"], globbed: [false], assignments: [{ name: "A", value: "1" }], blocked: undefined });
  });

  it("keeps a wrapper with nothing after it, or given only its own options, as it is", () => {
    expect(allow("nice -n 5")).toEqual({ words: ["nice", "-n", "5"], globbed: [false, false, false], assignments: [], blocked: undefined });
    expect(allow("timeout").words).toEqual(["timeout"]);
    expect(allow("timeout 5").words).toEqual(["timeout", "5"]);
    expect(allow("env -i").words).toEqual(["env", "-i"]);
    expect(allow("env -u").words).toEqual(["env", "-u"]);
  });

  it("blocks an option it does not know, and keeps the wrapper in the form", () => {
    expect(allow("nice -x ls")).toEqual({ words: ["nice", "-x", "ls"], globbed: [false, false, false], assignments: [], blocked: "nice -x is an option Lathe does not judge" });
    expect(allow("nice -5x ls").blocked).toBe("nice -5x is an option Lathe does not judge");
    expect(allow("nice --5 ls").blocked).toBe("nice --5 is an option Lathe does not judge");
    expect(allow("env -n5 ls").blocked).toBe("env -n5 is an option Lathe does not judge");
    expect(allow("timeout -n 5 ls").blocked).toBe("timeout -n is an option Lathe does not judge");
    expect(allow("env -S 'ls -l'").blocked).toBe("env -S is an option Lathe does not judge");
    // `-` alone is an operand, not an option: the command inside is `-`.
    expect(allow("nice - ls")).toEqual({ words: ["-", "ls"], globbed: [false, false], assignments: [], blocked: undefined });
  });

  it("reads NAME=value after env and time as assignments, after other wrappers as the command", () => {
    expect(allow("time A=1 ls").assignments).toEqual([{ name: "A", value: "1" }]);
    expect(allow("env A= _b=2 ls")).toMatchObject({
      words: ["ls"],
      assignments: [
        { name: "A", value: "" },
        { name: "_b", value: "2" },
      ],
    });
    expect(allow("env 'A=a\nb' ls").assignments).toEqual([{ name: "A", value: "a\nb" }]);
    expect(allow("env 1A=2 ls")).toMatchObject({ words: ["1A=2", "ls"], assignments: [] });
    expect(allow("env A-B=2 ls").words).toEqual(["A-B=2", "ls"]);
    expect(allow("env xA=2 ls").assignments).toEqual([{ name: "xA", value: "2" }]);
    expect(allow("nice A=1 ls")).toMatchObject({ words: ["A=1", "ls"], assignments: [] });
    expect(allow("timeout A=1 ls").words).toEqual(["ls"]);
  });

  it("adds env's assignments to a copy: the command's own list is left as it was", () => {
    const command = commandOf("B=2 env A=1 C=3 ls");
    expect(allowForm(command).assignments).toEqual([
      { name: "B", value: "2" },
      { name: "A", value: "1" },
      { name: "C", value: "3" },
    ]);
    expect(command.assignments).toEqual([{ name: "B", value: "2" }]);
    const plain = commandOf("B=2 ls");
    expect(allowForm(plain).assignments).toBe(plain.assignments);
  });

  it("unwraps at most eight wrappers", () => {
    expect(allow(`${"time ".repeat(8)}ls`).words).toEqual(["ls"]);
    expect(allow(`${"time ".repeat(9)}ls`)).toMatchObject({ words: ["time", "ls"], blocked: undefined });
    // Past the eighth, what is left is judged as it is: env -S runs its string.
    expect(allow(`${"time ".repeat(8)}env -S 'ls -l'`)).toMatchObject({ words: ["env", "-S", "ls -l"], blocked: "env -S runs a string as a command" });
    expect(allow(`${"time ".repeat(8)}env --split-string='ls -l'`).blocked).toBe("env -S runs a string as a command");
    expect(allow(`${"time ".repeat(8)}env -i ls`).blocked).toBeUndefined();
  });

  it("does not unwrap a command whose words are computed", () => {
    expect(allow("time ls $X")).toEqual({ words: ["time", "ls", ""], globbed: [false, false, false], assignments: [], blocked: "some of its words are computed when it runs" });
    expect(allow("$X ls").blocked).toBe("some of its words are computed when it runs");
  });
});

describe("allow form: command -v and -V only look a name up", () => {
  it("keeps `command -v NAME` as it is, options before the name and clusters included", () => {
    expect(allow("command -v ls")).toMatchObject({ words: ["command", "-v", "ls"], blocked: undefined });
    expect(allow("command -V ls").words).toEqual(["command", "-V", "ls"]);
    expect(allow("command -pv ls").words).toEqual(["command", "-pv", "ls"]);
    expect(allow("command -p -V ls").words).toEqual(["command", "-p", "-V", "ls"]);
  });

  it("unwraps a command whose -v comes after its name: that -v is the command's own", () => {
    expect(allow("command rm -rf x -v")).toMatchObject({ words: ["rm", "-rf", "x", "-v"], blocked: undefined });
    expect(allow("command -- ls -v").words).toEqual(["ls", "-v"]);
    expect(allow("command - -v").words).toEqual(["-", "-v"]);
  });

  it("a rule for `command *` (what always allowing `command -v node` proposes) no longer allows running rm (bug)", () => {
    const commandRule = [rule("command *", "allow")];
    expect(judge("command -v node", commandRule)).toMatchObject({ action: "allow", by: "rule" });
    expect(judge("command rm -rf /tmp/x -v", commandRule)).toMatchObject({ action: "ask", reasons: ["command rm -rf /tmp/x -v: no rule allows it."] });
  });
});

describe("allow form: commands no rule may allow", () => {
  it("blocks commands that run their arguments, shells given code or no script, env -S and find -exec", () => {
    expect(allow("sudo ls").blocked).toBe("sudo runs its arguments as a command, as another user");
    expect(allow("xargs rm").blocked).toBe("xargs runs its arguments as a command, with input appended");
    expect(allow("bash -c 'ls'").blocked).toBe("bash -c runs a string as shell code");
    expect(allow("bash -lc 'ls'").blocked).toBe("bash -c runs a string as shell code");
    expect(allow("sh -e -c 'rm y'").blocked).toBe("sh -c runs a string as shell code");
    expect(allow("bash").blocked).toBe("bash without a script runs the commands it reads from its input");
    expect(allow("bash -x").blocked).toBe("bash without a script runs the commands it reads from its input");
    expect(allow("bash -s arg").blocked).toBe("bash without a script runs the commands it reads from its input");
    expect(allow("zsh -xs").blocked).toBe("zsh without a script runs the commands it reads from its input");
    expect(allow("bash -o posix").blocked).toBe("bash without a script runs the commands it reads from its input");
    expect(allow("bash script.sh")).toMatchObject({ words: ["bash", "script.sh"], blocked: undefined });
    expect(allow("bash -x script.sh").blocked).toBeUndefined();
    expect(allow("bash --norc script.sh").blocked).toBeUndefined();
    expect(allow("find . -exec rm {} \\;").blocked).toBe("find -exec runs a command for each file it finds");
    expect(allow("find . -execdir rm {} +").blocked).toBe("find -exec runs a command for each file it finds");
    expect(allow("find . -okdir rm {} \\;").blocked).toBe("find -exec runs a command for each file it finds");
    expect(allow("find . -name x -print").blocked).toBeUndefined();
    expect(allow("find . -executable").blocked).toBeUndefined();
    expect(allow("env").blocked).toBeUndefined();
  });

  it("blocks a command name with wildcards", () => {
    expect(allow("l* x")).toEqual({ words: ["l*", "x"], globbed: [true, false], assignments: [], blocked: "its command name has wildcards, which bash expands when it runs" });
    expect(allow("ls *.ts")).toEqual({ words: ["ls", "*.ts"], globbed: [false, true], assignments: [], blocked: undefined });
  });

  it("blocks setting a variable that makes programs run other code, before the command or through env", () => {
    expect(allow("PAGER=less git log")).toEqual({
      words: ["git", "log"],
      globbed: [false, false],
      assignments: [{ name: "PAGER", value: "less" }],
      blocked: "it sets PAGER, which can make programs run other code",
    });
    expect(allow("A=1 LD_PRELOAD=x.so ls").blocked).toBe("it sets LD_PRELOAD, which can make programs run other code");
    expect(allow("env A=1 GIT_DIR=x git status").blocked).toBe("it sets GIT_DIR, which can make programs run other code");
    expect(allow("A=1 B=2 ls").blocked).toBeUndefined();
  });

  it("blocks builtins that evaluate a value as code: printf -v, read, let, test -v with a subscript (bug)", () => {
    const evaluates = (name: string) => `${name} evaluates a value as arithmetic or an array subscript, which can run commands`;
    expect(allow("printf -v 'a[$(rm x)]' 1").blocked).toBe(evaluates("printf"));
    expect(allow("read 'a[$(rm x)]'").blocked).toBe(evaluates("read"));
    expect(allow("let x=1").blocked).toBe(evaluates("let"));
    expect(allow("test -v 'a[$(rm x)]'").blocked).toBe(evaluates("test"));
    expect(allow("command printf -v 'a[$(rm x)]' 1")).toMatchObject({ words: ["printf", "-v", "a[$(rm x)]", "1"], blocked: evaluates("printf") });
    expect(allow("printf -v a '%s' x").blocked).toBeUndefined();
    expect(allow("read -r line").blocked).toBeUndefined();
    expect(allow("test -v name").blocked).toBeUndefined();
  });

  it("blocks mapfile and readarray with -C, whose code runs as they read (bug)", () => {
    expect(allow("mapfile -C 'rm x' -c 1 a").blocked).toBe("mapfile -C runs shell code as it reads");
    expect(allow("readarray -tC 'rm x' a").blocked).toBe("readarray -C runs shell code as it reads");
    expect(allow("mapfile -c1 -C'rm x' a").blocked).toBe("mapfile -C runs shell code as it reads");
    expect(allow("mapfile -C").blocked).toBe("mapfile -C runs shell code as it reads");
    // -d takes a value: `-dC` is the delimiter C.
    expect(allow("mapfile -dC a").blocked).toBeUndefined();
    expect(allow("mapfile -t lines").blocked).toBeUndefined();
    expect(allow("mapfile 'a[$(rm x)]'").blocked).toBe("mapfile evaluates a value as arithmetic or an array subscript, which can run commands");
  });

  it("a rule for `printf *`, `read *`, `mapfile *` or `let *` no longer allows the code they would run (bug)", () => {
    expect(judge("printf -v 'a[$(touch /tmp/x)]' 1", [rule("printf *", "allow")])).toMatchObject({ action: "ask" });
    expect(judge("printf '%s' x", [rule("printf *", "allow")])).toMatchObject({ action: "allow", by: "rule" });
    expect(judge("read 'a[$(touch /tmp/x)]'", [rule("read *", "allow")])).toMatchObject({ action: "ask" });
    expect(judge("mapfile -C 'touch /tmp/x' -c 1 a", [rule("mapfile *", "allow")])).toMatchObject({ action: "ask" });
    expect(judge("let 'a[$(touch /tmp/x)]=1'", [rule("let *", "allow")])).toMatchObject({ action: "ask" });
  });
});

describe("allow form: the words and flags it returns", () => {
  it("gives a computed word as an empty value", () => {
    expect(allow("ls $X").words).toEqual(["ls", ""]);
  });

  it("shares one frozen list of flags between commands of the same length without wildcards, up to 64 words", () => {
    const a = allow("ls a");
    const b = allow("cat b");
    expect(a.globbed).toBe(b.globbed);
    expect(Object.isFrozen(a.globbed)).toBe(true);
    const long = (n: number) => `echo${" x".repeat(n - 1)}`;
    expect(allow(long(64)).globbed).toBe(allow(long(64)).globbed);
    const fresh = allow(long(65)).globbed;
    expect(fresh).toEqual(new Array(65).fill(false));
    expect(Object.isFrozen(fresh)).toBe(false);
    expect(fresh).not.toBe(allow(long(65)).globbed);
  });

  it("sharedAllowFormOf: one object for every call, and the given list as its words when it holds exactly them", () => {
    const command = commandOf("ls -l $X");
    const same = ["ls", "-l", ""];
    const form = sharedAllowFormOf(command, same);
    expect(form.words).toBe(same);
    expect(sharedAllowFormOf(commandOf("cat"))).toBe(form);
    expect(sharedAllowFormOf(command, ["ls", "-l"]).words).toEqual(["ls", "-l", ""]);
    expect(sharedAllowFormOf(command, ["ls", "-l"]).words).not.toEqual(["ls", "-l"]);
    expect(sharedAllowFormOf(command, ["ls", "-a", ""]).words).toEqual(["ls", "-l", ""]);
    const longer = ["ls", "-l", "", "x"];
    expect(sharedAllowFormOf(command, longer).words).not.toBe(longer);
    const other = ["ls", "-l", "x"];
    expect(sharedAllowFormOf(command, other).words).not.toBe(other);
    // After unwrapping, the words are the inner command's: a list of the whole line is not them.
    const wrapped = ["nice", "ls"];
    expect(sharedAllowFormOf(commandOf("nice ls"), wrapped).words).toEqual(["ls"]);
  });
});

describe("deny forms", () => {
  it("lists a plain command as its one form, after what `into` held", () => {
    expect(deny("ls -l")).toEqual({ forms: [["ls", "-l"]], first: 0, unknown: false });
    const into = [["earlier"]];
    const forms = denyForms(words("ls"), 0, into);
    expect(forms).toEqual({ forms: [["earlier"], ["ls"]], first: 1, unknown: false });
    expect(forms.forms).toBe(into);
    expect(denyForms([])).toEqual({ forms: [], first: 0, unknown: false });
  });

  it("sharedDenyFormsOf starts each call afresh in one shared object", () => {
    const into: string[][] = [];
    const first = sharedDenyFormsOf(words(null), into);
    expect(first.unknown).toBe(true);
    const second = sharedDenyFormsOf(words("ls"), into);
    expect(second).toBe(first);
    expect(second).toEqual({ forms: [["ls"]], first: 0, unknown: false });
    expect(sharedDenyFormsOf(words("cat"), into)).toEqual({ forms: [["ls"], ["cat"]], first: 1, unknown: false });
  });

  it("is unknown for a computed or wildcard command name, keeps computed arguments as NUL", () => {
    expect(denyForms(words(null, "x"))).toEqual({ forms: [], first: 0, unknown: true });
    expect(denyForms([word("l*", true), word("x")])).toEqual({ forms: [["l*", "x"]], first: 0, unknown: true });
    expect(denyForms(words("ls", null))).toEqual({ forms: [["ls", "\u0000"]], first: 0, unknown: false });
    expect(deny("sudo l* x")).toEqual({ forms: [["sudo", "l*", "x"], ["x"]], first: 0, unknown: true });
    expect(deny("sudo 'l?' x").unknown).toBe(true);
    expect(deny("sudo 'l[s]' x").unknown).toBe(true);
    expect(deny("find . -exec {} ;").unknown).toBe(true);
  });

  it("finds the commands inside pass-through wrappers and commands that run their arguments", () => {
    expect(deny("nice -n 5 rm x").forms).toEqual([["nice", "-n", "5", "rm", "x"], ["5", "rm", "x"], ["rm", "x"], ["x"]]);
    expect(deny("env A=1 rm x").forms).toEqual([["env", "A=1", "rm", "x"], ["rm", "x"], ["x"]]);
    expect(deny("sudo $X").unknown).toBe(true);
    expect(deny("sudo ls $X")).toEqual({
      forms: [
        ["sudo", "ls", "\u0000"],
        ["ls", "\u0000"],
      ],
      first: 0,
      unknown: false,
    });
    expect(deny("xargs -0").forms).toEqual([["xargs", "-0"], ["echo"]]);
    expect(deny("xargs").forms).toEqual([["xargs"], ["echo"]]);
    expect(deny("xargs rm").forms).toEqual([["xargs", "rm"], ["rm"]]);
    expect(deny("sudo").forms).toEqual([["sudo"]]);
  });

  it("finds the code of shells, eval, trap, alias and watch", () => {
    expect(deny("bash -c 'rm x'")).toEqual({
      forms: [
        ["bash", "-c", "rm x"],
        ["rm", "x"],
      ],
      first: 0,
      unknown: false,
    });
    expect(deny("bash -xc 'rm x' name").forms).toEqual([
      ["bash", "-xc", "rm x", "name"],
      ["rm", "x"],
    ]);
    expect(deny("sh -c -e 'rm y'").forms).toEqual([
      ["sh", "-c", "-e", "rm y"],
      ["rm", "y"],
    ]);
    expect(deny("bash -c").unknown).toBe(true);
    expect(deny('bash -c "$X"').unknown).toBe(true);
    expect(deny("bash --rcfile rc script")).toEqual({ forms: [["bash", "--rcfile", "rc", "script"]], first: 0, unknown: false });
    expect(deny("su -c 'rm x' root").forms).toEqual([["su", "-c", "rm x", "root"], ["rm", "x"], ["rm x", "root"], ["root"]]);
    expect(deny("script -c 'rm x' log").forms).toContainEqual(["rm", "x"]);
    expect(deny("su root").forms).toEqual([["su", "root"], ["root"]]);
    expect(deny("eval rm x").forms).toEqual([
      ["eval", "rm", "x"],
      ["rm", "x"],
    ]);
    expect(deny('eval "$X"').unknown).toBe(true);
    expect(deny("trap 'rm x' EXIT").forms).toEqual([
      ["trap", "rm x", "EXIT"],
      ["rm", "x"],
    ]);
    expect(deny("trap -- 'rm x' EXIT").forms).toEqual([
      ["trap", "--", "rm x", "EXIT"],
      ["rm", "x"],
    ]);
    expect(deny("trap -p")).toEqual({ forms: [["trap", "-p"]], first: 0, unknown: false });
    expect(deny('trap "$X" EXIT').unknown).toBe(true);
    expect(deny("alias ll='rm -rf /' -p")).toEqual({
      forms: [
        ["alias", "ll=rm -rf /", "-p"],
        ["rm", "-rf", "/"],
      ],
      first: 0,
      unknown: false,
    });
    expect(deny("alias a='rm x=y'").forms).toEqual([
      ["alias", "a=rm x=y"],
      ["rm", "x=y"],
    ]);
    expect(deny('alias "$X"').unknown).toBe(true);
    expect(deny("watch -n 1 rm x").forms).toEqual([["watch", "-n", "1", "rm", "x"], ["1", "rm", "x"], ["rm", "x"], ["x"]]);
    expect(deny('watch "$X" x')).toEqual({ forms: [["watch", "\u0000", "x"], ["x"]], first: 0, unknown: true });
    expect(deny('watch x "$X"').unknown).toBe(true);
  });

  it("finds the code of mapfile and readarray -C, clusters included (bug: `-tC CODE` was missed)", () => {
    expect(deny("mapfile -C 'rm x' -c 1 a").forms).toEqual([
      ["mapfile", "-C", "rm x", "-c", "1", "a"],
      ["rm", "x"],
    ]);
    expect(deny("mapfile -C'rm x' a").forms).toEqual([
      ["mapfile", "-Crm x", "a"],
      ["rm", "x"],
    ]);
    expect(deny("mapfile -tC 'rm x' -c 1 a").forms).toEqual([
      ["mapfile", "-tC", "rm x", "-c", "1", "a"],
      ["rm", "x"],
    ]);
    expect(deny("readarray -c1 -tC'rm y' a").forms).toEqual([
      ["readarray", "-c1", "-tCrm y", "a"],
      ["rm", "y"],
    ]);
    expect(deny("mapfile -dC a")).toEqual({ forms: [["mapfile", "-dC", "a"]], first: 0, unknown: false });
    expect(deny("mapfile -d -C a").forms).toEqual([["mapfile", "-d", "-C", "a"]]);
    expect(deny("mapfile -C")).toEqual({ forms: [["mapfile", "-C"]], first: 0, unknown: true });
    expect(deny('mapfile -C "$X" a').unknown).toBe(true);
    expect(deny("mapfile -- -t a").unknown).toBe(false);
    expect(judge("mapfile -tC 'rm -rf x' -c 1 a < f", [rule("rm *", "deny")], "full-auto")).toMatchObject({ action: "deny" });
  });

  it("finds the string env -S runs, however the option is written (bug: it ran unseen)", () => {
    expect(deny("env -S 'rm -rf x'").forms).toEqual([["env", "-S", "rm -rf x"], ["rm", "-rf", "x"], ["rm -rf x"]]);
    expect(deny("env -iS'rm x'").forms).toContainEqual(["rm", "x"]);
    expect(deny("env --split-string='rm x'").forms).toContainEqual(["rm", "x"]);
    expect(deny("env --split-string 'rm x'").forms).toContainEqual(["rm", "x"]);
    expect(deny("env --s='rm x'").forms).toContainEqual(["rm", "x"]);
    expect(deny("env --split-string=").forms).toEqual([["env", "--split-string="]]);
    expect(deny("env -S").unknown).toBe(true);
    expect(deny("env --split").unknown).toBe(true);
    // Its own escapes are not read: a string with a backslash is unknown.
    expect(deny("env -S 'rm\\_-rf\\_x'").unknown).toBe(true);
    // Not -S: -u takes a value (`-uS` unsets S), and --splitx or --sx are other words.
    expect(deny("env -u S ls")).toEqual({ forms: [["env", "-u", "S", "ls"], ["S", "ls"], ["ls"]], first: 0, unknown: false });
    expect(deny("env -uS ls").forms).toEqual([["env", "-uS", "ls"], ["ls"]]);
    expect(deny("env --sx=rm ls").forms).toEqual([["env", "--sx=rm", "ls"], ["ls"]]);
    expect(deny("env --split-strings=rm ls").forms).toEqual([["env", "--split-strings=rm", "ls"], ["ls"]]);
    expect(judge("env -S 'rm -rf x'", [rule("rm *", "deny")], "full-auto")).toMatchObject({ action: "deny" });
  });

  it("is unknown for a shell that reads its commands from its input (bug: `bash -s x` and `bash -o posix` were not)", () => {
    for (const line of [
      "bash",
      "bash -x",
      "bash -s x",
      "sh -xs",
      "bash -o posix",
      "bash -eo pipefail",
      "bash -oe pipefail",
      "bash +x",
      "bash --",
      "bash -",
      "bash --norc",
      "bash --rcfile rc",
      "bash -O extglob",
    ])
      expect([line, deny(line).unknown]).toEqual([line, true]);
    for (const line of [
      "bash script.sh",
      "bash -x script.sh",
      "bash script.sh -s",
      "bash -- script.sh",
      "bash --rcfile rc script.sh",
      "bash -o posix script.sh",
      "bash --norc script.sh",
    ])
      expect([line, deny(line).unknown]).toEqual([line, false]);
    expect(deny("bash $X").unknown).toBe(false);
    expect(judge("echo 'rm -rf x' | bash -s y", [rule("rm *", "deny")], "full-auto")).toMatchObject({ action: "ask", firm: true });
  });

  it("finds the applet busybox runs (bug: `busybox rm` ran unseen)", () => {
    expect(deny("busybox rm -rf x")).toEqual({
      forms: [
        ["busybox", "rm", "-rf", "x"],
        ["rm", "-rf", "x"],
      ],
      first: 0,
      unknown: false,
    });
    expect(deny("busybox sh -c 'rm x'").forms).toEqual([
      ["busybox", "sh", "-c", "rm x"],
      ["sh", "-c", "rm x"],
      ["rm", "x"],
    ]);
    expect(deny("busybox --list").unknown).toBe(true);
    expect(deny("busybox $X").unknown).toBe(true);
    expect(judge("busybox rm -rf x", [rule("rm *", "deny")], "full-auto")).toMatchObject({ action: "deny" });
  });

  it("finds the commands find runs with -exec, -execdir, -ok and -okdir, up to ; or +", () => {
    expect(deny("find . -exec rm {} \\; -exec cp {} x + -ok").forms).toEqual([
      ["find", ".", "-exec", "rm", "{}", ";", "-exec", "cp", "{}", "x", "+", "-ok"],
      ["rm", "{}"],
      ["cp", "{}", "x"],
    ]);
    expect(deny("find . -execdir mv {} y +").forms[1]).toEqual(["mv", "{}", "y"]);
    expect(deny("find . -okdir rm {} \\;").forms[1]).toEqual(["rm", "{}"]);
    expect(deny("find . -exec rm {}").forms[1]).toEqual(["rm", "{}"]);
    expect(deny("find . -name x -executable").forms).toEqual([["find", ".", "-name", "x", "-executable"]]);
    expect(deny("find ';' -exec rm x").forms).toEqual([
      ["find", ";", "-exec", "rm", "x"],
      ["rm", "x"],
    ]);
  });

  it("is unknown for builtins that evaluate a computed value or subscript", () => {
    expect(deny("let x=1").unknown).toBe(true);
    expect(deny("read 'a[$(rm x)]'").unknown).toBe(true);
    expect(deny("read -r line").unknown).toBe(false);
  });

  it("is unknown for a string of shell code too long to judge", () => {
    const forms = denyForms(words("bash", "-c", `ls ${"x".repeat(40_000)}`));
    expect(forms.unknown).toBe(true);
    expect(denyForms(words("bash", "-c", "ls x")).unknown).toBe(false);
  });

  it("looks four levels deep, then is unknown for a command that would run another", () => {
    expect(deny("sudo sudo sudo ls").unknown).toBe(false);
    expect(deny("sudo sudo sudo sudo ls").unknown).toBe(false);
    expect(deny("sudo sudo sudo sudo sudo ls").unknown).toBe(true);
    expect(deny("sudo sudo sudo sudo python x").unknown).toBe(true);
    expect(deny("sudo sudo sudo sudo nice x").unknown).toBe(true);
    // Each string of code is one level deeper.
    expect(deny("eval eval eval eval ls").unknown).toBe(false);
    expect(deny("eval eval eval eval sudo ls").unknown).toBe(true);
    expect(deny("find . -exec find . -exec find . -exec find . -exec sudo ls \\; \\; \\; \\;").unknown).toBe(true);
    expect(deny("find . -exec find . -exec find . -exec sudo ls \\; \\; \\;").unknown).toBe(false);
    expect(deny("busybox busybox busybox busybox sudo ls").unknown).toBe(true);
  });

  it("lists at most 400 forms per command, then is unknown", () => {
    const sudo = (operands: number) => denyForms(words("sudo", ...Array.from({ length: operands }, (_, i) => `a${i}`)));
    expect(sudo(399)).toMatchObject({ unknown: false });
    expect(sudo(399).forms).toHaveLength(400);
    expect(sudo(400)).toMatchObject({ unknown: true });
    expect(sudo(400).forms).toHaveLength(400);
    // Counted from `first`: the forms `into` held before do not count.
    const into = Array.from({ length: 50 }, () => ["x"]);
    const after = denyForms(words("sudo", ...Array.from({ length: 399 }, (_, i) => `a${i}`)), 0, into);
    expect(after.unknown).toBe(false);
    expect(after.forms).toHaveLength(450);
  });
});

describe("edges of option reading", () => {
  it("takes -N for a niceness only after nice, and a blocked form keeps its first reason", () => {
    expect(allow("timeout -5 1 ls").blocked).toBe("timeout -5 is an option Lathe does not judge");
    expect(allow("read $X").blocked).toBe("some of its words are computed when it runs");
    expect(allow("printf -v $X 1").blocked).toBe("some of its words are computed when it runs");
  });

  it("reads command's look-up options up to the first operand or --", () => {
    expect(allow("command -p")).toMatchObject({ words: ["command", "-p"], blocked: undefined });
    expect(allow("command -p -v ls")).toMatchObject({ words: ["command", "-p", "-v", "ls"], blocked: undefined });
    expect(allow("command -- -v x").words).toEqual(["-v", "x"]);
    expect(allow("command -p -x ls").blocked).toBe("command -x is an option Lathe does not judge");
    expect(allow("command -p -x").blocked).toBe("command -x is an option Lathe does not judge");
  });

  it("judges shells, env and find by their own options only", () => {
    expect(allow("bash x.sh -S").blocked).toBeUndefined();
    expect(allow("bash x.sh -ok").blocked).toBeUndefined();
    expect(allow("bash -cx 'rm x'").blocked).toBe("bash -c runs a string as shell code");
    expect(allow("find . -name pre-exec").blocked).toBeUndefined();
    expect(allow("find . --exec").blocked).toBeUndefined();
    expect(allow("test -C x").blocked).toBeUndefined();
    expect(allow("sh -c1 x").blocked).toBeUndefined();
  });

  it("reads mapfile's options as clusters of letters, never operands or long options", () => {
    expect(deny("mapfile xCrm").forms).toEqual([["mapfile", "xCrm"]]);
    expect(deny("mapfile --Crm a").forms).toEqual([["mapfile", "--Crm", "a"]]);
    expect(deny("mapfile -t -C 'rm x' a").forms).toEqual([
      ["mapfile", "-t", "-C", "rm x", "a"],
      ["rm", "x"],
    ]);
    expect(deny("mapfile $X -C 'rm x' a")).toEqual({
      forms: [
        ["mapfile", "\u0000", "-C", "rm x", "a"],
        ["rm", "x"],
      ],
      first: 0,
      unknown: true,
    });
  });

  it("reads a shell's script after -- and its option clusters exactly", () => {
    expect(deny("bash -- -s").unknown).toBe(false);
    expect(deny("bash -x5").unknown).toBe(false);
    expect(deny("bash +s x.sh").unknown).toBe(false);
    expect(deny("bash -cx 'rm x'").forms).toEqual([
      ["bash", "-cx", "rm x"],
      ["rm", "x"],
    ]);
    expect(deny("sh -c1 x").forms).toEqual([["sh", "-c1", "x"]]);
    expect(deny("su root -c 'rm x'").forms).toEqual([["su", "root", "-c", "rm x"], ["rm", "x"], ["root", "-c", "rm x"], ["rm x"]]);
    expect(deny("script -c 'rm x' log").forms).toEqual([["script", "-c", "rm x", "log"], ["rm", "x"], ["rm x", "log"], ["log"]]);
    expect(deny("busybox --install rm").forms).toEqual([["busybox", "--install", "rm"], ["rm"]]);
  });

  it("reads env's -S exactly, and no other command's", () => {
    expect(deny("env -S 'rm -rf x'").unknown).toBe(false);
    expect(deny("env --sx rm").forms).toEqual([["env", "--sx", "rm"], ["rm"]]);
    expect(deny("env $X rm")).toEqual({ forms: [["env", "\u0000", "rm"], ["rm"]], first: 0, unknown: true });
    expect(deny('env -S "$X"').unknown).toBe(true);
    expect(deny("sudo -S ls x").forms).toEqual([["sudo", "-S", "ls", "x"], ["ls", "x"], ["x"]]);
  });

  it("keeps eval, find and the builtins that evaluate code to their own words", () => {
    expect(deny("eval rm $X").unknown).toBe(true);
    expect(deny("bash -c 'ls $X'")).toEqual({
      forms: [
        ["bash", "-c", "ls $X"],
        ["ls", "\u0000"],
      ],
      first: 0,
      unknown: false,
    });
    expect(deny("find . -name pre-exec -print").forms).toEqual([["find", ".", "-name", "pre-exec", "-print"]]);
    expect(deny("find . -executable -print").forms).toEqual([["find", ".", "-executable", "-print"]]);
    expect(deny("printf '%s' rm").forms).toEqual([["printf", "%s", "rm"]]);
  });
});
