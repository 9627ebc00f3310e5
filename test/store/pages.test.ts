// Pages of a short transcript (app/main/store/pages.ts): the same contract paging.test.ts checks on
// a 100,000-message session, at sizes where every bound is visible: page limits, positions outside
// the session, the opening page around a message, and what the opening page adds.
import { describe, expect, it } from "vitest";
import type { AgentMessage, CustomMessage } from "../../app/shared/agent-types.ts";
import type { SessionStore } from "../../app/main/store/index.ts";
import { recordToolEnd, recordToolStart } from "../../app/main/store/tool-calls.ts";
import { assistant, call, result, user } from "./helpers.ts";
import { freshStoreForEachTest } from "./support/fresh-store.ts";

let store: SessionStore;
let sessionId: number;
let all: AgentMessage[];

const compaction = (customType: string): CustomMessage => ({
  role: "custom",
  customType,
  content: "summary",
  display: true,
  details: { firstKeptIndex: 2, tokensBefore: 10, tokensAfter: 1, trigger: "manual" },
  timestamp: 1,
});

freshStoreForEachTest((opened) => {
  store = opened;
  const project = store.openProject("/short");
  sessionId = store.createSession({ projectId: project.id, baseToolNames: ["read"] }).id;
  // 0 user, 1 assistant+call, 2 result adding a tool, 3 compaction, 4 other custom, 5 undo, 6..9 notes
  all = [
    user("start"),
    assistant("calling", [call("c1", "tool_search")]),
    result("c1", "tool_search", "found", ["web_fetch"]),
    compaction("compaction"),
    compaction("something_else"),
    compaction("compaction_undo"),
    ...[6, 7, 8, 9].map((n) => user(`note ${n}`)),
  ];
  store.appendMessages(sessionId, all);
  recordToolStart(store.db, sessionId, "c1", 10);
  recordToolEnd(store.db, sessionId, "c1", 20, false);
});

describe("pages", () => {
  it("reads [before - limit, before) and [from, from + limit), with the page's tool call times", () => {
    expect(store.readPage(sessionId, { before: 4, limit: 3 })).toMatchObject({ first: 1, messages: all.slice(1, 4) });
    expect(store.readPage(sessionId, { before: 4, limit: 3 }).toolCalls.map((t) => t.toolCallId)).toEqual(["c1"]);
    expect(store.readPage(sessionId, { from: 6, limit: 2 })).toEqual({ first: 6, messages: all.slice(6, 8), toolCalls: [], outputs: [] });
    expect(store.readPage(sessionId, { before: 2, limit: 5 })).toMatchObject({ first: 0, messages: all.slice(0, 2) });
  });

  it("bounds limits to 1..1000 (default 200) and positions to the session", () => {
    expect(store.readPage(sessionId, { from: 0, limit: 0 }).messages).toHaveLength(1);
    expect(store.readPage(sessionId, { from: 0, limit: 2.9 }).messages).toHaveLength(2);
    expect(store.readPage(sessionId, { from: 0 }).messages).toHaveLength(10);
    expect(store.readPage(sessionId, { from: -5, limit: 2 })).toMatchObject({ first: 0, messages: all.slice(0, 2) });
    expect(store.readPage(sessionId, { from: 1.7, limit: 2 })).toMatchObject({ first: 1, messages: all.slice(1, 3) });
    expect(store.readPage(sessionId, { before: -3, limit: 2 })).toMatchObject({ first: 0, messages: [] });
    expect(store.readPage(sessionId, { from: 2 ** 60, limit: 2 }).messages).toEqual([]);
    // A position past the session's span never reaches the next session's messages.
    const next = store.createSession({ projectId: store.getSession(sessionId)!.projectId }).id;
    store.appendMessage(next, user("next session"));
    expect(store.readPage(sessionId, { from: 2 ** 60, limit: 1000 }).messages).toEqual([]);
    expect(store.readPage(sessionId, { before: 2 ** 60, limit: 1000 }).messages).toEqual([]);
  });

  it("opens at the newest page with the length, the tools active at the end and the compaction entries", () => {
    const page = store.openPage(sessionId, { limit: 3 })!;
    expect(page).toMatchObject({ first: 7, total: 10, messages: all.slice(7), activeToolNames: ["read", "web_fetch"] });
    expect(page.session.messageCount).toBe(10);
    expect(page.compactions).toEqual([
      { position: 3, message: all[3] },
      { position: 5, message: all[5] },
    ]);
    expect(store.openPage(sessionId)!).toMatchObject({ first: 0, total: 10 });
  });

  it("opens around a message: the page centred on it, never past the newest page or before the first", () => {
    expect(store.openPage(sessionId, { limit: 4, around: 5 })!.first).toBe(3);
    expect(store.openPage(sessionId, { limit: 4, around: 5.9 })!.first).toBe(3);
    expect(store.openPage(sessionId, { limit: 4, around: 9 })!.first).toBe(6);
    expect(store.openPage(sessionId, { limit: 4, around: 1 })!.first).toBe(0);
    expect(store.openPage(sessionId, { limit: 5, around: 6 })!.first).toBe(4);
  });

  it("counts the stored messages when the session row's counter is behind them", () => {
    store.db.prepare("UPDATE sessions SET message_count = 4 WHERE id = ?").run(sessionId);
    const page = store.openPage(sessionId, { limit: 3 })!;
    expect(page).toMatchObject({ first: 7, total: 10 });
    expect(page.session.messageCount).toBe(10);
    const empty = store.createSession({ projectId: store.getSession(sessionId)!.projectId }).id;
    expect(store.openPage(empty)).toMatchObject({ first: 0, total: 0, messages: [], compactions: [], activeToolNames: [] });
  });
});
