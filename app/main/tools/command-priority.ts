// Runs the agent's commands at a lower CPU priority than Lathe itself, so the window and the agent
// loop stay responsive while commands build, test or stream, and the user's own programs keep the
// cores they need. On an idle machine it changes nothing: priority only decides who waits when
// every core is busy.
// Why Linux needs more than nice: each command is a session of its own (it has its own terminal),
// and where the kernel's autogroup scheduling is on (the default of most desktop distributions)
// every session is one scheduling group with an equal share, whatever its processes' nice values:
// four busy commands held four fifths of the 2 cores against the whole app (bench:ui), and a
// process's nice only counts against the other processes of its own session.
// So `lowerCommandPriority` sets both, each PRIORITY_STEP above Lathe's own (19 at most): the
// session's autogroup nice (/proc/<pid>/autogroup, which covers every process of the session,
// whenever it started), and the command's own nice (its children inherit it; what counts where
// cgroups rather than autogroups group processes, and on macOS). The first is written only once
// the command leads its session (node-pty's fork may not have made it yet: written earlier it
// would lower Lathe's own group). Processes the command starts before its own nice is set keep
// the normal one. The kernel takes one change of an autogroup's nice per 100 ms from a process
// without CAP_SYS_ADMIN (system-wide; later ones fail with EAGAIN), so the writes go one at a
// time and are retried every RETRY_MS while the command runs (four commands started at once are
// all lowered within about 0.3 s). Never throws or rejects.
import { readFileSync, writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { getPriority, setPriority } from "node:os";
import { sessionFormed } from "./process-tree.ts";

/** How much lower than Lathe's the commands' priority is (nice 10: a tenth of the weight of nice 0). */
export const PRIORITY_STEP = 10;
const LOWEST = 19;
/** The kernel's rate limit on unprivileged autogroup changes is 100 ms (HZ / 10). */
export const RETRY_MS = 110;
/** A command still not lowered after this many tries keeps its group's priority. */
const MAX_TRIES = 50;

export interface LoweredPriority {
  /** The command's autogroup nice, when it was set (Linux with autogroups). */
  autogroupNice?: number;
  /** The command's own nice, when it was set. */
  nice?: number;
}

export interface PriorityOptions {
  platform?: NodeJS.Platform;
  /** Whether the command is still running (nothing is changed once it has exited: its pid may be reused). */
  running?: () => boolean;
  /** Writes an autogroup's nice (tests: the kernel's refusals). */
  writeAutogroup?: (pid: number, nice: number) => void;
}

/** The autogroup writes, one at a time (see the header). */
let queue: Promise<unknown> = Promise.resolve();

/** Lowers the priority of the command `pid` (a session leader, or about to be: see the header). */
export async function lowerCommandPriority(pid: number, options: PriorityOptions = {}): Promise<LoweredPriority> {
  const platform = options.platform ?? process.platform;
  const running = options.running ?? (() => true);
  const lowered: LoweredPriority = {};
  if (platform !== "linux" && platform !== "darwin") return lowered;
  const nice = Math.min(LOWEST, ownNice() + PRIORITY_STEP);
  try {
    setPriority(pid, nice);
    lowered.nice = nice;
  } catch {
    // Gone already, or not ours: nothing to lower.
  }
  if (platform !== "linux") return lowered;
  const own = autogroupNice("self");
  if (own === undefined || !(await sessionFormed(pid)) || !running()) return lowered;
  const groupNice = Math.min(LOWEST, own + PRIORITY_STEP);
  const write = options.writeAutogroup ?? ((target: number, value: number) => writeFileSync(`/proc/${target}/autogroup`, String(value)));
  const written = queue.then(() => writeRetrying(() => write(pid, groupNice), running));
  queue = written;
  if (await written) lowered.autogroupNice = groupNice;
  return lowered;
}

/** Whether `write` succeeded, retried while the kernel says EAGAIN and the command runs. */
async function writeRetrying(write: () => void, running: () => boolean): Promise<boolean> {
  for (let tries = 1; running(); tries++) {
    try {
      write();
      return true;
    } catch (err) {
      // Anything but the rate limit: a kernel without autogroups, or the command is gone.
      if ((err as NodeJS.ErrnoException).code !== "EAGAIN" || tries >= MAX_TRIES) return false;
    }
    await sleep(RETRY_MS);
  }
  return false;
}

function ownNice(): number {
  try {
    return getPriority();
  } catch {
    return 0;
  }
}

/** The autogroup's nice of `pid` ("self" for Lathe), undefined without autogroups. */
export function autogroupNice(pid: number | "self"): number | undefined {
  try {
    // "/autogroup-123 nice 0"
    const match = / nice (-?\d+)/.exec(readFileSync(`/proc/${pid}/autogroup`, "latin1"));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}
