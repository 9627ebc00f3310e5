// Event batching: one batch per frame per session, numbered, in the loop's order; nothing dropped
// or reordered; only adjacent deltas of one block joined (an identical result); every tool update
// (every terminal byte) delivered; a streaming update carries only what changed (the wire form:
// test/renderer/streaming-wire.test.ts drives it end to end).
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { EventBatcher } from "../../app/main/ipc/event-batcher.ts";
import { EventHub } from "../../app/main/ipc/event-hub.ts";
import type { AgentEvent, AssistantMessage } from "../../app/shared/agent-types.ts";
import { emptyUsage } from "../../app/shared/agent-types.ts";
import type { WireAgentEvent } from "../../app/shared/ipc/agent-schemas.ts";

const assistant = (text: string, timestamp = 1): AssistantMessage => ({
  role: "assistant",
  content: [{ type: "text", text }],
  api: "x",
  provider: "x",
  model: "x",
  usage: emptyUsage(),
  stopReason: "stop",
  timestamp,
});

const delta = (text: string, d: string, timestamp = 1): AgentEvent => {
  const message = assistant(text, timestamp);
  return { type: "message_update", message, assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: d, partial: message } };
};

const textEnd = (text: string, timestamp = 1): AgentEvent => {
  const message = assistant(text, timestamp);
  return { type: "message_update", message, assistantMessageEvent: { type: "text_end", contentIndex: 0, content: text, partial: message } };
};

const toolUpdate = (id: string, chunk: string): AgentEvent => ({
  type: "tool_execution_update",
  toolCallId: id,
  toolName: "bash",
  args: {},
  partialResult: { content: [], details: { chunk } },
});

type Batch = { sessionId: number; fromSeq: number; toSeq: number; events: WireAgentEvent[]; seqs: number[] };

