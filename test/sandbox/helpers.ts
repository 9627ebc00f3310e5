// Fixtures for the sandbox tests: a scratch folder with a fake home (holding a fake SSH key and
// cloud credentials), a data folder and a project; a SandboxService over them with settings the
// test can change; a bash tool running in that sandbox; and process lookups by command line.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { SandboxService, type SandboxSettings } from "../../app/main/sandbox/sandbox-service.ts";
import { createBashTool } from "../../app/main/tools/bash.ts";
import { createCodingTools } from "../../app/main/tools/index.ts";
import { tempDir } from "../tools/helpers.ts";

export interface SandboxFixture {
  root: string;
  home: string;
  dataDir: string;
  project: string;
  settings: SandboxSettings;
  service: SandboxService;
  cleanup(): void;
}

export function sandboxFixture(): SandboxFixture {
  const scratch = tempDir("lathe-sandbox-");
  const home = path.join(scratch.dir, "home");
  const dataDir = path.join(scratch.dir, "data");
  const project = path.join(scratch.dir, "project");
  mkdirSync(path.join(home, ".ssh"), { recursive: true });
  mkdirSync(path.join(home, ".aws"), { recursive: true });
  writeFileSync(path.join(home, ".ssh", "id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY-----\nFAKE-KEY-MATERIAL\n");
  writeFileSync(path.join(home, ".aws", "credentials"), "[default]\naws_secret_access_key = FAKE-AWS-SECRET\n");
  writeFileSync(path.join(home, ".netrc"), "machine example.com password FAKE-NETRC\n");
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(path.join(dataDir, "lathe.db"), "FAKE-DATABASE");
  mkdirSync(project, { recursive: true });
  const settings: SandboxSettings = { networkProjects: [], realMachineCommands: null, hiddenPaths: [] };
  const service = new SandboxService({ settings: () => settings, dataDir, home, env: { PATH: process.env.PATH }, tmpRoot: scratch.dir });
  return { root: scratch.dir, home, dataDir, project, settings, service, cleanup: scratch.cleanup };
}

/** Coding tools of session 1 (project 1) in the fixture's sandbox, with HOME set to the fake home. */
export function sandboxedTools(f: SandboxFixture, sessionId = 1) {
  const sandbox = f.service.forSession({ sessionId, projectId: 1, projectDir: f.project });
  const tools = createCodingTools({ projectDir: f.project, env: { HOME: f.home }, sandbox });
  return { ...tools, sandbox, bash: tools.tools.find((t) => t.name === "bash")! };
}

export function unsandboxedBash(f: SandboxFixture) {
  return createBashTool({ projectDir: f.project, outputDir: path.join(f.root, "plain-out"), env: { HOME: f.home } });
}

/** Pids of live processes whose command line contains `marker`. */
export function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmdline = readFileSync(`/proc/${name}/cmdline`, "latin1");
      const state = readFileSync(`/proc/${name}/stat`, "latin1").split(") ")[1]?.charAt(0);
      if (cmdline.includes(marker) && state !== "Z") found.push(Number(name));
    } catch {
      // gone
    }
  }
  return found;
}

export async function waitFor(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not reached");
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A unique duration for `sleep`, to find exactly the processes a test started. */
export function uniqueSleep(): string {
  return `${1000 + Math.floor(Math.random() * 8000)}.${process.pid}${Math.floor(Math.random() * 1000)}`;
}
