// The first snapshot's own process (workers/snapshot-process.ts, snapshot-client.ts,
// first-snapshot.ts), with real files, real git and real processes: the work is done in a child
// process that is gone when the capture returns (the app's process keeps none of its memory); a
// process killed in the middle leaves no half-written file and git stores the same snapshot
// instead; the abort signal (Lathe closing) and the time bound kill it and leave the store as it
// was; the process ends by itself when its parent dies (no orphan).
import { execFileSync, spawn } from "node:child_process";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ShadowRepo } from "../../app/main/checkpoints/shadow-repo.ts";
import { forkHelper, type HelperLauncher, type HelperProcess, runSnapshotProcess, snapshotProcessFile } from "../../app/main/workers/snapshot-client.ts";
import { cleanup, RecordingGitRunner, tempDir, write } from "./helpers.ts";

const dirs: string[] = [];
afterEach(() => cleanup(...dirs.splice(0)));
const env = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function waitUntil(check: () => boolean, ms = 20_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

function setup(files = 600) {
  const project = tempDir("lathe-cp-process-");
  const data = tempDir("lathe-cp-process-data-");
  dirs.push(project, data);
  for (let i = 0; i < files; i++) write(project, `d${i % 11}/f${i}.txt`, `file ${i}\n`.repeat(1 + (i % 40)));
  const gitDir = path.join(data, "1.git");
  const git = new RecordingGitRunner(path.join(data, "no-hooks"));
  const calls = git.calls;
  const expectedTree = () => {
    const temp = path.join(data, "check-index");
    const run = (...args: string[]) => execFileSync("git", [`--git-dir=${gitDir}`, `--work-tree=${project}`, ...args], { encoding: "utf8", env: { ...env, GIT_INDEX_FILE: temp } });
    run("add", "-A");
    return run("write-tree").trim();
  };
  const leftovers = () => [
    ...(existsSync(path.join(gitDir, "objects", "pack")) ? readdirSync(path.join(gitDir, "objects", "pack")).filter((n) => n.startsWith("tmp_")) : []),
    ...(existsSync(path.join(gitDir, "index.lock")) ? ["index.lock"] : []),
  ];
  return { project, data, gitDir, git, calls, expectedTree, leftovers };
}

/** forkHelper, remembering each process it started; `onSend` runs once the request is sent. */
function recordingLauncher(onSend?: (child: HelperProcess) => void) {
  const started: HelperProcess[] = [];
  const launch: HelperLauncher = (file) => {
    const child = forkHelper(file);
    started.push(child);
    return {
      ...child,
      pid: child.pid,
      send: (message) => {
        child.send(message);
        onSend?.(child);
      },
    };
  };
  return { launch, started };
}

describe("the first snapshot's process", () => {
  it("stores the snapshot in a child process that has exited when the capture returns", async () => {
    const { project, gitDir, git, calls, expectedTree } = setup();
    const { launch, started } = recordingLauncher();
    const repo = new ShadowRepo(gitDir, project, git, false, { launch });
    const capture = await repo.capture("first", 1e9, []);
    expect(started).toHaveLength(1);
    expect(started[0]!.pid).not.toBe(process.pid);
    expect(await waitUntil(() => !alive(started[0]!.pid!))).toBe(true);
    expect(calls).not.toContain("update-index");
    expect(capture.tree).toBe(expectedTree());
  }, 60_000);

  it("killed in the middle: no half-written file is left and git stores the same snapshot", async () => {
    const { project, gitDir, git, calls, expectedTree, leftovers } = setup(3000);
    for (let i = 0; i < 3000; i += 3) write(project, `d${i % 11}/f${i}.txt`, `${i} `.repeat(3000));
    // Killed while it writes its first pack (seen in the store's pack folder).
    let killedMidPack = false;
    const { launch, started } = recordingLauncher((child) => {
      const poll = setInterval(() => {
        const packDir = path.join(gitDir, "objects", "pack");
        if (existsSync(packDir) && readdirSync(packDir).some((n) => n.startsWith("tmp_pack_lathe_"))) {
          clearInterval(poll);
          killedMidPack = true;
          child.kill();
        }
      }, 2);
      child.onExit(() => clearInterval(poll));
    });
    const repo = new ShadowRepo(gitDir, project, git, false, { launch });
    const capture = await repo.capture("first", 1e9, []);
    expect(started).toHaveLength(1);
    expect(killedMidPack).toBe(true);
    expect(calls).toContain("update-index");
    expect(leftovers()).toEqual([]);
    expect(capture.tree).toBe(expectedTree());
    execFileSync("git", [`--git-dir=${gitDir}`, "fsck", "--strict", "--no-dangling"], { env });
  }, 120_000);

  it("stopped by the signal (Lathe closing): the capture fails, the process is gone, the store is as before", async () => {
    const { project, gitDir, git, calls, leftovers } = setup(3000);
    const closing = new AbortController();
    const { launch, started } = recordingLauncher(() => setTimeout(() => closing.abort(), 100));
    const repo = new ShadowRepo(gitDir, project, git, false, { launch }, closing.signal);
    await expect(repo.capture("first", 1e9, [])).rejects.toThrow(/stopped: Lathe is closing/);
    expect(alive(started[0]!.pid!)).toBe(false);
    expect(calls).not.toContain("update-index");
    expect(leftovers()).toEqual([]);
    expect(existsSync(path.join(gitDir, "index"))).toBe(false);
    expect(await repo.head()).toBeNull();
  }, 120_000);

  it("past its time bound, it is killed and reported", async () => {
    const { project, gitDir } = setup(50);
    const { launch, started } = recordingLauncher();
    const paths = Buffer.from(Array.from({ length: 50 }, (_, i) => `d${i % 11}/f${i}.txt\0`).join(""), "latin1");
    const outcome = await runSnapshotProcess(
      { gitDir, projectDir: project, paths, sizes: new Float64Array(50), level: 1, lowPriority: false, timeoutMs: 60_000 },
      { launch, timeoutMs: 1, background: false },
    );
    expect(outcome).toMatchObject({ ok: false, failure: "timeout" });
    expect(alive(started[0]!.pid!)).toBe(false);
  }, 60_000);

  it("ends by itself when its parent dies", async () => {
    const data = tempDir("lathe-cp-orphan-");
    dirs.push(data);
    const parentScript = path.join(data, "parent.mjs");
    // A parent that starts the process, says its pid and then waits: it is killed with SIGKILL.
    writeFileSync(
      parentScript,
      `import { fork } from "node:child_process";
const child = fork(${JSON.stringify(snapshotProcessFile())}, [], { serialization: "advanced", stdio: "ignore", execArgv: [] });
console.log(child.pid);
setInterval(() => {}, 1000);
`,
    );
    const parent = spawn(process.execPath, [parentScript], { stdio: ["ignore", "pipe", "inherit"] });
    const childPid = await new Promise<number>((resolve) => parent.stdout.once("data", (chunk: Buffer) => resolve(Number(chunk.toString().trim()))));
    expect(alive(childPid)).toBe(true);
    parent.kill("SIGKILL");
    expect(await waitUntil(() => !alive(childPid))).toBe(true);
  }, 60_000);
});
