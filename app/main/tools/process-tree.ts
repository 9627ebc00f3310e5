// Process inspection and killing for the bash tool, through Linux's /proc. On other platforms the
// functions degrade: listing gives nothing, killing signals the process group only, and
// waiting-for-input detection reports false. Never throws. A full scan of /proc reads every
// process's stat file: the main process runs them in a worker (process-tree-off-thread.ts); the
// synchronous forms here are what that worker calls, and the fallback when it cannot.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

export interface ProcInfo {
  pid: number;
  ppid: number;
  pgrp: number;
  session: number;
  state: string;
  /** Foreground process group of the process's controlling terminal (-1 without one). */
  tpgid: number;
}

const hasProc = process.platform === "linux";

export function readProcInfo(pid: number): ProcInfo | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    // The command name is in parentheses and may hold spaces or parentheses itself.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return {
      pid,
      state: fields[0]!,
      ppid: Number(fields[1]),
      pgrp: Number(fields[2]),
      session: Number(fields[3]),
      tpgid: Number(fields[5]),
    };
  } catch {
    return undefined;
  }
}

let scans = 0;

/** How many full scans of /proc this thread has made (tests check the main thread makes none). */
export function procScanCount(): number {
  return scans;
}

export function listProcesses(): ProcInfo[] {
  if (!hasProc) return [];
  scans++;
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const out: ProcInfo[] = [];
  for (const name of entries) {
    const c = name.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    const info = readProcInfo(Number(name));
    if (info) out.push(info);
  }
  return out;
}

/** `root`, every descendant of it, and every process in its session or process group. */
export function processFamily(root: number): number[] {
  const all = listProcesses();
  const family = new Set<number>([root]);
  for (const p of all) if (p.session === root || p.pgrp === root) family.add(p.pid);
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of all) {
      if (!family.has(p.pid) && family.has(p.ppid)) {
        family.add(p.pid);
        grew = true;
      }
    }
  }
  return [...family];
}

/**
 * `root` and its descendants, from each process's list of children (no scan of /proc: a few small
 * reads, fine on the main thread). Misses what was adopted by init; processFamily finds that.
 */
export function descendantsOf(root: number): number[] {
  if (!hasProc) return [root];
  const out = [root];
  const seen = new Set(out);
  for (let i = 0; i < out.length && out.length < 10_000; i++) {
    let threads: string[];
    try {
      threads = readdirSync(`/proc/${out[i]}/task`);
    } catch {
      continue;
    }
    for (const tid of threads) {
      let children: string;
      try {
        children = readFileSync(`/proc/${out[i]}/task/${tid}/children`, "latin1");
      } catch {
        continue;
      }
      for (const word of children.split(" ")) {
        const pid = Number(word);
        if (pid > 0 && !seen.has(pid)) {
          seen.add(pid);
          out.push(pid);
        }
      }
    }
  }
  return out;
}

/** Alive means present and not a zombie (a zombie has exited and only waits to be reaped). */
export function isAlive(pid: number): boolean {
  if (hasProc) {
    const info = readProcInfo(pid);
    return info !== undefined && info.state !== "Z" && info.state !== "X";
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Resolves true once `pid` leads its own session (a pty's child calls setsid right after fork),
 * false if it is gone or has not within `timeoutMs`. Until then its process group does not exist
 * and a Ctrl-C typed on its terminal goes nowhere: an interrupt sent that early is lost. Where
 * there is no /proc it cannot tell, and resolves true at once. Never rejects.
 */
export async function sessionFormed(pid: number, timeoutMs = 2_000): Promise<boolean> {
  if (!hasProc) return true;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const info = readProcInfo(pid);
    if (!info || info.state === "Z" || info.state === "X") return false;
    if (info.session === pid) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // Already gone, or not ours: nothing to do.
  }
}

/** Finds a family (processFamily, or the same in a worker). */
export type FamilyFinder = (root: number) => Promise<number[]>;

const familyHere: FamilyFinder = async (root) => processFamily(root);

/**
 * Interrupt, then terminate, then kill the whole family of `root`, finishing within about one
 * second. Resolves once nothing of the family is alive (or after the final SIGKILL pass).
 */
export async function killFamily(root: number, findFamily: FamilyFinder = familyHere): Promise<void> {
  const known = new Set<number>();
  const steps: [NodeJS.Signals, number][] = [
    ["SIGINT", 300],
    ["SIGTERM", 400],
    ["SIGKILL", 200],
  ];
  for (const [sig, waitMs] of steps) {
    // Descendants are read before anything is signalled (once the shell dies, what it started in
    // a session of its own is adopted by init and is no longer its descendant); the group and
    // they are signalled at once; the rest of the family (found by a scan of /proc: members of
    // the session or group that were adopted) as soon as `findFamily` answers.
    for (const pid of descendantsOf(root)) known.add(pid);
    signal(-root, sig);
    for (const pid of known) signal(pid, sig);
    for (const pid of await findFamily(root)) {
      if (known.has(pid)) continue;
      known.add(pid);
      signal(pid, sig);
    }
    const deadline = Date.now() + waitMs;
    while (Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 25));
      if ([...known].some(isAlive)) continue;
      if (!(await findFamily(root)).some((pid) => pid !== root && isAlive(pid))) return;
    }
  }
}

const TTY_READ_WCHANS = new Set(["n_tty_read", "wait_woken"]);
const SYS_READ_X64 = 0;

/**
 * Whether a process of the terminal's foreground group is blocked reading the terminal `ptsPath`:
 * sleeping (state S) in the tty read path, in a read() whose file descriptor is the terminal.
 */
export function isWaitingForTerminalInput(sessionLeader: number, ptsPath: string): boolean {
  if (!hasProc) return false;
  const leader = readProcInfo(sessionLeader);
  if (!leader || leader.tpgid <= 0) return false;
  for (const p of listProcesses()) {
    if (p.pgrp !== leader.tpgid || p.state !== "S") continue;
    let wchan: string;
    try {
      wchan = readFileSync(`/proc/${p.pid}/wchan`, "latin1").trim();
    } catch {
      continue;
    }
    if (!TTY_READ_WCHANS.has(wchan)) continue;
    if (readsTerminal(p.pid, ptsPath, wchan)) return true;
  }
  return false;
}

function readsTerminal(pid: number, ptsPath: string, wchan: string): boolean {
  try {
    const [nr, fdHex] = readFileSync(`/proc/${pid}/syscall`, "latin1").trim().split(" ");
    if (process.arch === "x64" && Number(nr) !== SYS_READ_X64) return false;
    return readlinkSync(`/proc/${pid}/fd/${Number.parseInt(fdHex ?? "", 16)}`) === ptsPath;
  } catch {
    // Without /proc/<pid>/syscall, only the tty-specific wait channel is trusted.
    return wchan === "n_tty_read";
  }
}
