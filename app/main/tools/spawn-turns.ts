// One process start per turn of the event loop. On Linux, node-pty starts a terminal's command
// with fork(), which copies the whole process's page tables on the main thread: 5 to 20 ms each on
// this project's 2-core test machine (more as the process grows), whatever the command. The loop
// starts a turn's parallel tool calls together, so four bash calls held the event loop for all
// four forks at once; queued here, each start gets a turn of its own and the stream, the window
// and the other commands run in between. Never rejects.

let queue: Promise<void> = Promise.resolve();

/** Resolves in a later turn of the event loop than the previous call's promise. */
export function nextStartTurn(): Promise<void> {
  const turn = queue.then(() => new Promise<void>((resolve) => setImmediate(resolve)));
  queue = turn;
  return turn;
}
