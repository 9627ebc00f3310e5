import { describe, expect, it } from "vitest";
import { StoreError, type SessionStore } from "../../app/main/store/index.ts";
import { assistant, call, result, user } from "./helpers.ts";
import { freshStoreForEachTest } from "./support/fresh-store.ts";

let store: SessionStore;

freshStoreForEachTest((opened) => (store = opened));

function sessionWith(messages: Parameters<SessionStore["appendMessages"]>[1], projectFolder = "/work/app") {
  const project = store.openProject(projectFolder);
  const session = store.createSession({ projectId: project.id, baseToolNames: ["read", "bash"], model: "anthropic/claude-test" });
  store.appendMessages(session.id, messages);
  return store.getSession(session.id)!;
}

describe("sessions and messages", () => {
  it("stores messages at dense positions with counters, and takes the title from the first prompt", () => {
    const a = assistant("Looking at it", [call("c1", "read", { path: "a.ts" })], 1500);
    const s = sessionWith([user("  \nFix the flaky login test\nmore details"), a, result("c1", "read", "file body"), assistant("Done", [], 500)]);
    expect(s.messageCount).toBe(4);
    expect(s.tokens).toBe(2000);
    expect(s.cost).toBeCloseTo(0.002);
    expect(s.title).toBe("Fix the flaky login test");
    expect(store.readMessages(s.id).map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "assistant"]);
    expect(store.readMessages(s.id, 1, 3)).toEqual([a, result("c1", "read", "file body")]);
    const row = store.db.prepare("SELECT position, session_id AS sessionId FROM messages ORDER BY id").all();
    expect(row).toEqual([0, 1, 2, 3].map((position) => ({ position, sessionId: s.id })));

    store.appendMessage(s.id, user("A second prompt does not retitle"));
    store.renameSession(s.id, "Login test");
    expect(store.getSession(s.id)!.title).toBe("Login test");
    expect(() => store.renameSession(s.id, "   ")).toThrow(StoreError);
  });

  it("refuses a message for a session that does not exist, writing nothing", () => {
    expect(() => store.appendMessage(999, user("x"))).toThrow(/Session 999 does not exist/);
    expect(store.db.prepare("SELECT count(*) AS n FROM messages").get()).toEqual({ n: 0 });
  });

  it("lists sessions newest first, per project and across projects, paged by cursor", () => {
    const ids: number[] = [];
    for (let i = 0; i < 7; i++) ids.push(sessionWith([user(`prompt ${i}`)], i % 2 === 0 ? "/p/even" : "/p/odd").id);
    // Distinct past activity times (i newer than i-1); then touching session 2 makes it the newest.
    ids.forEach((id, i) => store.db.prepare("UPDATE sessions SET updated_at = ? WHERE id = ?").run(1_000 + i, id));
    store.appendMessage(ids[2]!, assistant("late answer"));
    const seen: number[] = [];
    let page = store.listSessions({ limit: 3 });
    seen.push(...page.sessions.map((s) => s.id));
    while (page.nextCursor) {
      page = store.listSessions({ limit: 3, cursor: page.nextCursor });
      seen.push(...page.sessions.map((s) => s.id));
    }
    expect(seen).toHaveLength(7);
    expect(new Set(seen).size).toBe(7);
    expect(seen).toEqual([ids[2], ids[6], ids[5], ids[4], ids[3], ids[1], ids[0]]);
    expect(store.listSessions({ limit: 50 }).sessions.find((s) => s.id === ids[2])!.messageCount).toBe(2);

    const even = store.listProjects().find((p) => p.folder === "/p/even")!;
    const evenSessions = store.listSessions({ projectId: even.id }).sessions;
    expect(evenSessions.map((s) => s.id).sort()).toEqual([ids[0], ids[2], ids[4], ids[6]].sort());
    expect(evenSessions[0]!.id).toBe(ids[2]);
  });

  it("archives (out of the list and search, back again) and deletes a session with its events, tool call times and marks", () => {
    const keep = sessionWith([user("keep this giraffe")]);
    const gone = sessionWith([user("delete this giraffe")]);
    const recorder = store.recorder(gone.id);
    recorder.handle({ type: "agent_start" });
    recorder.handle({ type: "turn_start" });
    recorder.handle({ type: "provider_retry", retry: { attempt: 1, maxAttempts: 5, delayMs: 10, error: "overloaded" } });
    recorder.handle({ type: "tool_execution_start", toolCallId: "c1", toolName: "bash", args: {} });
    recorder.handle({ type: "tool_execution_end", toolCallId: "c1", toolName: "bash", result: { content: [], details: {} }, isError: false });
    recorder.handle({ type: "message_end", message: user("and a mark") });
    recorder.handle({ type: "message_end", message: { role: "custom", customType: "note", content: "a note", display: true, timestamp: 1 } });
    recorder.handle({ type: "agent_end", messages: [] });
    expect(store.db.prepare("SELECT count(*) AS n FROM events").get()).toEqual({ n: 1 });
    expect(store.db.prepare("SELECT count(*) AS n FROM tool_calls").get()).toEqual({ n: 1 });
    expect(store.db.prepare("SELECT count(*) AS n FROM message_marks").get()).toEqual({ n: 1 });

    store.archiveSession(keep.id);
    expect(store.listSessions().sessions.map((s) => s.id)).toEqual([gone.id]);
    expect(store.listSessions({ archived: true }).sessions.map((s) => s.id)).toEqual([keep.id]);
    expect(store.search("giraffe").hits.map((h) => h.sessionId)).toEqual([gone.id]);
    expect(store.search("giraffe", { includeArchived: true }).hits).toHaveLength(2);
    store.archiveSession(keep.id, false);
    expect(store.listSessions().sessions).toHaveLength(2);

    store.deleteSession(gone.id);
    expect(store.getSession(gone.id)).toBeUndefined();
    expect(store.openSession(gone.id)).toBeUndefined();
    for (const table of ["events", "runs", "tool_calls", "message_marks"]) expect(store.db.prepare(`SELECT count(*) AS n FROM ${table}`).get()).toEqual({ n: 0 });
    expect(store.readMessages(gone.id)).toEqual([]);
    expect(store.search("giraffe").hits.map((h) => h.sessionId)).toEqual([keep.id]);
    // FTS5's integrity check throws when the index disagrees with the messages it indexes.
    const integrityCheck = () => store.db.prepare("INSERT INTO message_fts(message_fts, rank) VALUES ('integrity-check', 1)").run();
    expect(integrityCheck).not.toThrow();
    // The check is real: a 'delete' with text that was never indexed damages the index, and it says so.
    const indexed = store.db.prepare("SELECT rowid AS id FROM message_fts LIMIT 1").get() as { id: number };
    store.db.prepare("INSERT INTO message_fts(message_fts, rowid, text) VALUES ('delete', ?, 'words never indexed')").run(indexed.id);
    expect(integrityCheck).toThrow(/malformed|corrupt/i);
  });
});

