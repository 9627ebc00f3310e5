// The judge's look at a package.json (call-parts.ts) runs on the main thread, so it is bounded: a
// FIFO named package.json is judged at once (it asks) instead of waiting for a writer forever, and
// a write, a file or edits past the bounds (PACKAGE_JSON_MAX_CHARS, PACKAGE_JSON_MAX_EDITS,
// PACKAGE_JSON_EDIT_SEARCH) are not examined: the scripts cannot be told, so the call asks even in
// auto-edit, where the same change within the bounds is allowed.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PACKAGE_JSON_EDIT_SEARCH, PACKAGE_JSON_MAX_EDITS } from "../../app/main/permissions/call-parts.ts";
import { hostPlatform, PACKAGE_JSON_MAX_CHARS, packageScriptsChange } from "../../app/main/permissions/path-facts.ts";
import { callSubjects, decide } from "../../app/main/permissions/policy.ts";
import { describeWhen } from "../support/requirements.ts";

const SCRIPTS = '{"name":"a","version":1,"scripts":{"test":"vitest"}}';
const CANNOT_TELL = "package.json: package.json scripts run on npm install, npm test and npm run.";
/** The same scripts, the text padded to `length` characters. */
const padded = (length: number) => {
  const head = '{"name":"a","scripts":{"test":"vitest"},"pad":"';
  return `${head}${"x".repeat(length - head.length - 2)}"}`;
};

let root: string;
const folder = (name: string, packageJson?: string) => {
  const dir = path.join(root, name);
  mkdirSync(dir);
  if (packageJson !== undefined) writeFileSync(path.join(dir, "package.json"), packageJson);
  return dir;
};
const judged = (tool: string, args: Record<string, unknown>, dir: string) => {
  const subjects = callSubjects(tool, { path: "package.json", ...args }, dir, hostPlatform);
  return { warnings: subjects.warnings, action: decide({ toolName: tool, subjects, rules: [], mode: "auto-edit" }).action };
};
const ALLOWED = { warnings: [], action: "allow" };
const ASKS = { warnings: [CANNOT_TELL], action: "ask" };

beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), "lathe-package-json-")));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describeWhen(process.platform === "win32" ? "needs mkfifo (this is Windows)" : null, "a FIFO named package.json", () => {
  let rescuer: ChildProcess | undefined;
  afterAll(() => {
    if (rescuer?.exitCode === null) rescuer.kill();
  });

  it("is judged at once, the scripts unknown: it asks, for a write and an edit", () => {
    const dir = folder("fifo");
    const fifo = path.join(dir, "package.json");
    execFileSync("mkfifo", [fifo]);
    // Should the judge wait on the FIFO (as it did), a writer opens and closes it every 100 ms from
    // 6 s on, so the test fails on its timeout instead of hanging the run. With no reader waiting
    // each open fails at once; it stops by itself at 30 s.
    const open = `fs.closeSync(fs.openSync(${JSON.stringify(fifo)}, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK))`;
    const opener = `setTimeout(() => setInterval(() => { try { ${open}; } catch {} }, 100), 6000); setTimeout(() => process.exit(), 30000);`;
    rescuer = spawn(process.execPath, ["-e", opener], { stdio: "ignore" });
    expect(judged("write", { content: "{}" }, dir)).toEqual(ASKS);
    expect(judged("edit", { edits: [{ oldText: "a", newText: "b" }] }, dir)).toEqual(ASKS);
  }, 3000);
});

describe("bounds on what is examined", () => {
  it("a write's content: examined up to PACKAGE_JSON_MAX_CHARS characters, longer asks", () => {
    const dir = folder("write", SCRIPTS);
    expect(judged("write", { content: padded(PACKAGE_JSON_MAX_CHARS) }, dir)).toEqual(ALLOWED);
    expect(judged("write", { content: padded(PACKAGE_JSON_MAX_CHARS + 1) }, dir)).toEqual(ASKS);
    expect(judged("write", { content: padded(50 * 1024 * 1024) }, dir)).toEqual(ASKS);
  });

  it("the file: examined up to PACKAGE_JSON_MAX_CHARS bytes, longer asks", () => {
    expect(judged("write", { content: SCRIPTS }, folder("file-at-bound", padded(PACKAGE_JSON_MAX_CHARS)))).toEqual(ALLOWED);
    const over = folder("file-over-bound", padded(PACKAGE_JSON_MAX_CHARS + 1));
    expect(judged("write", { content: SCRIPTS }, over)).toEqual(ASKS);
    expect(judged("edit", { edits: [{ oldText: '"a"', newText: '"b"' }] }, over)).toEqual(ASKS);
  });

  /** A package.json with `n` fields "k0":0 … (each edit below changes one of them), padded to `length` when given. */
  const fields = (n: number, length?: number) => {
    const body = `{"name":"a","scripts":{"test":"vitest"},${Array.from({ length: n }, (_, i) => `"k${i}":0,`).join("")}"pad":"`;
    return `${body}${"x".repeat(Math.max(0, (length ?? 0) - body.length - 2))}"}`;
  };
  const edits = (n: number) => Array.from({ length: n }, (_, i) => ({ oldText: `"k${i}":0`, newText: `"k${i}":1` }));

  it("edits: up to PACKAGE_JSON_MAX_EDITS are applied, more ask", () => {
    const dir = folder("edits", fields(PACKAGE_JSON_MAX_EDITS + 1));
    expect(judged("edit", { edits: edits(PACKAGE_JSON_MAX_EDITS) }, dir)).toEqual(ALLOWED);
    expect(judged("edit", { edits: edits(PACKAGE_JSON_MAX_EDITS + 1) }, dir)).toEqual(ASKS);
    expect(judged("edit", { edits: Array.from({ length: 160_000 }, () => ({ oldText: '"a"', newText: '"a"' })) }, dir)).toEqual(ASKS);
  });

  it("edits: the text they search is bounded in all (PACKAGE_JSON_EDIT_SEARCH), and so is the text they make", () => {
    const size = 64 * 1024;
    const fits = Math.floor(PACKAGE_JSON_EDIT_SEARCH / size);
    const dir = folder("search", fields(fits + 1, size));
    expect(judged("edit", { edits: edits(fits) }, dir)).toEqual(ALLOWED);
    expect(judged("edit", { edits: edits(fits + 1) }, dir)).toEqual(ASKS);
    // An edit that makes the text longer than PACKAGE_JSON_MAX_CHARS: the scripts stay, yet it asks.
    const growTo = (length: number) => [{ oldText: '"name":"a"', newText: `"name":"${"y".repeat(length - size + 1)}"` }];
    expect(judged("edit", { edits: growTo(PACKAGE_JSON_MAX_CHARS) }, dir)).toEqual(ALLOWED);
    expect(judged("edit", { edits: growTo(PACKAGE_JSON_MAX_CHARS + 1) }, dir)).toEqual(ASKS);
  });

  it("packageScriptsChange parses no text longer than PACKAGE_JSON_MAX_CHARS", () => {
    expect(packageScriptsChange(SCRIPTS, padded(PACKAGE_JSON_MAX_CHARS))).toBe(false);
    expect(packageScriptsChange(SCRIPTS, padded(PACKAGE_JSON_MAX_CHARS + 1))).toBeUndefined();
    expect(packageScriptsChange(padded(PACKAGE_JSON_MAX_CHARS + 1), SCRIPTS)).toBeUndefined();
    expect(packageScriptsChange(null, padded(PACKAGE_JSON_MAX_CHARS + 1))).toBeUndefined();
  });
});
