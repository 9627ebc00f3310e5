// EventHub: fans the services' events out to every connected renderer (a window, a browser tab
// on the headless host). Each connection listens through its own EventBatcher. A listener that
// throws is reported (onListenerError) and kept: one bad event must not detach a window for good,
// and a connection that is really gone removes itself when it closes. Delivery to the others
// goes on either way. Never throws.
import type { AgentEvent } from "../../shared/agent-types.ts";
import type { EventName, EventPayload } from "../../shared/ipc/contract.ts";

export interface HubListener {
  sessionEvent(sessionId: number, event: AgentEvent): void;
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void;
}

/** What failed where: the event's name (a session event's type) and the listener's error. */
export type ListenerErrorReporter = (what: string, error: unknown) => void;

export class EventHub implements HubListener {
  private readonly listeners = new Set<HubListener>();
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

  sessionEvent(sessionId: number, event: AgentEvent): void {
    for (const l of this.listeners) this.guard(`session ${sessionId} ${event.type}`, () => l.sessionEvent(sessionId, event));
  }

  emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    for (const l of this.listeners) this.guard(event, () => l.emit(event, payload));
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
