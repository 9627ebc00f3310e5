// The deferred search index (per-session watermark, migrations.ts version 4): what is saved is
// found, whether it was indexed in the background, at search time, or only after a reopen;
// deleting and editing messages on either side of the watermark keeps the FTS index consistent.
import Database from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStore, type SessionStore } from "../../app/main/store/index.ts";
import { prepareConnection } from "../../app/main/store/open-database.ts";
import { MAX_INDEXED_CHARS } from "../../app/main/store/message-text.ts";
import { MIGRATIONS } from "../../app/main/store/migrations.ts";
import { tempDir, user } from "./helpers.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function fresh(): { dir: string; store: SessionStore } {
  const dir = tempDir();
  dirs.push(dir);
  return { dir, store: openStore({ dataDir: dir }).store };
}

/** A database file at schema `version` (migrations applied by hand, as that version left it), with project 1. */
function databaseAt(version: number): { dir: string; db: Database.Database } {
  const dir = tempDir();
  dirs.push(dir);
  const db = new Database(path.join(dir, "lathe.db"));
  prepareConnection(db);
  for (const migration of MIGRATIONS.filter((m) => m.version <= version)) migration.up(db);
  db.pragma(`user_version = ${version}`);
  db.prepare("INSERT INTO projects VALUES (1, '/p', 'p', 1, 1)").run();
  return { dir, db };
}

/** FTS5's own consistency check of the index against its content; throws when they differ. */
function checkIndex(store: SessionStore): void {
  store.db.exec("INSERT INTO message_fts(message_fts, rank) VALUES ('integrity-check', 1)");
}

