// Deadline: one time limit over several steps (an MCP server's start: its transport, initialize,
// the initialized notice and every tools/list page; or one listing after tools/list_changed)
// instead of a full timeout per request. `remaining` is the `timeout` to give each SDK request;
// `bound` limits a step the SDK gives no time limit of its own (Client.connect's initialized
// notice). `step` says what the steps in progress are waiting for, for the error when the time is
// up. `waitAtMost` lets a caller go on after a time whatever a promise does. Nothing here throws;
// `bound` rejects with `onPassed(deadline)` when the time is up first.

export class Deadline {
  readonly ms: number;
  /** What is being waited for now ("answer initialize"), for the error when the time is up. */
  step = "";
  private readonly endsAt: number;
  private expired = false;

  constructor(ms: number) {
    this.ms = ms;
    this.endsAt = Date.now() + ms;
  }

  /** Milliseconds left, at least 1 (a request's `timeout`). */
  remaining(): number {
    return Math.max(1, this.endsAt - Date.now());
  }

  /** Whether `bound` rejected because the time was up (a request's own timeout says so itself). */
  passed(): boolean {
    return this.expired;
  }

  /** `work`, or a rejection with `onPassed(this)` when the time is up before it settles. */
  bound<T>(work: Promise<T>, onPassed: (deadline: Deadline) => Error): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeUp = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.expired = true;
        reject(onPassed(this));
      }, this.remaining());
    });
    return Promise.race([work, timeUp]).finally(() => clearTimeout(timer));
  }
}

/** Resolves when `work` settles or after `ms`, whichever comes first; never rejects. */
export async function waitAtMost(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const ignore = () => undefined;
  await Promise.race([work.then(ignore, ignore), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
