// Work proportional to a turn's changed files runs on the main thread in slices. One bash command
// of a hostile (or careless) model can create 100,000 files; parsing git's answer about them,
// classifying them and planning a rewind took up to 3 s in one piece, during which that process
// handled no IPC, no terminal output and no stream update. A loop calls `due()` once per item (a
// counter; the clock is read every CHECK_EVERY items) and `await yield()` when it says so: a
// macrotask, so pending I/O and timers run in between. Must not throw.
import { performance } from "node:perf_hooks";

/** Main-thread time one slice may take (wall time: on a busy machine slices just get shorter). */
export const SLICE_MS = 8;
const CHECK_EVERY = 64;

export class Slices {
  readonly #budgetMs: number;
  #started = performance.now();
  #count = 0;

  /** `budgetMs` 0 yields at every check (tests). */
  constructor(budgetMs = SLICE_MS) {
    this.#budgetMs = budgetMs;
  }

  /** Whether the current slice has used its time: then `await yield()`. */
  due(): boolean {
    if (++this.#count < CHECK_EVERY) return false;
    this.#count = 0;
    return performance.now() - this.#started >= this.#budgetMs;
  }

  /** Lets the event loop run (setImmediate), then starts a new slice. */
  async yield(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.#started = performance.now();
  }
}

/** `items.map(fn)`, in slices. */
export async function mapInSlices<T, R>(items: readonly T[], fn: (item: T, index: number) => R, slices = new Slices()): Promise<R[]> {
  const out = new Array<R>(items.length);
  for (let i = 0; i < items.length; i++) {
    out[i] = fn(items[i]!, i);
    if (slices.due()) await slices.yield();
  }
  return out;
}

/** `new Set(items.map(key))`, in slices (a Set of 100,000 path keys built at once takes ~80 ms). */
export async function setInSlices<T>(items: readonly T[], key: (item: T) => string, slices = new Slices()): Promise<Set<string>> {
  const out = new Set<string>();
  for (const item of items) {
    out.add(key(item));
    if (slices.due()) await slices.yield();
  }
  return out;
}
