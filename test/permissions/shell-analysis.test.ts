// Reading a command line (shell-analysis.ts) driven directly: the commands with the folders they
// run in (`&&`, `||`, `!`, `&`, subshells), nested commands listed for deny rules, redirections,
// assignments and declarations, and the reasons no rule may allow a line, each call on its own.
import { beforeAll, describe, expect, it } from "vitest";
import { analyzeShell, MAX_JUDGED_COMMAND_CHARS } from "../../app/main/permissions/shell-analysis.ts";
import { loadShellParser, MAX_DEPTH } from "../../app/main/permissions/shell-parser.ts";

beforeAll(() => loadShellParser());

const read = (line: string) => analyzeShell(line, { cwd: "/p", home: "/h" });
/** Each command's text with the folders it may run in and whether it is nested. */
const where = (line: string) => read(line).commands.map((c) => ({ text: c.text, cwds: c.cwds, nested: c.nested }));

describe("where each command runs", () => {
  it("after cd: && on success, || on failure, ! swapping the two, & and subshells leaving the folder as it was", () => {
    expect(where("cd src && ls; ls")).toEqual([
      { text: "cd src", cwds: ["/p"], nested: false },
      { text: "ls", cwds: ["/p/src"], nested: false },
      { text: "ls", cwds: ["/p/src", "/p"], nested: false },
    ]);
    expect(where("cd src || ls")[1]!.cwds).toEqual(["/p"]);
    expect(where("! cd src && ls")[1]!.cwds).toEqual(["/p"]);
    expect(where("! cd src || ls")[1]!.cwds).toEqual(["/p/src"]);
    expect(where("cd src & ls")[1]!.cwds).toEqual(["/p"]);
    expect(where("cd src\nls")[1]!.cwds).toEqual(["/p/src", "/p"]);
    expect(where("(cd /tmp && ls) ; ls")).toEqual([
      { text: "cd /tmp", cwds: [null], nested: true },
      { text: "ls", cwds: ["/tmp"], nested: true },
      { text: "ls", cwds: ["/p"], nested: false },
    ]);
  });

  it("reads pipelines, |& included, and comments as nothing to judge", () => {
    const piped = read("ls | grep x |& wc -l # count");
    expect(piped.opaque).toEqual([]);
    expect(piped.commands.map((c) => c.text)).toEqual(["ls", "grep x", "wc -l"]);
    expect(read("# only a comment")).toMatchObject({ commands: [], opaque: [] });
  });
});

