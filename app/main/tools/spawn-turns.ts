// One process start per turn of the event loop. Where node-pty starts a terminal's command
// (no native module, or not Linux: pty-spawn.ts), it forks on the main thread, which on Linux
// copies the whole process's page tables: 5 to 30 ms each on this project's 2-core test machine,
// more as the process grows. The loop starts a turn's parallel tool calls together, so four bash
// calls held the event loop for all four forks at once; queued here, each start gets a turn of
// its own and the stream, the window and the other commands run in between. Never rejects.

let queue: Promise<void> = Promise.resolve();

/** Resolves in a later turn of the event loop than the previous call's promise. */
export function nextStartTurn(): Promise<void> {
  const turn = queue.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
  queue = turn;
  return turn;
}
