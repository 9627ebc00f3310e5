// The recorder's counters (app/main/store/recorder-counters.ts), driven directly: the position a
// message is inserted at, the title set by the first prompt at once, the session row's counters
// written later (message_count, tokens, cost, updated_at), and the message row helpers under them
// (app/main/store/messages.ts: a missing session, a full session, a missing position).
import { describe, expect, it } from "vitest";
import type { SessionStore } from "../../app/main/store/index.ts";
import { appendMessageRow, insertMessageAt, readMessage } from "../../app/main/store/messages.ts";
import { POSITION_SPAN } from "../../app/main/store/migrations.ts";
import { RecorderCounters } from "../../app/main/store/recorder-counters.ts";
import { assistant, user } from "./helpers.ts";
import { freshStoreForEachTest } from "./support/fresh-store.ts";

let store: SessionStore;
let projectId: number;
freshStoreForEachTest((opened) => {
  store = opened;
  projectId = store.openProject("/p").id;
});

const row = (sessionId: number) =>
  store.db.prepare("SELECT message_count AS count, tokens, cost, updated_at AS at, title FROM sessions WHERE id = ?").get(sessionId) as {
    count: number;
    tokens: number;
    cost: number;
    at: number;
    title: string | null;
  };

/** insert() and its apply step, as the recorder runs them around one committed transaction. */
const committed = (counters: RecorderCounters, message: Parameters<RecorderCounters["insert"]>[0], at: number) => store.db.transaction(() => counters.insert(message, at))()();
const written = (counters: RecorderCounters) => store.db.transaction(() => counters.write())()();

describe("RecorderCounters", () => {
  it("inserts from position 0 in an empty session, and after the stored rows otherwise", () => {
    const empty = store.createSession({ projectId }).id;
    const counters = new RecorderCounters(store.db, empty);
    committed(counters, user("first"), 1);
    expect(readMessage(store.db, empty, 0)).toEqual(user("first"));

    const used = store.createSession({ projectId }).id;
    store.appendMessages(used, [user("one"), assistant("two")]);
    committed(new RecorderCounters(store.db, used), assistant("three"), 1);
    expect(readMessage(store.db, used, 2)).toEqual(assistant("three"));
  });

  it("writes nothing while nothing lags, then the committed messages' count, tokens, cost and latest time", () => {
    const s = store.createSession({ projectId }).id;
    const counters = new RecorderCounters(store.db, s);
    const before = row(s);
    expect(counters.lagging).toBe(false);
    written(counters);
    expect(row(s)).toEqual(before);

    const later = before.at + 1_000_000;
    committed(counters, assistant("a", [], 1000), later);
    committed(counters, assistant("b", [], 500), later - 10);
    expect(counters.lagging).toBe(true);
    expect(row(s).count).toBe(0);
    written(counters);
    expect(counters.lagging).toBe(false);
    const first = row(s);
    expect(first).toMatchObject({ count: 2, tokens: 1500, at: later });
    expect(first.cost).toBeCloseTo(0.0015, 10);

    // Written counts are taken off what lags: a second write adds only what came since.
    committed(counters, assistant("c", [], 200), later);
    written(counters);
    const second = row(s);
    expect(second).toMatchObject({ count: 3, tokens: 1700 });
    expect(second.cost).toBeCloseTo(0.0017, 10);
  });

  it("sets the title from the first prompt at once, before the counters, and only once", () => {
    const s = store.createSession({ projectId }).id;
    const counters = new RecorderCounters(store.db, s);
    // No title to set yet, but the position is not known: not a single statement.
    expect(counters.single(assistant("x"))).toBe(false);
    committed(counters, assistant("an answer has no title"), 1);
    expect(row(s).title).toBeNull();
    expect(counters.single(assistant("x"))).toBe(true);
    expect(counters.single(user("a prompt would set the title"))).toBe(false);
    committed(counters, user("Fix the parser"), 2);
    expect(row(s).title).toBe("Fix the parser");
    expect(row(s).count).toBe(0);
    expect(counters.single(user("no title to set any more"))).toBe(true);
    committed(counters, user("Something else"), 3);
    expect(row(s).title).toBe("Fix the parser");

    // A session titled before these counters existed: read as titled, so a prompt is a single statement.
    const titled = store.createSession({ projectId }).id;
    store.appendMessage(titled, user("An earlier prompt"));
    const later = new RecorderCounters(store.db, titled);
    committed(later, assistant("an answer"), 4);
    expect(later.single(user("another prompt"))).toBe(true);
  });

  it("a session that does not exist is a not-found StoreError", () => {
    expect(() => new RecorderCounters(store.db, 9999).insert(user("x"), 1)).toThrow(
      expect.objectContaining({ name: "StoreError", failure: "not-found", message: "Session 9999 does not exist." }),
    );
  });
});

describe("message rows", () => {
  it("appending to a missing session is a not-found StoreError; a full session refuses the message", () => {
    expect(() => appendMessageRow(store.db, 9999, user("x"), 1)).toThrow(
      expect.objectContaining({ name: "StoreError", failure: "not-found", message: "Session 9999 does not exist." }),
    );
    const s = store.createSession({ projectId }).id;
    expect(() => insertMessageAt(store.db, s, POSITION_SPAN, user("x"), 1)).toThrow(
      expect.objectContaining({ name: "StoreError", failure: "invalid", message: `Session ${s} is full (${POSITION_SPAN} messages).` }),
    );
    insertMessageAt(store.db, s, POSITION_SPAN - 1, user("last"), 1);
    expect(readMessage(store.db, s, POSITION_SPAN - 1)).toEqual(user("last"));
  });

  it("reading a position without a message is undefined", () => {
    const s = store.createSession({ projectId }).id;
    expect(readMessage(store.db, s, 0)).toBeUndefined();
  });
});
