// The judge's garbage-saving paths give what the plain ones give: interned plain words, protected
// paths found without segment lists, the per-call memo past its list, allow and deny forms
// sharing one word list, and the shared scratch objects from one call to the next.
import { beforeAll, describe, expect, it } from "vitest";
import { allowForm } from "../../app/main/permissions/command-forms.ts";
import { denyForms } from "../../app/main/permissions/deny-forms.ts";
import { CallMemo, hostPlatform, protectedPath, type PathFacts, type PathPlatform } from "../../app/main/permissions/path-facts.ts";
import { callSubjects, decide } from "../../app/main/permissions/policy.ts";
import { analyzeShell } from "../../app/main/permissions/shell-analysis.ts";
import { loadShellParser } from "../../app/main/permissions/shell-parser.ts";

beforeAll(() => loadShellParser());

let seed = 7;
const random = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
const pick = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");

/** The words of every command of a line, as plain data. */
const wordsOf = (line: string) => analyzeShell(line, { cwd: "/p", home: "/h" }).commands.map((c) => c.words.map((w) => ({ ...w })));

describe("interned plain words", () => {
  it("reads a word the same the first, second and later times (interned from the second)", () => {
    // Every character class a word can hold, plain ones and those that make it not plain.
    const alphabet = "abcXYZ019-_./=:,+@%^!~*?[]{}$\\'\"#é";
    for (let n = 0; n < 400; n++) {
      const line = `cmd ${pick(alphabet, 1 + Math.floor(random() * 12))} ${pick("abc-./=", 1 + Math.floor(random() * 50))}`;
      const first = wordsOf(line);
      expect(wordsOf(line), line).toEqual(first);
      expect(wordsOf(line), line).toEqual(first);
    }
  });

  it("gives the same frozen word for a plain word seen again, and never for a computed or globbed one", () => {
    const line = "npm test --silent";
    wordsOf(line);
    const a = analyzeShell(line, { cwd: "/p", home: "/h" }).commands[0]!.words;
    const b = analyzeShell(line, { cwd: "/p", home: "/h" }).commands[0]!.words;
    expect(a[0]).toBe(b[0]);
    expect(Object.isFrozen(a[0])).toBe(true);
    for (const odd of ["ls *.ts", "ls ~/x", "echo $HOME", "echo a\\ b", "echo {a,b}"]) {
      const x = wordsOf(odd);
      expect(wordsOf(odd)).toEqual(x);
      expect(wordsOf(odd)).toEqual(x);
      expect(analyzeShell(odd, { cwd: "/p", home: "/h" }).commands[0]!.words[1]!.value === x[0]![1]!.value || x[0]![1]!.value === null).toBe(true);
    }
    expect(wordsOf("ls ~/x")[0]![1]).toEqual({ value: "~/x", glob: false, tilde: true });
    expect(wordsOf("ls a*")[0]![1]).toEqual({ value: "a*", glob: true, tilde: false });
  });

  it("keeps a long word as a copy of its own, equal to the text", () => {
    const word = `--${"x".repeat(40)}`;
    const line = `run ${word} ${"y".repeat(1000)}`;
    for (let i = 0; i < 3; i++) expect(analyzeShell(line, { cwd: "/p", home: "/h" }).commands[0]!.words[1]!.value).toBe(word);
  });
});

/** protectedPath as it was: on the list of segments. */
function referenceWarning(rel: string): string | undefined {
  const s = rel.split("/");
  if (s.includes(".git")) return "files in .git/ (config, hooks) make git run programs";
  if (s.includes(".husky")) return ".husky/ holds git hooks that run on commit";
  if (s.at(-2) === ".vscode" && s.at(-1) === "tasks.json") return ".vscode/tasks.json defines commands the editor runs";
  if (s.at(-1) === ".envrc") return ".envrc is run by direnv when you enter the folder";
  if ([".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs"].includes(s.at(-1)!)) return "package manager settings can name programs to run (script-shell, hooks)";
  if ([".pre-commit-config.yaml", "lefthook.yml", ".lefthook.yml"].includes(s.at(-1)!)) return "this file names hooks that run on commit";
  if (s.at(-1) === "package.json") return "package.json scripts run on npm install, npm test and npm run.";
  return undefined;
}

