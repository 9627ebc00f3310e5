// A process-wide async mutex keyed by a file's real path (the caller's realPathOf, asked off the
// event loop): writes and edits to one file run one after another (even within a parallel tool
// batch), while different files run in parallel. The queue entry of a key is deleted when its
// last holder releases, so the map never grows.

const tails = new Map<string, Promise<void>>();

/** Runs `fn` while holding the lock of the file at `realPath`; the lock is released however `fn` ends. */
export async function withFileLock<T>(realPath: string, fn: () => Promise<T>): Promise<T> {
  const key = realPath;
  const previous = tails.get(key) ?? Promise.resolve();
  let release!: () => void;
  const current = new Promise<void>((resolve) => (release = resolve));
  const tail = previous.then(() => current);
  tails.set(key, tail);
  await previous;
  try {
    return await fn();
  } finally {
    release();
    if (tails.get(key) === tail) tails.delete(key);
  }
}
