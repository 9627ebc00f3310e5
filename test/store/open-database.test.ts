import Database from "better-sqlite3";
import crypto from "node:crypto";
import fs from "node:fs";
import { once } from "node:events";
import { createRequire } from "node:module";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { afterEach, describe, expect, it } from "vitest";
import { NewerDatabaseError, openStore, StoreError } from "../../app/main/store/index.ts";
import { LATEST_VERSION } from "../../app/main/store/migrations.ts";
import { assistant, call, result, tempDir, user } from "./helpers.ts";

const dirs: string[] = [];
function dataDir(): string {
  const dir = tempDir();
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
const sha = (file: string) => crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex");

/** What a killed holder leaves behind: its description of itself (it is removed on a clean exit). */
function leaveKilledHolder(dir: string): void {
  fs.writeFileSync(path.join(dir, "lathe.lock.json"), JSON.stringify({ pid: 2 ** 22 + 17, app: "the Lathe app", hostname: "box", since: 1 }));
}

describe("opening the database", () => {
  it("creates a fresh database in WAL mode with foreign keys, at the latest version", () => {
    const dir = dataDir();
    const { store, notices } = openStore({ dataDir: dir });
    expect(notices).toEqual([]);
    expect(store.db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(store.db.pragma("foreign_keys", { simple: true })).toBe(1);
    expect(store.db.pragma("user_version", { simple: true })).toBe(LATEST_VERSION);
    store.close();
    expect(fs.readdirSync(dir).filter((f) => f.includes("backup"))).toEqual([]);
  });

  it("truncates the WAL on request even while another thread is checkpointing it", async () => {
    const dir = dataDir();
    const { store } = openStore({ dataDir: dir });
    try {
      const project = store.openProject("/p");
      const session = store.createSession({ projectId: project.id });
      store.appendMessages(
        session.id,
        Array.from({ length: 12_000 }, (_, i) => user(`message ${i} ${"x".repeat(1500)}`)),
      );
      const wal = path.join(dir, "lathe.db-wal");
      expect(fs.statSync(wal).size).toBeGreaterThan(16 * 1024 * 1024);
      // A passive checkpoint of that WAL in another thread holds SQLite's checkpoint lock for a while.
      const other = new Worker(
        `const { parentPort, workerData } = require("node:worker_threads");
         const db = new (require(workerData.driver))(workerData.file);
         parentPort.postMessage("starting");
         db.pragma("wal_checkpoint(PASSIVE)");
         db.close();`,
        { eval: true, workerData: { driver: createRequire(import.meta.url).resolve("better-sqlite3"), file: path.join(dir, "lathe.db") } },
      );
      const exited = once(other, "exit");
      await once(other, "message");
      expect(store.checkpoint()).toBe(true);
      expect(fs.statSync(wal).size).toBe(0);
      await exited;
      expect(store.getSession(session.id)!.messageCount).toBe(12_000);
    } finally {
      store.close();
    }
  });

  it("moves a file that is not a database aside, keeps it, and starts fresh", () => {
    const dir = dataDir();
    const file = path.join(dir, "lathe.db");
    fs.writeFileSync(file, crypto.randomBytes(8192));
    const original = sha(file);
    const { store, notices } = openStore({ dataDir: dir });
    // The file was written 0644 here, as an older Lathe did: it is made private as well.
    expect(notices.map((n) => n.kind)).toEqual(["data-folder-private", "database-corrupt"]);
    const notice = notices[1]!;
    expect(notice.message).toMatch(/damaged.*moved to .*nothing was deleted.*fresh one/);
    if (notice.kind !== "database-corrupt") throw new Error("unreachable");
    expect(sha(notice.movedTo)).toBe(original);
    expect(store.listSessions().sessions).toEqual([]);
    store.openProject("/p");
    store.close();
  });

  it("detects damaged pages inside a real database", () => {
    const dir = dataDir();
    const file = path.join(dir, "lathe.db");
    const first = openStore({ dataDir: dir }).store;
    const project = first.openProject("/p");
    const session = first.createSession({ projectId: project.id });
    for (let i = 0; i < 300; i++) first.appendMessage(session.id, user(`message ${i} `.repeat(50)));
    first.close();
    const bytes = fs.readFileSync(file);
    // Overwrite pages in the middle (not the header) with garbage.
    crypto.randomBytes(4096 * 6).copy(bytes, 4096 * 8);
    fs.writeFileSync(file, bytes);
    // The holder was killed (it left its description): the next start checks the file.
    leaveKilledHolder(dir);
    const { store, notices, checked } = openStore({ dataDir: dir });
    expect(checked).toBe(true);
    expect(notices.map((n) => n.kind)).toEqual(["database-corrupt"]);
    expect(fs.readdirSync(dir).some((f) => f.startsWith("lathe.db.corrupt-"))).toBe(true);
    expect(store.listSessions().sessions).toEqual([]);
    store.close();
  });

  it("checks the database's integrity at start only after an unclean shutdown", () => {
    const dir = dataDir();
    const first = openStore({ dataDir: dir });
    expect(first.checked).toBe(false); // a new folder: nobody held it
    first.store.close();
    const clean = openStore({ dataDir: dir });
    expect(clean.checked).toBe(false);
    clean.store.close();
    leaveKilledHolder(dir);
    const afterCrash = openStore({ dataDir: dir });
    expect(afterCrash.checked).toBe(true);
    afterCrash.store.close();
    const again = openStore({ dataDir: dir });
    expect(again.checked).toBe(false);
    again.store.close();
    expect(openStore({ dataDir: dir, alwaysCheck: true })).toMatchObject({ checked: true });
  });

  it("refuses a database from a newer version with a clear message and leaves it untouched", () => {
    const dir = dataDir();
    const file = path.join(dir, "lathe.db");
    const db = new Database(file);
    db.exec("CREATE TABLE future (x); INSERT INTO future VALUES (1);");
    db.pragma(`user_version = ${LATEST_VERSION + 5}`);
    db.close();
    const before = sha(file);
    let error: unknown;
    try {
      openStore({ dataDir: dir });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(NewerDatabaseError);
    expect((error as Error).message).toMatch(/newer version of Lathe \(schema version \d+; this version understands up to \d+\).*not changed/);
    expect(sha(file)).toBe(before);
    // Only the (empty) folder lock file is added: no WAL, no backup, no copy.
    expect(fs.readdirSync(dir).sort()).toEqual(["lathe.db", "lathe.lock"]);
    expect(fs.statSync(path.join(dir, "lathe.lock")).size).toBe(0);
  });

  it("migrates a version-1 database, keeping its data, with a backup taken first", () => {
    const dir = dataDir();
    const file = path.join(dir, "lathe.db");
    const v1 = new Database(file);
    v1.exec(fs.readFileSync(path.join(import.meta.dirname, "fixtures", "v1-schema.sql"), "utf8"));
    v1.prepare("INSERT INTO projects VALUES (1, '/old/project', 'project', 1000, 2000)").run();
    v1.prepare("INSERT INTO sessions (id, project_id, title, created_at, updated_at, base_tool_names, message_count) VALUES (1, 1, 'Old work', 1000, 2000, '[\"read\"]', 3)").run();
    const old = [user("the quokka prompt"), assistant("reply", [call("c1", "read")]), result("c1", "read", "quokka file", ["grep"])];
    old.forEach((m, position) => v1.prepare("INSERT INTO messages (id, role, data, created_at) VALUES (?, ?, ?, 1000)").run(2 ** 24 + position, m.role, JSON.stringify(m)));
    v1.prepare("INSERT INTO settings VALUES ('theme', '\"dark\"', 1)").run();
    v1.pragma("user_version = 1");
    v1.close();

    const { store, notices } = openStore({ dataDir: dir });
    try {
      expect(notices.map((n) => n.kind)).toEqual(["data-folder-private", "database-migrated"]);
      const notice = notices[1]!;
      if (notice.kind !== "database-migrated") throw new Error(`unexpected notice ${notice.kind}`);
      expect([notice.fromVersion, notice.toVersion]).toEqual([1, LATEST_VERSION]);
      // The backup is the version-1 file, as it was, readable by its owner only.
      if (process.platform !== "win32") expect(fs.statSync(notice.backupPath).mode & 0o777).toBe(0o600);
      const backup = new Database(notice.backupPath, { readonly: true });
      expect(backup.pragma("user_version", { simple: true })).toBe(1);
      expect(backup.prepare("SELECT count(*) FROM messages").pluck().get()).toBe(3);
      backup.close();

      expect(store.db.pragma("user_version", { simple: true })).toBe(LATEST_VERSION);
      const opened = store.openSession(1)!;
      expect(opened.session.title).toBe("Old work");
      expect(opened.messages).toEqual(old);
      expect(opened.activeToolNames.at(-1)).toEqual(["read", "grep"]);
      expect(store.settings.get("theme")).toBe("dark");
      // Version 2 indexed the old messages; version 3 added the audit log.
      expect(store.search("quokka").hits.map((h) => h.position)).toEqual([2, 0]);
      expect(store.audit.list()).toEqual([]);
      expect(store.appendMessage(1, user("new"))).toBe(3);
    } finally {
      store.close();
    }
  });

  it("says clearly when the data folder cannot be used", () => {
    const parent = dataDir();
    const notAFolder = path.join(parent, "file");
    fs.writeFileSync(notAFolder, "x");
    expect(() => openStore({ dataDir: path.join(notAFolder, "data") })).toThrow(StoreError);
    expect(() => openStore({ dataDir: path.join(notAFolder, "data") })).toThrow(/creating the data folder/);
  });

  it("fails a write on a full disk with a clear error and no half-written message", () => {
    const dir = dataDir();
    const { store } = openStore({ dataDir: dir });
    try {
      const project = store.openProject("/p");
      const session = store.createSession({ projectId: project.id });
      store.appendMessage(session.id, user("fits"));
      const pages = store.db.pragma("page_count", { simple: true }) as number;
      store.db.pragma(`max_page_count = ${pages + 2}`);
      const huge = user("x".repeat(200_000));
      expect(() => store.appendMessage(session.id, huge)).toThrow(/disk is full: saving the user message failed and nothing of it was written/);
      const errors: StoreError[] = [];
      const recorder = store.recorder(session.id, { onError: (e) => errors.push(e) });
      recorder.handle({ type: "message_end", message: huge });
      expect(errors.map((e) => e.failure)).toEqual(["disk-full"]);
      store.db.pragma("max_page_count = 1073741823");
      expect(store.getSession(session.id)!.messageCount).toBe(1);
      expect(store.readMessages(session.id)).toEqual([user("fits")]);
      expect(store.appendMessage(session.id, user("after"))).toBe(1);
    } finally {
      store.close();
    }
  });
});
