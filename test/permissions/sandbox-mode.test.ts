// How the sandbox composes with the policy, as pure functions: the sandboxed-auto mode, the rule
// of the sandbox each kind of call would cross, where an allowed call runs, and that deny rules
// and full auto keep their meaning.
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { callSubjects, decide, type PermissionMode } from "../../app/main/permissions/policy.ts";
import { placementFor, planSandbox, requestInfo, sandboxDecision, type SandboxPort } from "../../app/main/permissions/sandbox-mode.ts";
import { DEFAULT_REAL_MACHINE_COMMANDS, outsidePaths } from "../../app/main/sandbox/command-needs.ts";
import type { Placed } from "../../app/main/sandbox/sandbox-service.ts";
import { loadShellParser } from "../../app/main/permissions/shell-parser.ts";
import type { PermissionRule } from "../../app/main/store/index.ts";

// Bash is judged with the bash grammar, loaded once per process.
beforeAll(() => loadShellParser());

const project = "/work/project";
const home = "/home/me";

function port(overrides: { available?: boolean; network?: boolean; realMachine?: string[]; outside?: string[] } = {}) {
  const requested = new Set(overrides.outside ?? []);
  const placed: Placed[] = [];
  const p: SandboxPort & { placed: Placed[] } = {
    home,
    placed,
    status: () => ({
      kind: "bubblewrap",
      available: overrides.available ?? true,
      message: overrides.available === false ? "No sandbox: bubblewrap (bwrap) is not installed." : "Commands run in a bubblewrap sandbox.",
    }),
    networkAllowed: () => overrides.network ?? false,
    realMachineCommands: () => overrides.realMachine ?? DEFAULT_REAL_MACHINE_COMMANDS,
    takeOutsideRequest: (_sessionId, command) => requested.delete(command),
    place: (_s, _t, placedCall) => void placed.push(placedCall),
  };
  return p;
}

const rule = (tool: string, pattern: string, action: "allow" | "deny"): PermissionRule => ({ id: 1, tool, pattern, action, scope: "project", scopeId: 1, createdAt: 0 });

function check(toolName: string, args: unknown, options: { mode?: PermissionMode; rules?: PermissionRule[]; port?: ReturnType<typeof port> } = {}) {
  const mode = options.mode ?? "sandboxed-auto";
  const subjects = callSubjects(toolName, args, project);
  const plan = planSandbox({ toolName, subjects, mode, scope: { sessionId: 1, projectId: 1, projectDir: project }, port: options.port ?? port() });
  const decision = sandboxDecision(decide({ toolName, subjects, rules: options.rules ?? [], mode }), plan, { toolName, subjects, mode });
  return { decision, plan };
}

