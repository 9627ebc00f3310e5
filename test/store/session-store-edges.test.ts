// The session store (session-store.ts, session-lifecycle.ts, transcripts.ts, store-upkeep.ts) at
// its edges: a read-only store refuses every write by name and starts nothing in the background
// (indexing, the word list's fill, checkpoints); reads and indexing first bring a recorder's
// lagging counters up; refused edits say why; a fork copies the terminal logs of the calls it
// brings along, and brings tool results along only after an assistant message.
import Database from "better-sqlite3";
import fs from "node:fs";
import { Worker } from "node:worker_threads";
import { afterEach, describe, expect, it, vi } from "vitest";
import { openStore, StoreError, type SessionStore } from "../../app/main/store/index.ts";
import { READ } from "../../app/main/store/search-words-fill.ts";
import type { AgentMessage } from "../../app/shared/agent-types.ts";
import { assistant, call, result, tempDir, user } from "./helpers.ts";
import { writeV7Database } from "./v7-database.ts";

const dirs: string[] = [];
const stores: SessionStore[] = [];
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  stores.splice(0).forEach((s) => s.close());
  dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true }));
});

function folder(): string {
  const dir = tempDir();
  dirs.push(dir);
  return dir;
}
function open(dir: string, readOnly = false): SessionStore {
  const { store } = openStore({ dataDir: dir, readOnly });
  stores.push(store);
  return store;
}

/** The error `act` throws (fails the test when it throws nothing). */
function thrownBy(act: () => unknown): StoreError {
  try {
    act();
  } catch (error) {
    return error as StoreError;
  }
  throw new Error("expected a throw");
}

describe("a read-only store", () => {
  it("refuses every write, naming it", () => {
    const dir = folder();
    const writer = open(dir);
    const project = writer.openProject("/p");
    const session = writer.createSession({ projectId: project.id });
    writer.appendMessage(session.id, user("kept"));
    writer.softDeleteSession(writer.createSession({ projectId: project.id }).id);
    writer.close();
    const reader = open(dir, true);
    const writes: [string, () => unknown][] = [
      ["renaming the session", () => reader.renameSession(session.id, "new")],
      ["moving the session to another project", () => reader.setSessionProject(session.id, project.id)],
      ["saving the session's model", () => reader.setSessionModel(session.id, "m")],
      ["archiving the session", () => reader.archiveSession(session.id)],
      ["deleting the session", () => reader.deleteSession(session.id)],
      ["deleting the session", () => reader.softDeleteSession(session.id)],
      ["restoring the session", () => reader.restoreSession(session.id + 1)],
      ["forking the session", () => reader.forkSession(session.id, 0)],
      ["saving 2 messages", () => reader.appendMessages(session.id, [user("a"), user("b")])],
      ["creating a session", () => reader.createSession({ projectId: project.id })],
    ];
    for (const [action, write] of writes) {
      const error = thrownBy(write);
      expect(error).toBeInstanceOf(StoreError);
      expect({ failure: error.failure, message: error.message }).toEqual({
        failure: "read-only",
        message: `This Lathe opened the data folder read-only: ${action} is not possible.`,
      });
    }
    expect(reader.readMessages(session.id)).toEqual([user("kept")]);
    // No checkpointer: nothing to checkpoint.
    expect(reader.checkpoint()).toBe(false);
  });

  it("starts nothing in the background: no indexing, no word list fill", () => {
    const dir = folder();
    writeV7Database(dir, ["quokkas and pangolins"]);
    open(dir).close(); // upgraded by the holder: the word list is left to fill
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] });
    const post = vi.spyOn(Worker.prototype, "postMessage");
    const reader = open(dir, true);
    reader.startSearchWordsFill();
    expect(vi.getTimerCount()).toBe(0);
    expect(post).not.toHaveBeenCalled();
    expect(reader.searchWordsComplete()).toBe(false);
  });

  it("searches what the holder has indexed, without indexing the rest itself", () => {
    const dir = folder();
    const writer = open(dir);
    const session = writer.createSession({ projectId: writer.openProject("/p").id });
    writer.appendMessage(session.id, user("indexed quokka"));
    writer.flushSearchIndex();
    const reader = open(dir, true);
    // Committed, not yet indexed (the holder's indexer runs a moment later).
    writer.appendMessage(session.id, user("pending quokka"));
    expect(reader.search("quokka").hits.map((h) => h.position)).toEqual([0]);
    expect(reader.pendingSearchIndex()).toBe(1);
  });
});

