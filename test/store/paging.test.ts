// Opening in O(page) (issue 16): a 100,000-message session opens at its newest page with what the
// view needs (length, tools active at the end, compaction entries, the page's tool times and
// logs), scrolls up to its first message page by page, opens around a search hit in the middle,
// and forks and exports whole. Opening parses only the page and the marked messages (counted
// through JSON.parse, not timed). A version-5 database upgrades with its old event log turned
// into tool call times and marks.
import Database from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { AgentMessage, CustomMessage } from "../../app/shared/agent-types.ts";
import { openStore, type SessionStore } from "../../app/main/store/index.ts";
import { MIGRATIONS } from "../../app/main/store/migrations.ts";
import { prepareConnection } from "../../app/main/store/open-database.ts";
import { writeToolOutput } from "../../app/main/store/tool-output.ts";
import { recordToolEnd, recordToolStart } from "../../app/main/store/tool-calls.ts";
import { assistant, call, result, tempDir, user } from "./helpers.ts";

const TOTAL = 100_000;
const MIDDLE = 54_321;
const ADDS_TOOLS = 10;
const COMPACTION_AT = 60_000;

const compaction = (firstKeptIndex: number): CustomMessage => ({
  role: "custom",
  customType: "compaction",
  content: "summary of the early part",
  display: true,
  details: { firstKeptIndex, tokensBefore: 1000, tokensAfter: 100, trigger: "manual" },
  timestamp: 1,
});

/** user, then assistant-with-call / result pairs; a tool result adding tools, a compaction, a unique word. */
function transcript(): AgentMessage[] {
  const messages: AgentMessage[] = [user("start of a very long session")];
  while (messages.length < TOTAL) {
    const p = messages.length;
    if (p === COMPACTION_AT) messages.push(compaction(40_000));
    else if (p === MIDDLE) messages.push(user("the one wallaby in the middle"));
    else if (p % 2 === 1 && p + 1 < TOTAL && p + 1 !== COMPACTION_AT && p + 1 !== MIDDLE) {
      messages.push(assistant(`step ${p}`, [call(`c${p}`, "bash", { command: `echo ${p}` })]));
      messages.push(result(`c${p}`, "bash", `output ${p}`, p + 1 === ADDS_TOOLS ? ["web_fetch"] : undefined));
    } else messages.push(user(`note ${p}`));
  }
  return messages;
}

let dir: string;
let store: SessionStore;
let sessionId: number;
let all: AgentMessage[];

beforeAll(() => {
  dir = tempDir();
  store = openStore({ dataDir: dir }).store;
  const project = store.openProject("/long");
  sessionId = store.createSession({ projectId: project.id, baseToolNames: ["read", "bash"] }).id;
  all = transcript();
  expect(all[ADDS_TOOLS]).toMatchObject({ role: "toolResult", addedToolNames: ["web_fetch"] });
  store.db.transaction(() => {
    for (let i = 0; i < all.length; i += 5000) store.appendMessages(sessionId, all.slice(i, i + 5000));
    for (const p of [TOTAL - 3, TOTAL - 101, 5]) {
      recordToolStart(store.db, sessionId, `c${p}`, 1000 + p);
      recordToolEnd(store.db, sessionId, `c${p}`, 2000 + p, false);
    }
    writeToolOutput(store.db, sessionId, `c${TOTAL - 3}`, { head: "out\r\n", tail: "", totalChars: 5, omittedChars: 0, skippedChars: 0 }, 1);
  })();
}, 120_000);

