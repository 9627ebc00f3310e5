// The sandbox as an ordinary user gets it. The tests run as root in CI containers, where bwrap
// behaves differently (no user namespace is needed, and capabilities must be dropped explicitly);
// here the same arguments Lathe generates run under `setpriv` as uid 65534, the way they would for
// a user on a desktop: through an unprivileged user namespace, with no capabilities.
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { describeWhen } from "../support/requirements.ts";
import { bwrapArgs } from "../../app/main/sandbox/bwrap.ts";
import { detectSandbox, findExecutable } from "../../app/main/sandbox/detect.ts";
import { defaultHiddenPaths } from "../../app/main/sandbox/rules.ts";

const NOBODY = 65534;
const setpriv = findExecutable("setpriv", process.env.PATH);
const sandbox = detectSandbox();
const missing =
  process.platform !== "linux"
    ? "needs Linux"
    : process.getuid?.() !== 0
      ? "needs root (it runs the sandbox as uid 65534 through setpriv)"
      : setpriv === undefined
        ? "needs setpriv (util-linux)"
        : sandbox.available
          ? null
          : `needs a working sandbox: ${sandbox.message}`;

describeWhen(missing, "the sandbox for an unprivileged user", () => {
  const root = mkdtempSync(path.join(tmpdir(), "lathe-unprivileged-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("works through a user namespace: no capabilities, secrets hidden, home read-only, project writable", () => {
    chmodSync(root, 0o755);
    const home = path.join(root, "home");
    const project = path.join(home, "project");
    const session = path.join(root, "session");
    mkdirSync(path.join(home, ".ssh"), { recursive: true });
    mkdirSync(project, { recursive: true });
    mkdirSync(path.join(session, "tmp"), { recursive: true });
    writeFileSync(path.join(home, ".ssh", "id_rsa"), "FAKE-KEY-MATERIAL\n");
    writeFileSync(path.join(session, "empty"), "");
    for (const p of [home, path.join(home, ".ssh"), path.join(home, ".ssh", "id_rsa"), project, path.join(session, "tmp")]) chownSync(p, NOBODY, NOBODY);

    const rules = { cwd: project, writable: [project, path.join(session, "tmp")], hidden: defaultHiddenPaths({ home, platform: "linux" }), network: false };
    const script = [
      "echo uid=$(id -u)",
      "grep CapEff /proc/self/status",
      "cat ~/.ssh/id_rsa",
      "touch ~/escape || echo home-refused",
      "touch inside && echo wrote-project",
      "unshare -r true 2>/dev/null || echo no-nested-userns",
      `cat /proc/${process.pid}/environ 2>&1 | head -c 80; echo`,
      "echo procs=$(ls /proc | grep -cE '^[0-9]+$')",
    ].join("; ");
    const run = spawnSync(
      setpriv!,
      [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", sandbox.executable!, ...bwrapArgs(rules, { emptyFile: path.join(session, "empty") }), "/bin/bash", "-c", script],
      { encoding: "utf8", env: { PATH: process.env.PATH, HOME: home }, timeout: 20_000 },
    );
    const out = `${run.stdout}${run.stderr}`;
    expect(run.status, out).toBe(0);
    expect(out).toContain(`uid=${NOBODY}`);
    expect(out).toMatch(/CapEff:\s+0000000000000000/);
    expect(out).not.toContain("FAKE-KEY-MATERIAL");
    expect(out).toContain(".ssh/id_rsa: No such file or directory");
    expect(out).toContain("home-refused");
    expect(out).toContain("wrote-project");
    expect(out).toContain("no-nested-userns");
    expect(out).toContain(`/proc/${process.pid}/environ: No such file or directory`);
    expect(Number(/procs=(\d+)/.exec(out)?.[1])).toBeLessThan(10);
  });
});