describe("nested commands, redirections and assignments", () => {
  it("lists the commands of substitutions, in words, assignments, tests and redirection targets, as nested", () => {
    expect(read("echo `id`").commands.map((c) => [c.text, c.nested])).toEqual([
      ["id", true],
      ["echo `id`", false],
    ]);
    expect(read("cat <(ls) $(pwd)").opaque).toEqual(["contains process substitution (<(...) or >(...))", "contains command substitution ($(...) or backticks)"]);
    expect(read("cat <(ls) $(pwd)").commands.map((c) => c.text)).toEqual(["ls", "pwd", "cat <(ls) $(pwd)"]);
    expect(read("A=$(id)").commands.map((c) => c.text)).toEqual(["id"]);
    expect(read("[ -f $(id) ]")).toMatchObject({
      commands: [{ text: "id", nested: true }],
      opaque: ["contains a test over values only known when it runs", "contains command substitution ($(...) or backticks)"],
    });
    expect(read("echo x > $(mktemp)").commands.map((c) => c.text)).toEqual(["echo x", "mktemp"]);
  });

  it("lists redirections to and from files, with their folders", () => {
    expect(read("ls > out 2> err < in").redirects.map((r) => [r.kind, r.operator, r.target.value, r.cwds])).toEqual([
      ["write", ">", "out", ["/p"]],
      ["write", ">", "err", ["/p"]],
      ["read", "<", "in", ["/p"]],
    ]);
  });

  it("a redirection after a list of && and || is the last command's: judged where that command runs", () => {
    // The parser hangs it on the whole list; bash opens it for the last command only, when that
    // runs (checked with bash: `cd src && pwd > out` writes src/out, `cd nope && pwd > out` and
    // `cd src || pwd > out` nothing, `pwd && cd src > out` ./out, before cd runs).
    const folders = (line: string) => read(line).redirects.map((r) => r.cwds);
    expect(folders("cd src && ls > out")).toEqual([["/p/src"]]);
    expect(folders("cd src || ls > out")).toEqual([["/p"]]);
    expect(folders("ls && cd src > out 2> err")).toEqual([["/p"], ["/p"]]);
    expect(folders("cd a && cd b && ls | cat > out")).toEqual([["/p/a/b"]]);
    expect(folders("cd src && ! ls > out")).toEqual([["/p/src"]]);
    expect(folders("cd a && (ls) > out")).toEqual([["/p/a"]]);
    // Not after a list: before or after the statement, as before. `;` leaves both folders (cd may fail).
    expect(folders("(cd a && ls) > out")).toEqual([["/p"]]);
    expect(folders("cd src; ls > out")).toEqual([["/p/src", "/p"]]);
    // A list the walk cannot read (a comment inside it) keeps no last command of an inner list.
    const unread = read("cd a && cd b && # c\nls > out");
    expect(unread.opaque).toEqual(["could not be read as bash (a syntax error)"]);
    expect(unread.redirects.map((r) => r.cwds)).toEqual([["/p"]]);
  });

  it("reads a command's assignments, standalone ones and exported ones", () => {
    expect(read("FOO=1 BAR=$(date) make").commands.at(-1)!.assignments).toEqual([
      { name: "FOO", value: "1" },
      { name: "BAR", value: null },
    ]);
    expect(read("A=1; export B=2").assignments).toEqual([
      { name: "A", value: "1" },
      { name: "B", value: "2" },
    ]);
  });

  it("assignments and redirections without a command are no command: the redirections and the line's assignments", () => {
    // bash runs nothing, opens out, and sets FOO in the shell itself, as `FOO=1` alone does.
    expect(read("FOO=1 > out")).toMatchObject({
      commands: [],
      assignments: [{ name: "FOO", value: "1" }],
      opaque: [],
      redirects: [{ kind: "write", target: { value: "out" }, cwds: ["/p"] }],
    });
    expect(read(">out FOO=1 BAR=2 # c")).toMatchObject({ commands: [], assignments: [{ name: "FOO" }, { name: "BAR" }], opaque: [] });
    expect(read("! 2>out")).toMatchObject({ commands: [], assignments: [], redirects: [{ target: { value: "out" } }] });
    expect(read("cd src && FOO=1 > out")).toMatchObject({ commands: [{ text: "cd src" }], redirects: [{ cwds: ["/p/src"] }] });
    // Inside a word's substitution it adds no word to the command around it.
    expect(read("echo $(FOO=1 >o) x").commands.map((c) => c.words.map((w) => w.value))).toEqual([["echo", null, "x"]]);
    // A substitution in a value is a command of its own, listed for deny rules; so is one in the target.
    const substituted = read("FOO=$(rm -rf ~) > $(echo out)");
    expect(substituted.commands.map((c) => [c.text, c.nested])).toEqual([
      ["rm -rf ~", true],
      ["echo out", true],
    ]);
    expect(substituted).toMatchObject({ opaque: ["contains command substitution ($(...) or backticks)"], redirects: [], assignments: [{ name: "FOO", value: null }] });
  });

  it("a command the parser reads on past a newline is a reason: bash ends it there", () => {
    // After assignments and redirections alone the parser takes the next line's words as the
    // command's (checked with bash: `FOO=1 >o<newline>if true; then echo RAN; fi` prints RAN).
    const past = "reads a command on past a newline, where bash ends it";
    for (const line of ["FOO=1 >o\nif true; then rm -rf ~; fi", "FOO=1 >o\n{ rm -rf ~; }", "FOO=1 >o # c\nrm x", "FOO=1\\\n>o\nrm x"])
      expect(read(line).opaque, line).toContain(past);
    // Not across a line continuation, nor where the parser ends the command itself.
    for (const line of ["ls \\\n  -l", ">o\nrm x", "FOO=1\nrm x", "FOO=1 > out\n"]) expect(read(line).opaque, line).toEqual([]);
  });

  it("reads exports of names and of values, and the commands in their values", () => {
    expect(read("export FOO BAR=1")).toMatchObject({
      opaque: [],
      assignments: [
        { name: "FOO", value: null },
        { name: "BAR", value: "1" },
      ],
    });
    expect(read("export A=$(id) B=2")).toMatchObject({
      commands: [{ text: "id", nested: true }],
      assignments: [
        { name: "A", value: null },
        { name: "B", value: "2" },
      ],
    });
    expect(read('echo "x $(id)"').commands.map((c) => [c.text, c.nested])).toEqual([
      ["id", true],
      ['echo "x $(id)"', false],
    ]);
  });

  it("says which declarations change variables in ways it does not follow", () => {
    expect(read("declare -x C=3; local D; readonly E=1").opaque).toEqual(["declares variables with declare", "declares variables with local", "declares variables with readonly"]);
    expect(read("export -n X").opaque).toEqual(["declares variables with export options"]);
    expect(read("export").opaque).toEqual([]);
  });
});