describe("the store's background work", () => {
  it("indexes at open what an earlier run left unindexed, without a write", () => {
    const dir = folder();
    writeV7Database(dir, ["indexed quokka"]);
    open(dir).close();
    // A message committed but never indexed (the indexer had not run when the process ended).
    const writer = open(dir);
    writer.db.prepare("INSERT INTO messages (id, role, data, created_at) VALUES (?, 'user', ?, 1)").run(2 ** 24 + 1, JSON.stringify(user("unindexed quokka")));
    writer.db.prepare("UPDATE sessions SET message_count = 2").run();
    writer.close();
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const store = open(dir);
    expect(store.pendingSearchIndex()).toBe(1);
    vi.advanceTimersByTime(1000);
    expect(store.pendingSearchIndex()).toBe(0);
  });

  it("fills the word list in a worker, reading again a range the indexer changed meanwhile", async () => {
    const dir = folder();
    writeV7Database(dir, ["quokkas and pangolins"]);
    const store = open(dir);
    const post = vi.spyOn(Worker.prototype, "postMessage");
    store.startSearchWordsFill();
    const worker = post.mock.contexts[0] as Worker;
    // The indexer commits a batch while the first read is in flight.
    const session = store.createSession({ projectId: store.openProject("/q").id });
    store.appendMessage(session.id, user("zebras"));
    store.flushSearchIndex();
    await vi.waitFor(() => expect(store.searchWordsComplete()).toBe(true), { timeout: 15_000, interval: 10 });
    const reads = post.mock.calls.filter((c, i) => post.mock.contexts[i] === worker && c[0] !== "close").map((c) => c[0] as unknown);
    expect(reads).toEqual([
      { after: "", limit: READ },
      { after: "", limit: READ },
    ]);
  });

  it("brings a recorder's lagging counters up before listing, counting pending messages and indexing", () => {
    const store = open(folder());
    const session = store.createSession({ projectId: store.openProject("/p").id });
    const recorder = store.recorder(session.id, { flushDelayMs: 60_000 });
    recorder.handle({ type: "agent_start" });
    recorder.handle({ type: "message_end", message: user("first quokka") });
    expect(store.listSessions().sessions[0]!.messageCount).toBe(1);
    recorder.handle({ type: "message_end", message: user("second quokka") });
    expect(store.pendingSearchIndex()).toBe(2);
    recorder.handle({ type: "message_end", message: user("third quokka") });
    expect(store.flushSearchIndex()).toBe(3);
    recorder.close();
  });
});

describe("writes and closing", () => {
  it("a write brings a recorder's lagging counters up first: the message goes after the recorder's", () => {
    const store = open(folder());
    const session = store.createSession({ projectId: store.openProject("/p").id, title: "named", model: "m1" });
    expect(store.getSession(session.id)).toMatchObject({ title: "named", model: "m1" });
    const recorder = store.recorder(session.id, { flushDelayMs: 60_000 });
    recorder.handle({ type: "agent_start" });
    recorder.handle({ type: "message_end", message: user("recorded") });
    expect(store.appendMessage(session.id, user("appended"))).toBe(1);
    expect(store.readMessages(session.id)).toEqual([user("recorded"), user("appended")]);
    recorder.close();
  });

  it("indexes a write a moment after it commits", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const store = open(folder());
    const session = store.createSession({ projectId: store.openProject("/p").id });
    vi.advanceTimersByTime(1000); // what the open and the first writes scheduled
    store.appendMessage(session.id, user("soon indexed"));
    expect(store.pendingSearchIndex()).toBe(1);
    vi.advanceTimersByTime(1000);
    expect(store.pendingSearchIndex()).toBe(0);
  });

  it("at close brings the counters up, stops the indexer and the word list's fill, and truncates the WAL", () => {
    const dir = folder();
    writeV7Database(dir, ["quokkas and pangolins"]);
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const store = open(dir);
    const post = vi.spyOn(Worker.prototype, "postMessage");
    store.startSearchWordsFill();
    const fillWorker = post.mock.contexts[0] as Worker;
    const session = store.createSession({ projectId: store.openProject("/p").id });
    vi.advanceTimersByTime(1000); // what the open and the first writes scheduled
    store.appendMessage(session.id, user("appended")); // the indexer is due in a moment
    const recorder = store.recorder(session.id, { flushDelayMs: 60_000 });
    recorder.handle({ type: "agent_start" });
    recorder.handle({ type: "message_end", message: user("recorded") }); // its counters lag
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    // Another connection (a read-only Lathe) keeps the WAL from being removed at close.
    const reader = new Database(store.path, { readonly: true });
    reader.prepare("SELECT count(*) FROM sessions").get();
    store.close();
    vi.advanceTimersByTime(1000);
    expect(logged).not.toHaveBeenCalled();
    expect(post.mock.calls.filter((_, i) => post.mock.contexts[i] === fillWorker).at(-1)![0]).toBe("close");
    expect(fs.statSync(`${store.path}-wal`).size).toBe(0);
    expect(reader.prepare("SELECT message_count FROM sessions WHERE id = ?").pluck().get(session.id)).toBe(2);
    reader.close();
  });
});

