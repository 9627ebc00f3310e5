// EventHub: fans the services' events out to every connected renderer (a window, a browser tab
// on the headless host). Each connection listens through its own EventBatcher. A listener that
// throws is removed, so one broken connection never stops the others.
import type { AgentEvent } from "../../shared/agent-types.ts";
import type { EventName, EventPayload } from "../../shared/ipc/contract.ts";

export interface HubListener {
  sessionEvent(sessionId: number, event: AgentEvent): void;
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void;
}

export class EventHub implements HubListener {
  private readonly listeners = new Set<HubListener>();

  add(listener: HubListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get size(): number {
    return this.listeners.size;
  }

  sessionEvent(sessionId: number, event: AgentEvent): void {
    for (const l of this.listeners) this.guard(l, () => l.sessionEvent(sessionId, event));
  }

  emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    for (const l of this.listeners) this.guard(l, () => l.emit(event, payload));
  }

  private guard(listener: HubListener, deliver: () => void): void {
    try {
      deliver();
    } catch {
      this.listeners.delete(listener);
    }
  }
}