describe("EventBatcher", () => {
  let sent: { event: string; payload: unknown }[];
  let batcher: EventBatcher;
  let seq: Map<number, number>;
  const push = (sessionId: number, event: AgentEvent) => {
    const n = (seq.get(sessionId) ?? 0) + 1;
    seq.set(sessionId, n);
    batcher.sessionEvent(sessionId, event, n);
  };
  beforeEach(() => {
    vi.useFakeTimers();
    sent = [];
    seq = new Map();
    batcher = new EventBatcher((event, payload) => sent.push({ event, payload }), 16);
  });
  afterEach(() => vi.useRealTimers());

  const batches = () => sent.filter((s) => s.event === "session.events").map((s) => s.payload as Batch);

  it("sends one numbered batch per session per frame, in order", () => {
    push(1, { type: "agent_start" });
    push(2, { type: "agent_start" });
    push(1, { type: "turn_start" });
    expect(sent).toHaveLength(0);
    vi.advanceTimersByTime(16);
    expect(batches()).toEqual([
      { sessionId: 1, fromSeq: 1, toSeq: 2, seqs: [1, 2], events: [{ type: "agent_start" }, { type: "turn_start" }] },
      { sessionId: 2, fromSeq: 1, toSeq: 1, seqs: [1], events: [{ type: "agent_start" }] },
    ]);
  });

  it("joins adjacent deltas of one block into one event carrying only the joined delta, never the message", () => {
    push(1, { type: "message_start", message: assistant("") });
    for (const [text, d] of [
      ["He", "He"],
      ["Hell", "ll"],
      ["Hello", "o"],
    ] as const)
      push(1, delta(text, d));
    vi.advanceTimersByTime(16);
    const [batch] = batches();
    expect(batch!.events.map((e) => e.type)).toEqual(["message_start", "message_update"]);
    expect(batch!.seqs).toEqual([1, 4]);
    expect([batch!.fromSeq, batch!.toSeq]).toEqual([1, 4]);
    // The usage did not change since message_start: not sent again.
    expect(batch!.events[1]).toEqual({ type: "message_update", assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: "Hello" } });
  });

  it("keeps the deltas before a text_end in the same frame (a delta reader gets every character), and the end without the text", () => {
    push(1, delta("Hel", "Hel"));
    push(1, delta("Hello", "lo"));
    push(1, textEnd("Hello"));
    vi.advanceTimersByTime(16);
    const events = batches()[0]!.events as Extract<WireAgentEvent, { type: "message_update" }>[];
    expect(events.map((e) => e.assistantMessageEvent)).toEqual([
      { type: "text_delta", contentIndex: 0, delta: "Hello" },
      { type: "text_end", contentIndex: 0 },
    ]);
  });

  it("never joins across another event, a message boundary or another block", () => {
    push(1, delta("a", "a", 1));
    push(1, { type: "message_end", message: assistant("a", 1) });
    push(1, delta("b", "b", 2));
    push(1, { type: "provider_retry", retry: { attempt: 2, maxAttempts: 5, delayMs: 1, error: "x" } });
    push(1, delta("bc", "c", 2));
    const other = assistant("bc", 2);
    other.content.push({ type: "text", text: "d" });
    push(1, { type: "message_update", message: other, assistantMessageEvent: { type: "text_delta", contentIndex: 1, delta: "d", partial: other } });
    push(1, { type: "message_update", message: other, assistantMessageEvent: { type: "thinking_delta", contentIndex: 1, delta: "e", partial: other } });
    vi.advanceTimersByTime(16);
    const [batch] = batches();
    expect(batch!.events.map((e) => e.type)).toEqual(["message_update", "message_end", "message_update", "provider_retry", "message_update", "message_update", "message_update"]);
    expect(batch!.seqs).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it("sends the usage only when it changed, as it was then", () => {
    const message = assistant("");
    const update = (e: { type: "text_start" } | { type: "text_delta"; delta: string }) =>
      push(1, {
        type: "message_update",
        message,
        assistantMessageEvent:
          e.type === "text_start" ? { type: "text_start", contentIndex: 0, partial: message } : { type: "text_delta", contentIndex: 0, delta: e.delta, partial: message },
      });
    push(1, { type: "message_start", message });
    message.usage.input = 10;
    update({ type: "text_start" });
    update({ type: "text_delta", delta: "a" });
    update({ type: "text_delta", delta: "b" });
    message.usage.input = 20;
    update({ type: "text_delta", delta: "c" });
    message.usage.input = 99; // changed in place after it was queued: the batch keeps what was sent
    vi.advanceTimersByTime(16);
    const updates = batches()[0]!.events.filter((e) => e.type === "message_update");
    expect(updates).toEqual([
      { type: "message_update", assistantMessageEvent: { type: "text_start", contentIndex: 0 }, usage: { ...emptyUsage(), input: 10 } },
      { type: "message_update", assistantMessageEvent: { type: "text_delta", contentIndex: 0, delta: "abc" }, usage: { ...emptyUsage(), input: 20 } },
    ]);
  });

  it("sends a streaming tool call's id and name when they change, and its arguments with every delta while short, then as they grow by half", () => {
    const call = { type: "toolCall" as const, id: "c1", name: "", arguments: {} as Record<string, unknown> };
    const message = { ...assistant(""), content: [call] };
    const update = (e: AgentEvent) => {
      push(1, e);
      vi.advanceTimersByTime(16);
    };
    update({ type: "message_start", message: { ...message, content: [] } });
    update({ type: "message_update", message, assistantMessageEvent: { type: "toolcall_start", contentIndex: 0, partial: message } });
    let text = "";
    for (let i = 0; i < 400; i++) {
      const piece = i === 0 ? '{"a":"' : "x".repeat(50);
      text += piece;
      call.arguments = { a: text.slice(6) }; // a new object at every parse, as the provider's parser gives
      if (i === 3) call.name = "bash";
      update({ type: "message_update", message, assistantMessageEvent: { type: "toolcall_delta", contentIndex: 0, delta: piece, partial: message } });
    }
    update({ type: "message_update", message, assistantMessageEvent: { type: "toolcall_end", contentIndex: 0, toolCall: call, partial: message } });
    const updates = batches()
      .flatMap((b) => b.events)
      .filter((e): e is Extract<WireAgentEvent, { type: "message_update" }> => e.type === "message_update")
      .map((e) => e.assistantMessageEvent);
    expect(updates[0]).toEqual({ type: "toolcall_start", contentIndex: 0, id: "c1", name: "" });
    const deltas = updates.filter((e) => e.type === "toolcall_delta");
    expect(deltas.map((d) => d.delta).join("")).toBe(text);
    expect(deltas.filter((d) => d.name !== undefined).map((d) => d.name)).toEqual(["bash"]);
    expect(deltas.some((d) => d.id !== undefined)).toBe(false);
    // With every delta up to 1,024 characters (21 deltas), then each time the text doubled.
    const sentAt: number[] = [];
    let chars = 0;
    for (const d of deltas) {
      chars += d.delta.length;
      if (d.arguments !== undefined) sentAt.push(chars);
    }
    expect(sentAt).toEqual([...Array.from({ length: 21 }, (_, i) => 6 + 50 * i), 2056, 4156, 8356, 16756]);
    expect(updates.at(-1)).toEqual({ type: "toolcall_end", contentIndex: 0, toolCall: call });
  });

  it("never drops a tool update: a terminal view gets every byte, and the numbers have no gap", () => {
    const bytes: string[] = [];
    for (let i = 0; i < 500; i++) {
      const chunk = `line ${i}\r\n`;
      bytes.push(chunk);
      push(1, toolUpdate("t", chunk));
      push(1, delta(`x${i}`, "x"));
      if (i % 50 === 0) vi.advanceTimersByTime(16);
    }
    vi.advanceTimersByTime(16);
    const all = batches();
    const received = all
      .flatMap((b) => b.events)
      .filter((e) => e.type === "tool_execution_update")
      .map((e) => (e as { partialResult: { details: { chunk: string } } }).partialResult.details.chunk);
    expect(received.join("")).toBe(bytes.join(""));
    for (let i = 1; i < all.length; i++) expect(all[i]!.fromSeq).toBe(all[i - 1]!.toSeq + 1);
    expect(all.at(-1)!.toSeq).toBe(1000);
  });

  it("keeps consecutive tool updates apart, each with its own number, even with nothing between them", () => {
    const chunks = Array.from({ length: 20 }, (_, i) => `chunk ${i}\n`);
    for (const chunk of chunks) push(1, toolUpdate("t", chunk));
    vi.advanceTimersByTime(16);
    const [batch, ...rest] = batches();
    expect(rest).toEqual([]);
    expect(batch!.events.map((e) => (e as { partialResult: { details: { chunk: string } } }).partialResult.details.chunk)).toEqual(chunks);
    expect(batch!.seqs).toEqual(chunks.map((_, i) => i + 1));
  });

  it("flushes pending session events before any other event, keeping cross-channel order", () => {
    push(1, { type: "tool_execution_start", toolCallId: "c", toolName: "bash", args: {} });
    batcher.emit("app.notice", { level: "info", message: "after the start" });
    expect(sent.map((s) => s.event)).toEqual(["session.events", "app.notice"]);
  });
});

describe("EventHub", () => {
  it("numbers each session's events and flushes its listeners on request", () => {
    vi.useFakeTimers();
    try {
      const hub = new EventHub();
      const sent: unknown[] = [];
      hub.add(new EventBatcher((_e, payload) => sent.push(payload), 16));
      hub.sessionEvent(7, { type: "agent_start" });
      hub.sessionEvent(7, { type: "turn_start" });
      hub.sessionEvent(8, { type: "agent_start" });
      expect([hub.seqOf(7), hub.seqOf(8), hub.seqOf(9)]).toEqual([2, 1, 0]);
      expect(sent).toHaveLength(0);
      hub.flush();
      expect(sent).toMatchObject([
        { sessionId: 7, seqs: [1, 2] },
        { sessionId: 8, seqs: [1] },
      ]);
    } finally {
      vi.useRealTimers();
    }
  });
});