describe("the reasons no rule may allow a line", () => {
  it("a line too long to judge", () => {
    expect(read("x".repeat(MAX_JUDGED_COMMAND_CHARS + 1))).toMatchObject({ commands: [], opaque: [`is longer than ${MAX_JUDGED_COMMAND_CHARS} characters, too long to judge`] });
    expect(read("x".repeat(MAX_JUDGED_COMMAND_CHARS)).opaque).toEqual([]);
  });

  it("constructs, here-documents and here-strings, and values only known when it runs", () => {
    expect(read("if true; then ls; fi").opaque).toEqual(["contains if ... fi"]);
    expect(read("f() { ls; }").opaque).toEqual(["defines a function", "groups commands in { ... }"]);
    expect(read("cat <<EOF\nx\nEOF").opaque).toEqual(["contains a here-document (<<)"]);
    expect(read("cat <<< x").opaque).toEqual(["contains a here-string (<<<)"]);
    expect(read("echo $'a'").opaque).toEqual(["uses ANSI-C quoting ($'...'), which bash decodes when it runs"]);
    expect(read("echo {a,b}").opaque).toEqual(["uses brace expansion ({a,b} or {1..3})"]);
    expect(read("ec\\\nho hi").opaque).toEqual(["joins words across a line continuation, which the parser reads differently from bash"]);
    expect(read("echo a \\\nb")).toMatchObject({ opaque: [], commands: [{ words: [{ value: "echo" }, { value: "a" }, { value: "b" }] }] });
  });

  it("warns of look-alike characters, and starts each line with no reasons of the one before", () => {
    expect(read("ls\u00a0-l").warnings).toEqual(["Contains a character outside ASCII (U+00A0) outside quotes: it may look like another one."]);
    expect(read("if true; then ls; fi").opaque).toHaveLength(1);
    expect(read("ls -l")).toMatchObject({ opaque: [], warnings: [] });
  });
});

describe("words after a redirection's target", () => {
  // bash gives them to the command (`rm >/dev/null -rf /` is `rm -rf /`); the parser hangs them
  // on the redirection, so rules would see `rm` alone.
  it("make the line one no rule may allow; the file is still judged and their commands listed", () => {
    expect(read("rm >/dev/null -rf /")).toMatchObject({ opaque: ["contains a redirection bash reads differently (>/dev/null -rf /)"], redirects: [] });
    expect(read("git status 2>&1 push").opaque).toEqual(["contains a redirection bash reads differently (2>&1 push)"]);
    expect(read("echo hi > out extra")).toMatchObject({
      opaque: ["contains a redirection bash reads differently (> out extra)"],
      redirects: [{ kind: "write", target: { value: "out" } }],
    });
    expect(read("echo >o $(rm -rf /)").commands.map((c) => [c.text, c.nested])).toEqual([
      ["echo", false],
      ["rm -rf /", true],
    ]);
    // Only the commands inside them are looked for, as in any word (a variable is not a reason of its own).
    expect(read('echo >o x "$X"').opaque).toEqual(['contains a redirection bash reads differently (>o x "$X")']);
    expect(read("echo >o $X").opaque).toEqual(["contains a redirection bash reads differently (>o $X)"]);
    expect(read("echo hi > out 2>&1").opaque).toEqual([]);
  });
});