describe("search index watermark", () => {
  it("indexes appended messages (background and on search) without a per-message queue", async () => {
    const { store } = fresh();
    try {
      const project = store.openProject("/p");
      const session = store.createSession({ projectId: project.id });
      store.appendMessages(session.id, [user("alpha wombat"), user("beta wombat")]);
      expect(store.pendingSearchIndex()).toBe(2);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(store.pendingSearchIndex()).toBe(0);
      store.appendMessage(session.id, user("gamma wombat"));
      expect(store.pendingSearchIndex()).toBe(1);
      expect(store.search("wombat").hits.map((h) => h.position)).toEqual([2, 1, 0]);
      expect(store.db.prepare("SELECT indexed_count FROM sessions WHERE id = ?").pluck().get(session.id)).toBe(3);
      expect(store.db.prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'message_fts_pending'").pluck().get()).toBe(0);
      checkIndex(store);
    } finally {
      store.close();
    }
  });

  it("finds messages saved but not indexed before the store closed, and forks' copies", () => {
    const { dir, store } = fresh();
    const project = store.openProject("/p");
    const session = store.createSession({ projectId: project.id });
    store.appendMessages(session.id, [user("first numbat"), user("second numbat")]);
    // A second connection writes messages this store's indexer never heard of.
    const other = new Database(path.join(dir, "lathe.db"));
    other.prepare("UPDATE sessions SET message_count = 3 WHERE id = ?").run(session.id);
    other.prepare("INSERT INTO messages (id, role, data, created_at) VALUES (?, 'user', ?, 1)").run(session.id * 2 ** 24 + 2, JSON.stringify(user("third numbat")));
    other.close();
    store.close();

    const reopened = openStore({ dataDir: dir }).store;
    try {
      expect(reopened.search("numbat").hits.map((h) => h.position)).toEqual([2, 1, 0]);
      const fork = reopened.forkSession(session.id, 1);
      const hits = reopened.search("numbat").hits;
      expect(hits.filter((h) => h.sessionId === fork.id).map((h) => h.position)).toEqual([1, 0]);
      checkIndex(reopened);
    } finally {
      reopened.close();
    }
  });

  it("keeps the index consistent when sessions with indexed and unindexed messages are deleted or edited", () => {
    const { store } = fresh();
    try {
      const project = store.openProject("/p");
      const session = store.createSession({ projectId: project.id });
      store.appendMessages(session.id, [user("kept quoll"), user("edited quoll")]);
      store.flushSearchIndex();
      store.appendMessage(session.id, user("late quoll")); // above the watermark
      store.db.prepare("UPDATE messages SET data = ? WHERE id = ?").run(JSON.stringify(user("edited bilby")), session.id * 2 ** 24 + 1);
      expect(store.search("bilby").hits.map((h) => h.position)).toEqual([1]);
      expect(store.search("quoll").hits.map((h) => h.position)).toEqual([2, 0]);
      checkIndex(store);

      const other = store.createSession({ projectId: project.id });
      store.appendMessages(other.id, [user("doomed quoll")]);
      store.flushSearchIndex();
      store.appendMessage(other.id, user("doomed unindexed quoll"));
      store.deleteSession(other.id);
      checkIndex(store);
      expect(store.search("doomed").hits).toEqual([]);
      expect(store.search("quoll").hits.map((h) => h.sessionId)).toEqual([session.id, session.id]);
    } finally {
      store.close();
    }
  });

  it("migrates a version-3 database, indexing what its queue still held", () => {
    const { dir, db: v3 } = databaseAt(3);
    v3.prepare("INSERT INTO sessions (id, project_id, created_at, updated_at, message_count) VALUES (1, 1, 1, 1, 2)").run();
    const insert = v3.prepare("INSERT INTO messages (id, role, data, created_at) VALUES (?, 'user', ?, 1)");
    insert.run(2 ** 24, JSON.stringify(user("indexed dingo")));
    v3.exec("DELETE FROM message_fts_pending; INSERT INTO message_fts(rowid, text) SELECT id, lathe_message_text(data) FROM messages");
    insert.run(2 ** 24 + 1, JSON.stringify(user("queued dingo"))); // still in the v3 queue
    expect(v3.prepare("SELECT count(*) FROM message_fts_pending").pluck().get()).toBe(1);
    v3.close();

    const { store, notices } = openStore({ dataDir: dir });
    try {
      expect(notices.map((n) => n.kind)).toEqual(["data-folder-private", "database-migrated"]);
      expect(store.pendingSearchIndex()).toBe(0);
      expect(store.search("dingo").hits.map((h) => h.position)).toEqual([1, 0]);
      store.deleteSession(1);
      checkIndex(store);
    } finally {
      store.close();
    }
  });

  // A text longer than the index's bound: `first` at its start, `last` only past the bound.
  const longText = (first = "wombat", last = "numbat") => `${first} ${"lorem ipsum ".repeat(Math.ceil(MAX_INDEXED_CHARS / 12))}${last}`;

  it("indexes a long message's first million characters, and stays consistent when it is edited or deleted", () => {
    const { store } = fresh();
    try {
      const project = store.openProject("/p");
      const session = store.createSession({ projectId: project.id });
      store.appendMessages(session.id, [user(longText()), user("short numbat")]);
      store.flushSearchIndex();
      expect(store.search("wombat").hits.map((h) => h.position)).toEqual([0]);
      expect(store.search("numbat").hits.map((h) => h.position)).toEqual([1]);
      const indexed = store.db
        .prepare("SELECT length(text) FROM message_text WHERE id = ?")
        .pluck()
        .get(session.id * 2 ** 24) as number;
      expect(indexed).toBeLessThanOrEqual(MAX_INDEXED_CHARS);
      expect(indexed).toBeGreaterThan(MAX_INDEXED_CHARS - 256);
      checkIndex(store);
      store.db.prepare("UPDATE messages SET data = ? WHERE id = ?").run(JSON.stringify(user(longText("kowari"))), session.id * 2 ** 24);
      expect(store.search("kowari").hits.map((h) => h.position)).toEqual([0]);
      checkIndex(store);
      const fork = store.forkSession(session.id, 1);
      store.flushSearchIndex();
      expect(
        store
          .search("kowari")
          .hits.map((h) => h.sessionId)
          .sort(),
      ).toEqual([session.id, fork.id].sort());
      checkIndex(store);
      store.deleteSession(session.id);
      checkIndex(store);
      expect(store.search("kowari").hits.map((h) => h.sessionId)).toEqual([fork.id]);
    } finally {
      store.close();
    }
  });

  it("migrates a version-9 database: a long message indexed whole keeps its whole text in the index, later ones are capped", () => {
    const { dir, db: v9 } = databaseAt(9);
    // Session 2, an even id: a position mask off by one (cappedSql) would read its lowest bit, 0.
    const S = 2 * 2 ** 24;
    v9.prepare("INSERT INTO sessions (id, project_id, created_at, updated_at, message_count, indexed_count) VALUES (2, 1, 1, 1, 3, 2)").run();
    const insert = v9.prepare("INSERT INTO messages (id, role, data, created_at) VALUES (?, 'user', ?, 1)");
    insert.run(S, JSON.stringify(user(longText())));
    insert.run(S + 1, JSON.stringify(user("short dingo")));
    v9.exec("INSERT INTO message_fts(rowid, text) SELECT id, lathe_message_text(data) FROM messages");
    insert.run(S + 2, JSON.stringify(user(longText("koala", "quokka")))); // saved, not indexed yet
    expect(v9.prepare("SELECT rowid FROM message_fts WHERE message_fts MATCH 'numbat'").pluck().all()).toEqual([S]);
    v9.close();

    const { store, notices } = openStore({ dataDir: dir });
    try {
      expect(notices.map((n) => n.kind)).toContain("database-migrated");
      store.flushSearchIndex();
      checkIndex(store);
      expect(store.search("numbat").hits.map((h) => h.position)).toEqual([0]);
      expect(store.search("koala").hits.map((h) => h.position)).toEqual([2]);
      expect(store.search("quokka").hits).toEqual([]);
      // Edited: taken out whole and indexed whole again.
      store.db.prepare("UPDATE messages SET data = ? WHERE id = ?").run(JSON.stringify(user(longText("kowari", "bilby"))), S);
      checkIndex(store);
      expect(store.search("bilby").hits.map((h) => h.position)).toEqual([0]);
      store.deleteSession(2);
      checkIndex(store);
      expect(store.search("dingo").hits).toEqual([]);
    } finally {
      store.close();
    }
  });
});
