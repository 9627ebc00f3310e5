// Event batching: one batch per frame per session, the loop's order kept, message updates
// coalesced to the newest, every tool update (every terminal byte) delivered.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { EventBatcher } from "../../app/main/ipc/event-batcher.ts";
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

const toolUpdate = (id: string, chunk: string): AgentEvent => ({
  type: "tool_execution_update",
  toolCallId: id,
  toolName: "bash",
  args: {},
  partialResult: { content: [], details: { chunk } },
});

describe("EventBatcher", () => {
  let sent: { event: string; payload: unknown }[];
  let batcher: EventBatcher;
  beforeEach(() => {
    vi.useFakeTimers();
    sent = [];
    batcher = new EventBatcher((event, payload) => sent.push({ event, payload }), 16);
  });
  afterEach(() => vi.useRealTimers());

  const batches = () => sent.filter((s) => s.event === "session.events").map((s) => s.payload as { sessionId: number; events: WireAgentEvent[] });

  it("sends one batch per session per frame, in order", () => {
    batcher.sessionEvent(1, { type: "agent_start" });
    batcher.sessionEvent(2, { type: "agent_start" });
    batcher.sessionEvent(1, { type: "turn_start" });
    expect(sent).toHaveLength(0);
    vi.advanceTimersByTime(16);
    expect(batches()).toEqual([
      { sessionId: 1, events: [{ type: "agent_start" }, { type: "turn_start" }] },
      { sessionId: 2, events: [{ type: "agent_start" }] },
    ]);
  });

  it("coalesces updates of one message to the newest, joining deltas, without the partial", () => {
    batcher.sessionEvent(1, { type: "message_start", message: assistant("") });
    for (const [text, d] of [["He", "He"], ["Hell", "ll"], ["Hello", "o"]] as const) batcher.sessionEvent(1, delta(text, d));
    vi.advanceTimersByTime(16);
    const [batch] = batches();
    expect(batch!.events.map((e) => e.type)).toEqual(["message_start", "message_update"]);
    const update = batch!.events[1] as Extract<WireAgentEvent, { type: "message_update" }>;
    expect(update.message.content).toEqual([{ type: "text", text: "Hello" }]);
    expect(update.assistantMessageEvent).toEqual({ type: "text_delta", contentIndex: 0, delta: "Hello" });
  });

  it("does not coalesce across a message boundary or between different messages", () => {
    batcher.sessionEvent(1, delta("a", "a", 1));
    batcher.sessionEvent(1, { type: "message_end", message: assistant("a", 1) });
    batcher.sessionEvent(1, delta("b", "b", 2));
    batcher.sessionEvent(1, delta("bc", "c", 2));
    vi.advanceTimersByTime(16);
    expect(batches()[0]!.events.map((e) => e.type)).toEqual(["message_update", "message_end", "message_update"]);
  });

  it("never drops a tool update: a terminal view gets every byte", () => {
    const bytes: string[] = [];
    for (let i = 0; i < 500; i++) {
      const chunk = `line ${i}\r\n`;
      bytes.push(chunk);
      batcher.sessionEvent(1, toolUpdate("t", chunk));
      batcher.sessionEvent(1, delta(`x${i}`, "x"));
      if (i % 50 === 0) vi.advanceTimersByTime(16);
    }
    vi.advanceTimersByTime(16);
    const received = batches()
      .flatMap((b) => b.events)
      .filter((e) => e.type === "tool_execution_update")
      .map((e) => ((e as { partialResult: { details: { chunk: string } } }).partialResult.details.chunk));
    expect(received.join("")).toBe(bytes.join(""));
  });

  it("flushes pending session events before any other event, keeping cross-channel order", () => {
    batcher.sessionEvent(1, { type: "tool_execution_start", toolCallId: "c", toolName: "bash", args: {} });
    batcher.emit("app.notice", { level: "info", message: "after the start" });
    expect(sent.map((s) => s.event)).toEqual(["session.events", "app.notice"]);
  });
});
