import fs from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentEvent, AgentMessage, AssistantMessage, ToolResultMessage } from "../../app/shared/agent-types.ts";
import { openStore, type SessionStore, type StoreError } from "../../app/main/store/index.ts";
import { assistant, call, result, tempDir, user } from "./helpers.ts";

let dir: string;
let store: SessionStore;
beforeEach(() => {
  dir = tempDir();
  store = openStore({ dataDir: dir }).store;
});
afterEach(() => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The events the loop emits for one streamed assistant message (text, then tool calls). */
function streamedAssistant(final: AssistantMessage): AgentEvent[] {
  const events: AgentEvent[] = [{ type: "message_start", message: { ...final, content: [] } }];
  final.content.forEach((block, contentIndex) => {
    const partial = { ...final, content: final.content.slice(0, contentIndex + 1) };
    if (block.type === "text") {
      events.push({ type: "message_update", message: partial, assistantMessageEvent: { type: "text_start", contentIndex, partial } });
      for (const delta of block.text.split(" "))
        events.push({ type: "message_update", message: partial, assistantMessageEvent: { type: "text_delta", contentIndex, delta, partial } });
      events.push({ type: "message_update", message: partial, assistantMessageEvent: { type: "text_end", contentIndex, content: block.text, partial } });
    } else if (block.type === "toolCall") {
      events.push({ type: "message_update", message: partial, assistantMessageEvent: { type: "toolcall_start", contentIndex, partial } });
      events.push({ type: "message_update", message: partial, assistantMessageEvent: { type: "toolcall_end", contentIndex, toolCall: block, partial } });
    }
  });
  events.push({ type: "message_update", message: final, assistantMessageEvent: { type: "done", reason: final.stopReason === "toolUse" ? "toolUse" : "stop", message: final } });
  events.push({ type: "message_end", message: final });
  return events;
}

function turn(a: AssistantMessage, results: ToolResultMessage[]): AgentEvent[] {
  const events: AgentEvent[] = [{ type: "turn_start" }, ...streamedAssistant(a)];
  for (const r of results) {
    events.push({ type: "tool_execution_start", toolCallId: r.toolCallId, toolName: r.toolName, args: {} });
    events.push({ type: "tool_execution_update", toolCallId: r.toolCallId, toolName: r.toolName, args: {}, partialResult: { content: [], details: {} } });
    events.push({ type: "tool_execution_end", toolCallId: r.toolCallId, toolName: r.toolName, result: { content: r.content, details: r.details }, isError: false });
  }
  for (const r of results) events.push({ type: "message_start", message: r }, { type: "message_end", message: r });
  events.push({ type: "turn_end", message: a, toolResults: results });
  return events;
}

describe("SessionRecorder", () => {
  it("commits each message on message_end, logs non-delta events in order, and replays tool sets as they were live", () => {
    const project = store.openProject("/repo");
    const session = store.createSession({ projectId: project.id, baseToolNames: ["read", "tool_search"] });
    const recorder = store.recorder(session.id);

    const prompt = user("Find the web tools and fetch the page");
    const a1 = assistant("Searching tools", [call("c1", "tool_search", { q: "web" })]);
    const r1 = result("c1", "tool_search", "found web_fetch", ["web_fetch"]);
    const a2 = assistant("Fetching", [call("c2", "web_fetch"), call("c3", "read")]);
    const r2 = result("c2", "web_fetch", "page body", ["web_screenshot"]);
    const r3 = result("c3", "read", "file");
    const a3 = assistant("All done");
    const run: AgentEvent[] = [
      { type: "agent_start" },
      { type: "message_start", message: prompt },
      { type: "message_end", message: prompt },
      ...turn(a1, [r1]),
      { type: "provider_retry", retry: { attempt: 1, maxAttempts: 3, delayMs: 10, error: "overloaded" } },
      ...turn(a2, [r2, r3]),
      ...turn(a3, []),
      { type: "agent_end", messages: [prompt, a1, r1, a2, r2, r3, a3] },
    ];

    // What the live tool layer sees: base tools, plus addedToolNames as each tool-result message lands.
    const live = new Set(session.baseToolNames);
    const liveSets: string[][] = [];
    for (const event of run) {
      recorder.handle(event);
      if (event.type === "message_end") {
        // Committed the moment message_end is handled: visible to a second connection.
        const count = store.db.prepare("SELECT message_count FROM sessions WHERE id = ?").pluck().get(session.id);
        expect(count).toBe(liveSets.length + 1);
        if (event.message.role === "toolResult") for (const name of event.message.addedToolNames ?? []) live.add(name);
        liveSets.push([...live]);
      }
    }
    expect(recorder.lastError).toBeUndefined();

    const opened = store.openSession(session.id)!;
    const transcript: AgentMessage[] = [prompt, a1, r1, a2, r2, r3, a3];
    expect(opened.messages).toEqual(transcript);
    expect(opened.activeToolNames).toEqual(liveSets);
    expect(opened.activeToolNames[2]).toEqual(["read", "tool_search", "web_fetch"]);
    expect(opened.activeToolNames[6]).toEqual(["read", "tool_search", "web_fetch", "web_screenshot"]);
    expect(opened.runs).toMatchObject([{ status: "completed" }]);

    // The log: every event except deltas and tool progress, in emission order, with timestamps.
    const expected = run.filter(
      (e) => e.type !== "tool_execution_update" && !(e.type === "message_update" && e.assistantMessageEvent.type.endsWith("_delta")),
    );
    expect(opened.events.map((e) => e.event.type)).toEqual(expected.map((e) => e.type));
    expect(opened.events.map((e) => e.seq)).toEqual(expected.map((_, i) => i));
    for (let i = 1; i < opened.events.length; i++) expect(opened.events[i]!.at).toBeGreaterThanOrEqual(opened.events[i - 1]!.at);
    const replayed = opened.events.map((e) => e.event);
    expect(replayed.find((e) => e.type === "turn_end" && e.message.content.some((b) => b.type === "text" && b.text === "Fetching"))).toEqual({
      type: "turn_end",
      message: a2,
      toolResults: [r2, r3],
    });
    expect(replayed.filter((e) => e.type === "message_update").map((e) => e.assistantMessageEvent.type)).toContain("toolcall_end");
    const textEnd = replayed.find((e) => e.type === "message_update" && e.assistantMessageEvent.type === "text_end");
    expect(textEnd).toMatchObject({ assistantMessageEvent: { content: "Searching tools", contentIndex: 1 } });
    expect(replayed.find((e) => e.type === "provider_retry")).toEqual(run.find((e) => e.type === "provider_retry"));
    expect(replayed.at(-1)).toEqual({ type: "agent_end", messages: transcript });
    // Message payloads are stored once, in messages, not again in the log.
    const logged = store.db.prepare("SELECT group_concat(data) FROM events").pluck().get() as string;
    expect(logged).not.toContain("Searching tools");
  });

  it("batches events until message_end or the timer, and reports a failed write without throwing", async () => {
    const project = store.openProject("/repo");
    const session = store.createSession({ projectId: project.id });
    const errors: StoreError[] = [];
    const recorder = store.recorder(session.id, { flushDelayMs: 5, onError: (e) => errors.push(e) });
    recorder.handle({ type: "agent_start" });
    recorder.handle({ type: "turn_start" });
    const countEvents = () => store.db.prepare("SELECT count(*) FROM events").pluck().get();
    expect(countEvents()).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(countEvents()).toBe(2);

    store.db.prepare("DELETE FROM sessions WHERE id = ?").run(session.id);
    recorder.handle({ type: "message_end", message: user("lost") });
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toMatch(/saving the user message failed|does not exist/);
    expect(store.db.prepare("SELECT count(*) FROM messages").pluck().get()).toBe(0);
  });
});
