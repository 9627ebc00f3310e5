// V8 settings for the long-lived main process (the Electron main and the headless host), applied
// once at start-up. The loop allocates many short-lived objects (stream events, promises) while
// the transcript it builds survives; under V8's default policy the young generation then keeps
// doubling and the process grows by ~35 MB of mostly empty heap. Keeping the young generation at
// its starting size holds the main process near 70 MB on bench:loop and is no slower there. This
// flag is read at each scavenge, so setting it at run time takes effect.
import { setFlagsFromString } from "node:v8";

let applied = false;

export function applyMainProcessFlags(): void {
  if (applied) return;
  applied = true;
  setFlagsFromString("--semi-space-growth-factor=1");
}