describe("protectedPath without segment lists", () => {
  it("finds what the segment list found, on random relative paths", () => {
    const parts = [
      ".git",
      "git",
      ".gitx",
      "x.git",
      ".husky",
      ".vscode",
      "tasks.json",
      ".envrc",
      "a.envrc",
      ".npmrc",
      ".yarnrc.yml",
      "lefthook.yml",
      "package.json",
      "src",
      "",
      ".",
    ];
    for (let n = 0; n < 3000; n++) {
      const rel = Array.from({ length: 1 + Math.floor(random() * 4) }, () => parts[Math.floor(random() * parts.length)]).join("/");
      const facts: PathFacts = { given: `/p/${rel}`, real: `/p/${rel}`, relative: rel, givenRelative: null, inside: true };
      const got = protectedPath(facts, { ...hostPlatform, platform: "linux" }, undefined)?.warning;
      const want = referenceWarning(rel);
      expect(got, rel).toBe(want === undefined ? undefined : want.endsWith(".") ? `${rel}: ${want}` : `${rel}: ${want}.`);
    }
  });
});

describe("CallMemo", () => {
  it("answers as a Map does, past the list it starts with", () => {
    const memo = new CallMemo<number>();
    const map = new Map<string, number>();
    for (let i = 0; i < 200; i++) {
      const key = `k${Math.floor(random() * 60)}`;
      expect(memo.get(key)).toBe(map.get(key));
      if (map.get(key) === undefined) {
        memo.set(key, i);
        map.set(key, i);
      }
    }
    for (const [key, value] of map) expect(memo.get(key)).toBe(value);
  });

  it("remembers realpath answers for the paths of one call only", () => {
    const asked: string[] = [];
    const platform: PathPlatform = { platform: "linux", home: "/h", realpath: (p) => (asked.push(p), p.startsWith("/p") ? p : undefined) };
    const line = Array.from({ length: 40 }, (_, i) => `echo x > f${i}.log`).join("; ");
    callSubjects("bash", { command: line }, "/p", platform);
    expect(new Set(asked).size).toBe(asked.length);
    const before = asked.length;
    callSubjects("bash", { command: line }, "/p", platform);
    expect(asked.length).toBe(2 * before);
  });
});

describe("allow and deny forms", () => {
  it("are what allowForm and denyForms give, shared or not, command after command", () => {
    const lines = ["cd a && ./bin/x -v", "env A=1 B=2 ls -la", "nice -n 5 time make", "sudo rm -rf /", "ls $X y", "echo a; /usr/bin/env git status"];
    for (const line of lines) {
      const subjects = callSubjects("bash", { command: line }, "/p", hostPlatform);
      const script = analyzeShell(line, { cwd: "/p", home: "/h" });
      const parts = subjects.parts.filter((p) => p.kind === "command");
      script.commands.forEach((c, i) => {
        const form = allowForm(c);
        if (!c.words[0]?.value?.includes("/")) expect(parts[i]!.words, line).toEqual(form.words);
        expect(parts[i]!.blocked, line).toBe(form.blocked);
      });
      const forms = script.commands.flatMap((c) => denyForms(c.words).forms.map((f) => f.map((w, j) => (j === 0 ? w.slice(w.lastIndexOf("/") + 1) : w))));
      expect(subjects.denyForms, line).toEqual(forms);
    }
  });
});

describe("hostile lines", () => {
  it("a line of thousands of commands and redirections is judged, each reason said once", () => {
    const line = Array.from({ length: 2500 }, (_, i) => `c${i % 1200} > f${i % 700}`).join(";");
    const subjects = callSubjects("bash", { command: line }, "/p", { platform: "linux", home: "/h", realpath: () => undefined });
    const decision = decide({ toolName: "bash", subjects, rules: [], mode: "ask" });
    expect(decision.action).toBe("ask");
    expect(new Set(decision.reasons).size).toBe(decision.reasons.length);
    // 1,200 distinct commands and 700 distinct files written, each said once.
    expect(decision.reasons.filter((r) => /^c\d+: no rule allows it\.$/.test(r))).toHaveLength(1200);
    expect(decision.reasons.filter((r) => r.startsWith("It writes f"))).toHaveLength(700);
  });
});