afterAll(() => {
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Characters JSON.parse is given while `fn` runs. */
function parsedChars(fn: () => void): number {
  const parse = vi.spyOn(JSON, "parse");
  try {
    fn();
    return parse.mock.calls.reduce((n, [text]) => n + String(text).length, 0);
  } finally {
    parse.mockRestore();
  }
}

describe("paged open of a 100,000-message session", () => {
  it("opens at the newest page with the length, the tools active at the end, the compaction entries and the page's tool times", () => {
    let page!: ReturnType<SessionStore["openPage"]>;
    const stored = store.db.prepare("SELECT sum(length(data)) FROM messages").pluck().get() as number;
    const parsed = parsedChars(() => (page = store.openPage(sessionId)));
    expect(parsed).toBeLessThan(stored / 100);
    expect(page!.total).toBe(TOTAL);
    expect(page!.first).toBe(TOTAL - 200);
    expect(page!.messages).toEqual(all.slice(TOTAL - 200));
    expect(page!.activeToolNames).toEqual(["read", "bash", "web_fetch"]);
    expect(page!.compactions).toEqual([{ position: COMPACTION_AT, message: all[COMPACTION_AT] }]);
    expect(page!.toolCalls.map((t) => t.toolCallId).sort()).toEqual([`c${TOTAL - 101}`, `c${TOTAL - 3}`]);
    expect(page!.toolCalls.find((t) => t.toolCallId === `c${TOTAL - 3}`)).toEqual({
      toolCallId: `c${TOTAL - 3}`,
      startedAt: 1000 + TOTAL - 3,
      executingAt: null,
      endedAt: 2000 + TOTAL - 3,
      isError: false,
      outcome: "done",
      reason: null,
    });
    expect(page!.outputs).toEqual([{ toolCallId: `c${TOTAL - 3}`, totalChars: 5 }]);
  });

  it("scrolls up to the first message, page by page, each page exactly the messages before the last", () => {
    let first = store.openPage(sessionId, { limit: 1000 })!.first;
    const seen: AgentMessage[][] = [];
    let pages = 0;
    while (first > 0) {
      const page = store.readPage(sessionId, { before: first, limit: 1000 });
      expect(page.first + page.messages.length).toBe(first);
      seen.unshift(page.messages);
      first = page.first;
      pages++;
    }
    expect(pages).toBe(99);
    expect(seen.flat()).toEqual(all.slice(0, TOTAL - 1000));
    expect(seen[0]![0]).toEqual(all[0]);
    expect(store.readPage(sessionId, { before: 6, limit: 2 }).toolCalls).toEqual([
      { toolCallId: "c5", startedAt: 1005, executingAt: null, endedAt: 2005, isError: false, outcome: "done", reason: null },
    ]);
    expect(store.readPage(sessionId, { before: 0 }).messages).toEqual([]);
    // Positions beyond any session's range never reach the next session's messages.
    const next = store.createSession({ projectId: store.getSession(sessionId)!.projectId });
    store.appendMessage(next.id, user("the next session's first message"));
    expect(store.readPage(sessionId, { before: 2 ** 24 + 5 }).messages).toEqual([]);
    expect(store.readPage(sessionId, { from: 2 ** 24 - 1, limit: 10 }).messages).toEqual([]);
    expect(store.readPage(sessionId, { from: 2 ** 40 }).messages).toEqual([]);
  }, 120_000);

  it("opens around a search hit in the middle, and pages down from there", () => {
    const hit = store.search("wallaby").hits[0]!;
    expect(hit.position).toBe(MIDDLE);
    let page!: ReturnType<SessionStore["openPage"]>;
    const parsed = parsedChars(() => (page = store.openPage(sessionId, { around: hit.position })));
    expect(parsed).toBeLessThan(200_000);
    expect(page!.first).toBe(MIDDLE - 100);
    expect(page!.messages[hit.position - page!.first]).toEqual(all[MIDDLE]);
    expect(page!.total).toBe(TOTAL);
    const next = store.readPage(sessionId, { from: page!.first + page!.messages.length });
    expect(next.messages).toEqual(all.slice(MIDDLE + 100, MIDDLE + 300));
    // Near either end the page stays full.
    expect(store.openPage(sessionId, { around: 3 })!.first).toBe(0);
    expect(store.openPage(sessionId, { around: TOTAL - 1 })!.first).toBe(TOTAL - 200);
  });

  it("forks and exports the whole session", () => {
    expect(all[TOTAL - 3]).toMatchObject({ role: "assistant" });
    const fork = store.forkSession(sessionId, TOTAL - 3);
    expect(fork.messageCount).toBe(TOTAL - 1); // the call at TOTAL - 3 brings its result along
    const opened = store.openPage(fork.id)!;
    expect(opened.activeToolNames).toEqual(["read", "bash", "web_fetch"]);
    expect(opened.compactions.map((c) => c.position)).toEqual([COMPACTION_AT]);
    expect(store.readMessages(fork.id)).toEqual(all.slice(0, TOTAL - 1));
    expect(
      store
        .openSession(fork.id)!
        .toolCalls.map((t) => t.toolCallId)
        .sort(),
    ).toEqual([`c${TOTAL - 101}`, `c${TOTAL - 3}`, "c5"].sort());
    expect(store.openPage(fork.id)!.outputs).toEqual([{ toolCallId: `c${TOTAL - 3}`, totalChars: 5 }]);

    const json = store.exportJson(sessionId);
    expect(json.version).toBe(2);
    expect(json.messages).toHaveLength(TOTAL);
    expect(json.activeToolNames.at(-1)).toEqual(["read", "bash", "web_fetch"]);
    expect(json.toolCalls).toHaveLength(3);
    const markdown = store.exportMarkdown(sessionId);
    expect(markdown).toContain("the one wallaby in the middle");
    expect(markdown).toContain(`step ${TOTAL - 3}`);
    expect(markdown.indexOf("start of a very long session")).toBeLessThan(markdown.indexOf("wallaby"));
  }, 180_000);
});

describe("upgrading a version-5 database", () => {
  it("turns its event log into tool call times and marks, and keeps only the events the messages do not say", () => {
    const dataDir = tempDir();
    try {
      const v5 = new Database(path.join(dataDir, "lathe.db"));
      prepareConnection(v5);
      for (const migration of MIGRATIONS.filter((m) => m.version <= 5)) migration.up(v5);
      v5.pragma("user_version = 5");
      const messages: AgentMessage[] = [
        user("go"),
        assistant("calling", [call("t1", "tool_search"), call("t2", "bash")]),
        result("t1", "tool_search", "found", ["web_fetch"]),
        result("t2", "bash", "ran"),
        compaction(1),
      ];
      v5.prepare("INSERT INTO projects VALUES (1, '/p', 'p', 1, 1)").run();
      v5.prepare("INSERT INTO sessions (id, project_id, created_at, updated_at, base_tool_names, message_count) VALUES (1, 1, 1, 1, '[\"read\"]', ?)").run(messages.length);
      messages.forEach((m, p) => v5.prepare("INSERT INTO messages (id, role, data, created_at) VALUES (?, ?, ?, 1)").run(2 ** 24 + p, m.role, JSON.stringify(m)));
      v5.prepare("INSERT INTO runs (id, session_id, started_at, ended_at, status) VALUES (1, 1, 1, 9, 'completed')").run();
      const events: [string, unknown][] = [
        ["agent_start", {}],
        ["message_end", { ref: 0 }],
        ["message_update", { ref: 1, update: { type: "text_end", contentIndex: 1 } }],
        ["tool_execution_start", { toolCallId: "t1", toolName: "tool_search", args: {} }],
        ["tool_execution_start", { toolCallId: "t2", toolName: "bash", args: {} }],
        ["provider_retry", { retry: { attempt: 1, maxAttempts: 5, delayMs: 10, error: "overloaded" } }],
        ["tool_execution_end", { toolCallId: "t2", toolName: "bash", result: { content: [], details: {} }, isError: true }],
        ["tool_execution_end", { toolCallId: "t1", toolName: "tool_search", result: { content: [], details: {} }, isError: false }],
        ["turn_end", { ref: 1, toolResults: [{ ref: 2 }, { ref: 3 }] }],
        ["agent_end", { messages: [{ ref: 0 }] }],
      ];
      events.forEach(([type, data], seq) => v5.prepare("INSERT INTO events (run_id, seq, at, type, data) VALUES (1, ?, ?, ?, ?)").run(seq, 100 + seq, type, JSON.stringify(data)));
      v5.close();

      const { store: upgraded, notices } = openStore({ dataDir });
      try {
        expect(notices.map((n) => n.kind)).toContain("database-migrated");
        const opened = upgraded.openSession(1)!;
        expect(opened.messages).toEqual(messages);
        expect(opened.events.map((e) => e.event)).toEqual([{ type: "provider_retry", retry: { attempt: 1, maxAttempts: 5, delayMs: 10, error: "overloaded" } }]);
        expect(opened.toolCalls).toEqual([
          { toolCallId: "t1", startedAt: 103, executingAt: 103, endedAt: 107, isError: false, outcome: "done", reason: null },
          { toolCallId: "t2", startedAt: 104, executingAt: 104, endedAt: 106, isError: true, outcome: "failed", reason: null },
        ]);
        const page = upgraded.openPage(1, { limit: 2 })!;
        expect(page.activeToolNames).toEqual(["read", "web_fetch"]);
        expect(page.compactions).toEqual([{ position: 4, message: messages[4] }]);
        expect(upgraded.readPage(1, { before: 3 }).toolCalls.map((t) => t.toolCallId)).toEqual(["t1", "t2"]);
      } finally {
        upgraded.close();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
