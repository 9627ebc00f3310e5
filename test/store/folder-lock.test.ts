// One writer per data folder, within one process: a second store on a held folder is refused with
// the holder's description; closing releases; read-only opens without the lock and cannot write.
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FolderLockedError, openStore, StoreError } from "../../app/main/store/index.ts";
import { acquireFolderLock, HOLDER_FILE, readHolder } from "../../app/main/store/folder-lock.ts";
import { tempDir, user } from "./helpers.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
const fresh = () => {
  const dir = tempDir();
  dirs.push(dir);
  return dir;
};

describe("the data folder lock", () => {
  it("refuses a second writer in the same process and names the holder", () => {
    const dir = fresh();
    const first = openStore({ dataDir: dir, app: "the first test store" }).store;
    try {
      let refused: unknown;
      try {
        openStore({ dataDir: dir, app: "the second test store" });
      } catch (error) {
        refused = error;
      }
      expect(refused).toBeInstanceOf(FolderLockedError);
      const error = refused as FolderLockedError;
      expect(error.failure).toBe("in-use");
      expect(error.holder).toMatchObject({ pid: process.pid, app: "the first test store" });
      expect(error.message).toContain(`in use by the first test store (pid ${process.pid}`);
      // The holder is untouched and keeps writing.
      const project = first.openProject("/p");
      const session = first.createSession({ projectId: project.id });
      expect(first.appendMessage(session.id, user("still mine"))).toBe(0);
    } finally {
      first.close();
    }
    // Released on close: the next one gets it, and the description is its own.
    const second = openStore({ dataDir: dir, app: "the second test store" }).store;
    expect(readHolder(dir)).toMatchObject({ pid: process.pid, app: "the second test store" });
    second.close();
    expect(fs.existsSync(path.join(dir, HOLDER_FILE))).toBe(false);
  });

  it("describes an unknown holder when the description is missing, and never trusts a dead one", () => {
    const dir = fresh();
    const lock = acquireFolderLock(dir, "a holder");
    try {
      fs.writeFileSync(path.join(dir, HOLDER_FILE), JSON.stringify({ pid: 999_999_999, app: "a dead one", hostname: "h", since: 1 }));
      expect(() => openStore({ dataDir: dir })).toThrow(/in use by another Lathe process/);
    } finally {
      lock.release();
    }
  });

  it("opens read-only without the lock, reads, and refuses every write", () => {
    const dir = fresh();
    const writer = openStore({ dataDir: dir }).store;
    const project = writer.openProject("/p");
    const session = writer.createSession({ projectId: project.id });
    writer.appendMessage(session.id, user("hello reader"));
    try {
      const reader = openStore({ dataDir: dir, readOnly: true }).store;
      try {
        expect(reader.readOnly).toBe(true);
        expect(reader.readMessages(session.id)).toEqual([user("hello reader")]);
        expect(() => reader.createSession({ projectId: project.id })).toThrow(StoreError);
        expect(() => reader.appendMessage(session.id, user("no"))).toThrow(/read-only/);
        expect(() => reader.db.prepare("DELETE FROM sessions").run()).toThrow(/readonly/i);
        // The writer sees nothing changed and keeps its lock.
        expect(writer.readMessages(session.id)).toHaveLength(1);
        expect(() => openStore({ dataDir: dir })).toThrow(FolderLockedError);
      } finally {
        reader.close();
      }
    } finally {
      writer.close();
    }
  });

  it("leaves crash repair to the holder: read-only repairs nothing", () => {
    const dir = fresh();
    const writer = openStore({ dataDir: dir }).store;
    const project = writer.openProject("/p");
    const session = writer.createSession({ projectId: project.id });
    const recorder = writer.recorder(session.id);
    recorder.handle({ type: "agent_start" });
    recorder.handle({ type: "message_end", message: user("cut short") });
    recorder.close();
    writer.close(); // as if the process had died mid-run: the run is still "running"
    const reader = openStore({ dataDir: dir, readOnly: true });
    expect(reader.notices).toEqual([]);
    expect(reader.store.listRuns(session.id).map((r) => r.status)).toEqual(["running"]);
    reader.store.close();
    const holder = openStore({ dataDir: dir });
    expect(holder.notices.map((n) => n.kind)).toEqual(["runs-interrupted"]);
    expect(holder.store.listRuns(session.id).map((r) => r.status)).toEqual(["interrupted"]);
    holder.store.close();
  });

  it("sets aside a lock file that is not an SQLite file (nobody can hold it) and takes the lock", () => {
    const dir = fresh();
    fs.writeFileSync(path.join(dir, "lathe.lock"), "not a database ".repeat(100));
    const store = openStore({ dataDir: dir }).store;
    expect(fs.readdirSync(dir).some((f) => f.startsWith("lathe.lock.damaged-"))).toBe(true);
    expect(() => openStore({ dataDir: dir })).toThrow(FolderLockedError);
    store.close();
  });

  it("read-only refuses a missing database instead of creating one", () => {
    const dir = fresh();
    expect(() => openStore({ dataDir: dir, readOnly: true })).toThrow(/no session database/);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