describe("fork", () => {
  it("copies the history through a message, links back, and survives deleting the parent", () => {
    const a = assistant("Reading", [call("c1", "read"), call("c2", "grep")]);
    const parent = sessionWith([user("start"), a, result("c1", "read", "one"), result("c2", "grep", "two"), assistant("answer", [], 10), user("next")]);
    const fork = store.forkSession(parent.id, 0);
    expect(fork.parentSessionId).toBe(parent.id);
    expect(fork.forkPosition).toBe(0);
    expect(fork.messageCount).toBe(1);
    expect(store.readMessages(fork.id)).toEqual([user("start")]);

    // Forking at an assistant message with tool calls brings its results along.
    const atCalls = store.forkSession(parent.id, 1);
    expect(atCalls.forkPosition).toBe(3);
    expect(store.readMessages(atCalls.id)).toEqual(store.readMessages(parent.id, 0, 4));

    const late = store.forkSession(parent.id, 4);
    expect(late.tokens).toBe(10);
    store.appendMessage(late.id, user("diverge here"));
    expect(store.readMessages(parent.id)).toHaveLength(6);
    expect(store.readMessages(late.id).at(-1)).toEqual(user("diverge here"));

    store.deleteSession(parent.id);
    expect(store.getSession(late.id)!.parentSessionId).toBeNull();
    expect(store.readMessages(late.id)).toHaveLength(6);
    expect(() => store.forkSession(late.id, 99)).toThrow(/no message at position 99/);
  });
});

