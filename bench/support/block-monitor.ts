// How long the main thread's own code held the event loop: the most CPU time this thread spent
// between two ticks of a 1 ms timer while the monitor ran. Unlike the event loop's delay, it does not
// count time the OS gave to other processes or threads, so it stays meaningful on a loaded machine.
// Used by the benchmarks and by tests that bound blocking (test/tools/freeze.test.ts).

export interface BlockMonitor {
  /** Starts (or resumes) ticking. */
  start(): void;
  /** Stops ticking; `max` keeps the longest block seen over every run. */
  stop(): void;
  /** The longest block seen, in ms. */
  readonly max: number;
  /** How many blocks of at least `ms` were seen (10 ms or more are kept). */
  countOver(ms: number): number;
}

export function blockMonitor(): BlockMonitor {
  let last = process.threadCpuUsage();
  let max = 0;
  const long: number[] = [];
  let timer: ReturnType<typeof setInterval> | undefined;
  const tick = () => {
    const now = process.threadCpuUsage();
    const block = (now.user - last.user + now.system - last.system) / 1000;
    max = Math.max(max, block);
    if (block >= 10) long.push(block);
    last = now;
  };
  return {
    start: () => {
      last = process.threadCpuUsage();
      timer = setInterval(tick, 1);
    },
    stop: () => {
      tick();
      clearInterval(timer);
      timer = undefined;
    },
    get max() {
      return max;
    },
    countOver: (ms) => long.filter((block) => block >= ms).length,
  };
}
