// EventHub: fans the services' events out to every connected renderer (a window, a browser tab
// on the headless host). Each connection listens through its own EventBatcher. A listener that
// throws is reported (onListenerError) and kept: one bad event must not detach a window for good,
// and a connection that is really gone removes itself when it closes. Delivery to the others
// goes on either way. Never throws.
//
// Sequence numbers: every session event gets the next number of its session's sequence (1, 2, …,
// per process), handed to every listener with the event. `seqOf(sessionId)` is the number of the
// last event emitted, so a snapshot taken now reflects exactly the events up to it; `flush()`
// asks every listener to send what it holds, so nothing numbered at or below a snapshot is still
// waiting to be merged with what comes after it.
import type { SessionEvent } from "../../shared/agent-types.ts";
import type { EventName, EventPayload } from "../../shared/ipc/contract.ts";

export interface HubListener {
  sessionEvent(sessionId: number, event: SessionEvent, seq: number): void;
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void;
  /** Sends whatever it holds back (batching) now. */
  flush?(): void;
}

/** What failed where: the event's name (a session event's type) and the listener's error. */
export type ListenerErrorReporter = (what: string, error: unknown) => void;

export class EventHub {
  private readonly listeners = new Set<HubListener>();
  private readonly seqs = new Map<number, number>();
  private readonly onListenerError: ListenerErrorReporter;

  constructor(onListenerError: ListenerErrorReporter = (what, error) => console.error(`[events] a listener failed on ${what}:`, error)) {
    this.onListenerError = onListenerError;
  }

  add(listener: HubListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get size(): number {
    return this.listeners.size;
  }

  /** The number of the session's last event (0 before its first). */
  seqOf(sessionId: number): number {
    return this.seqs.get(sessionId) ?? 0;
  }

  sessionEvent(sessionId: number, event: SessionEvent): void {
    const seq = this.seqOf(sessionId) + 1;
    this.seqs.set(sessionId, seq);
    for (const l of this.listeners) this.guard(`session ${sessionId} ${event.type}`, () => l.sessionEvent(sessionId, event, seq));
  }

  emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    for (const l of this.listeners) this.guard(event, () => l.emit(event, payload));
  }

  flush(): void {
    for (const l of this.listeners) this.guard("flush", () => l.flush?.());
  }

  private guard(what: string, deliver: () => void): void {
    try {
      deliver();
    } catch (error) {
      try {
        this.onListenerError(what, error);
      } catch {
        // A reporter that fails has nothing left to tell.
      }
    }
  }
}
