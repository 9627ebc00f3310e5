// Work a live session does outside a run: a compaction by hand, or the one after a context
// overflow (between the failed run and its retry). One piece at a time; it is given an abort
// signal, which `abort` (the session's Stop) aborts, and `close` (the session deleted, the app
// quitting) aborts and waits for. Work started after `close` gets a signal already aborted. The
// work must end promptly once its signal is aborted (a model request given the signal does).
export class OutOfRunWork {
  private current: { controller: AbortController; done: Promise<unknown> } | undefined;
  private isClosed = false;

  /** Whether close() was called: the session is going away. */
  get closed(): boolean {
    return this.isClosed;
  }

  /** Whether work is going. */
  get busy(): boolean {
    return this.current !== undefined;
  }

  /** Runs `work`; `busy` is true from this call until it settles. The caller checks that nothing else is going. */
  async run<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    if (this.isClosed) controller.abort();
    const done = work(controller.signal);
    const current = { controller, done };
    this.current = current;
    try {
      return await done;
    } finally {
      if (this.current === current) this.current = undefined;
    }
  }

  abort(): void {
    this.current?.controller.abort();
  }

  /** Aborts what is going and waits for it to end; later work is aborted from its start. */
  async close(): Promise<void> {
    this.isClosed = true;
    const current = this.current;
    if (!current) return;
    current.controller.abort();
    await current.done.catch(() => {});
  }
}
