// Start-up on a Node.js that is too old: the rule (22.12 or later) in app/shared/node-version.ts and
// its plain-JavaScript twin scripts/check-node.mjs agree; the built host's entry (out/host/index.mjs,
// built here into a scratch folder under node_modules/.cache) checks before it loads anything native, so an old Node gets the
// message and exit status 4 instead of better-sqlite3's segmentation fault; the built host still
// starts on this Node. The old-Node runs need one installed (OLD_NODE, else /usr/bin/node when it is
// older than 22.12); they are skipped without it.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { itWhen, type Missing } from "../support/requirements.ts";
import { EXIT_NODE_TOO_OLD, nodeVersionProblem } from "../../app/shared/node-version.ts";
// @ts-expect-error -- a plain .mjs script without declarations
import * as script from "../../scripts/check-node.mjs";

const root = path.join(import.meta.dirname, "..", "..");
const scriptProblem = (script as { nodeVersionProblem: (v: string, e?: string) => string | null }).nodeVersionProblem;

function oldNode(): string | null {
  const candidate = process.env.OLD_NODE ?? "/usr/bin/node";
  if (!existsSync(candidate)) return null;
  const version = spawnSync(candidate, ["--version"], { encoding: "utf8" }).stdout?.trim() ?? "";
  return version && nodeVersionProblem(version) ? candidate : null;
}
const oldNodeMissing = (): Missing => (oldNode() ? null : "needs a Node.js older than 22.12 (set OLD_NODE, or /usr/bin/node)");

describe("the Node.js version rule", () => {
  it("accepts 22.12 and later, refuses older ones with a message that says what to do", () => {
    for (const ok of ["22.12.0", "v22.12.1", "22.20.0", "23.0.0", "24.11.1", "30.1.2"]) expect(nodeVersionProblem(ok), ok).toBeNull();
    for (const old of ["22.11.9", "20.20.2", "v18.0.0", "0.10.48", "garbage"]) expect(nodeVersionProblem(old), old).toMatch(/^Lathe needs Node\.js 22\.12 or later/);
    expect(nodeVersionProblem("v20.20.2", "/usr/bin/node")).toBe(
      "Lathe needs Node.js 22.12 or later (24 LTS recommended); this is Node.js 20.20.2 (/usr/bin/node). Install a newer Node.js (for example with nvm: `nvm install 24`, as .nvmrc says) and run the command again.",
    );
    expect(EXIT_NODE_TOO_OLD).toBe(4);
  });

  it("scripts/check-node.mjs says the same as the app's rule", () => {
    for (const v of ["22.12.0", "22.11.9", "20.20.2", "24.0.0", "v21.7.3", "x"]) expect(scriptProblem(v, "/bin/node"), v).toBe(nodeVersionProblem(v, "/bin/node"));
  });
});

describe("the built host's entry", () => {
  let out: string;
  beforeAll(() => {
    // Inside the repository, so the bundle finds the native modules in its node_modules.
    const cache = path.join(root, "node_modules", ".cache");
    mkdirSync(cache, { recursive: true });
    out = mkdtempSync(path.join(cache, "lathe-build-"));
    const built = spawnSync(process.execPath, ["scripts/build.mjs", "--no-renderer", "--out", out], { cwd: root, encoding: "utf8" });
    expect(built.status, built.stderr).toBe(0);
  }, 120_000);
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it("runs on this Node (the CLI is loaded after the check)", () => {
    const run = spawnSync(process.execPath, [path.join(out, "host", "index.mjs"), "--help"], { encoding: "utf8" });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain("--token-file PATH");
  });

  itWhen(oldNodeMissing(), "on an old Node: the message and exit status 4, no crash; the build and test scripts too", () => {
    const node = oldNode()!;
    const run = spawnSync(node, [path.join(out, "host", "index.mjs"), "--help"], { encoding: "utf8" });
    expect(run.signal).toBeNull();
    expect(run.status).toBe(4);
    expect(run.stderr).toMatch(/^Lathe needs Node\.js 22\.12 or later .*this is Node\.js \d+\.\d+\.\d+/);
    const build = spawnSync(node, ["scripts/build.mjs", "--no-renderer", "--out", path.join(out, "never")], { cwd: root, encoding: "utf8" });
    expect(build.status).toBe(4);
    expect(build.stderr).toMatch(/^Lathe needs Node\.js 22\.12 or later/);
  });
});