describe("search", () => {
  it("finds user, assistant and tool-result text with highlighted snippets pointing at the message", () => {
    const s = sessionWith([
      user("Why does the parser choke on unicode?"),
      assistant("The tokenizer drops the byte order mark", [call("c1", "bash", { command: "grep zebra" })]),
      result("c1", "bash", "src/parser.ts:12: const bom = '\\uFEFF'; // byte order mark"),
    ]);
    const hits = store.search("byte order").hits;
    expect(hits.map((h) => h.position)).toEqual([2, 1]);
    expect(hits[0]!.sessionId).toBe(s.id);
    expect(hits[0]!.role).toBe("toolResult");
    expect(hits[1]!.snippet.filter((p) => p.match).map((p) => p.text)).toEqual(["byte", "order"]);
    expect(hits[1]!.snippet.map((p) => p.text).join("")).toContain("The tokenizer drops the byte order mark");
    // Thinking and tool-call arguments are not indexed.
    expect(store.search("zebra").hits).toEqual([]);
    // Prefix matching on the last word, diacritics folded, odd syntax harmless.
    expect(store.search("unic").hits.map((h) => h.position)).toEqual([0]);
    expect(store.search('"choke" (').hits.map((h) => h.position)).toEqual([0]);
    expect(store.search("  ").hits).toEqual([]);
  });

  it("pages through hits and filters by project", () => {
    for (let i = 0; i < 5; i++) sessionWith([user(`needle number ${i}`)], i < 3 ? "/a" : "/b");
    const first = store.search("needle", { limit: 2 });
    expect(first.hits).toHaveLength(2);
    const second = store.search("needle", { limit: 2, cursor: first.nextCursor });
    const third = store.search("needle", { limit: 2, cursor: second.nextCursor });
    expect(third.nextCursor).toBeNull();
    expect([...first.hits, ...second.hits, ...third.hits].map((h) => h.sessionId)).toHaveLength(5);
    const b = store.listProjects().find((p) => p.folder === "/b")!;
    expect(store.search("needle", { projectId: b.id }).hits.map((h) => h.snippet.map((p) => p.text).join(""))).toEqual(["needle number 4", "needle number 3"]);
  });
});

describe("export", () => {
  it("exports Markdown and JSON", () => {
    const s = sessionWith([user("Explain ```fences```"), assistant("Here", [call("c1", "read", { path: "x.md" })], 42), result("c1", "read", "has ``` inside")]);
    const md = store.exportMarkdown(s.id);
    expect(md).toMatch(/^# Explain ```fences```\n/);
    expect(md).toContain("## User");
    expect(md).toContain("> private reasoning zebra");
    expect(md).toContain('**Tool call** `read` (c1)\n\n```json\n{\n  "path": "x.md"\n}\n```');
    expect(md).toContain("````\nhas ``` inside\n````");
    const json = store.exportJson(s.id);
    expect(json.format).toBe("lathe-session");
    expect(json.messages).toEqual(store.readMessages(s.id));
    expect(json.project?.folder).toBe("/work/app");
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
    expect(() => store.exportMarkdown(12345)).toThrow(/does not exist/);
  });
});

describe("settings, audit log, permission rules", () => {
  it("keeps settings as JSON values", () => {
    expect(store.settings.get("theme", "light")).toBe("light");
    store.settings.set("theme", "dark");
    store.settings.set("limits", { maxTurns: 20 });
    expect(store.settings.get("theme")).toBe("dark");
    expect(store.settings.all()).toEqual({ limits: { maxTurns: 20 }, theme: "dark" });
    store.settings.set("theme", undefined);
    expect(store.settings.get("theme")).toBeUndefined();
  });

  it("records audit entries that outlive their session", () => {
    const s = sessionWith([user("x")]);
    const id = store.audit.record({
      sessionId: s.id,
      toolCallId: "c1",
      toolName: "bash",
      args: { command: "rm -rf build" },
      decision: "allow",
      decidedBy: "user",
      durationMs: null,
      outcome: null,
    });
    store.audit.finish(id, 120, "ok");
    store.audit.record({ sessionId: null, toolCallId: null, toolName: "write", args: {}, decision: "deny", decidedBy: "rule", durationMs: 0, outcome: "blocked" });
    expect(store.audit.list({ sessionId: s.id })).toMatchObject([{ id, toolName: "bash", args: { command: "rm -rf build" }, durationMs: 120, outcome: "ok" }]);
    store.deleteSession(s.id);
    expect(store.audit.list().map((e) => [e.toolName, e.sessionId])).toEqual([
      ["write", null],
      ["bash", null],
    ]);
  });

  it("keeps permission rules by scope; session rules go with their session", () => {
    const s = sessionWith([user("x")]);
    const global = store.permissionRules.add({ tool: "read", action: "allow", scope: "global", scopeId: null });
    store.permissionRules.add({ tool: "bash", pattern: "npm test*", action: "allow", scope: "session", scopeId: s.id });
    store.permissionRules.add({ tool: "bash", pattern: "rm *", action: "deny", scope: "project", scopeId: s.projectId });
    expect(() => store.permissionRules.add({ tool: "x", action: "allow", scope: "project", scopeId: null })).toThrow(/needs a scope id/);
    expect(store.permissionRules.applicable({ tool: "bash", sessionId: s.id, projectId: s.projectId }).map((r) => r.pattern)).toEqual(["npm test*", "rm *"]);
    expect(store.permissionRules.applicable({ sessionId: 77 }).map((r) => r.id)).toEqual([global.id]);
    store.deleteSession(s.id);
    expect(store.permissionRules.all().map((r) => r.scope)).toEqual(["global", "project"]);
  });
});