describe("counters", () => {
  it("count nothing for an assistant message saved without usage, or with usage but no cost", () => {
    const store = open(folder());
    const session = store.createSession({ projectId: store.openProject("/p").id });
    const bare = { ...assistant("no usage"), usage: undefined } as unknown as AgentMessage;
    const noCost = { ...assistant("no cost", [], 7), usage: { ...assistant("x", [], 7).usage, cost: undefined } } as unknown as AgentMessage;
    store.appendMessages(session.id, [bare, noCost]);
    expect(store.getSession(session.id)).toMatchObject({ messageCount: 2, tokens: 7, cost: 0 });
  });
});

describe("refused edits", () => {
  it("say why: an empty title, a session that does not exist or is not deleted, a recorder for no session", () => {
    const store = open(folder());
    const session = store.createSession({ projectId: store.openProject("/p").id });
    expect(thrownBy(() => store.renameSession(session.id, "  "))).toMatchObject({ failure: "invalid", message: "A session title cannot be empty." });
    expect(thrownBy(() => store.renameSession(999, "x"))).toMatchObject({ failure: "not-found", message: "Session 999 does not exist." });
    expect(thrownBy(() => store.restoreSession(session.id))).toMatchObject({ failure: "not-found" });
    expect(thrownBy(() => store.recorder(999))).toMatchObject({ failure: "not-found", message: "Session 999 does not exist." });
  });
});

describe("a fork", () => {
  it("copies the terminal logs of the calls it brings along, and only those", () => {
    const store = open(folder());
    const s = store.createSession({ projectId: store.openProject("/p").id });
    store.appendMessages(s.id, [
      user("go"),
      assistant("run", [call("c1", "bash")]),
      result("c1", "bash", "ok"),
      assistant("again", [call("c2", "bash")]),
      result("c2", "bash", "ok"),
    ]);
    const log = store.db.prepare(
      "INSERT INTO tool_output (session_id, tool_call_id, head, tail, total_chars, omitted_chars, skipped_chars, updated_at) VALUES (?, ?, ?, '', ?, 0, 0, 1)",
    );
    log.run(s.id, "c1", "first output\n", 13);
    log.run(s.id, "c2", "second output\n", 14);
    const fork = store.forkSession(s.id, 1);
    expect(store.toolOutput(fork.id, "c1")?.text).toBe("first output\n");
    expect(store.toolOutput(fork.id, "c2")).toBeUndefined();
  });

  it("through a tool result brings no later result along: only an assistant message's results come with it", () => {
    const store = open(folder());
    const s = store.createSession({ projectId: store.openProject("/p").id });
    store.appendMessages(s.id, [user("go"), assistant("two calls", [call("c1", "read"), call("c2", "read")]), result("c1", "read", "a"), result("c2", "read", "b")]);
    expect(store.forkSession(s.id, 2).messageCount).toBe(3);
    expect(store.forkSession(s.id, 1).messageCount).toBe(4);
  });
});
