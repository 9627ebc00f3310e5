// A git repository a sandboxed command creates in a project that had none (real bubblewrap): the
// model and the card are told, the repository is marked untrusted (across a restart, until it is
// replaced), and a question about running a command outside the sandbox in that project warns.
// Also what was measured before choosing detection over prevention: an empty read-only mount at a
// missing `.git` leaves an empty `.git` folder in the project.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeWhen, needsLinux } from "../support/requirements.ts";
import type { BashResultDetails } from "../../app/shared/tool-details.ts";
import { loadShellParser } from "../../app/main/permissions/shell-parser.ts";
import { callSubjects } from "../../app/main/permissions/policy.ts";
import { planSandbox } from "../../app/main/permissions/sandbox-mode.ts";
import { detectSandbox } from "../../app/main/sandbox/detect.ts";
import { SandboxService } from "../../app/main/sandbox/sandbox-service.ts";
import { createBashTool } from "../../app/main/tools/bash.ts";
import { runTool } from "../tools/helpers.ts";
import { sandboxFixture, type SandboxFixture } from "./helpers.ts";

const done = (run: { result?: { details: unknown }; error?: Error }) => (run.result?.details ?? (run.error as { details?: unknown } | undefined)?.details) as BashResultDetails;

describeWhen(needsLinux(), "a repository created inside the sandbox", () => {
  let f: SandboxFixture;
  let n = 0;
  beforeAll(() => {
    f = sandboxFixture();
    loadShellParser();
  });
  afterAll(() => f?.cleanup());

  function project(): { dir: string; bash: ReturnType<typeof createBashTool> } {
    const dir = path.join(f.root, `p${++n}`);
    mkdirSync(dir);
    const bash = createBashTool({ projectDir: dir, env: { HOME: f.home }, sandbox: f.service.forSession({ sessionId: 100 + n, projectId: 100 + n, projectDir: dir }) });
    return { dir, bash };
  }

  it("is reported to the model and the card, and marked untrusted across a restart until replaced", async () => {
    const { dir, bash } = project();
    const plain = await runTool(bash, { command: "echo no repository here" });
    expect(plain.text).not.toContain("created a git repository");
    expect(done(plain).sandbox?.createdRepository).toBeUndefined();

    const run = await runTool(bash, { command: `git init -q && git config core.fsmonitor 'touch ${dir}/PWNED' && echo made` });
    expect(run.text).toContain("made");
    const gitDir = path.join(dir, ".git");
    expect(run.text).toContain(`[Sandbox: This command created or rewrote a git repository (${gitDir}) inside the sandbox.`);
    expect(run.text).toContain("review .git/config");
    expect(done(run).sandbox?.createdRepository).toMatchObject({ path: gitDir });
    expect(f.service.untrustedRepositories.find(dir)).toBe(gitDir);
    expect(f.service.repositoryWarning(dir)).toContain(`the git repository ${gitDir} was created or rewritten by a command inside the sandbox`);

    // Kept in the data folder: a new Lathe knows it too.
    const restarted = new SandboxService({ settings: () => f.settings, dataDir: f.dataDir, home: f.home, tmpRoot: f.root });
    expect(restarted.untrustedRepositories.find(dir)).toBe(gitDir);

    // Later commands see the .git read-only and are not told again.
    const again = await runTool(bash, { command: "git status --short | wc -l" });
    expect(done(again).sandbox?.createdRepository).toBeUndefined();

    // Re-created outside the sandbox (another folder at that path): no longer marked.
    rmSync(gitDir, { recursive: true });
    execFileSync("git", ["init", "-q", dir]);
    expect(f.service.untrustedRepositories.find(dir)).toBeUndefined();
    expect(restarted.untrustedRepositories.find(dir)).toBeUndefined();
    // Several sandboxed commands, each followed by a scan in a worker thread: slow on a loaded machine.
  }, 60_000);

  it("notices a bare repository's layout made at the project's top", async () => {
    const { dir, bash } = project();
    const run = await runTool(bash, { command: "git init -q --bare . && echo made" });
    expect(done(run).sandbox?.createdRepository?.path).toBe(dir);
    expect(f.service.untrustedRepositories.find(dir)).toBe(dir);
  });

  it("warns in the question about a command that would run outside the sandbox in that project", async () => {
    const { dir, bash } = project();
    const question = () =>
      planSandbox({
        toolName: "bash",
        subjects: callSubjects("bash", { command: "git commit -m x" }, dir),
        mode: "sandboxed-auto",
        scope: { sessionId: 1, projectId: 1, projectDir: dir },
        port: f.service,
      });
    expect(question().placement).toBe("outside");
    expect(question().crossing?.message).not.toContain("by a command inside the sandbox");
    await runTool(bash, { command: "git init -q" });
    expect(question().crossing?.rule).toBe("real-machine");
    expect(question().crossing?.message).toContain(`the git repository ${path.join(dir, ".git")} was created or rewritten by a command inside the sandbox`);
  });

  it("notices repositories made in sub-folders (git init, or the files by hand), and one whose config a command rewrote", async () => {
    const { dir, bash } = project();
    const vendored = path.join(dir, "vendor", "lib");
    execFileSync("git", ["init", "-q", vendored]);
    // Made before the command by more than the scan's clock slack (50 ms): not the command's.
    await new Promise((r) => setTimeout(r, 200));
    const plain = await runTool(bash, { command: `git -C vendor/lib status --short | wc -l; mkdir -p src/a && echo x > src/a/f` });
    expect(done(plain).sandbox?.createdRepository).toBeUndefined();
    expect(f.service.repositoryWarning(dir)).toBeUndefined();

    const byGit = await runTool(bash, { command: `mkdir sub && git init -q sub && git -C sub config core.fsmonitor 'touch ${dir}/PWNED' && echo made` });
    const subGit = path.join(dir, "sub", ".git");
    expect(byGit.text).toContain(`[Sandbox: This command created or rewrote a git repository (${subGit}) inside the sandbox.`);
    expect(done(byGit).sandbox?.createdRepository).toMatchObject({ path: subGit });

    const byHand = await runTool(bash, {
      command: `mkdir -p deep/er/.git/hooks deep/er/.git/objects deep/er/.git/refs && printf 'ref: refs/heads/main\n' > deep/er/.git/HEAD && printf '[core]\n\tfsmonitor = touch ${dir}/PWNED\n' > deep/er/.git/config`,
    });
    expect(done(byHand).sandbox?.createdRepository?.path).toBe(path.join(dir, "deep", "er", ".git"));

    // A repository made outside Lathe after the last scan is not yet read-only: rewriting its config is noticed.
    const late = path.join(dir, "late");
    execFileSync("git", ["init", "-q", late]);
    const rewritten = await runTool(bash, { command: `git -C late config core.hooksPath /tmp` });
    expect(done(rewritten).sandbox?.createdRepository?.path).toBe(path.join(late, ".git"));

    // All three are untrusted: a question about running a command outside the sandbox here names them.
    const warning = f.service.repositoryWarning(dir)!;
    for (const repo of [subGit, path.join(dir, "deep", "er", ".git"), path.join(late, ".git")]) expect(warning).toContain(repo);
    // git as Lathe runs it (its runner's safe settings) in the made repository runs nothing it names.
    const { GitRunner } = await import("../../app/main/checkpoints/git-runner.ts");
    const runner = new GitRunner(path.join(f.root, `hooks-${n}`));
    await runner.run(["status", "--short"], { cwd: path.join(dir, "sub") }).catch(() => undefined);
    expect(existsSync(path.join(dir, "PWNED"))).toBe(false);
    // Plain git there would have run it: the threat is real.
    execFileSync("git", ["-C", path.join(dir, "sub"), "status", "--short"], { env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" } });
    expect(existsSync(path.join(dir, "PWNED"))).toBe(true);
  }, 60_000);

  it("keeps the sub-folder repositories it knows read-only: a hook or config cannot be edited in place", async () => {
    const { dir, bash } = project();
    const vendored = path.join(dir, "vendor", "lib");
    execFileSync("git", ["init", "-q", vendored]);
    const hook = path.join(vendored, ".git", "hooks", "pre-commit");
    writeFileSync(hook, "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    const config = readFileSync(path.join(vendored, ".git", "config"), "utf8");
    // The first command's scan learns of the repository; from the next command on it is read-only.
    await new Promise((r) => setTimeout(r, 200));
    await runTool(bash, { command: "true" });

    const edited = await runTool(bash, { command: `echo 'touch ${dir}/PWNED' >> vendor/lib/.git/hooks/pre-commit` });
    expect(readFileSync(hook, "utf8")).toBe("#!/bin/sh\nexit 0\n");
    expect(done(edited).sandbox?.blocked).toMatchObject({ rule: "read-only" });
    expect(done(edited).sandbox?.blocked?.message).toContain("the git repository vendor/lib/.git (a repository in a sub-folder)");
    const configured = await runTool(bash, { command: `git -C vendor/lib config core.fsmonitor 'touch ${dir}/PWNED'` });
    expect(configured.text).toMatch(/read-only file system/i);
    expect(readFileSync(path.join(vendored, ".git", "config"), "utf8")).toBe(config);
    // The rest of the sub-folder stays writable, and reading the repository works.
    const work = await runTool(bash, { command: "echo x > vendor/lib/file && git -C vendor/lib status --short" });
    expect(work.text).toContain("?? file");
    expect(f.service.repositoryWarning(dir)).toBeUndefined();
  }, 60_000);

  it("keeps the project writable when a sub-folder's .git links back into it", async () => {
    const { dir, bash } = project();
    mkdirSync(path.join(dir, "sub"));
    symlinkSync("..", path.join(dir, "sub", ".git"));
    await new Promise((r) => setTimeout(r, 200));
    await runTool(bash, { command: "true" });
    const write = await runTool(bash, { command: "echo x > file && echo y > sub/other && cat file sub/other" });
    expect(write.text).toContain("x\ny");
    expect(done(write).sandbox?.blocked).toBeUndefined();
    expect(readFileSync(path.join(dir, "sub", "other"), "utf8")).toBe("y\n");
  }, 60_000);

  it("notices a repository made elsewhere earlier and moved into a sub-folder", async () => {
    const { dir, bash } = project();
    await runTool(bash, { command: `mkdir -p "$TMPDIR/prep/a/b" && git init -q "$TMPDIR/prep/a/b" && git -C "$TMPDIR/prep/a/b" config core.fsmonitor 'touch ${dir}/PWNED'` });
    await new Promise((r) => setTimeout(r, 200));
    const moved = await runTool(bash, { command: `mv "$TMPDIR/prep/a" moved-in` });
    expect(done(moved).sandbox?.createdRepository?.path).toBe(path.join(dir, "moved-in", "b", ".git"));
  });

  it("says in the question when a project has more folders than the scan reads", async () => {
    const bounded = new SandboxService({ settings: () => f.settings, dataDir: path.join(f.root, "bounded-data"), home: f.home, tmpRoot: f.root, maxScanDirs: 3 });
    const dir = path.join(f.root, `p${++n}`);
    for (let i = 0; i < 5; i++) mkdirSync(path.join(dir, `d${i}`), { recursive: true });
    const bash = createBashTool({ projectDir: dir, env: { HOME: f.home }, sandbox: bounded.forSession({ sessionId: 900, projectId: 900, projectDir: dir }) });
    await runTool(bash, { command: "true" });
    expect(bounded.repositoryWarning(dir)).toMatch(
      /^Warning: Lathe's check for git repositories made by sandboxed commands in sub-folders stops at 3 folders, and this project has more/,
    );
  });

  it("(measured) an empty read-only mount at a missing .git would leave an empty .git folder behind", () => {
    const dir = path.join(f.root, "measure");
    const empty = path.join(f.root, "measure-empty");
    mkdirSync(dir);
    mkdirSync(empty);
    execFileSync(detectSandbox().executable!, [
      "--ro-bind",
      "/",
      "/",
      "--dev",
      "/dev",
      "--bind",
      dir,
      dir,
      "--ro-bind",
      empty,
      path.join(dir, ".git"),
      "--unshare-all",
      "--unshare-user",
      "--",
      "true",
    ]);
    expect(existsSync(path.join(dir, ".git"))).toBe(true);
    expect(readdirSync(path.join(dir, ".git"))).toEqual([]);
  });
});
