// Which sandbox this machine offers, found once: on Linux bubblewrap (`bwrap` on PATH) that can
// really make its namespaces (tried with a trivial command, as every command would run), on macOS
// `sandbox-exec`, on Windows none. The message says what the sandbox does, or why there is none
// and how to get one. One detection, driven two ways: `detectSandboxInBackground` runs the probes
// as child processes the event loop does not wait for (the app starts it at once), and
// `detectSandbox` runs them synchronously (7 to 40 ms here, a probe may take up to 10 s: only
// where the answer is needed before the background one is done). Never throws or rejects.
import { spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import path from "node:path";
import type { SandboxStatus } from "../../shared/sandbox.ts";
import { type Child, spawnChild } from "../tools/child-spawn.ts";
import { bwrapArgs } from "./bwrap.ts";

export interface DetectedSandbox extends SandboxStatus {
  /** The sandbox program (bwrap or sandbox-exec), when available. */
  executable?: string;
  /** bubblewrap only: whether it can make a user namespace (then nested ones are disabled). */
  userNamespace: boolean;
}

interface ProbeResult {
  status: number | null;
  stderr: string;
  error?: Error;
}

export interface DetectOptions {
  platform?: NodeJS.Platform;
  /** The PATH searched for bwrap. */
  pathVariable?: string;
  /** Runs the probe; returns its exit status and error output. */
  run?: (file: string, args: string[]) => ProbeResult;
}

/** The detection: yields each probe to run, is given its result. */
type Detection = Generator<{ file: string; args: string[] }, DetectedSandbox, ProbeResult>;

const PROBE_TIMEOUT_MS = 10_000;

const UNTIL_THEN = "Until then every command asks, and runs with your full rights when you allow it.";

export const SANDBOX_DOES =
  "can write only in the project, the session's temporary folder and the output folder; cannot read your SSH and cloud credentials, keyrings or Lathe's data; " +
  "have no network unless you allow it; and cannot see Lathe's processes or outlive the command";

function runProbe(file: string, args: string[]): ProbeResult {
  const r = spawnSync(file, args, { encoding: "utf8", timeout: PROBE_TIMEOUT_MS, stdio: ["ignore", "ignore", "pipe"] });
  return { status: r.status, stderr: r.stderr ?? "", error: r.error };
}

/** Keeps this much of a probe's error output (the message quotes its first line). */
const STDERR_KEPT = 64 * 1024;

// Through spawnChild: posix_spawn on Linux, so the start does not copy the main process's page
// tables on its thread as libuv's fork would.
function runProbeInBackground(file: string, args: string[]): Promise<ProbeResult> {
  return new Promise((resolve) => {
    let child: Child;
    try {
      child = spawnChild(file, args, { stdio: ["ignore", "ignore", "pipe"] });
    } catch (err) {
      resolve({ status: null, stderr: "", error: err as Error });
      return;
    }
    let stderr = "";
    let error: Error | undefined;
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      if (stderr.length < STDERR_KEPT) stderr += chunk.slice(0, STDERR_KEPT - stderr.length);
    });
    const timer = setTimeout(() => {
      error = new Error(`${path.basename(file)} did not answer within ${PROBE_TIMEOUT_MS / 1000} s`);
      child.kill("SIGKILL");
    }, PROBE_TIMEOUT_MS);
    child.on("error", (err) => (error ??= err));
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ status: error ? null : code, stderr, error });
    });
  });
}