describe("sandboxed auto", () => {
  it("runs commands and edits inside the project without a question, in the sandbox", () => {
    expect(check("bash", { command: "npm test && make build" })).toMatchObject({ decision: { action: "allow", by: "mode" }, plan: { placement: "sandbox" } });
    expect(check("bash", { command: "ls /usr/lib; cat /etc/os-release" }).decision.action).toBe("allow");
    expect(check("edit", { path: "src/a.ts", edits: [] }).decision).toMatchObject({ action: "allow", by: "mode" });
    expect(check("write", { path: "notes.md", content: "" }).decision).toMatchObject({ action: "allow", by: "mode" });
    expect(check("read", { path: "src/a.ts" }).decision.action).toBe("allow");
  });

  it("keeps the policy's firm questions: protected files, a command name a deny rule might match", () => {
    expect(check("write", { path: ".git/config", content: "[core]\n" }).decision).toMatchObject({ action: "ask", firm: true });
    expect(check("edit", { path: ".git/hooks/pre-commit", edits: [] }).decision.action).toBe("ask");
    const computed = check("bash", { command: "X=rm; $X -rf build" }, { rules: [rule("bash", "rm *", "deny")] });
    expect(computed.decision).toMatchObject({ action: "ask", firm: true });
    expect(check("bash", { command: "X=rm; $X -rf build" }).decision.action).toBe("allow");
  });

  it("asks for what would leave the sandbox, naming the rule it would cross", () => {
    const net = check("bash", { command: "echo go && npm install left-pad" });
    expect(net.decision.action).toBe("ask");
    expect(net.plan).toMatchObject({ placement: "sandbox-network", crossing: { rule: "network" } });
    expect(net.plan.crossing!.message).toContain('"npm install left-pad" needs the network');

    const push = check("bash", { command: "git push origin main" });
    expect(push.decision.action).toBe("ask");
    expect(push.plan).toMatchObject({ placement: "outside", crossing: { rule: "real-machine" } });
    expect(push.plan.crossing!.message).toContain('the rule "git push *"');
    expect(check("bash", { command: "docker ps" }).plan.crossing?.rule).toBe("real-machine");
    // The sandbox keeps .git read-only: commands that write the repository ask to run outside it.
    for (const command of ["git commit -qm done", "git add -A", "git stash", "cd sub && git checkout main"]) {
      expect(check("bash", { command }).plan, command).toMatchObject({ placement: "outside", crossing: { rule: "real-machine" } });
    }
    expect(check("bash", { command: "git status && git diff" }).decision.action).toBe("allow");

    const notes = check("bash", { command: "cat ~/notes.txt > copy.txt" });
    expect(notes.decision.action).toBe("ask");
    expect(notes.plan).toMatchObject({ placement: "sandbox", crossing: { rule: "outside-path" } });
    expect(notes.plan.crossing!.message).toContain(`${home}/notes.txt is outside the project`);

    const outsideEdit = check("write", { path: "/etc/hosts", content: "" });
    expect(outsideEdit.decision.action).toBe("ask");
    expect(outsideEdit.plan.crossing).toMatchObject({ rule: "outside-path" });
    expect(outsideEdit.plan.crossing!.message).toContain("/etc/hosts is outside the project");
    expect(check("read", { path: "~/.bashrc" }).decision.action).toBe("ask");
  });

  it("lets network be allowed per project, and the real-machine list be the user's", () => {
    const withNet = check("bash", { command: "npm install left-pad" }, { port: port({ network: true }) });
    expect(withNet).toMatchObject({ decision: { action: "allow" }, plan: { placement: "sandbox-network" } });
    expect(withNet.plan.crossing).toBeUndefined();
    expect(check("bash", { command: "make test" }, { port: port({ network: true }) }).plan.placement).toBe("sandbox-network");

    const custom = port({ realMachine: ["make deploy *"] });
    expect(check("bash", { command: "make deploy prod" }, { port: custom }).plan.crossing?.rule).toBe("real-machine");
    expect(check("bash", { command: "docker ps" }, { port: custom }).decision.action).toBe("allow");
  });

  it("lets an allow rule approve a crossing, with what it needs: a network command gets network", () => {
    const rules = [rule("bash", "npm install *", "allow")];
    const r = check("bash", { command: "npm install" }, { rules });
    expect(r.decision).toMatchObject({ action: "allow", by: "rule" });
    expect(placementFor(r.plan, false)).toEqual({ placement: "sandbox-network" });
  });

  it("keeps deny rules first, in every mode", () => {
    const rules = [rule("bash", "rm *", "deny"), rule("edit", "src/**", "deny")];
    for (const mode of ["sandboxed-auto", "ask", "full-auto"] as const) {
      expect(check("bash", { command: "rm -rf build" }, { mode, rules }).decision.action).toBe("deny");
      expect(check("edit", { path: "src/a.ts", edits: [] }, { mode, rules }).decision.action).toBe("deny");
    }
  });

  it("asks like ask mode when this machine has no sandbox, and the dialog says why", () => {
    const none = port({ available: false });
    const cmd = check("bash", { command: "npm test" }, { port: none });
    expect(cmd.decision.action).toBe("ask");
    expect(cmd.plan).toMatchObject({ placement: "outside", crossing: { rule: "no-sandbox" } });
    expect(requestInfo(cmd.plan)).toMatchObject({ available: false, status: "No sandbox: bubblewrap (bwrap) is not installed.", crossing: { rule: "no-sandbox" } });
    expect(check("edit", { path: "src/a.ts", edits: [] }, { port: none }).decision.action).toBe("ask");
  });
});

