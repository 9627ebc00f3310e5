// A process-wide async mutex keyed by a file's real path: writes and edits to one file run one
// after another, in the order the calls began (even within a parallel tool batch, whose calls all
// begin in one turn), while different files run in parallel. The real path is asked off the
// event loop (fs-answers.ts), which answers in any order: so a session's calls are admitted one at
// a time (a FileLockAdmission per session, shared by its write and edit tools), in call order,
// each taking its place in its file's line as soon as its real path is known, before the next
// call's is asked; one session's slow mount never holds another's writes. The queue entry of a key
// is deleted when its last holder releases, so the map never grows. Rejects with
// FileSystemTimeoutError (nothing run) when the real path cannot be had; the calls after it are
// admitted all the same.
import { realPathOffThread } from "./fs-answers.ts";

const tails = new Map<string, Promise<void>>();

/** One session's line of admissions: the next call asks for its real path once the last is admitted. */
export class FileLockAdmission {
  last: Promise<unknown> = Promise.resolve();
}
/** For tools made without one (tests, benches). */
const shared = new FileLockAdmission();

interface Place {
  realPath: string;
  previous: Promise<void>;
  release: () => void;
}

/** Takes a place at the end of `realPath`'s line (synchronously: admission order is line order). */
function takePlace(realPath: string): Place {
  const previous = tails.get(realPath) ?? Promise.resolve();
  let done!: () => void;
  const current = new Promise<void>((resolve) => (done = resolve));
  const tail = previous.then(() => current);
  tails.set(realPath, tail);
  const release = () => {
    done();
    if (tails.get(realPath) === tail) tails.delete(realPath);
  };
  return { realPath, previous, release };
}

/**
 * Runs `fn` with the file's real path (where it really is as the call begins: what its permission
 * was judged on) while holding that file's lock; the lock is released however `fn` ends.
 */
export async function withFileLock<T>(absPath: string, fn: (realPath: string) => Promise<T>, admission = shared): Promise<T> {
  const admitted = admission.last.then(async () => takePlace(await realPathOffThread(absPath)));
  admission.last = admitted.catch(() => undefined);
  const place = await admitted;
  await place.previous;
  try {
    return await fn(place.realPath);
  } finally {
    place.release();
  }
}
