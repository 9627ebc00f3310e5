// What an outside review of the judge got past rules or made it spin, each now asked or bounded:
// variables that make programs run other code, set by name through builtins (`read PATH < f`,
// `printf -v PATH`), options that write a file the command names (`git diff --output=~/.bashrc`
// under `git diff *`), `watch` with thousands of operands (each suffix joined into code and
// parsed: minutes, then out of memory), and words that made two regular expressions backtrack.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callSubjects, decide } from "../../app/main/permissions/policy.ts";
import { denyForms } from "../../app/main/permissions/deny-forms.ts";
import { analyzeShell } from "../../app/main/permissions/shell-analysis.ts";
import { loadShellParser } from "../../app/main/permissions/shell-parser.ts";
import { hasBraceExpansion, hasBracketPair } from "../../app/main/permissions/shell-words.ts";
import type { PermissionRule } from "../../app/main/store/index.ts";

let root: string;
let project: string;

beforeAll(async () => {
  await loadShellParser();
  root = realpathSync(mkdtempSync(path.join(tmpdir(), "lathe-review-")));
  project = path.join(root, "project");
  mkdirSync(project);
  writeFileSync(path.join(project, "package.json"), '{"scripts":{"test":"vitest"}}');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

let nextId = 1;
const allow = (...patterns: string[]): PermissionRule[] =>
  patterns.map((pattern) => ({ id: nextId++, tool: "bash", pattern, action: "allow", scope: "project", scopeId: 1, createdAt: 0 }));
const judged = (command: string, rules: PermissionRule[]) => decide({ toolName: "bash", subjects: callSubjects("bash", { command }, project), rules, mode: "ask" });

describe("rules do not cover", () => {
  const rules = allow(
    "npm test",
    "go test *",
    "cargo build *",
    "pytest *",
    "make test",
    "printf *",
    "read *",
    "getopts *",
    "mapfile *",
    "git diff *",
    "git log *",
    "sort *",
    "vitest *",
    "true *",
    ": *",
    "sleep *",
    "wait *",
    "echo *",
    "sed *",
  );

  it.each([
    "Npm_Config_Script_Shell=/tmp/evil.sh npm test",
    "GOFLAGS=-toolexec=/tmp/evil go test ./...",
    "RUSTC_WORKSPACE_WRAPPER=/tmp/evil cargo build",
    'PYTEST_ADDOPTS="-p evil" pytest',
    "GNUMAKEFLAGS=SHELL=/tmp/evil make test",
    "printf -v PATH %s /tmp/evil; npm test",
    "printf -vPATH %s /tmp/evil; npm test",
    "read PATH < f; npm test",
    "read -a BASH_ENV < f; npm test",
    "getopts a PATH; npm test",
    "mapfile PATH < f; npm test",
    "git diff --no-index --output=/root/.bashrc a b",
    "git log -1 --output /root/.profile",
    "sort -o /root/.bashrc x",
    "sort --output=/root/.bashrc x",
    // The second review: a start of a long option, short options together, a descriptor variable, wait -p.
    "sort --comp=./evil.sh -S 1K big",
    "sort --out=/tmp/x a",
    "sort -uo /tmp/x a",
    "true {PATH}>/dev/null; npm test",
    ": {PATH}</dev/null && npm test",
    "sleep 0 & wait -n -p PATH; npm test",
    "sed '1e touch x' f",
    "sed --follow-symlinks '1e touch x' f",
    "sed 's/a/b/w /tmp/x' f",
    "sed -ni 's/a/b/' f",
  ])("%s: asks", (command) => {
    expect(judged(command, rules).action).toBe("ask");
  });

  it.each([
    "CI=1 npm test",
    "NODE_ENV=test vitest run",
    "GOOS=linux go test ./...",
    "GOOD=1 npm test",
    "read path < f; npm test",
    "git diff HEAD~1",
    "sort x",
    "sort -rn x",
    "read -r line < f; npm test",
    'printf "%s" PATH',
    "echo {a} >/dev/null",
    "wait -n",
    "sed 's/a/b/g' f",
    "sed -n '1,5p' f",
    "sed --follow-symlinks 's/a/b/' f",
  ])("%s: still allowed", (command) => {
    expect(judged(command, rules).action).toBe("allow");
  });
});

describe("bounded work", () => {
  // Just under the judge's 32,000 characters.
  it("watch with 15,990 operands: the commands inside past 64 KB of code are unknown, not parsed", () => {
    const command = `watch ${"a ".repeat(15_990)}`;
    const forms = denyForms(analyzeShell(command, { cwd: project, home: root }).commands[0]!.words);
    expect(forms.unknown).toBe(true);
    // With a deny rule, a command inside that is unknown keeps the call from being allowed.
    const deny: PermissionRule = { id: nextId++, tool: "bash", pattern: "rm *", action: "deny", scope: "project", scopeId: 1, createdAt: 0 };
    expect(judged(command, [...allow("watch *"), deny]).action).not.toBe("allow");
  }, 10_000);

  it("the budget is the whole line's: many watch commands cannot each parse 64 KB", () => {
    const line = Array.from({ length: 60 }, () => `watch ${"a ".repeat(250)}`).join("; ");
    expect(line.length).toBeLessThan(32_000);
    expect(callSubjects("bash", { command: line }, project).unknownCommand).toBe(true);
  });

  it("watch with a few operands still finds the command it runs", () => {
    const forms = denyForms(analyzeShell("watch -n 1 rm -rf x", { cwd: project, home: root }).commands[0]!.words);
    // Its operands without the options (`-rf` too: a deny rule `rm *` matches either way).
    expect(forms.forms).toContainEqual(["rm", "x"]);
    expect(forms.unknown).toBe(false);
  });
});

describe("the word scans", () => {
  const oldBraces = (text: string) => /\{[^{}\s]*(?:,|\.\.)[^{}\s]*\}/.test(text);
  const oldBrackets = (text: string) => /\[[\s\S]*\]/.test(text);

  it("answer as the regular expressions they replace, on 20,000 random words", () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff);
    const alphabet = ["{", "}", ",", ".", "[", "]", " ", "\t", "a", "1", "\u00a0", "_"];
    for (let n = 0; n < 20_000; n++) {
      let word = "";
      for (let i = next() % 14; i > 0; i--) word += alphabet[next() % alphabet.length];
      expect([word, hasBraceExpansion(word)]).toEqual([word, oldBraces(word)]);
      expect([word, hasBracketPair(word)]).toEqual([word, oldBrackets(word)]);
    }
  });

  it("read 32 KB words of `{,,,` and `a[[[` (a second each before)", () => {
    expect(hasBraceExpansion(`{${",".repeat(32_000)}`)).toBe(false);
    expect(hasBracketPair(`a${"[".repeat(32_000)}`)).toBe(false);
    expect(judged(`echo {${",".repeat(31_000)}`, allow("echo *")).action).toBe("allow");
  });
});
