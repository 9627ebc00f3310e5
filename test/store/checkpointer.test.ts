// The WAL checkpointer (app/main/store/checkpointer.ts): a worker thread with its own connection,
// started a moment after the first write (never by a store that only reads), that runs a passive
// checkpoint each interval in which something was written; SQLite's automatic checkpoint is off
// while it runs and back on when the worker cannot run.
import fs from "node:fs";
import path from "node:path";
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { Checkpointer } from "../../app/main/store/checkpointer.ts";
import { tempDir } from "./helpers.ts";

const dir = tempDir();
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const opened: Database.Database[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const db of opened.splice(0)) db.close();
});

function walDatabase(name: string): { db: Database.Database; file: string } {
  const file = path.join(dir, name);
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.exec("CREATE TABLE IF NOT EXISTS t (x)");
  opened.push(db);
  return { db, file };
}

const autocheckpoint = (db: Database.Database) => db.pragma("wal_autocheckpoint", { simple: true });
/** Long enough for a start scheduled with setTimeout(0) to have run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 30));

describe("Checkpointer", () => {
  it("starts its worker a moment after the first write, not before, and turns SQLite's own checkpoint off", async () => {
    const { db, file } = walDatabase("starts.db");
    const checkpointer = new Checkpointer(db, file, 20);
    await settle();
    expect(checkpointer.inWorker).toBe(false);
    checkpointer.noteWrite();
    checkpointer.noteWrite();
    expect(checkpointer.inWorker).toBe(false);
    await vi.waitFor(() => expect(checkpointer.inWorker).toBe(true));
    expect(autocheckpoint(db)).toBe(0);
    checkpointer.close();
    expect(checkpointer.inWorker).toBe(false);
  });

  it("asks the worker for a checkpoint once per interval with writes, none without", async () => {
    const post = vi.spyOn(Worker.prototype, "postMessage");
    const { db, file } = walDatabase("ticks.db");
    const checkpointer = new Checkpointer(db, file, 10);
    checkpointer.noteWrite();
    await vi.waitFor(() => expect(post).toHaveBeenCalledWith("checkpoint"));
    const asked = () => post.mock.calls.filter(([message]) => message === "checkpoint").length;
    expect(asked()).toBe(1);
    // No write since: however many intervals pass, no other checkpoint is asked for.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(asked()).toBe(1);
    db.prepare("INSERT INTO t VALUES (1)").run();
    checkpointer.noteWrite();
    await vi.waitFor(() => expect(asked()).toBe(2));
    checkpointer.close();
    expect(post).toHaveBeenLastCalledWith("close");
  });

  it("never starts when closed before its first write is noted, nor for an in-memory database", async () => {
    const started = vi.spyOn(Worker.prototype, "unref");
    const { db, file } = walDatabase("closed-first.db");
    db.pragma("wal_autocheckpoint = 7");
    const closedFirst = new Checkpointer(db, file, 10);
    closedFirst.noteWrite();
    closedFirst.close();
    await settle();
    expect(closedFirst.inWorker).toBe(false);
    // Nor after close, whatever is written.
    closedFirst.noteWrite();
    await settle();
    expect(closedFirst.inWorker).toBe(false);
    expect(autocheckpoint(db)).toBe(7);

    const memory = new Database(":memory:");
    opened.push(memory);
    const inMemory = new Checkpointer(memory, ":memory:", 10);
    inMemory.noteWrite();
    await settle();
    expect(inMemory.inWorker).toBe(false);
    inMemory.close();
    expect(started).not.toHaveBeenCalled();
  });

  it("falls back to SQLite's automatic checkpoint when the worker cannot open the file", async () => {
    const { db } = walDatabase("fallback.db");
    db.pragma("wal_autocheckpoint = 7");
    const checkpointer = new Checkpointer(db, path.join(dir, "missing", "nothing.db"), 10);
    checkpointer.noteWrite();
    await vi.waitFor(() => expect(autocheckpoint(db)).toBe(1000), { timeout: 10_000 });
    expect(checkpointer.inWorker).toBe(false);
    checkpointer.close();
  });

  it("does not start for a database closed before its first write is noted", async () => {
    const started = vi.spyOn(Worker.prototype, "unref");
    const { db, file } = walDatabase("db-closed.db");
    const checkpointer = new Checkpointer(db, file, 10);
    checkpointer.noteWrite();
    db.close();
    await settle();
    expect(checkpointer.inWorker).toBe(false);
    expect(started).not.toHaveBeenCalled();
    checkpointer.close();
  });

  it("checkpoints and truncates the WAL on the calling thread", () => {
    const { db, file } = walDatabase("now.db");
    db.pragma("wal_autocheckpoint = 0");
    for (let i = 0; i < 50; i++) db.prepare("INSERT INTO t VALUES (?)").run(i);
    expect(fs.statSync(`${file}-wal`).size).toBeGreaterThan(0);
    const checkpointer = new Checkpointer(db, file, 10);
    expect(checkpointer.checkpointNow(0)).toBe(true);
    expect(fs.statSync(`${file}-wal`).size).toBe(0);
    checkpointer.close();
  });

  it("checkpoints in the background: the worker copies the WAL's pages into the database file", async () => {
    const started = vi.spyOn(Worker.prototype, "unref");
    const { db, file } = walDatabase("background.db");
    db.pragma("wal_checkpoint(TRUNCATE)");
    const before = fs.statSync(file).size;
    const checkpointer = new Checkpointer(db, file, 10);
    checkpointer.noteWrite();
    await vi.waitFor(() => expect(checkpointer.inWorker).toBe(true));
    const insert = db.prepare("INSERT INTO t VALUES (?)");
    db.transaction(() => {
      for (let i = 0; i < 200; i++) insert.run("x".repeat(1000));
    })();
    expect(fs.statSync(file).size).toBe(before);
    checkpointer.noteWrite();
    await vi.waitFor(() => expect(fs.statSync(file).size).toBeGreaterThan(before + 100_000), { timeout: 10_000 });
    // One worker, however many writes are noted.
    checkpointer.noteWrite();
    await settle();
    expect(started).toHaveBeenCalledTimes(1);
    checkpointer.close();
  });

  it("logs a checkpoint the worker could not run", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const { db } = walDatabase("logged.db");
    const garbage = path.join(dir, "garbage.db");
    fs.writeFileSync(garbage, "not a database ".repeat(500));
    const checkpointer = new Checkpointer(db, garbage, 10);
    checkpointer.noteWrite();
    await vi.waitFor(() => expect(logged).toHaveBeenCalled(), { timeout: 10_000 });
    expect(logged.mock.calls[0]).toEqual(["[store] background checkpoint failed: file is not a database"]);
    checkpointer.close();
  });

  it("leaves SQLite's own checkpoint off once closed, when its worker has exited", async () => {
    const post = vi.spyOn(Worker.prototype, "postMessage");
    const { db, file } = walDatabase("closed.db");
    const checkpointer = new Checkpointer(db, file, 10);
    checkpointer.noteWrite();
    await vi.waitFor(() => expect(post).toHaveBeenCalledWith("checkpoint"));
    const worker = post.mock.contexts[0] as Worker;
    checkpointer.close();
    // close() removes every "exit" listener; an exited worker's threadId is -1.
    await vi.waitFor(() => expect(worker.threadId).toBe(-1), { timeout: 10_000 });
    await settle();
    expect(autocheckpoint(db)).toBe(0);
  });

  it("gives up a checkpoint that a reader keeps from finishing once its time is up", () => {
    const { db, file } = walDatabase("busy.db");
    db.pragma("wal_autocheckpoint = 0");
    db.pragma("busy_timeout = 0");
    for (let i = 0; i < 20; i++) db.prepare("INSERT INTO t VALUES (?)").run(i);
    const reader = new Database(file);
    opened.push(reader);
    reader.exec("BEGIN");
    reader.prepare("SELECT count(*) FROM t").get();
    db.prepare("INSERT INTO t VALUES (-1)").run();
    const checkpointer = new Checkpointer(db, file, 10);
    expect(checkpointer.checkpointNow(20)).toBe(false);
    reader.exec("COMMIT");
    expect(checkpointer.checkpointNow(20)).toBe(true);
    checkpointer.close();
  });
});
