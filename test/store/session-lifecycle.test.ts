// Projects and sessions over their life (app/main/store/session-lifecycle.ts, through the store's
// façade, session-store.ts): naming and listing projects, moving a session, its model, delete with
// undo (soft delete, restore, purge), archiving back, and the list's page bounds. Each failure is a StoreError naming what is missing.
import { describe, expect, it } from "vitest";
import { StoreError, type SessionStore } from "../../app/main/store/index.ts";
import { assistant, call, result, user } from "./helpers.ts";
import { freshStoreForEachTest } from "./support/fresh-store.ts";

let store: SessionStore;

freshStoreForEachTest((opened) => (store = opened));

function newSession(projectId = store.openProject("/work/app").id) {
  return store.createSession({ projectId, baseToolNames: ["read"], model: "anthropic/claude-test" });
}

describe("projects", () => {
  it("names a project after its folder's last part unless named, and reopening keeps its name and id", () => {
    const app = store.openProject("/work/app/");
    expect(app).toMatchObject({ folder: "/work/app/", name: "app" });
    expect(store.openProject("C:\\code\\tool").name).toBe("tool");
    expect(store.openProject("/").name).toBe("/");
    const named = store.openProject("/work/other", "Other one");
    expect(named.name).toBe("Other one");
    const again = store.openProject("/work/app/", "ignored");
    expect(again).toMatchObject({ id: app.id, name: "app" });
    expect(again.lastOpenedAt).toBeGreaterThanOrEqual(app.lastOpenedAt);
    expect(store.getProject(named.id)).toEqual(named);
    expect(store.getProject(9999)).toBeUndefined();
  });

  it("lists projects most recently opened first", () => {
    const first = store.openProject("/p/first");
    const second = store.openProject("/p/second");
    store.db.prepare("UPDATE projects SET last_opened_at = ? WHERE id = ?").run(10, first.id);
    store.db.prepare("UPDATE projects SET last_opened_at = ? WHERE id = ?").run(5, second.id);
    expect(store.listProjects().map((p) => p.folder)).toEqual(["/p/first", "/p/second"]);
    store.openProject("/p/second");
    expect(store.listProjects().map((p) => p.folder)).toEqual(["/p/second", "/p/first"]);
  });
});

describe("sessions", () => {
  it("creates a session with defaults: no title, no model, no tools", () => {
    const project = store.openProject("/work/app");
    const s = store.createSession({ projectId: project.id });
    expect(s).toMatchObject({ projectId: project.id, title: null, model: null, baseToolNames: [], messageCount: 0, parentSessionId: null, archivedAt: null });
  });

  it("moves a session to another project and changes its model; a missing session is named", () => {
    const s = newSession();
    const other = store.openProject("/work/fork-worktree");
    store.setSessionProject(s.id, other.id);
    store.setSessionModel(s.id, "openai/gpt-test");
    expect(store.getSession(s.id)).toMatchObject({ projectId: other.id, model: "openai/gpt-test" });
    store.setSessionModel(s.id, null);
    expect(store.getSession(s.id)!.model).toBeNull();
    expect(() => store.setSessionProject(4242, other.id)).toThrow(new StoreError("not-found", "Session 4242 does not exist."));
  });

  it("deletes with undo: a soft-deleted session leaves the list, stays stored, and comes back on restore", () => {
    const kept = newSession();
    const s = newSession();
    store.appendMessage(s.id, user("hello"));
    store.softDeleteSession(s.id, 1_000);
    expect(store.getSession(s.id)).toBeUndefined();
    expect(store.sessionStored(s.id)).toBe(true);
    expect(store.listSessions().sessions.map((x) => x.id)).toEqual([kept.id]);
    expect(() => store.softDeleteSession(s.id)).toThrow(new StoreError("not-found", `Session ${s.id} does not exist.`));
    store.restoreSession(s.id);
    expect(store.getSession(s.id)).toMatchObject({ id: s.id, messageCount: 1 });
    expect(() => store.restoreSession(s.id)).toThrow(/is not deleted \(or was already removed for good\)/);
    expect(store.sessionStored(9999)).toBe(false);
  });

  it("purges the sessions deleted before a time, with their messages, and counts them", () => {
    const early = newSession();
    const late = newSession();
    const live = newSession();
    store.appendMessage(early.id, user("early"));
    store.softDeleteSession(early.id, 100);
    store.softDeleteSession(late.id, 200);
    expect(store.purgeDeletedSessions(200)).toBe(1);
    expect(store.sessionStored(early.id)).toBe(false);
    expect(store.readMessages(early.id)).toEqual([]);
    expect(store.sessionStored(late.id)).toBe(true);
    expect(store.purgeDeletedSessions(201)).toBe(1);
    expect(store.sessionStored(late.id)).toBe(false);
    expect(store.purgeDeletedSessions(Number.MAX_SAFE_INTEGER)).toBe(0);
    expect(store.sessionStored(live.id)).toBe(true);
    expect(() => store.restoreSession(late.id)).toThrow(StoreError);
  });

  it("archives a session out of the list and back; archived ones are listed on request", () => {
    const s = newSession();
    store.archiveSession(s.id);
    expect(store.listSessions().sessions).toEqual([]);
    expect(store.listSessions({ archived: true }).sessions.map((x) => x.id)).toEqual([s.id]);
    store.archiveSession(s.id, false);
    expect(store.getSession(s.id)!.archivedAt).toBeNull();
    expect(store.listSessions({ archived: true }).sessions).toEqual([]);
    expect(() => store.archiveSession(777)).toThrow(new StoreError("not-found", "Session 777 does not exist."));
  });

  it("bounds a list page to between 1 and 500 sessions", () => {
    const project = store.openProject("/work/many");
    const insert = store.db.prepare("INSERT INTO sessions (project_id, created_at, updated_at, base_tool_names) VALUES (?, ?, ?, '[]')");
    store.db.transaction(() => {
      for (let i = 0; i < 502; i++) insert.run(project.id, i, i);
    })();
    expect(store.listSessions({ limit: 0 }).sessions).toHaveLength(1);
    const most = store.listSessions({ limit: 10_000 });
    expect(most.sessions).toHaveLength(500);
    expect(most.nextCursor).not.toBeNull();
    expect(store.listSessions({ limit: 501, cursor: most.nextCursor! }).sessions).toHaveLength(2);
    expect(store.listSessions({ limit: 2, cursor: most.nextCursor! }).nextCursor).toBeNull();
    expect(store.listSessions().sessions).toHaveLength(50);
  });
});

