// The adversarial corpus (test/permissions/corpus/*.json): every command with the rules and
// mode of its file, the verdict it must get, and why. Then every allowed command is run for real
// through the bash tool in a scratch project holding a marker file, with stand-ins for npm, git,
// make and the like on PATH and a scratch home folder: afterwards the marker must still be there,
// no file named PWNED may exist anywhere, and the home folder's .bashrc and the project's .git
// must be unchanged, which proves that nothing unapproved ran.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostPlatform } from "../../app/main/permissions/path-facts.ts";
import { callSubjects, decide } from "../../app/main/permissions/policy.ts";
import { loadShellParser } from "../../app/main/permissions/shell-parser.ts";
import type { PermissionRule } from "../../app/main/store/index.ts";
import { createBashTool } from "../../app/main/tools/bash.ts";

interface CorpusCase {
  command: string;
  expect: "allow" | "ask" | "deny";
  why: string;
  run?: boolean;
}
interface CorpusFile {
  about: string;
  rules: string[];
  mode: "ask" | "auto-edit" | "full-auto";
  cases: CorpusCase[];
}

const corpusDir = path.join(import.meta.dirname, "corpus");
const files = readdirSync(corpusDir)
  .filter((f) => f.endsWith(".json"))
  .sort();
const corpus = files.map((name) => ({ name, ...(JSON.parse(readFileSync(path.join(corpusDir, name), "utf8")) as CorpusFile) }));

function parseRules(lines: string[]): PermissionRule[] {
  return lines.map((line, i) => {
    const [action, tool, ...pattern] = line.split(" ");
    if (action !== "allow" && action !== "deny") throw new Error(`bad rule line: ${line}`);
    return { id: i + 1, tool: tool!, pattern: pattern.join(" "), action, scope: "project", scopeId: 1, createdAt: 0 };
  });
}

let root: string;
let project: string;
let home: string;
const STUBS = ["npm", "npx", "git", "make", "cargo", "python3", "curl", "docker"];

function scratch(): void {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), "lathe-corpus-")));
  project = path.join(root, "project");
  home = path.join(root, "home");
  const outside = path.join(root, "outside");
  const bin = path.join(root, "bin");
  for (const dir of [
    project,
    home,
    outside,
    bin,
    path.join(project, "src"),
    path.join(project, ".git", "hooks"),
    path.join(project, "logs"),
    path.join(project, "secrets"),
    path.join(project, ".husky"),
    path.join(project, ".vscode"),
  ]) {
    mkdirSync(dir, { recursive: true });
  }
  writeFileSync(path.join(project, "marker"), "marker\n");
  writeFileSync(path.join(project, ".git", "config"), "[core]\n");
  writeFileSync(path.join(project, "secrets", "key"), "k\n");
  writeFileSync(path.join(project, "package.json"), '{"scripts":{"test":"true"}}\n');
  writeFileSync(path.join(home, ".bashrc"), "# home\n");
  for (const script of ["run.sh", "x.sh", "gen.sh", "src/run.sh"]) {
    writeFileSync(path.join(project, script), "#!/bin/sh\necho ran $0\n");
    chmodSync(path.join(project, script), 0o755);
  }
  symlinkSync(path.join(project, ".git", "config"), path.join(project, "src", "git-config-link"));
  symlinkSync(outside, path.join(project, "link-outside"));
  symlinkSync(path.join(project, "secrets"), path.join(project, "secrets-link"));
  for (const stub of STUBS) {
    writeFileSync(path.join(bin, stub), `#!/bin/sh\necho "stand-in ${stub} $*"\n`);
    chmodSync(path.join(bin, stub), 0o755);
  }
}

function findPwned(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.name.startsWith("PWNED")) found.push(full);
    else if (entry.isDirectory() && !entry.isSymbolicLink()) found.push(...findPwned(full));
  }
  return found;
}

beforeAll(async () => {
  await loadShellParser();
  scratch();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("the corpus", () => {
  it("has at least 300 commands, each with a verdict and why", () => {
    const cases = corpus.flatMap((f) => f.cases);
    expect(cases.length).toBeGreaterThanOrEqual(300);
    for (const c of cases) {
      expect(["allow", "ask", "deny"]).toContain(c.expect);
      expect(c.why.length, c.command).toBeGreaterThan(10);
    }
  });

  for (const file of corpus) {
    it(`${file.name}: every verdict is as expected`, () => {
      const rules = parseRules(file.rules);
      const wrong: string[] = [];
      for (const c of file.cases) {
        const decision = decide({ toolName: "bash", subjects: callSubjects("bash", { command: c.command }, project, { ...hostPlatform, home }), rules, mode: file.mode });
        if (decision.action !== c.expect) wrong.push(`${JSON.stringify(c.command)}: got ${decision.action}, expected ${c.expect} (${c.why}) ${decision.reasons.join(" | ")}`);
      }
      expect(wrong).toEqual([]);
    });
  }
});

describe("allowed commands run for real", () => {
  const allowed = corpus.flatMap((f) => f.cases.filter((c) => c.expect === "allow" && c.run !== false).map((c) => ({ file: f.name, ...c })));

  it(`${allowed.length} allowed commands run and nothing unapproved happens`, async () => {
    const bash = createBashTool({
      projectDir: project,
      timeoutMs: 15_000,
      outputDir: path.join(root, "saved-output"),
      env: { PATH: `${path.join(root, "bin")}:${process.env.PATH}`, HOME: home },
    });
    const problems: string[] = [];
    let n = 0;
    for (const c of allowed) {
      await bash.execute(`corpus-${n++}`, { command: c.command }, undefined, undefined).catch(() => undefined);
      const pwned = findPwned(root);
      if (!existsSync(path.join(project, "marker"))) problems.push(`${c.file}: ${JSON.stringify(c.command)} removed the marker`);
      if (pwned.length > 0) problems.push(`${c.file}: ${JSON.stringify(c.command)} created ${pwned.join(", ")}`);
      if (readFileSync(path.join(home, ".bashrc"), "utf8") !== "# home\n") problems.push(`${c.file}: ${JSON.stringify(c.command)} changed ~/.bashrc`);
      if (readFileSync(path.join(project, ".git", "config"), "utf8") !== "[core]\n") problems.push(`${c.file}: ${JSON.stringify(c.command)} changed .git/config`);
      if (readdirSync(path.join(project, ".git", "hooks")).length > 0) problems.push(`${c.file}: ${JSON.stringify(c.command)} wrote a git hook`);
      // Repair, so one problem does not hide the next.
      for (const p of pwned) rmSync(p, { force: true, recursive: true });
      writeFileSync(path.join(project, "marker"), "marker\n");
    }
    expect(problems).toEqual([]);
  }, 240_000);
});
