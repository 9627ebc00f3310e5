// Provider keys in the app's environment, on Linux: deleting them from process.env leaves them in
// /proc/<pid>/environ, where any process of the user can read them; the app's start-up routine
// also clears them there, while keeping a copy for its own use.
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, expect, it } from "vitest";
import { describeWhen, needsLinux } from "../support/requirements.ts";

const fixture = path.join(import.meta.dirname, "fixtures", "env-holder.ts");
const KEY = "sk-ant-api03-FAKE-ENV-KEY-0123456789";
let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill("SIGKILL");
  child = undefined;
});

async function holder(mode: "take" | "delete"): Promise<{ pid: number; report: Record<string, unknown> }> {
  child = spawn(process.execPath, [fixture, mode], { env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: KEY, OTHER: "kept" }, stdio: ["ignore", "pipe", "inherit"] });
  const line = await new Promise<string>((resolve, reject) => {
    let out = "";
    child!.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) resolve(out.split("\n")[0]!);
    });
    child!.on("exit", (code) => reject(new Error(`fixture exited with ${code}`)));
  });
  return { pid: child.pid!, report: JSON.parse(line) as Record<string, unknown> };
}

describeWhen(needsLinux(), "provider keys in the environment", () => {
  it("deleting a key from process.env does not remove it from /proc/<pid>/environ", async () => {
    const { pid, report } = await holder("delete");
    expect(report).toEqual({ now: null });
    expect(readFileSync(`/proc/${pid}/environ`, "latin1")).toContain(`ANTHROPIC_API_KEY=${KEY}`);
  });

  it("the app's start-up takes the key out of process.env and /proc/<pid>/environ, keeping a copy for itself", async () => {
    const { pid, report } = await holder("take");
    expect(report).toEqual({ removed: ["ANTHROPIC_API_KEY"], cleared: true, kept: KEY, now: null });
    const environ = readFileSync(`/proc/${pid}/environ`, "latin1");
    expect(environ).not.toContain(KEY);
    expect(environ).toContain("OTHER=kept");
    expect(environ).toContain("PATH=");
  });
});
