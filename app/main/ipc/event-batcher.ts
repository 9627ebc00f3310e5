// EventBatcher: carries events to one renderer in the loop's order without flooding it. A
// session's lifecycle events are collected for one frame (~16 ms) and sent as one
// `session.events` batch, with their sequence numbers (`seqs[i]` is the number of the last event
// `events[i]` stands for; `fromSeq`..`toSeq` is the range the batch covers, with no gap).
// Nothing is dropped or reordered. The only coalescing is where the result is identical: a
// streaming delta directly after a delta of the same kind, block and message becomes one event
// carrying both deltas joined and the newer partial message. Tool updates are never coalesced: a
// terminal view receives every byte. Any other event first flushes what is pending, so
// cross-channel order holds too.
import type { SessionEvent } from "../../shared/agent-types.ts";
import type { WireAgentEvent } from "../../shared/ipc/agent-schemas.ts";
import type { EventName, EventPayload } from "../../shared/ipc/contract.ts";

export type EventSender = <E extends EventName>(event: E, payload: EventPayload<E>) => void;

/** The wire form of an agent event: a streaming delta loses its `partial` (the message is it). */
export function toWireEvent(event: SessionEvent): WireAgentEvent {
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

interface PendingBatch {
  fromSeq: number;
  events: WireAgentEvent[];
  seqs: number[];
}

export class EventBatcher {
  private readonly send: EventSender;
  private readonly frameMs: number;
  private readonly pending = new Map<number, PendingBatch>();
  private timer: NodeJS.Timeout | undefined;

  constructor(send: EventSender, frameMs = 16) {
    this.send = send;
    this.frameMs = frameMs;
  }

  sessionEvent(sessionId: number, event: SessionEvent, seq: number): void {
    let batch = this.pending.get(sessionId);
    if (!batch) this.pending.set(sessionId, (batch = { fromSeq: seq, events: [], seqs: [] }));
    const wire = toWireEvent(event);
    const last = batch.events.length - 1;
    const merged = last >= 0 ? joinDeltas(batch.events[last]!, wire) : undefined;
    if (merged) {
      batch.events[last] = merged;
      batch.seqs[last] = seq;
    } else {
      batch.events.push(wire);
      batch.seqs.push(seq);
    }
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
    for (const [sessionId, batch] of this.pending) {
      this.send("session.events", { sessionId, fromSeq: batch.fromSeq, toSeq: batch.seqs.at(-1)!, events: batch.events, seqs: batch.seqs });
    }
    this.pending.clear();
  }

  dispose(): void {
    this.flush();
  }
}

type WireUpdate = Extract<WireAgentEvent, { type: "message_update" }>;

/**
 * One event equal in effect to `prev` then `next`, when both are deltas of the same kind, block
 * and message (the later partial message, the deltas joined); otherwise undefined.
 */
function joinDeltas(prev: WireAgentEvent, next: WireAgentEvent): WireUpdate | undefined {
  if (prev.type !== "message_update" || next.type !== "message_update") return undefined;
  if (prev.message.timestamp !== next.message.timestamp) return undefined;
  const a = prev.assistantMessageEvent;
  const b = next.assistantMessageEvent;
  if (a.type !== b.type || !b.type.endsWith("_delta") || a.contentIndex !== b.contentIndex) return undefined;
  if (a.delta === undefined || b.delta === undefined) return undefined;
  return { ...next, assistantMessageEvent: { ...b, delta: a.delta + b.delta } };
}
