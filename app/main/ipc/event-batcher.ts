// EventBatcher: carries events to one renderer in the loop's order without flooding it. A
// session's lifecycle events are collected for one frame (~16 ms) and sent as one
// `session.events` batch, with their sequence numbers (`seqs[i]` is the number of the last event
// `events[i]` stands for; `fromSeq`..`toSeq` is the range the batch covers, with no gap).
// Nothing is dropped or reordered. The only coalescing is where the result is identical: a
// streaming delta directly after a delta of the same kind and block becomes one event carrying
// both deltas joined (and the newer of any small fields). Tool updates are never coalesced: a
// terminal view receives every byte. Any other event first flushes what is pending, so
// cross-channel order holds too.
//
// A `message_update` goes out in its wire form (app/shared/streaming-message.ts): what changed,
// never the whole message, so a long answer costs O(its length) to send, not O(n²). This batcher
// also leaves out what its renderer already has: the usage when it did not change, a tool call's
// id and name when they did not, and the call's parsed arguments but now and then
// (`toolArgumentsCadence`). `turn_end` and `agent_end` go without their messages: each was sent
// with its message_end. A renderer that connects mid-stream gets the message from the snapshot
// it opens (sessions.open), numbered, and applies the updates after it; the first update of a
// call this batcher sends carries its id, name and arguments.
import type { SessionEvent, Usage } from "../../shared/agent-types.ts";
import type { WireAgentEvent, WireAssistantEvent, WireMessageUpdate } from "../../shared/ipc/agent-schemas.ts";
import type { EventName, EventPayload } from "../../shared/ipc/contract.ts";
import { toWireEvent } from "../../shared/streaming-message.ts";

export type EventSender = <E extends EventName>(event: E, payload: EventPayload<E>) => void;

/**
 * When a streaming tool call's parsed arguments are sent with its deltas (the renderer shows the
 * call's card as it is written: its summary, a write's or an edit's preview): with every delta
 * while the call's text is up to `everyDeltaUpTo` characters, then each time the text has doubled
 * since they were last sent, up to `upTo` characters; past that, the card waits for the final
 * arguments, which come with the call's toolcall_end. The copies of a call's arguments so add up
 * to less than 2 × `upTo` whatever its size, instead of one per frame (O(n²)).
 */
export const toolArgumentsCadence = { everyDeltaUpTo: 1024, growth: 2, upTo: 262_144 };

interface CallState {
  id?: string;
  name?: string;
  /** The arguments object last sent (the provider replaces it at every parse). */
  args?: object;
  /** Characters of the call's text seen so far, and when the arguments were last sent. */
  chars: number;
  sentChars: number;
}

/** What this batcher has sent of a session's streaming message. */
interface StreamState {
  /** A copy of the usage last sent. */
  usage: Usage | undefined;
  calls: Map<number, CallState>;
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
  private readonly streams = new Map<number, StreamState>();
  private timer: NodeJS.Timeout | undefined;

  constructor(send: EventSender, frameMs = 16) {
    this.send = send;
    this.frameMs = frameMs;
  }

  sessionEvent(sessionId: number, event: SessionEvent, seq: number): void {
    let batch = this.pending.get(sessionId);
    if (!batch) this.pending.set(sessionId, (batch = { fromSeq: seq, events: [], seqs: [] }));
    const wire = this.leaveOutKnown(sessionId, toWireEvent(event));
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
    this.streams.clear();
  }

  /** The update without what this renderer already has (see the header); other events as they are. */
  private leaveOutKnown(sessionId: number, wire: WireAgentEvent): WireAgentEvent {
    if (wire.type === "message_start" && wire.message.role === "assistant") {
      this.streams.set(sessionId, { usage: copyUsage(wire.message.usage), calls: new Map() });
      return wire;
    }
    if ((wire.type === "message_end" && wire.message.role === "assistant") || wire.type === "agent_end") {
      this.streams.delete(sessionId);
      return wire;
    }
    if (wire.type !== "message_update") return wire;
    let state = this.streams.get(sessionId);
    if (!state) this.streams.set(sessionId, (state = { usage: undefined, calls: new Map() }));
    let usage = wire.usage;
    if (usage && state.usage && sameUsage(usage, state.usage)) usage = undefined;
    // A copy: the provider updates its usage in place, and the batch goes out later.
    else if (usage) usage = state.usage = copyUsage(usage);
    const e = wire.assistantMessageEvent;
    let sent: WireAssistantEvent = e;
    if (e.type === "toolcall_start") state.calls.set(e.contentIndex, { id: e.id, name: e.name, chars: 0, sentChars: 0 });
    else if (e.type === "toolcall_end") state.calls.delete(e.contentIndex);
    else if (e.type === "toolcall_delta") {
      let call = state.calls.get(e.contentIndex);
      if (!call) state.calls.set(e.contentIndex, (call = { chars: 0, sentChars: 0 }));
      call.chars += e.delta.length;
      const out: Extract<WireAssistantEvent, { type: "toolcall_delta" }> = { type: e.type, contentIndex: e.contentIndex, delta: e.delta };
      if (e.id !== undefined && e.id !== call.id) out.id = call.id = e.id;
      if (e.name !== undefined && e.name !== call.name) out.name = call.name = e.name;
      const { everyDeltaUpTo, growth, upTo } = toolArgumentsCadence;
      const due = call.chars <= everyDeltaUpTo || (call.chars >= call.sentChars * growth && call.chars <= upTo);
      if (e.arguments !== undefined && e.arguments !== call.args && due) {
        out.arguments = e.arguments;
        call.args = e.arguments;
        call.sentChars = call.chars;
      }
      sent = out;
    }
    return { type: "message_update", assistantMessageEvent: sent, ...(usage ? { usage } : {}) };
  }
}

function copyUsage(u: Usage): Usage {
  return { ...u, cost: { ...u.cost } };
}

function sameUsage(a: Usage, b: Usage): boolean {
  return (
    a.input === b.input &&
    a.output === b.output &&
    a.cacheRead === b.cacheRead &&
    a.cacheWrite === b.cacheWrite &&
    a.totalTokens === b.totalTokens &&
    a.cost.input === b.cost.input &&
    a.cost.output === b.cost.output &&
    a.cost.cacheRead === b.cost.cacheRead &&
    a.cost.cacheWrite === b.cost.cacheWrite &&
    a.cost.total === b.cost.total
  );
}

/**
 * One event equal in effect to `prev` then `next`, when both are deltas of the same kind and block
 * (the deltas joined, the newer of the small fields); otherwise undefined. Updates between a
 * message's start and end are of that message: the loop streams one message at a time.
 */
function joinDeltas(prev: WireAgentEvent, next: WireAgentEvent): WireMessageUpdate | undefined {
  if (prev.type !== "message_update" || next.type !== "message_update") return undefined;
  const a = prev.assistantMessageEvent;
  const b = next.assistantMessageEvent;
  if (a.type !== b.type || !("delta" in a) || !("delta" in b) || a.contentIndex !== b.contentIndex) return undefined;
  const joined = { ...a, ...b, delta: a.delta + b.delta } as WireAssistantEvent;
  const usage = next.usage ?? prev.usage;
  return { type: "message_update", assistantMessageEvent: joined, ...(usage ? { usage } : {}) };
}
