// EventBatcher: carries events to one renderer in the loop's order without flooding it. A
// session's lifecycle events are collected for one frame (~16 ms) and sent as one
// `session.events` batch. Within a batch, message_update events of the same message are
// coalesced to the newest (each carries the whole partial message, so nothing is lost; their
// text deltas are joined). Tool updates are never coalesced: a terminal view receives every
// byte. Any other event first flushes what is pending, so cross-channel order holds too.
import type { AgentEvent } from "../../shared/agent-types.ts";
import type { WireAgentEvent } from "../../shared/ipc/agent-schemas.ts";
import type { EventName, EventPayload } from "../../shared/ipc/contract.ts";

export type EventSender = <E extends EventName>(event: E, payload: EventPayload<E>) => void;

/** The wire form of an agent event: a streaming delta loses its `partial` (the message is it). */
export function toWireEvent(event: AgentEvent): WireAgentEvent {
  if (event.type !== "message_update") return event as WireAgentEvent;
  const e = event.assistantMessageEvent;
  return {
    type: "message_update",
    message: event.message,
    assistantMessageEvent: {
      type: e.type,
      ...("contentIndex" in e ? { contentIndex: e.contentIndex } : {}),
      ...("delta" in e ? { delta: e.delta } : {}),
    },
  };
}

export class EventBatcher {
  private readonly send: EventSender;
  private readonly frameMs: number;
  private readonly pending = new Map<number, WireAgentEvent[]>();
  private timer: NodeJS.Timeout | undefined;

  constructor(send: EventSender, frameMs = 16) {
    this.send = send;
    this.frameMs = frameMs;
  }

  sessionEvent(sessionId: number, event: AgentEvent): void {
    let batch = this.pending.get(sessionId);
    if (!batch) this.pending.set(sessionId, (batch = []));
    const wire = toWireEvent(event);
    if (wire.type === "message_update") coalesceInto(batch, wire);
    else batch.push(wire);
    this.timer ??= setTimeout(() => this.flush(), this.frameMs);
  }

  /** Sends a non-batched event after everything pending. */
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    this.flush();
    this.send(event, payload);
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const [sessionId, events] of this.pending) this.send("session.events", { sessionId, events });
    this.pending.clear();
  }

  dispose(): void {
    this.flush();
  }
}

type WireUpdate = Extract<WireAgentEvent, { type: "message_update" }>;

function coalesceInto(batch: WireAgentEvent[], update: WireUpdate): void {
  // Only the newest update of a message matters; find the previous one of the same message, if
  // nothing but tool events stands between (a message_start or _end keeps both sides).
  for (let i = batch.length - 1; i >= 0; i--) {
    const prev = batch[i]!;
    if (prev.type === "message_update") {
      if (prev.message.timestamp !== update.message.timestamp) break;
      batch.splice(i, 1);
      const a = prev.assistantMessageEvent;
      const b = update.assistantMessageEvent;
      const sameBlock = a.type === b.type && a.contentIndex === b.contentIndex;
      if (sameBlock && a.delta !== undefined && b.delta !== undefined) {
        update = { ...update, assistantMessageEvent: { ...b, delta: a.delta + b.delta } };
      }
      break;
    }
    if (prev.type === "message_start" || prev.type === "message_end") break;
  }
  batch.push(update);
}
