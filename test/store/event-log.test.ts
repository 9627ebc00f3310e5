// The lifecycle event log (app/main/store/event-log.ts): which events are logged, and reading
// them back for an export, oldest run first, skipping rows that cannot be read.
import { describe, expect, it } from "vitest";
import type { SessionEvent } from "../../app/shared/agent-types.ts";
import type { SessionStore } from "../../app/main/store/index.ts";
import { encodeEvent, readSessionEvents } from "../../app/main/store/event-log.ts";
import { freshStoreForEachTest } from "./support/fresh-store.ts";

describe("encodeEvent", () => {
  it("logs only what the messages do not say, with its payload", () => {
    for (const type of [
      "agent_start",
      "agent_end",
      "turn_start",
      "turn_end",
      "message_start",
      "message_update",
      "message_end",
      "tool_execution_start",
      "tool_execution_update",
      "tool_execution_end",
      "tool_call_phase",
    ]) {
      expect(encodeEvent({ type } as SessionEvent)).toBeNull();
    }
    const retry = { type: "provider_retry", retry: { attempt: 2, maxAttempts: 5, delayMs: 10, error: "overloaded" } } as SessionEvent;
    expect(encodeEvent(retry)).toEqual({ type: "provider_retry", data: JSON.stringify({ retry: { attempt: 2, maxAttempts: 5, delayMs: 10, error: "overloaded" } }) });
    expect(encodeEvent({ type: "some_future_event", x: 1 } as unknown as SessionEvent)).toEqual({ type: "some_future_event", data: '{"x":1}' });
  });
});

describe("readSessionEvents", () => {
  let store: SessionStore;
  freshStoreForEachTest((opened) => (store = opened));

  it("reads every run's events in order, oldest run first, skipping rows that are not JSON objects", () => {
    const projectId = store.openProject("/p").id;
    const s = store.createSession({ projectId }).id;
    const other = store.createSession({ projectId }).id;
    const run = (sessionId: number) => Number(store.db.prepare("INSERT INTO runs (session_id, started_at, status) VALUES (?, 1, 'completed')").run(sessionId).lastInsertRowid);
    const first = run(s);
    const elsewhere = run(other);
    const second = run(s);
    const event = store.db.prepare("INSERT INTO events (run_id, seq, at, type, data) VALUES (?, ?, ?, ?, ?)");
    event.run(second, 0, 30, "provider_retry", '{"n":3}');
    event.run(first, 1, 20, "provider_retry", '{"n":2}');
    event.run(first, 0, 10, "provider_retry", '{"n":1,"type":"ignored"}');
    event.run(first, 2, 25, "broken", "{not json");
    event.run(first, 3, 26, "scalar", "7");
    event.run(first, 4, 27, "nothing", "null");
    event.run(elsewhere, 0, 5, "provider_retry", '{"n":0}');
    expect(readSessionEvents(store.db, s)).toEqual([
      { runId: first, seq: 0, at: 10, event: { n: 1, type: "provider_retry" } },
      { runId: first, seq: 1, at: 20, event: { n: 2, type: "provider_retry" } },
      { runId: second, seq: 0, at: 30, event: { n: 3, type: "provider_retry" } },
    ]);
    expect(readSessionEvents(store.db, 4040)).toEqual([]);
  });
});
