import Database from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentEvent, AgentMessage, AssistantMessage, ToolResultMessage } from "../../app/shared/agent-types.ts";
import { openStore, type SessionStore, type StoreError } from "../../app/main/store/index.ts";
import { assistant, call, result, tempDir, user } from "./helpers.ts";
import { readToolCallTimes } from "../../app/main/store/tool-calls.ts";
import { freshStoreForEachTest } from "./support/fresh-store.ts";

let store: SessionStore;
freshStoreForEachTest((opened) => (store = opened));

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
  it("commits each message on message_end, logs only what the messages do not say, and replays tool sets as they were live", () => {
    const project = store.openProject("/repo");
    const session = store.createSession({ projectId: project.id, baseToolNames: ["read", "tool_search"] });
    const recorder = store.recorder(session.id);
    const second = new Database(store.path, { readonly: true });

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
        expect(second.prepare("SELECT count(*) FROM messages WHERE session_id = ?").pluck().get(session.id)).toBe(liveSets.length + 1);
        if (event.message.role === "toolResult") for (const name of event.message.addedToolNames ?? []) live.add(name);
        liveSets.push([...live]);
      }
    }
    expect(recorder.lastError).toBeUndefined();
    // The session row's counters follow within milliseconds (the run's end wrote them), and the
    // store never shows them behind.
    expect(second.prepare("SELECT message_count, title FROM sessions WHERE id = ?").get(session.id)).toEqual({ message_count: 7, title: "Find the web tools and fetch the page" });
    second.close();

    const opened = store.openSession(session.id)!;
    const transcript: AgentMessage[] = [prompt, a1, r1, a2, r2, r3, a3];
    expect(opened.messages).toEqual(transcript);
    expect(opened.activeToolNames).toEqual(liveSets);
    expect(opened.activeToolNames[2]).toEqual(["read", "tool_search", "web_fetch"]);
    expect(opened.activeToolNames[6]).toEqual(["read", "tool_search", "web_fetch", "web_screenshot"]);
    expect(opened.runs).toMatchObject([{ status: "completed" }]);

    // The log holds only what the messages do not say: the retry. Tool calls keep their times.
    expect(opened.events.map((e) => e.event)).toEqual([run.find((e) => e.type === "provider_retry")]);
    expect(opened.events.map((e) => e.seq)).toEqual([0]);
    expect(opened.toolCalls.map((t) => t.toolCallId).sort()).toEqual(["c1", "c2", "c3"]);
    for (const t of opened.toolCalls) {
      expect(t.startedAt).toBeGreaterThan(0);
      expect(t.endedAt).toBeGreaterThanOrEqual(t.startedAt!);
      expect(t.isError).toBe(false);
    }
    // Nothing repeats the messages: no row per message or turn, no message text in the log.
    expect(store.db.prepare("SELECT count(*) FROM events").pluck().get()).toBe(1);
    const logged = store.db.prepare("SELECT group_concat(data) FROM events").pluck().get() as string;
    expect(logged).not.toContain("Searching tools");
    // The tool results that added tools are marked, so opening finds the tool set without reading the rest.
    expect(store.markedMessages(session.id).map((m) => m.position)).toEqual([2, 4]);
    expect(store.openPage(session.id, { limit: 2 })!.activeToolNames).toEqual(liveSets.at(-1));
  });

  it("batches events until message_end or the timer, and reports a failed write without throwing", async () => {
    const project = store.openProject("/repo");
    const session = store.createSession({ projectId: project.id });
    const errors: StoreError[] = [];
    const recorder = store.recorder(session.id, { flushDelayMs: 5, onError: (e) => errors.push(e) });
    recorder.handle({ type: "agent_start" });
    recorder.handle({ type: "turn_start" });
    recorder.handle({ type: "provider_retry", retry: { attempt: 1, maxAttempts: 3, delayMs: 10, error: "overloaded" } });
    recorder.handle({ type: "tool_execution_start", toolCallId: "c1", toolName: "read", args: {} });
    const countEvents = () => store.db.prepare("SELECT (SELECT count(*) FROM events) + (SELECT count(*) FROM tool_calls)").pluck().get();
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

describe("SessionRecorder when writes fail", () => {
  /** SQLite's own page limit: writes that need a new page fail with SQLITE_FULL, like a full disk. */
  const fillDisk = () => store.db.pragma(`max_page_count = ${store.db.pragma("page_count", { simple: true }) as number}`);
  const freeDisk = () => store.db.pragma("max_page_count = 1073741823");
  const big = (text: string) => `${text} ${"x".repeat(20_000)}`;

  it("holds everything back in order, reports once, and writes it all once there is room", async () => {
    const project = store.openProject("/repo");
    const session = store.createSession({ projectId: project.id });
    const errors: StoreError[] = [];
    let recovered = 0;
    const recorder = store.recorder(session.id, { retryMs: 20, onError: (e) => errors.push(e), onRecovered: () => recovered++ });
    const prompt = user("go");
    const a1 = assistant(big("calling"), [call("c1", "bash", { command: "ls" })]);
    const r1 = result("c1", "bash", big("output"));
    const a2 = assistant(big("done"));
    recorder.handle({ type: "agent_start" });
    recorder.handle({ type: "message_start", message: prompt });
    recorder.handle({ type: "message_end", message: prompt });
    expect(recorder.isStored(prompt)).toBe(true);

    fillDisk();
    for (const event of turn(a1, [r1])) recorder.handle(event);
    for (const event of turn(a2, [])) recorder.handle(event);
    recorder.handle({ type: "agent_end", messages: [prompt, a1, r1, a2] });
    expect(errors).toHaveLength(1);
    expect(errors[0]!.failure).toBe("disk-full");
    expect(recorder.failing).toBe(true);
    expect(recorder.isStored(a1)).toBe(false);
    expect(recorder.unsavedMessages()).toEqual([a1, r1, a2]);
    expect(recorder.backlogBytes()).toBeGreaterThan(60_000);
    // Nothing out of order: the store has the prompt only, and no result without its call.
    expect(store.readMessages(session.id)).toEqual([prompt]);
    expect(recorder.retry()).toBe(false);
    expect(errors).toHaveLength(1);

    freeDisk();
    await expect.poll(() => recovered, { timeout: 5000 }).toBe(1);
    expect(recorder.failing).toBe(false);
    expect(errors).toHaveLength(1);
    for (const m of [a1, r1, a2]) expect(recorder.isStored(m)).toBe(true);
    const opened = store.openSession(session.id)!;
    expect(opened.messages).toEqual([prompt, a1, r1, a2]);
    expect(opened.runs).toMatchObject([{ status: "completed" }]);
    // The tool call's times were held back with its messages and written in order too.
    expect(opened.toolCalls).toEqual([expect.objectContaining({ toolCallId: "c1", isError: false })]);
    recorder.close();
  });

  it("keeps a bounded, redacted terminal log per call, written while the call runs", async () => {
    const project = store.openProject("/repo");
    const session = store.createSession({ projectId: project.id });
    const recorder = store.recorder(session.id, { outputFlushMs: 5, redact: (t) => t.replaceAll("hunter2", "[REDACTED]") });
    const update = (chunk: string, skippedBytes = 0): AgentEvent => ({
      type: "tool_execution_update",
      toolCallId: "c1",
      toolName: "bash",
      args: {},
      partialResult: { content: [], details: { phase: "running", chunk, skippedBytes } },
    });
    recorder.handle({ type: "agent_start" });
    recorder.handle({ type: "tool_execution_start", toolCallId: "c1", toolName: "bash", args: {} });
    recorder.handle(update("\x1b[32mgreen\x1b[0m password=hunter2\r\n"));
    await expect.poll(() => store.toolOutput(session.id, "c1")?.text).toBe("\x1b[32mgreen\x1b[0m password=[REDACTED]\r\n");
    // Past the bounds: head and tail kept, the middle counted.
    const line = (i: number) => `line ${String(i).padStart(6, "0")} ${"y".repeat(100)}\r\n`;
    for (let i = 0; i < 6000; i++) recorder.handle(update(line(i)));
    recorder.handle(update("last line\r\n", 10));
    recorder.handle({ type: "tool_execution_end", toolCallId: "c1", toolName: "bash", result: { content: [], details: {} }, isError: false });
    const stored = store.toolOutput(session.id, "c1")!;
    expect(stored.truncated).toBe(true);
    expect(stored.text.startsWith("\x1b[32mgreen")).toBe(true);
    expect(stored.text).toMatch(/characters of output in the middle were not kept; 10 characters were skipped/);
    expect(stored.text.endsWith("last line\r\n")).toBe(true);
    expect(stored.text.length).toBeLessThan(300 * 1024);
    expect(stored.totalChars).toBeGreaterThan(600_000);
    // The kept tail starts at a line start.
    const afterMarker = stored.text.slice(stored.text.indexOf("…]") + 2);
    expect(afterMarker.startsWith("\x1b[0m\r\n")).toBe(true);
    expect(afterMarker.slice("\x1b[0m\r\n".length)).toMatch(/^line \d{6} y/);
    expect(store.openSession(session.id)!.outputs).toEqual([{ toolCallId: "c1", totalChars: stored.totalChars }]);
    recorder.close();
  });
});

describe("the session row's counters", () => {
  it("lag the committed messages by a timer at most, are current for every store read, and are rebuilt after a crash", async () => {
    const project = store.openProject("/repo");
    const session = store.createSession({ projectId: project.id });
    const recorder = store.recorder(session.id, { flushDelayMs: 10_000 });
    const rowCount = () => store.db.prepare("SELECT message_count FROM sessions WHERE id = ?").pluck().get(session.id);
    recorder.handle({ type: "agent_start" });
    const usageOf = (tokens: number) => assistant("answer", [], tokens);
    for (const m of [user("first prompt"), usageOf(100), user("second"), usageOf(50)]) recorder.handle({ type: "message_end", message: m });
    expect(store.db.prepare("SELECT count(*) FROM messages").pluck().get()).toBe(4);
    expect(rowCount()).toBe(0);
    // Any store read brings them up first.
    expect(store.getSession(session.id)).toMatchObject({ messageCount: 4, tokens: 150, title: "first prompt" });
    expect(rowCount()).toBe(4);
    // An append outside the recorder (a compaction entry between runs) takes the next position, and the recorder goes on after it.
    expect(store.appendMessage(session.id, user("out of band"))).toBe(4);
    recorder.handle({ type: "message_end", message: user("after it") });
    expect(store.readMessages(session.id, 5)).toEqual([user("after it")]);
    expect(store.openPage(session.id)!.total).toBe(6);

    // A crash before the counters were written: the repair counts the rows.
    recorder.handle({ type: "message_end", message: usageOf(7) });
    expect(rowCount()).toBe(6);
    // The files as a kill -9 now would leave them (what is committed is in the database and its WAL).
    const crashed = tempDir();
    for (const suffix of ["", "-wal"]) fs.copyFileSync(store.path + suffix, path.join(crashed, `lathe.db${suffix}`));
    const after = openStore({ dataDir: crashed });
    try {
      expect(after.notices.map((n) => n.kind)).toContain("runs-interrupted");
      expect(after.store.getSession(session.id)).toMatchObject({ messageCount: 7, tokens: 157 });
      expect(after.store.db.prepare("SELECT message_count FROM sessions WHERE id = ?").pluck().get(session.id)).toBe(7);
    } finally {
      after.store.close();
      fs.rmSync(crashed, { recursive: true, force: true });
    }
    recorder.close();
  });

  it("records a call's phases with the reason given, and ends a run left without agent_end as interrupted", () => {
    const session = store.createSession({ projectId: store.openProject("/repo").id });
    const recorder = store.recorder(session.id);
    expect(recorder.runId).toBeNull();
    recorder.handle({ type: "agent_start" });
    recorder.handle({ type: "tool_execution_start", toolCallId: "c1", toolName: "bash", args: {} });
    recorder.handle({ type: "tool_call_phase", toolCallId: "c1", phase: "executing" });
    recorder.handle({ type: "tool_call_phase", toolCallId: "c2", phase: "denied", reason: "the user said no" });
    recorder.handle({ type: "tool_call_phase", toolCallId: "c3", phase: "stopped" });
    recorder.flush();
    const first = recorder.runId;
    expect(first).not.toBeNull();
    // A new agent_start before agent_end: the first run ended without saying so.
    recorder.handle({ type: "agent_start" });
    recorder.handle({ type: "agent_end", messages: [] });
    recorder.flush();
    const times = readToolCallTimes(store.db, session.id, ["c1", "c2", "c3"]);
    expect(times.map(({ toolCallId, executingAt, outcome, reason }) => ({ toolCallId, executing: executingAt !== null, outcome, reason }))).toEqual([
      { toolCallId: "c1", executing: true, outcome: null, reason: null },
      { toolCallId: "c2", executing: false, outcome: "denied", reason: "the user said no" },
      { toolCallId: "c3", executing: false, outcome: "stopped", reason: null },
    ]);
    expect(store.db.prepare("SELECT id, status FROM runs WHERE session_id = ? ORDER BY id").all(session.id)).toEqual([
      { id: first, status: "interrupted" },
      { id: expect.any(Number), status: "completed" },
    ]);
    recorder.close();
  });
});
