// When a session needs the person: its run ended (done or failed; not a run they stopped), or it
// asks a new permission question. Read from the sessions' state events (`session.state`), by the
// browser page (the Notification API) and by the Electron shell (Electron's Notification), so
// both notice the same moments and say the same words. Pure; never throws.
import type { SessionState } from "./ipc/contract.ts";

export type Attention =
  | { kind: "approval"; sessionId: number; /** The first new request, e.g. "bash: npm test". */ what: string; count: number }
  | { kind: "ended"; sessionId: number; outcome: "done" | "failed"; error?: string };

interface Seen {
  /** A run was seen running since the last ending was reported. */
  sawRun: boolean;
  endedAt: number | null;
  requests: Set<string>;
}

export class AttentionTracker {
  private readonly seen = new Map<number, Seen>();

  /** What is already known (e.g. `sessions.live` at start): nothing in it is reported as new. */
  seed(states: readonly SessionState[]): void {
    for (const s of states) this.seen.set(s.sessionId, { sawRun: s.running, endedAt: s.lastRun?.endedAt ?? null, requests: new Set(s.pendingPermissions.map((p) => p.id)) });
  }

  /** Feeds one state event; returns what needs the person because of it (usually nothing). */
  update(state: SessionState): Attention[] {
    const before = this.seen.get(state.sessionId) ?? { sawRun: false, endedAt: null, requests: new Set<string>() };
    const out: Attention[] = [];
    const fresh = state.pendingPermissions.filter((p) => !before.requests.has(p.id));
    if (fresh.length > 0) {
      const first = fresh[0]!;
      const detail = first.summary.command?.split("\n", 1)[0] ?? first.summary.path ?? first.summary.title;
      out.push({ kind: "approval", sessionId: state.sessionId, what: `${first.toolName}: ${detail}`, count: fresh.length });
    }
    let { sawRun, endedAt } = before;
    if (state.running) sawRun = true;
    const last = state.lastRun;
    // An ending counts once, and only after a run was seen (a stale outcome repeated mid-way does not).
    if (!state.running && last && last.endedAt !== endedAt) {
      if (sawRun && last.outcome !== "stopped") out.push({ kind: "ended", sessionId: state.sessionId, outcome: last.outcome, ...(last.error ? { error: last.error } : {}) });
      endedAt = last.endedAt;
      sawRun = false;
    }
    this.seen.set(state.sessionId, { sawRun, endedAt, requests: new Set(state.pendingPermissions.map((p) => p.id)) });
    return out;
  }

  forget(sessionId: number): void {
    this.seen.delete(sessionId);
  }
}

/** The words of a notification: the session's title and what happened. */
export function attentionText(attention: Attention, sessionTitle: string | null): { title: string; body: string } {
  const name = sessionTitle?.trim() || "A Lathe session";
  if (attention.kind === "approval") {
    const more = attention.count > 1 ? ` (and ${attention.count - 1} more)` : "";
    return { title: `${name} — needs your approval`, body: `${attention.what}${more}` };
  }
  if (attention.outcome === "failed") return { title: `${name} — failed`, body: attention.error ? `The run failed: ${attention.error}` : "The run failed." };
  return { title: `${name} — finished`, body: "The run finished." };
}
