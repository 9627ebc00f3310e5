// The system prompt: Lathe's tools, the project folder, platform and date, and the project's
// instructions from AGENTS.md / CLAUDE.md in the folder and its parents, outermost first.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildSystemPrompt, loadProjectInstructions } from "../../app/main/sessions/system-prompt.ts";
import { createCodingTools } from "../../app/main/tools/index.ts";

const root = realpathSync(mkdtempSync(path.join(tmpdir(), "lathe-prompt-")));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("system prompt", () => {
  it("loads AGENTS.md and CLAUDE.md from the project folder and its parents, outermost first", () => {
    const project = path.join(root, "org", "repo");
    mkdirSync(project, { recursive: true });
    writeFileSync(path.join(root, "org", "AGENTS.md"), "Org rule: sign commits.");
    writeFileSync(path.join(project, "AGENTS.md"), "Repo rule: run npm test.");
    writeFileSync(path.join(project, "CLAUDE.md"), "Claude rule: be brief.");
    writeFileSync(path.join(project, "README.md"), "not instructions");
    const found = loadProjectInstructions(project);
    expect(found.map((f) => path.relative(root, f.path))).toEqual(["org/AGENTS.md", "org/repo/AGENTS.md", "org/repo/CLAUDE.md"]);
    const prompt = buildSystemPrompt({ projectDir: project, tools: createCodingTools({ projectDir: project }).tools, instructions: found, now: new Date("2026-11-29T12:00:00Z"), platform: "linux" });
    expect(prompt).toContain(`Project folder: ${project}`);
    expect(prompt).toContain("Platform: linux");
    expect(prompt).toContain("Today's date: 2026-11-29");
    for (const tool of ["read", "bash", "edit", "write", "grep", "find", "ls"]) expect(prompt).toMatch(new RegExp(`^- ${tool}: `, "m"));
    expect(prompt.indexOf("Org rule")).toBeLessThan(prompt.indexOf("Repo rule"));
    expect(prompt).not.toContain("not instructions");
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
