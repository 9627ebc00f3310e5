// Keeps bash cards' xterm.js terminals alive while their rows are out of the virtualized
// transcript. Opening a terminal is the costly part of showing one (it builds its renderer and
// measures its font: forced layouts, tens of milliseconds each on a busy machine), and a row at
// the edge of the rendered range can leave and come back many times while a message streams above
// or below it; a returning card takes its terminal back (its element moved into the new box), with
// what was written, instead of opening a new one and replaying the output.
// Owns the terminals it holds: at most LIMIT that no view shows are kept (the least recently
// shown is disposed first); one that a view shows is never disposed here. Keys are
// `${sessionId}:${toolCallId}`; a call id may come back in a later turn (providers number calls
// per answer), so a terminal is taken back only by the same card: `owner` is the card's chunk list,
// shared by all versions of one card (session-model.ts), and a kept terminal of another owner is
// disposed, not reused. Never throws (the create function's own errors aside).
import type { FitAddon } from "@xterm/addon-fit";
import type { Terminal } from "@xterm/xterm";

/** Terminals kept while no view shows them. */
export const LIMIT = 24;

/** What a view has written into the terminal (TerminalView owns its meaning). */
export interface WrittenState {
  chunks: readonly string[] | null;
  count: number;
  fallback: boolean;
  held: string;
}

export interface CachedTerminal {
  terminal: Terminal;
  fit: FitAddon;
  written: WrittenState;
  /** Whether a view shows it now. */
  shown: boolean;
  /** The width of the box its columns were fitted to (-1: not yet measured). */
  width: number;
  /** The card's chunk list (its identity tells one card from another with the same call id). */
  owner: readonly string[];
}

const entries = new Map<string, CachedTerminal>(); // in order of last use, oldest first

/** The terminal kept for `key` and `owner` and shown by no view, if any, without taking it. */
export function peekTerminal(key: string, owner: readonly string[]): CachedTerminal | undefined {
  const kept = entries.get(key);
  return kept && !kept.shown && kept.owner === owner ? kept : undefined;
}

/** Takes the kept terminal for `key` and `owner`, or makes one with `create`; `reused` says which. */
export function acquireTerminal(key: string, owner: readonly string[], create: () => { terminal: Terminal; fit: FitAddon }): { entry: CachedTerminal; reused: boolean } {
  let kept = entries.get(key);
  if (kept && !kept.shown && kept.owner === owner) {
    entries.delete(key);
    entries.set(key, kept);
    kept.shown = true;
    return { entry: kept, reused: true };
  }
  if (kept && !kept.shown) {
    entries.delete(key);
    kept.terminal.dispose();
    kept = undefined;
  }
  const entry: CachedTerminal = { ...create(), written: { chunks: null, count: 0, fallback: false, held: "" }, shown: true, width: -1, owner };
  // A second view of a call already shown gets a terminal of its own, disposed when it is released.
  if (!kept) entries.set(key, entry);
  return { entry, reused: false };
}

/** The view no longer shows `entry`: keep it for a while, disposing the oldest unshown beyond LIMIT. */
export function releaseTerminal(key: string, entry: CachedTerminal): void {
  if (entries.get(key) !== entry) {
    entry.terminal.dispose();
    return;
  }
  entry.shown = false;
  let unshown = 0;
  for (const e of entries.values()) if (!e.shown) unshown++;
  for (const [k, e] of entries) {
    if (unshown <= LIMIT) break;
    if (e.shown) continue;
    entries.delete(k);
    e.terminal.dispose();
    unshown--;
  }
}