describe("forks", () => {
  it("refuses a position that is not a message of the session, and a session that does not exist", () => {
    const s = newSession();
    store.appendMessages(s.id, [user("one"), user("two")]);
    for (const position of [-1, 2, 0.5, Number.NaN])
      expect(() => store.forkSession(s.id, position)).toThrow(new StoreError("invalid", `Session ${s.id} has no message at position ${position}.`));
    expect(() => store.forkSession(9999, 0)).toThrow(new StoreError("not-found", "Session 9999 does not exist."));
    expect(store.forkSession(s.id, 1).messageCount).toBe(2);
    expect(store.listSessions().sessions).toHaveLength(2);
  });

  it("brings an assistant message's results along up to the next other message, and the times of the copied calls only", () => {
    const s = newSession();
    store.appendMessages(s.id, [
      user("go"),
      assistant("one call", [call("c1", "read")], 100),
      result("c1", "read", "body"),
      assistant("another", [call("c2", "read")], 7),
      result("c2", "read", "more"),
      assistant("last, with a call whose result never came", [call("c3", "read")], 1),
    ]);
    store.db.prepare("INSERT INTO tool_calls (session_id, tool_call_id, started_at, ended_at, is_error, outcome) VALUES (?, ?, 1, 2, 0, 'done')").run(s.id, "c1");
    store.db.prepare("INSERT INTO tool_calls (session_id, tool_call_id, started_at, ended_at, is_error, outcome) VALUES (?, ?, 3, 4, 0, 'done')").run(s.id, "c2");
    const fork = store.forkSession(s.id, 1);
    expect(fork).toMatchObject({ forkPosition: 2, messageCount: 3, tokens: 100, parentSessionId: s.id });
    expect(store.openSession(fork.id)!.toolCalls.map((t) => t.toolCallId)).toEqual(["c1"]);
    // At the last message: nothing after it to bring along.
    const atEnd = store.forkSession(s.id, 5);
    expect(atEnd).toMatchObject({ forkPosition: 5, messageCount: 6, tokens: 108 });
    expect(store.readMessages(atEnd.id)).toEqual(store.readMessages(s.id));
  });

  it("exports of a session that does not exist are refused", () => {
    expect(() => store.exportJson(31337)).toThrow(new StoreError("not-found", "Session 31337 does not exist."));
    expect(() => store.exportMarkdown(31337)).toThrow(new StoreError("not-found", "Session 31337 does not exist."));
    expect(store.openSession(31337)).toBeUndefined();
    expect(store.openPage(31337)).toBeUndefined();
  });
});