describe("the other modes with a sandbox", () => {
  it("ask: commands still ask, and an approved one runs in the sandbox unless the user chose outside", () => {
    const r = check("bash", { command: "npm test" }, { mode: "ask" });
    expect(r.decision.action).toBe("ask");
    expect(placementFor(r.plan, false)).toEqual({ placement: "sandbox" });
    expect(placementFor(r.plan, true)).toEqual({ placement: "outside", reason: "You chose to run this command outside the sandbox." });
    expect(check("bash", { command: "npm test" }, { mode: "ask", rules: [rule("bash", "npm test *", "allow")] }).plan.placement).toBe("sandbox");
  });

  it("auto-edit: edits inside run, commands ask", () => {
    expect(check("edit", { path: "a.ts", edits: [] }, { mode: "auto-edit" }).decision.action).toBe("allow");
    expect(check("bash", { command: "ls" }, { mode: "auto-edit" }).decision.action).toBe("ask");
  });

  it("full auto: no question and no sandbox, and the result says so", () => {
    const r = check("bash", { command: "git push" }, { mode: "full-auto" });
    expect(r.decision).toMatchObject({ action: "allow", by: "mode" });
    expect(placementFor(r.plan, false)).toEqual({ placement: "outside", reason: "Full auto: commands run outside the sandbox, without a question." });
  });

  it('"run again outside the sandbox" asks once, even where a rule or the mode would allow the command', () => {
    const p = port({ outside: ["npm test"] });
    const rules = [rule("bash", "npm test *", "allow")];
    const first = check("bash", { command: "npm test" }, { rules, port: p });
    expect(first.decision.action).toBe("ask");
    expect(first.plan).toMatchObject({ placement: "outside", crossing: { rule: "requested-outside" } });
    const again = check("bash", { command: "npm test" }, { rules, port: p });
    expect(again.decision.action).toBe("allow");
    expect(again.plan.placement).toBe("sandbox");
  });
});

