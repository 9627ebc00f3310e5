// The system prompt: Lathe's tools, the project folder, platform and date, and the project's
// instructions from AGENTS.md / CLAUDE.md in the folder and its parents up to the repository root
// (or the home folder), outermost first; never from / or a temporary or world-writable folder.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildSystemPrompt, instructionFolders, loadProjectInstructions, loadProjectInstructionsOffThread } from "../../app/main/sessions/system-prompt.ts";
import { createCodingTools } from "../../app/main/tools/index.ts";

const root = realpathSync(mkdtempSync(path.join(tmpdir(), "lathe-prompt-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("system prompt", () => {
  it("loads AGENTS.md and CLAUDE.md from the project folder and its parents up to the repository root, outermost first", async () => {
    const project = path.join(root, "org", "repo");
    mkdirSync(project, { recursive: true });
    mkdirSync(path.join(root, "org", ".git"));
    writeFileSync(path.join(root, "AGENTS.md"), "Above the repository: not read.");
    writeFileSync(path.join(root, "org", "AGENTS.md"), "Org rule: sign commits.");
    writeFileSync(path.join(project, "AGENTS.md"), "Repo rule: run npm test.");
    writeFileSync(path.join(project, "CLAUDE.md"), "Claude rule: be brief.");
    writeFileSync(path.join(project, "README.md"), "not instructions");
    const found = loadProjectInstructions(project);
    expect(found.map((f) => path.relative(root, f.path))).toEqual(["org/AGENTS.md", "org/repo/AGENTS.md", "org/repo/CLAUDE.md"]);
    expect(await loadProjectInstructionsOffThread(project)).toEqual(found);
    const prompt = buildSystemPrompt({
      projectDir: project,
      tools: createCodingTools({ projectDir: project }).tools,
      instructions: found,
      now: new Date("2026-11-29T12:00:00Z"),
      platform: "linux",
    });
    expect(prompt).toContain(`Project folder: ${project}`);
    expect(prompt).toContain("Platform: linux");
    expect(prompt).toContain("Today's date: 2026-11-29");
    for (const tool of ["read", "bash", "edit", "write", "grep", "find", "ls"]) expect(prompt).toMatch(new RegExp(`^- ${tool}: `, "m"));
    expect(prompt.indexOf("Org rule")).toBeLessThan(prompt.indexOf("Repo rule"));
    expect(prompt).not.toContain("not instructions");
    expect(prompt).not.toContain("Above the repository");
  });

  it("outside a repository, climbs to the home folder, and no further; outside home, reads the project folder alone", async () => {
    const home = path.join(root, "home");
    const project = path.join(home, "code", "app");
    mkdirSync(project, { recursive: true });
    writeFileSync(path.join(root, "AGENTS.md"), "Above home: not read.");
    writeFileSync(path.join(home, "AGENTS.md"), "Home rule.");
    writeFileSync(path.join(project, "AGENTS.md"), "App rule.");
    expect(loadProjectInstructions(project, { homeDir: home }).map((f) => f.content)).toEqual(["Home rule.", "App rule."]);
    expect(instructionFolders(project, { homeDir: home })).toEqual([project, path.join(home, "code"), home]);
    // The same project seen from another user's home: only its own folder.
    expect(loadProjectInstructions(project, { homeDir: path.join(root, "elsewhere") }).map((f) => f.content)).toEqual(["App rule."]);
    // Asked off the event loop (as the app asks), the same answers.
    expect(await loadProjectInstructionsOffThread(project, { homeDir: home })).toEqual(loadProjectInstructions(project, { homeDir: home }));
  });

  it("never reads from a temporary folder, a world-writable folder or /, even inside a repository", async () => {
    // Reproduces the report: /tmp/AGENTS.md reached every project under /tmp. A stand-in temp
    // folder is used so that no real /tmp/AGENTS.md is written on a shared machine.
    const tmp = path.join(root, "tmp");
    const project = path.join(tmp, "proj");
    mkdirSync(path.join(project, "sub"), { recursive: true });
    writeFileSync(path.join(tmp, "AGENTS.md"), "Planted by anyone.");
    writeFileSync(path.join(project, "AGENTS.md"), "Project rule.");
    const lookup = { homeDir: path.join(root, "nobody"), tempDirs: [tmp] };
    mkdirSync(path.join(tmp, ".git"), { recursive: true });
    expect(loadProjectInstructions(path.join(project, "sub"), lookup).map((f) => f.content)).toEqual(["Project rule."]);
    // Asked off the event loop (as the app asks), the same answer.
    expect((await loadProjectInstructionsOffThread(path.join(project, "sub"), lookup)).map((f) => f.content)).toEqual(["Project rule."]);
    const shared = path.join(root, "shared");
    mkdirSync(path.join(shared, "p"), { recursive: true });
    chmodSync(shared, 0o1777);
    writeFileSync(path.join(shared, "AGENTS.md"), "World-writable: not read.");
    mkdirSync(path.join(shared, ".git"), { recursive: true });
    expect(instructionFolders(path.join(shared, "p"), lookup)).toEqual([path.join(shared, "p")]);
    // By default the OS temp folder and / are never read.
    expect(instructionFolders(path.join(root, "org", "repo"))).not.toContain(tmpdir());
    expect(instructionFolders(tmpdir())).toEqual([]);
    expect(instructionFolders("/")).toEqual([]);
  });

  it("reads a project deep below its repository the same way off the event loop (a pass per level ran out at 6)", async () => {
    const top = path.join(root, "deep-repo");
    const project = path.join(top, ...Array.from({ length: 12 }, (_, i) => `level${i}`));
    mkdirSync(project, { recursive: true });
    mkdirSync(path.join(top, ".git"));
    writeFileSync(path.join(top, "AGENTS.md"), "Top rule.");
    writeFileSync(path.join(project, "AGENTS.md"), "Deep rule.");
    const found = loadProjectInstructions(project);
    expect(found.map((f) => f.content)).toEqual(["Top rule.", "Deep rule."]);
    expect(await loadProjectInstructionsOffThread(project)).toEqual(found);
  });

  it("skips an instruction file that is a FIFO instead of blocking on it", async () => {
    const project = path.join(root, "fifo-project");
    mkdirSync(path.join(project, ".git"), { recursive: true });
    execFileSync("mkfifo", [path.join(project, "AGENTS.md")]);
    writeFileSync(path.join(project, "CLAUDE.md"), "Claude rule.");
    expect(loadProjectInstructions(project).map((f) => f.content)).toEqual(["Claude rule."]);
    expect((await loadProjectInstructionsOffThread(project)).map((f) => f.content)).toEqual(["Claude rule."]);
  });

  it("lists only the tools it is given", () => {
    const tools = createCodingTools({ projectDir: root }).tools.filter((t) => t.name === "read");
    const prompt = buildSystemPrompt({ projectDir: root, tools, instructions: [] });
    expect(prompt).toMatch(/^- read: /m);
    expect(prompt).not.toMatch(/^- bash: /m);
  });
});

describe("instruction files in the session state", () => {
  it("are listed before the session's first run", async () => {
    const { startApp } = await import("../support/app-harness.ts");
    const app = await startApp();
    try {
      writeFileSync(path.join(app.projectDir, "AGENTS.md"), "Use tabs.");
      const project = await app.call("projects.open", { folder: app.projectDir });
      const session = await app.call("sessions.create", { projectId: project.id });
      const { state } = await app.call("sessions.open", { sessionId: session.id });
      expect(state.instructionFiles).toContain(path.join(app.projectDir, "AGENTS.md"));
    } finally {
      await app.close();
    }
  });
});