describe("what the walk reads in odd places", () => {
  it("text the parser skipped is a reason only when there is no other", () => {
    expect(read("ls \\ ]").opaque).toEqual(["contains text the parser skipped, which bash may read differently"]);
    expect(read("ls \\ ] $X").opaque).toEqual(["expands a variable ($NAME), whose value is only known when it runs"]);
  });

  it("a syntax error, and nesting too deep to read, list the commands they hold", () => {
    expect(read("if true; then ls")).toMatchObject({ opaque: ["could not be read as bash (a syntax error)"], commands: [{ text: "true", nested: true }] });
    const deep = read(`${"( ".repeat(250)}ls${" )".repeat(250)}`);
    // The tree is broken at its root (nested past the parser's MAX_DEPTH), then the subshells.
    expect(deep.opaque).toEqual([`is nested deeper than Lathe reads (${MAX_DEPTH} levels)`, "runs a subshell ( ... )"]);
    // Each `&&` nests the list before it one level deeper: the first command lies past the cut.
    const chain = read(`rm -rf ~ && ${Array<string>(MAX_DEPTH).fill("true").join(" && ")}`);
    expect(chain.opaque).toEqual([`is nested deeper than Lathe reads (${MAX_DEPTH} levels)`]);
    expect(chain.commands.every((c) => c.nested && c.text === "true")).toBe(true);
  });

  it("a token the parser invented anywhere, inside a word too, makes the line unreadable", () => {
    // Read at statements alone, the word was the text `$(rm -rf ~`, with no reason at all.
    expect(read('echo "$(rm -rf ~)')).toMatchObject({
      opaque: [`could not be read as bash ('"' is missing)`],
      commands: [
        { text: "rm -rf ~", nested: true },
        { text: 'echo "$(rm -rf ~)', nested: false },
      ],
    });
    expect(read("echo $(ls").opaque).toEqual(['could not be read as bash (")" is missing)', "contains command substitution ($(...) or backticks)"]);
    expect(read("echo `ls").opaque).toEqual(['could not be read as bash ("`" is missing)', "contains command substitution ($(...) or backticks)"]);
    expect(read("while true; do ls; ").opaque).toEqual(['could not be read as bash ("done" is missing)', "contains a while or until loop"]);
    expect(read("[ -f a").opaque).toEqual(['could not be read as bash ("]" is missing)', "contains a test over values only known when it runs"]);
  });

  it("a command missing after && or a pipe makes the line unreadable, and so does a redirection's missing word", () => {
    // Read at statements alone, these were `ls` and a command of one empty word, with no reason.
    for (const op of ["&&", "||", "|", "|&"]) expect(read(`ls ${op}`).opaque, op).toEqual([`could not be read as bash (no command after "${op}")`]);
    expect(read("ls &&\n").opaque).toEqual(['could not be read as bash (no command after "&&")']);
    // Missing before any token: the pipe's first command.
    expect(read("|& ls").opaque).toEqual(["could not be read as bash (no command)"]);
    // Read alone, this was a write to the file "" (the folder the command runs in).
    expect(read("ls 2>&")).toMatchObject({ opaque: ['could not be read as bash (no word after ">&")'] });
  });

  it("a # right after a line continuation that follows a word is a reason: bash joins it to the word, the parser reads a comment", () => {
    const joined = "has a # right after a line continuation, which bash joins to the word before it where the parser reads a comment";
    // bash runs `rm -rf ~` in each (after `FOO=1#` and `>o FOO=1#`): the parser saw a comment.
    expect(read("FOO=1\\\n# rm -rf ~")).toMatchObject({ opaque: [joined], commands: [] });
    expect(read(">o FOO=1\\\n# rm -rf ~").opaque).toEqual([joined]);
    expect(read("ls\\\n\\\n#x").opaque).toEqual([joined]);
    // After a blank or a newline, or at the start, the # begins a word: a comment to bash too (an
    // escaped backslash before the blank is no continuation).
    for (const line of ["ls \\\n# c", "ls\t\\\n# c", "ls\n\\\n# c", "\\\n# c", "ls\n# c", "ls;# c", "ls a\\\\ # c"]) expect(read(line).opaque, JSON.stringify(line)).toEqual([]);
  });

  it("a command of assignments and redirections alone is no error (the parser ends it with an empty command name)", () => {
    for (const line of ["FOO=1 > out", ">out FOO=1", "FOO=1 2>/dev/null >out", "ls && FOO=1 >out", ">out FOO=1 # c", "! 2>out"])
      expect(read(line), line).toMatchObject({ opaque: [], redirects: [{ kind: "write", target: { value: "out" } }] });
    // Only assignments, redirections and a comment: anything else before the empty name is an error.
    expect(read("<in ) FOO=1").opaque).toEqual([
      "could not be read as bash (a syntax error)",
      'could not be read as bash (no command after "=")',
      "contains ERROR, which is not a plain word",
    ]);
    // A command name the parser did not invent is looked into as any other node.
    expect(read("FOO=1 $(ls").opaque).toEqual(['could not be read as bash (")" is missing)', "contains command substitution ($(...) or backticks)"]);
  });

  it("a comment inside && or || is read as a syntax error, and the command after it is still listed", () => {
    expect(read("ls && # c\n rm -rf x")).toMatchObject({
      opaque: ["could not be read as bash (a syntax error)"],
      commands: [
        { text: "ls", nested: true, cwds: [null] },
        { text: "rm -rf x", nested: true, cwds: [null] },
      ],
    });
  });

  it("a separator it does not know, and a stray $, are reasons", () => {
    expect(read("npm test;;").opaque).toEqual(['contains ";;", which Lathe does not judge']);
    expect(read('echo $ "b"').opaque).toEqual(['contains "$", which Lathe does not judge']);
    // A $ the line ends with is no translation either (nothing follows it).
    expect(read("echo $").opaque).toEqual(['contains "$", which Lathe does not judge']);
  });

  it('$"..." is locale quoting, one word computed when it runs, wherever the parser gives the $ apart', () => {
    const locale = 'uses locale quoting ($"..."), which bash translates when it runs';
    expect(read('echo $"b" c')).toMatchObject({ opaque: [locale], commands: [{ words: [{ value: "echo" }, { value: null }, { value: "c" }] }] });
    expect(read('echo a$"b $x"c')).toMatchObject({
      opaque: [locale, "expands a variable ($NAME), whose value is only known when it runs"],
      commands: [{ words: [{}, { value: null }] }],
    });
    // The string's own reasons and commands are still read.
    const nested = read('echo $"a $(rm x)"');
    expect(nested.opaque).toEqual([locale, "contains command substitution ($(...) or backticks)"]);
    expect(nested.commands.map((c) => c.text)).toEqual(["rm x", 'echo $"a $(rm x)"']);
    // A word joined to it across a line continuation is still seen.
    expect(read('echo $"b"\\\nz').opaque).toEqual([locale, "joins words across a line continuation, which the parser reads differently from bash"]);
    // Escaped, it is no translation: `\$` and the string are one plain word.
    expect(read('echo \\$"b"')).toMatchObject({ opaque: [], commands: [{ words: [{}, { value: "$b" }] }] });
  });

  it("words start after the line's leading blanks; a redirection right after a word joins nothing", () => {
    expect(read(" ls").opaque).toEqual([]);
    expect(read("cat<<<x").opaque).toEqual(["contains a here-string (<<<)"]);
  });

  it("lists commands in a command name, in a word's nested string, in declarations and here-strings", () => {
    const nested = (line: string) =>
      read(line)
        .commands.filter((c) => c.nested)
        .map((c) => c.text);
    expect(nested("$(echo rm) -rf /")).toEqual(["echo rm"]);
    expect(nested('echo a"$(id)"')).toEqual(["id"]);
    expect(nested("declare -x A=$(id)")).toEqual(["id"]);
    expect(nested("cat <<< $(id)")).toEqual(["id"]);
  });

  it("a construct nested in a subshell gives its own reason", () => {
    expect(read("(if true; then rm x; fi)").opaque).toEqual(["runs a subshell ( ... )", "contains if ... fi"]);
  });

  it("a redirection inside a construct runs in a folder only known when it runs", () => {
    expect(read("(echo x > out)").redirects.map((r) => [r.kind, r.target.value, r.cwds])).toEqual([["write", "out", [null]]]);
  });

  it("reads several assignments, an empty value, and says which it cannot read (briefly)", () => {
    expect(read("A=1 B=2").assignments).toEqual([
      { name: "A", value: "1" },
      { name: "B", value: "2" },
    ]);
    expect(read("A=").assignments).toEqual([{ name: "A", value: "" }]);
    expect(read("A+=1").opaque).toEqual(["contains an assignment bash reads differently (A+=1)"]);
    expect(read(`A+=${"x".repeat(60)}`).opaque).toEqual([`contains an assignment bash reads differently (A+=${"x".repeat(37)})`]);
  });
});
