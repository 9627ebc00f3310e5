// A project on a file system that stops answering: a FUSE mount (bindfs) whose server is stopped
// with SIGSTOP, as a network mount whose server went away. Prints ONE JSON line. Run with
// `npm run bench:hung-mount` (Linux, as root or with fusermount; needs the `bindfs` package).
// An outside process wakes the server after WAKE_AFTER_S whatever happens here, so a frozen
// event loop shows as a gap of that length. Per case (the permission judge on a bash command, the
// write tool, the bash tool, reading the project's instruction files as a prompt does), in order,
// while the server is stopped:
// - <case>Ms: how long the call took to answer;
// - <case>LoopGapMs: the longest gap between ticks of a 10 ms timer during the call, the answer
//   included (target: well under 100; the old synchronous walk froze the loop until the wake-up);
// - <case>Answer: the start of what the call answered (the judgement, or the tool's error).
// Also healthyJudgeMs (the same judgement before the stop).
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { CallJudge } from "../app/main/permissions/call-judge.ts";
import { loadShellParser } from "../app/main/permissions/shell-parser.ts";
import type { SessionStore } from "../app/main/store/index.ts";
import { createBashTool } from "../app/main/tools/bash.ts";
import { createWriteTool } from "../app/main/tools/write.ts";
import { loadProjectInstructionsOffThread } from "../app/main/sessions/system-prompt.ts";

const WAKE_AFTER_S = 15;
const work = mkdtempSync(path.join(tmpdir(), "lathe-hung-mount-"));
const source = path.join(work, "source");
const mount = path.join(work, "mount");
mkdirSync(path.join(source, "project", "src"), { recursive: true });
mkdirSync(mount);
writeFileSync(path.join(source, "project", "src", "a.ts"), "x\n");

let serverPid: number | undefined;
try {
  await loadShellParser();
  execFileSync("bindfs", ["--no-allow-other", source, mount]);
  serverPid = Number(
    execFileSync("pgrep", ["-n", "-f", `bindfs --no-allow-other ${source}`])
      .toString()
      .trim(),
  );
  const projectDir = path.join(mount, "project");
  const store = { permissionRules: { applicable: () => [] } } as unknown as SessionStore;
  const judge = new CallJudge({ store, mode: () => "auto-edit" });
  const scope = { sessionId: 1, projectId: 1, projectDir };
  const judgeBash = async () => {
    const j = await judge.judge(scope, "bash", { command: "ls > out.txt" });
    return j.kind === "judged" ? j.decision : j;
  };
  const healthyStarted = performance.now();
  await judgeBash();
  const figures: Record<string, unknown> = { healthyJudgeMs: Math.round(performance.now() - healthyStarted) };

  process.kill(serverPid, "SIGSTOP");
  spawn("sh", ["-c", `sleep ${WAKE_AFTER_S}; kill -CONT ${serverPid}`], { detached: true, stdio: "ignore" }).unref();
  let gap = 0;
  let last = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    gap = Math.max(gap, now - last);
    last = now;
  }, 10);
  const measure = async (name: string, run: () => Promise<unknown>) => {
    gap = 0;
    last = performance.now();
    const started = performance.now();
    let answer: string;
    try {
      answer = JSON.stringify(await run());
    } catch (error) {
      answer = `error: ${(error as Error).message}`;
    }
    figures[`${name}Ms`] = Math.round(performance.now() - started);
    await new Promise((r) => setTimeout(r, 30)); // a gap the call caused is seen by the ticker
    figures[`${name}LoopGapMs`] = Math.round(gap);
    figures[`${name}Answer`] = answer.slice(0, 160);
  };
  await measure("judgeBash", judgeBash);
  await measure("writeTool", () => createWriteTool({ projectDir }).execute("w1", { path: "src/b.ts", content: "y" }, undefined, () => undefined));
  await measure("bashTool", () => createBashTool({ projectDir }).execute("b1", { command: "echo hi" }, undefined, () => undefined));
  await measure("instructions", () => loadProjectInstructionsOffThread(projectDir));
  clearInterval(ticker);
  console.log(JSON.stringify(figures));
} catch (error) {
  console.error(`bench:hung-mount could not run (it needs Linux, bindfs and FUSE): ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  if (serverPid) process.kill(serverPid, "SIGCONT");
  await new Promise((r) => setTimeout(r, 200));
  try {
    execFileSync("fusermount", ["-u", mount]);
  } catch {
    // not mounted
  }
  rmSync(work, { recursive: true, force: true });
  process.exit(); // the bash tool's output folder and timers must not keep the bench alive
}