export function findExecutable(name: string, pathVariable: string | undefined): string | undefined {
  for (const dir of (pathVariable ?? "").split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

export function detectSandbox(options: DetectOptions = {}): DetectedSandbox {
  const run = options.run ?? runProbe;
  const detection = detect(options.platform ?? process.platform, options.pathVariable ?? process.env.PATH);
  for (let step = detection.next(); ;) {
    if (step.done) return step.value;
    step = detection.next(run(step.value.file, step.value.args));
  }
}

/** The same detection, its probes run without holding the event loop. */
export async function detectSandboxInBackground(options: Omit<DetectOptions, "run"> = {}): Promise<DetectedSandbox> {
  const detection = detect(options.platform ?? process.platform, options.pathVariable ?? process.env.PATH);
  for (let step = detection.next(); ;) {
    if (step.done) return step.value;
    step = detection.next(await runProbeInBackground(step.value.file, step.value.args));
  }
}

function* detect(platform: NodeJS.Platform, pathVariable: string | undefined): Detection {
  if (platform === "linux") return yield* detectBubblewrap(pathVariable);
  if (platform === "darwin") {
    const exe = "/usr/bin/sandbox-exec";
    const probe = yield { file: exe, args: ["-p", "(version 1)(allow default)", "/usr/bin/true"] };
    if (probe.status === 0) {
      return {
        kind: "seatbelt",
        available: true,
        executable: exe,
        userNamespace: false,
        message: `Commands run in a Seatbelt sandbox (sandbox-exec): they ${SANDBOX_DOES.replace("; and cannot see Lathe's processes or outlive the command", "")}. Lathe's macOS sandbox has not yet been tested on a Mac, and background processes a command leaves behind are not stopped with it.`,
      };
    }
    return { kind: "seatbelt", available: false, userNamespace: false, message: `No sandbox: sandbox-exec did not run (${firstLine(probe)}). ${UNTIL_THEN}` };
  }
  return {
    kind: "none",
    available: false,
    userNamespace: false,
    message: `No sandbox: Lathe has no sandbox for ${platform === "win32" ? "Windows" : platform} yet. ${UNTIL_THEN}`,
  };
}

function* detectBubblewrap(pathVariable: string | undefined): Detection {
  const exe = findExecutable("bwrap", pathVariable);
  if (!exe) {
    return {
      kind: "bubblewrap",
      available: false,
      userNamespace: false,
      message:
        "No sandbox: bubblewrap (bwrap) is not installed. Install it (Debian and Ubuntu: sudo apt install bubblewrap; Fedora: sudo dnf install bubblewrap; " +
        `Arch: sudo pacman -S bubblewrap) and restart Lathe. ${UNTIL_THEN}`,
    };
  }
  const trivial = { cwd: "/", writable: [], hidden: [], network: false };
  const command = ["/bin/sh", "-c", "exit 0"];
  const full = yield { file: exe, args: [...bwrapArgs(trivial, { emptyFile: "/dev/null" }), ...command] };
  if (full.status === 0) {
    return { kind: "bubblewrap", available: true, executable: exe, userNamespace: true, message: `Commands run in a bubblewrap sandbox: they ${SANDBOX_DOES}.` };
  }
  // A setuid bwrap (or a kernel without user namespaces for users) can still make the others.
  const noUserNs = yield { file: exe, args: [...bwrapArgs(trivial, { emptyFile: "/dev/null", userNamespace: false }), ...command] };
  if (noUserNs.status === 0) {
    return { kind: "bubblewrap", available: true, executable: exe, userNamespace: false, message: `Commands run in a bubblewrap sandbox: they ${SANDBOX_DOES}.` };
  }
  return {
    kind: "bubblewrap",
    available: false,
    userNamespace: false,
    message:
      `No sandbox: bubblewrap (${exe}) cannot create namespaces here (${firstLine(full)}). ` +
      "On Ubuntu 23.10 and later AppArmor blocks user namespaces for unconfined programs (an AppArmor profile for bwrap, or sysctl kernel.apparmor_restrict_unprivileged_userns=0, allows them); " +
      "elsewhere check that user.max_user_namespaces is above 0 (and kernel.unprivileged_userns_clone is 1 where it exists), or that Lathe does not run inside a container that forbids them. " +
      UNTIL_THEN,
  };
}

function firstLine(r: ProbeResult): string {
  const line = r.stderr.trim().split("\n")[0]?.trim();
  if (line) return line.slice(0, 300);
  if (r.error) return r.error.message;
  return `exit status ${r.status ?? "none"}`;
}
