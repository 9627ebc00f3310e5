// The permission policy (policy.ts) on what policy.test.ts leaves aside: tools without paths
// (their rules name the tool, or things by glob: MCP tools), which decision says what allowed it
// (a rule, the mode or the defaults), the exact reasons and denials shown, path rules by the home
// folder, by the folder itself and on hidden files, the sentences the rules screen shows and the
// rules "always allow" proposes for files and for commands that run code.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeBashRule } from "../../app/main/permissions/bash-rules.ts";
import { namedSubjects } from "../../app/main/permissions/call-parts.ts";
import { hostPlatform, type PathPlatform } from "../../app/main/permissions/path-facts.ts";
import { callSubjects, commandMatches, decide, describeRule, proposeRule, type PermissionMode } from "../../app/main/permissions/policy.ts";
import { loadShellParser, MAX_DEPTH } from "../../app/main/permissions/shell-parser.ts";
import type { PermissionRule } from "../../app/main/store/index.ts";

let root: string;
let project: string;
let outside: string;
let nextId = 1;
const rule = (tool: string, pattern: string, action: "allow" | "deny"): PermissionRule => ({ id: nextId++, tool, pattern, action, scope: "project", scopeId: 1, createdAt: 0 });

const check = (toolName: string, args: unknown, rules: PermissionRule[] = [], mode: PermissionMode = "ask", platform: PathPlatform = hostPlatform) =>
  decide({ toolName, subjects: callSubjects(toolName, args, project, platform), rules, mode });
const bash = (command: string, rules: PermissionRule[] = [], mode: PermissionMode = "ask") => check("bash", { command }, rules, mode);
const named = (names: string[], rules: PermissionRule[] = [], mode: PermissionMode = "ask") => decide({ toolName: "mcp", subjects: namedSubjects(names), rules, mode });