describe("what the question says about crossing", () => {
  it("names up to three paths outside the project, then how many more, in the plural", () => {
    const two = check("bash", { command: "cat ~/a ~/b" });
    expect(two.plan.crossing!.message).toBe("/home/me/a, /home/me/b are outside the project: in the sandbox the command can read them (unless hidden) but not change them.");
    const five = check("bash", { command: "cat ~/a ~/b ~/c ~/d ~/e" });
    expect(five.plan.crossing!.message).toMatch(/^\/home\/me\/a, \/home\/me\/b, \/home\/me\/c and 2 more are outside the project: /);
    const one = check("bash", { command: "cat ~/a" });
    expect(one.plan.crossing!.message).toBe("/home/me/a is outside the project: in the sandbox the command can read it (unless hidden) but not change it.");
  });

  it("adds the repository's warning to a question about running outside the sandbox, and only there", () => {
    const asked: string[] = [];
    const warned = Object.assign(port(), {
      repositoryWarning: (dir: string) => {
        asked.push(dir);
        return "A sandboxed command created this repository.";
      },
    });
    const push = check("bash", { command: "git push origin main" }, { port: warned });
    expect(push.plan.crossing!.message).toMatch(/^"git push origin main" is marked as needing the real machine .* A sandboxed command created this repository\.$/);
    expect(asked).toEqual([project]);
    // In the sandbox (a network crossing), or outside without a question (full auto): no warning asked for.
    expect(check("bash", { command: "npm install left-pad" }, { port: warned }).plan.crossing!.message).not.toContain("repository");
    expect(check("bash", { command: "git push" }, { port: warned, mode: "full-auto" }).plan.crossing).toBeUndefined();
    expect(asked).toEqual([project]);
    // A port without the check, or nothing to warn about: the message as it was.
    const quiet = Object.assign(port(), { repositoryWarning: () => undefined });
    expect(check("bash", { command: "git push origin main" }, { port: quiet }).plan.crossing!.message).toMatch(
      /in Settings\): if you allow it, it runs outside the sandbox, with your full rights: .*files\.$/,
    );
  });

  it("says why a command would run outside: a repeated request, no sandbox, the real-machine list", () => {
    const requested = check("bash", { command: "npm test" }, { port: port({ outside: ["npm test"] }) });
    expect(requested.decision).toMatchObject({ action: "ask", by: "mode" });
    expect(requested.plan.crossing!.message).toBe(
      "You asked to run this command again outside the sandbox. It would run with your full rights: it can read your keys and credentials, use the network, and change any of your files.",
    );
    expect(placementFor(requested.plan, false)).toEqual({ placement: "outside", reason: "You chose to run this command outside the sandbox." });
    const none = check("bash", { command: "npm test" }, { port: port({ available: false }) });
    expect(none.plan.crossing!.message).toBe(
      "No sandbox: bubblewrap (bwrap) is not installed. This command would run with your full rights: it can read your keys and credentials, use the network, and change any of your files.",
    );
    expect(requestInfo(none.plan)).toEqual({ available: false, status: "No sandbox: bubblewrap (bwrap) is not installed.", placement: "outside", crossing: none.plan.crossing });
    const push = check("bash", { command: "git push origin main" });
    expect(placementFor(push.plan, false)).toEqual({ placement: "outside", reason: 'Marked as needing the real machine ("git push *").' });
  });

  it("names three paths outside the project without a count of more", () => {
    expect(check("bash", { command: "cat ~/a ~/b ~/c" }).plan.crossing!.message).toMatch(/^\/home\/me\/a, \/home\/me\/b, \/home\/me\/c are outside the project: /);
  });

  it("names the path a tool was given outside the project, the first given absolute, and what the tool may do without a question", () => {
    const outside = (toolName: string) => {
      const subjects = { ...callSubjects("read", { path: "../x" }, project), subjects: ["../x", "/etc/y"], absolutePaths: ["/work/x", "/etc/y"], outsideProject: true };
      return planSandbox({ toolName, subjects, mode: "sandboxed-auto", scope: { sessionId: 1, projectId: 1, projectDir: project }, port: port() }).crossing;
    };
    expect(outside("read")).toEqual({ rule: "outside-path", message: "/etc/y is outside the project: without a question, the agent reads only inside the project folder." });
    expect(outside("write")!.message).toBe("/etc/y is outside the project: without a question, edits (and sandboxed commands) change files only inside the project folder.");
    expect(outside("mcp__files__copy")!.message).toBe("/etc/y is outside the project.");
  });

  it("lets the mode allow only commands and edits: an allowed call keeps what allowed it, another tool still asks", () => {
    const ruled = check("bash", { command: "npm test" }, { rules: [rule("bash", "npm test *", "allow")] });
    expect(ruled.decision).toMatchObject({ action: "allow", by: "rule" });
    expect(check("mcp__files__delete", {}).decision.action).toBe("ask");
  });

  it("an allowed call with no placement planned (not bash) runs in the sandbox", () => {
    expect(placementFor({ available: true, status: "ok" }, false)).toEqual({ placement: "sandbox" });
    expect(requestInfo({ available: true, status: "ok" })).toEqual({ available: true, status: "ok" });
  });
});

describe("paths a command names", () => {
  it("finds paths outside the project and installed software, through quotes and redirections", () => {
    const found = outsidePaths(["cp a.txt ~/b.txt", `cat "/home/me/My Notes.txt"`, "echo x 2>/tmp/log", "ls ../sibling", "ls /usr/lib /etc ./src", "cat $HOME/x"], project, home);
    expect(found).toEqual([path.join(home, "b.txt"), "/home/me/My Notes.txt", "/tmp/log", "/work/sibling"]);
  });
});
