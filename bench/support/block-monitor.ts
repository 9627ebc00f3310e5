// How long the main thread's own code held the event loop: the most CPU time this thread spent
// between two ticks of a 1 ms timer while the monitor ran. Unlike the event loop's delay, it does not
// count time the OS gave to other processes or threads, so it stays meaningful on a loaded machine.
// It also keeps the wall time between the same ticks (`gaps`), split (on Linux, from the thread's
// /proc schedstat) into its CPU time, the time it waited for a core while runnable, and the rest:
// blocked in a system call or a page fault.
// Used by the benchmarks and by tests that bound blocking (test/tools/freeze.test.ts).

import { closeSync, openSync, readSync } from "node:fs";

export interface Gap {
  wallMs: number;
  cpuMs: number;
  /** Runnable but waiting for a core (null where /proc/thread-self/schedstat cannot be read). */
  waitMs: number | null;
}

export interface BlockMonitor {
  /** Starts (or resumes) ticking. */
  start(): void;
  /** Stops ticking; `max` keeps the longest block seen over every run. */
  stop(): void;
  /** The longest block seen, in ms. */
  readonly max: number;
  /** How many blocks of at least `ms` were seen (10 ms or more are kept). */
  countOver(ms: number): number;
  /** The ticks at least `ms` apart in wall time (10 ms or more are kept), with the CPU between them. */
  gapsOver(ms: number): Gap[];
}

export function blockMonitor(): BlockMonitor {
  let last = process.threadCpuUsage();
  let lastWall = performance.now();
  let max = 0;
  const long: number[] = [];
  const gaps: Gap[] = [];
  let timer: ReturnType<typeof setInterval> | undefined;
  let schedstat: Schedstat | null = null;
  let lastWait: number | null = null;
  const tick = () => {
    const now = process.threadCpuUsage();
    const wall = performance.now();
    const wait = schedstat?.waitNs() ?? null;
    const block = (now.user - last.user + now.system - last.system) / 1000;
    max = Math.max(max, block);
    if (block >= 10) long.push(block);
    if (wall - lastWall >= 10) gaps.push({ wallMs: wall - lastWall, cpuMs: block, waitMs: wait !== null && lastWait !== null ? (wait - lastWait) / 1e6 : null });
    last = now;
    lastWall = wall;
    lastWait = wait;
  };
  return {
    start: () => {
      last = process.threadCpuUsage();
      lastWall = performance.now();
      schedstat ??= openSchedstat();
      lastWait = schedstat?.waitNs() ?? null;
      timer = setInterval(tick, 1);
    },
    stop: () => {
      tick();
      clearInterval(timer);
      timer = undefined;
      schedstat?.close();
      schedstat = null;
    },
    get max() {
      return max;
    },
    countOver: (ms) => long.filter((block) => block >= ms).length,
    gapsOver: (ms) => gaps.filter((gap) => gap.wallMs >= ms),
  };
}

interface Schedstat {
  waitNs(): number | null;
  close(): void;
}

/** The calling thread's run-queue wait so far (schedstat's second field), read without reopening the file. */
function openSchedstat(): Schedstat | null {
  let fd: number;
  try {
    fd = openSync("/proc/thread-self/schedstat", "r");
  } catch {
    return null;
  }
  const buffer = Buffer.alloc(128);
  return {
    waitNs: () => {
      try {
        const n = readSync(fd, buffer, 0, buffer.length, 0);
        const wait = Number(buffer.toString("latin1", 0, n).split(" ")[1]);
        return Number.isFinite(wait) ? wait : null;
      } catch {
        return null;
      }
    },
    close: () => closeSync(fd),
  };
}