beforeAll(async () => {
  await loadShellParser();
  root = realpathSync(mkdtempSync(path.join(tmpdir(), "lathe-policy-edges-")));
  project = path.join(root, "project");
  outside = path.join(root, "outside");
  mkdirSync(path.join(project, "src"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(path.join(project, ".env"), "SECRET=1\n");
  writeFileSync(path.join(outside, "notes.txt"), "x\n");
  symlinkSync(path.join(project, ".env"), path.join(project, "src", "config-link"));
  symlinkSync(outside, path.join(project, "out-link"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("tools without paths", () => {
  it("a read-only tool runs by default; another asks until a rule of its own allows it, in every mode but full auto", () => {
    expect(check("tool_search", { query: "x" })).toMatchObject({ action: "allow", by: "mode", reasons: [] });
    expect(check("web_fetch", { url: "https://x" })).toMatchObject({ action: "ask", by: "default" });
    expect(check("web_fetch", { url: "https://x" }, [], "auto-edit").action).toBe("ask");
    expect(check("web_fetch", { url: "https://x" }, [], "full-auto")).toMatchObject({ action: "allow", by: "mode" });
    for (const allowing of [rule("web_fetch", "*", "allow"), rule("web_fetch", "**", "allow"), rule("*", "*", "allow")])
      expect(check("web_fetch", { url: "https://x" }, [allowing]), allowing.tool + allowing.pattern).toMatchObject({ action: "allow", by: "rule", rule: allowing });
    for (const other of [rule("web_fetch", "x", "allow"), rule("read", "*", "allow")])
      expect(check("web_fetch", { url: "https://x" }, [other]).action, other.tool + other.pattern).toBe("ask");
  });

  it("an edit tool without a path runs in auto-edit only", () => {
    expect(check("edit", {}, [], "auto-edit")).toMatchObject({ action: "allow", by: "mode" });
    expect(check("edit", {}, [], "ask").action).toBe("ask");
  });

  it("a deny rule of the tool with * denies it; one of another tool, or with another pattern, does not", () => {
    const denied = check("web_fetch", { url: "https://x" }, [rule("web_fetch", "*", "deny")], "full-auto");
    expect(denied).toMatchObject({ action: "deny", by: "rule", reason: 'Denied by the rule "web_fetch: *" (project).', reasons: [] });
    expect(check("web_fetch", { url: "https://x" }, [rule("web_fetch", "**", "deny")], "full-auto").action).toBe("deny");
    expect(check("web_fetch", { url: "https://x" }, [rule("web_fetch", "x", "deny")], "full-auto").action).toBe("allow");
    expect(check("web_fetch", { url: "https://x" }, [rule("web_search", "*", "deny")], "full-auto").action).toBe("allow");
    // A path tool's own * deny rule is a path rule (every path), and bash's a command rule.
    expect(bash("", [rule("bash", "*", "deny")], "full-auto").action).toBe("allow");
  });

  it("a deny rule of every tool with * denies every call, and one of a path tool reaches no command", () => {
    expect(bash("ls", [rule("*", "*", "deny")])).toMatchObject({ action: "deny", reason: 'Denied by the rule "*: *" (project).' });
    expect(bash("echo hi", [rule("read", "**", "deny")], "full-auto").action).toBe("allow");
    expect(check("read", { path: ".env" }, [rule("web_fetch", ".env", "deny")]).action).toBe("allow");
  });
});

describe("tools whose rules name things (MCP tools)", () => {
  it("are allowed by a glob over the name, of their tool or every tool", () => {
    const github = rule("mcp", "github/*", "allow");
    expect(named(["github/create_issue"], [github])).toMatchObject({ action: "allow", by: "rule", rule: github });
    expect(named(["github/create_issue"], [rule("*", "github/*", "allow")]).action).toBe("allow");
    expect(named(["github/create_issue"], [rule("mcp", " github/* ", "allow")]).action).toBe("allow");
    expect(named([".hidden/tool"], [rule("mcp", "*/tool", "allow")]).action).toBe("allow");
    expect(named(["github/create_issue"], [rule("other", "github/*", "allow"), rule("mcp", "gitlab/*", "allow")])).toMatchObject({
      action: "ask",
      by: "default",
      reasons: ["No mcp rule allows github/create_issue."],
    });
  });

  it("ask in every mode but full auto, and are denied by a rule naming them", () => {
    expect(named(["github/create_issue"], [], "auto-edit").action).toBe("ask");
    expect(named(["github/create_issue"], [], "sandboxed-auto").action).toBe("ask");
    expect(named(["github/create_issue"], [], "full-auto")).toMatchObject({ action: "allow", by: "mode" });
    expect(named(["github/create_issue"], [rule("mcp", "github/*", "deny")], "full-auto")).toMatchObject({
      action: "deny",
      reason: 'Denied by the rule "mcp: github/*" (project).',
    });
    expect(named(["github/create_issue"], [rule("*", "github/*", "deny")], "full-auto").action).toBe("deny");
    expect(named(["github/create_issue"], [rule("other", "github/*", "deny")], "full-auto").action).toBe("allow");
  });
});

describe("what a decision says", () => {
  it("by: the defaults for reads inside and commands that need no rule, the mode for what only the mode allows", () => {
    expect(check("read", { path: "src/a.ts" })).toMatchObject({ action: "allow", by: "default", reasons: [] });
    expect(bash("cd src")).toMatchObject({ action: "allow", by: "default" });
    expect(check("write", { path: "src/a.ts", content: "" }, [], "auto-edit")).toMatchObject({ action: "allow", by: "mode" });
    expect(bash("for f in a; do echo $f; done", [], "full-auto")).toMatchObject({ action: "allow", by: "mode" });
  });

  it("the reasons, each once, for commands and for paths read or written inside, outside, through a link or a redirection", () => {
    expect(bash("make; make; ls; git push").reasons).toEqual(["make: no rule allows it.", "ls: no rule allows it.", "git push: no rule allows it."]);
    expect(check("read", { path: path.join(outside, "notes.txt") }).reasons).toEqual([`It reads ${path.join(outside, "notes.txt")}, outside the project.`]);
    expect(check("read", { path: "out-link/notes.txt" }).reasons).toEqual([`It reads out-link/notes.txt, outside the project (really ${path.join(outside, "notes.txt")}).`]);
    expect(check("write", { path: "src/a.ts", content: "" }).reasons).toEqual(["It writes src/a.ts, and no write or edit rule allows that."]);
    expect(bash("echo x > src/a.txt", [rule("bash", "echo *", "allow")]).reasons).toEqual(["It writes src/a.txt through a redirection, and no write or edit rule allows that."]);
    const guarded = check("write", { path: ".git/config", content: "" });
    expect(guarded).toMatchObject({ action: "ask", by: "default", firm: true });
    expect(guarded.reasons).toEqual([`It writes .git/config, a protected file: ${guarded.warnings[0]!.replace(/^[^:]*: /, "")}`]);
    expect(guarded.reasons[0]).not.toContain(".git/config: ");
    // A path holding a colon: the reason is the whole sentence after the path, not what follows its colon.
    const colon = check("write", { path: "x:y/.git/config", content: "" });
    expect(colon.warnings).toEqual(["x:y/.git/config: files in .git/ (config, hooks) make git run programs."]);
    expect(colon.reasons).toEqual(["It writes x:y/.git/config, a protected file: files in .git/ (config, hooks) make git run programs."]);
  });

  it("a line that cannot be read is asked about with why, firmly only when a bash or every-tool deny rule exists", () => {
    const loop = "for f in a; do rm x; done";
    expect(bash(loop, [rule("bash", "rm *", "allow")])).toEqual({
      action: "ask",
      by: "default",
      reasons: ["No rule can allow it: it contains a for loop."],
      warnings: [],
    });
    expect(bash(loop, [rule("read", ".env", "deny")]).firm).toBeUndefined();
    for (const deny of [rule("bash", "curl *", "deny"), rule("*", ".env", "deny")]) {
      expect(bash(loop, [deny])).toEqual({
        action: "ask",
        by: "default",
        reasons: ["It cannot be read fully before it runs (it contains a for loop), so it could run a command a deny rule forbids."],
        warnings: [],
        firm: true,
      });
    }
  });

  it("a denial names the rule and what it matched: the line run (its first 200 characters), the path and where it really leads", () => {
    expect(bash("rm -rf build", [rule("bash", "rm *", "deny")])).toMatchObject({
      action: "deny",
      reasons: [],
      reason: 'Denied by the rule "bash: rm *" (project): the line runs "rm -rf build".',
    });
    const long = "x".repeat(300);
    expect(bash(`rm ${long}`, [rule("bash", "rm *", "deny")]).reason).toBe(`Denied by the rule "bash: rm *" (project): the line runs "${`rm ${long}`.slice(0, 200)}".`);
    expect(check("read", { path: "src/config-link" }, [rule("read", ".env", "deny")]).reason).toBe(
      `Denied by the rule "read: .env" (project): src/config-link (really ${path.join(project, ".env")}).`,
    );
    expect(check("read", { path: ".env" }, [rule("read", ".env", "deny")]).reason).toBe('Denied by the rule "read: .env" (project): .env.');
  });

  it("an allow rule of another tool allows no command; one of every tool does", () => {
    expect(bash("make", [rule("read", "make", "allow")]).action).toBe("ask");
    expect(bash("make", [rule("*", "make", "allow")])).toMatchObject({ action: "allow", by: "rule" });
  });

  it("a line nested deeper than the parser walks (MAX_DEPTH) is unreadable, never judged by the part it read", () => {
    // Each `&&` nests the list before it one level deeper: after 199 of them the first command's
    // name (or its argument's `$(...)`) lies past the parser's limit. Read as if the rest were the
    // whole line, these ran in full auto past a `rm *` deny rule: the first as `-rf ~`, the second
    // as an echo of plain text.
    const tail = ` && ${Array<string>(MAX_DEPTH - 1)
      .fill("true")
      .join(" && ")}`;
    const deny = [rule("bash", "rm *", "deny")];
    for (const first of ["rm -rf ~", 'echo "$(rm -rf ~)"']) {
      expect(bash(first, deny, "full-auto").action).toBe("deny");
      expect(bash(first + tail, deny, "full-auto"), first).toEqual({
        action: "ask",
        by: "default",
        reasons: [`It cannot be read fully before it runs (it is nested deeper than Lathe reads (${MAX_DEPTH} levels)), so it could run a command a deny rule forbids.`],
        warnings: [],
        firm: true,
      });
    }
    expect(bash(`echo "$(rm -rf ~)"${tail}`, [rule("bash", "echo *", "allow"), rule("bash", "true", "allow")]).action).toBe("ask");
  });

  it("a token the parser invented inside a word, or a missing command, makes the line unreadable (asked, firmly with deny rules)", () => {
    // Read at statements alone, these had no reason: the echo's word was the text `$(rm -rf ~`
    // (the nested rm needing no allow rule), `ls &&` was `ls` and a command of one empty word, and
    // `ls 2>&` a write to the folder it runs in. bash refuses each line as a syntax error.
    const unclosed = 'echo "$(rm -rf ~)';
    expect(bash(unclosed, [rule("bash", "echo *", "allow")])).toEqual({
      action: "ask",
      by: "default",
      reasons: [`No rule can allow it: it could not be read as bash ('"' is missing).`],
      warnings: [],
    });
    expect(bash(unclosed, [rule("bash", "rm *", "deny")], "full-auto")).toMatchObject({ action: "deny", by: "rule" });
    expect(bash(unclosed, [rule("bash", "cat *", "deny")], "full-auto")).toMatchObject({ action: "ask", firm: true });
    expect(bash("ls &&", [rule("bash", "*", "allow")])).toMatchObject({
      action: "ask",
      reasons: ['No rule can allow it: it could not be read as bash (no command after "&&").'],
    });
    expect(bash("ls |", [rule("bash", "ls", "allow"), rule("bash", "rm *", "deny")], "full-auto")).toEqual({
      action: "ask",
      by: "default",
      reasons: ['It cannot be read fully before it runs (it could not be read as bash (no command after "|")), so it could run a command a deny rule forbids.'],
      warnings: [],
      firm: true,
    });
    expect(bash("ls 2>&", [rule("bash", "ls", "allow"), rule("write", "**", "allow")]).action).toBe("ask");
    // A command of assignments and redirections alone is read as before (the parser's empty name).
    expect(bash("FOO=1 > out", [rule("bash", "*", "allow"), rule("write", "**", "allow")]).action).toBe("allow");
  });

  it("a # right after a line continuation that follows a word is read as bash reads it: not a comment (asked, firmly with deny rules)", () => {
    // bash joins a # right after a line continuation to the word before it, and runs what the parser
    // took for a comment: these ran `rm -rf ~` in full auto past the deny rule.
    for (const line of ["FOO=1\\\n# rm -rf ~", ">out FOO=1\\\n# rm -rf ~"])
      expect(bash(line, [rule("bash", "rm *", "deny")], "full-auto"), line).toMatchObject({ action: "ask", firm: true });
    // After a blank it is a comment to bash too.
    expect(bash("FOO=1 \\\n# rm -rf ~", [rule("bash", "rm *", "deny")], "full-auto").action).toBe("allow");
  });

  it("a # bash reads as part of the word before it is asked about, in every mode; a comment bash reads is none", () => {
    // bash runs rm in each: `]#` and `]]#` are words to it, and `1\ ` joins the # across the
    // continuation. These ran in ask mode without a question (no command and no reason was read).
    for (const line of ["[ -n ]# ] && rm -rf ~", "[[ -n ]]# ]] && rm -rf ~", "FOO=1\\ \\\n# rm -rf ~"]) {
      expect(bash(line), line).toMatchObject({ action: "ask", by: "default" });
      expect(bash(line, [rule("bash", "rm *", "deny")], "full-auto"), line).toMatchObject({ action: "ask", firm: true });
    }
    // After an operator, bash reads a comment: the line is what comes before it.
    expect(bash("ls;\\\n# rm -rf ~", [rule("bash", "ls", "allow"), rule("bash", "rm *", "deny")])).toMatchObject({ action: "allow", by: "rule" });
  });

  it("assignments and redirections without a command are judged as the redirection alone, and the assignments as the line's", () => {
    for (const line of ["FOO=1 > out", "> out"]) {
      expect(bash(line, [], "auto-edit"), line).toMatchObject({ action: "allow", by: "mode" });
      expect(bash(line, [rule("bash", "*", "allow")]), line).toMatchObject({
        action: "ask",
        reasons: ["It writes out through a redirection, and no write or edit rule allows that."],
      });
    }
    expect(bash("LD_PRELOAD=x.so > out", [rule("bash", "*", "allow"), rule("write", "**", "allow")]).reasons).toEqual([
      "No rule can allow it: it sets LD_PRELOAD, which can make the commands after it run other code.",
    ]);
    expect(bash("FOO=$(rm -rf ~) > out", [rule("bash", "rm *", "deny")], "full-auto")).toMatchObject({ action: "deny", rule: { pattern: "rm *" } });
    // The parser reads the next line's words into such a command (`then rm -rf ~` a word of it):
    // this ran in full auto past the deny rule. bash ends the command at the newline.
    for (const line of ["FOO=1 >o\nif true; then rm -rf ~; fi", "FOO=1 >o\n{ rm -rf ~; }", "FOO=1 >o\n! rm -rf ~"])
      expect(bash(line, [rule("bash", "rm *", "deny")], "full-auto"), line).toMatchObject({ action: "ask", firm: true });
  });

  it("a redirection after cd && is judged in the folder cd went to only", () => {
    const rules = [rule("bash", "ls", "allow"), rule("write", "src/**", "allow")];
    expect(bash("cd src && ls > out", rules)).toMatchObject({ action: "allow", by: "rule" });
    // With ; the command runs in either folder.
    expect(bash("cd src; ls > out", rules).action).toBe("ask");
  });

  it("an unreadable line lists why no rule can allow it, not each of its commands", () => {
    expect(bash("make && for f in a; do :; done").reasons).toEqual(["No rule can allow it: it contains a for loop."]);
  });

  it("a deny rule of every tool with ** denies a tool without paths too", () => {
    expect(check("web_fetch", { url: "https://x" }, [rule("*", "**", "deny")], "full-auto")).toMatchObject({ action: "deny", reason: 'Denied by the rule "*: **" (project).' });
  });
});

describe("path rules", () => {
  const home: PathPlatform = { ...hostPlatform, home: "" };
  beforeAll(() => {
    home.home = outside;
  });

  it("expand ~ to the home folder (the platform's), alone or before a path", () => {
    const notes = path.join(outside, "notes.txt");
    expect(check("read", { path: notes }, [rule("read", "~/**", "allow")], "ask", home)).toMatchObject({ action: "allow", by: "rule" });
    expect(check("ls", { path: outside }, [rule("ls", "~", "allow")], "ask", home)).toMatchObject({ action: "allow", by: "rule" });
    expect(check("read", { path: notes }, [rule("read", "~/**", "allow")]).action).toBe("ask");
  });

  it("are rules of the tool that reads (read for a redirection), edit and write for writes, or of every tool", () => {
    const notes = path.join(outside, "notes.txt");
    const there = `${outside}/**`;
    expect(check("read", { path: notes }, [rule("read", there, "allow")]).action).toBe("allow");
    expect(check("read", { path: notes }, [rule("*", there, "allow")]).action).toBe("allow");
    expect(check("read", { path: notes }, [rule("ls", there, "allow")]).action).toBe("ask");
    expect(check("read", { path: notes }, [rule("write", there, "allow")]).action).toBe("ask");
    expect(bash(`cat < ${notes}`, [rule("bash", "cat *", "allow"), rule("read", there, "allow")]).action).toBe("allow");
  });

  it("match the folder itself (`src/**` is src too, case folded where paths are), hidden files, and a pattern written with spaces", () => {
    expect(check("ls", { path: "src" }, [rule("ls", "src/**", "allow")], "auto-edit").by).toBe("rule");
    const mac: PathPlatform = { ...hostPlatform, platform: "darwin" };
    expect(check("ls", { path: "SRC" }, [rule("ls", "src/**", "allow")], "ask", mac).by).toBe("rule");
    expect(check("ls", { path: "src" }, [rule("ls", "SRC/**", "allow")], "ask", mac).by).toBe("rule");
    expect(check("ls", { path: "SRC" }, [rule("ls", "src/**", "allow")]).by).toBe("default");
    expect(check("ls", { path: "src" }, [rule("ls", "SRC/**", "allow")]).by).toBe("default");
    // The glob alone decides: `{src,lib}/**` is src and lib, not a folder named "{src,lib}" (whose
    // contents it never matched either), case folded or not.
    for (const platform of [hostPlatform, mac]) {
      expect(check("ls", { path: "src" }, [rule("ls", "{src,lib}/**", "allow")], "ask", platform).by).toBe("rule");
      expect(check("ls", { path: "{src,lib}" }, [rule("ls", "{src,lib}/**", "allow")], "ask", platform).by).toBe("default");
      expect(check("ls", { path: "{src,lib}" }, [rule("ls", "{src,lib}/**", "deny")], "full-auto", platform).action).toBe("allow");
    }
    expect(check("write", { path: "src/.hidden", content: "" }, [rule("write", "src/**", "allow")])).toMatchObject({ action: "allow", by: "rule" });
    expect(check("write", { path: "src/a.ts", content: "" }, [rule("write", "  src/**  ", "allow")]).action).toBe("allow");
  });

  it("* and ** cover every path, nested and outside the project alike; a glob never matches an outside path by its missing project form", () => {
    const notes = path.join(outside, "notes.txt");
    expect(check("write", { path: "src/a.ts", content: "" }, [rule("write", "*", "allow")]).action).toBe("allow");
    expect(check("read", { path: notes }, [rule("read", "**", "allow")]).action).toBe("allow");
    expect(check("read", { path: notes }, [rule("read", "nu*", "allow")]).action).toBe("ask");
    expect(check("read", { path: notes }, [rule("read", ` ${outside}/**`, "allow")]).action).toBe("allow");
  });

  it("deny rules also see the path as given: a link named by the rule, relative or absolute", () => {
    expect(check("read", { path: "src/config-link" }, [rule("read", "src/config-link", "deny")]).action).toBe("deny");
    expect(check("read", { path: "src/config-link" }, [rule("read", path.join(project, "src", "config-link"), "deny")]).action).toBe("deny");
    expect(check("read", { path: "src/config-link" }, [rule("read", "src/other", "deny")]).action).toBe("allow");
  });

  it("commandMatches reads a command's text with its spaces squeezed and trimmed", () => {
    expect(commandMatches("git push *", "  git   push  origin ")).toBe(true);
    expect(commandMatches("git push *", "git pull")).toBe(false);
  });
});

describe("the sentences of path and tool rules", () => {
  it("say what a path rule allows or denies, where, and for which tools", () => {
    expect(describeRule({ tool: "read", pattern: "**", action: "deny" })).toBe(
      "Denies every tool that reads or writes any path (read, write, edit, ls, find, grep and bash redirections), by the path as given or as it really is after symlinks.",
    );
    expect(describeRule({ tool: "*", pattern: "*", action: "deny" })).toBe(
      "Denies every tool that reads or writes any path (read, write, edit, ls, find, grep and bash redirections), by the path as given or as it really is after symlinks; also every command.",
    );
    expect(describeRule({ tool: "edit", pattern: "src/**", action: "allow" })).toBe(
      "Allows write and edit (and bash redirections that write) on paths matching src/** inside the project, judged by the real path after symlinks; never protected files such as .git/.",
    );
    expect(describeRule({ tool: "read", pattern: " ~/notes/**", action: "allow" })).toMatch(/^Allows read on paths matching {2}~\/notes\/\*\*, judged/);
    expect(describeRule({ tool: "read", pattern: "~/notes/**", action: "allow" })).toBe(
      "Allows read on paths matching ~/notes/**, judged by the real path after symlinks; never protected files such as .git/.",
    );
    expect(describeRule({ tool: "ls", pattern: " /tmp/**", action: "allow" })).toMatch(/^Allows ls on paths matching {2}\/tmp\/\*\*, judged/);
    expect(describeRule({ tool: "*", pattern: "**", action: "allow" })).toBe(
      "Allows every tool on any path, judged by the real path after symlinks; never protected files such as .git/.",
    );
  });

  it("say what a rule of another tool allows or denies", () => {
    expect(describeRule({ tool: "mcp", pattern: "github/*", action: "allow" })).toBe("Allows mcp calls matching github/*.");
    expect(describeRule({ tool: "web_fetch", pattern: "*", action: "deny" })).toBe("Denies web_fetch calls.");
  });
});

describe("proposed rules", () => {
  const propose = (command: string) => proposeRule("bash", callSubjects("bash", { command }, project));

  it("say what each proposed command rule means, and note writes through redirections", () => {
    const proposed = propose("make build x > out.txt; npm test");
    expect(proposed.pattern).toBe("make build *\nnpm test");
    expect(proposed.meaning).toEqual([describeBashRule("make build *", "allow"), describeBashRule("npm test", "allow")]);
    expect(proposed.warning).toBe("Writes through redirections are judged as writes: they ask unless a write rule or auto-edit allows them.");
    expect(propose("sort < in.txt").warning).toBeUndefined();
    expect(propose("rm -rf build > log.txt").warning).toBe(
      "rm destroys data: the rule allows only this exact command. Writes through redirections are judged as writes: they ask unless a write rule or auto-edit allows them.",
    );
  });

  it("say why no rule can allow a line that cannot be read", () => {
    expect(propose("for f in a; do echo $f; done").warning).toMatch(/^No rule can allow this command line: it contains a for loop\./);
  });

  it("keep the exact command where a generalized one could run other code", () => {
    expect(propose("npm exec cowsay hi").pattern).toBe("npm exec cowsay hi");
    expect(propose("make").pattern).toBe("make");
    expect(propose("git add x*.ts").pattern).toBe("git add 'x*.ts'");
    expect(propose("ls x*.ts").pattern).toBe("ls *");
    // A second word that is no subcommand's name is an argument.
    expect(propose("npm 1abc x").pattern).toBe("npm *");
    expect(propose("npm te.st x").pattern).toBe("npm *");
    expect(propose("npm test:unit x").pattern).toBe("npm test:unit *");
  });

  it("propose a file at the project's top, or outside it, by itself, and say what the rule means", () => {
    const top = proposeRule("write", callSubjects("write", { path: "top.txt", content: "" }, project));
    expect(top).toEqual({ tool: "write", pattern: "top.txt", meaning: [describeRule({ tool: "write", pattern: "top.txt", action: "allow" })], warning: undefined });
    const notes = path.join(outside, "notes.txt");
    expect(proposeRule("read", callSubjects("read", { path: notes }, project)).pattern).toBe(notes);
    expect(proposeRule("read", callSubjects("read", { path: "/" }, project)).pattern).toBe("/");
    expect(proposeRule("write", callSubjects("write", { path: ".git/config", content: "" }, project))).toMatchObject({
      pattern: "",
      warning: ".git/config is protected: no rule allows writing it, Lathe will ask each time.",
    });
  });
});
