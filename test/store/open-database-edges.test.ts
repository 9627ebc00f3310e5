// openDatabase (app/main/store/open-database.ts) driven directly, on the paths openStore rarely
// takes: read-only opens of files it cannot use, a file SQLite cannot open at all, damaged files
// with WAL companions, a damaged file that cannot be replaced, a backup or migration that fails,
// and the size bound of the integrity check.
import Database from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { StoreError } from "../../app/main/store/errors.ts";
import { NewerDatabaseError } from "../../app/main/store/errors.ts";
import { openDatabase } from "../../app/main/store/open-database.ts";
import { LATEST_VERSION } from "../../app/main/store/migrations.ts";
import { itWhen, needsLinux } from "../support/requirements.ts";
import { tempDir } from "./helpers.ts";

const dirs: string[] = [];
function dataDir(): string {
  const dir = tempDir();
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** The error `open` throws (fails the test when it throws nothing). */
function thrownBy(open: () => unknown): StoreError {
  try {
    open();
  } catch (error) {
    return error as StoreError;
  }
  throw new Error("expected a throw");
}

/** A database file at `version` with one table of one row (not the store's schema). */
function databaseAt(file: string, version: number): void {
  const db = new Database(file);
  db.exec("CREATE TABLE kept (x); INSERT INTO kept VALUES (1);");
  db.pragma(`user_version = ${version}`);
  db.close();
}

/** A version-1 database as an older Lathe wrote it. */
function versionOneDatabase(dir: string): string {
  const file = path.join(dir, "lathe.db");
  const v1 = new Database(file);
  v1.exec(fs.readFileSync(path.join(import.meta.dirname, "fixtures", "v1-schema.sql"), "utf8"));
  v1.prepare("INSERT INTO projects VALUES (1, '/old/project', 'project', 1000, 2000)").run();
  v1.pragma("user_version = 1");
  v1.close();
  return file;
}

const STAMP = /\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$/;

describe("openDatabase read-only", () => {
  it("opens a current database without write access, with no notices", () => {
    const dir = dataDir();
    openDatabase({ dataDir: dir }).db.close();
    const opened = openDatabase({ dataDir: dir, readOnly: true });
    try {
      expect(opened.notices).toEqual([]);
      expect(opened.db.readonly).toBe(true);
      expect(opened.db.pragma("busy_timeout", { simple: true })).toBe(1000);
    } finally {
      opened.db.close();
    }
  });

  it("runs the integrity check only when asked, and only on files up to quickCheckMaxBytes", () => {
    const dir = dataDir();
    openDatabase({ dataDir: dir }).db.close();
    const size = fs.statSync(path.join(dir, "lathe.db")).size;
    const checkedWith = (options: { quickCheck?: boolean; quickCheckMaxBytes?: number }) => {
      const opened = openDatabase({ dataDir: dir, readOnly: true, ...options });
      opened.db.close();
      return opened.checked;
    };
    expect(checkedWith({ quickCheck: false })).toBe(false);
    expect(checkedWith({ quickCheckMaxBytes: size })).toBe(true);
    expect(checkedWith({ quickCheckMaxBytes: size - 1 })).toBe(false);
  });

  it("refuses a missing file as not found, creating nothing", () => {
    const dir = dataDir();
    const error = thrownBy(() => openDatabase({ dataDir: dir, readOnly: true }));
    expect(error).toMatchObject({ name: "StoreError", failure: "not-found" });
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("reports a damaged file instead of moving it aside", () => {
    const dir = dataDir();
    const file = path.join(dir, "lathe.db");
    fs.writeFileSync(file, "not a database ".repeat(500));
    const error = thrownBy(() => openDatabase({ dataDir: dir, readOnly: true }));
    expect(error).toMatchObject({ name: "StoreError", failure: "corrupt" });
    expect(error.message).toMatch(/is damaged; open it without read-only to move it aside/);
    expect(fs.readdirSync(dir)).toEqual(["lathe.db"]);
  });

  it("refuses a file from a newer version, and one that needs an upgrade, leaving both as they are", () => {
    const dir = dataDir();
    const file = path.join(dir, "lathe.db");
    databaseAt(file, LATEST_VERSION + 1);
    expect(thrownBy(() => openDatabase({ dataDir: dir, readOnly: true }))).toBeInstanceOf(NewerDatabaseError);
    fs.rmSync(file);
    databaseAt(file, LATEST_VERSION - 1);
    const error = thrownBy(() => openDatabase({ dataDir: dir, readOnly: true }));
    expect(error).toMatchObject({ name: "StoreError", failure: "read-only" });
    expect(error.message).toContain(`needs an upgrade (version ${LATEST_VERSION - 1} to ${LATEST_VERSION}), which cannot be done read-only`);
    // Closed after refusing: the file can be replaced, and nothing was added beside it.
    expect(new Database(file, { readonly: true }).pragma("user_version", { simple: true })).toBe(LATEST_VERSION - 1);
    expect(fs.readdirSync(dir)).toEqual(["lathe.db"]);
  });
});

describe("openDatabase on files it cannot use", () => {
  it("a database path SQLite cannot open (a folder) is an error naming the file, never moved aside as damaged", () => {
    const dir = dataDir();
    fs.mkdirSync(path.join(dir, "lathe.db"));
    for (const readOnly of [false, true]) {
      const error = thrownBy(() => openDatabase({ dataDir: dir, readOnly }));
      expect(error.name).toBe("StoreError");
      expect(error.failure).not.toBe("corrupt");
      expect(error.message).toContain(`opening the session database ${path.join(dir, "lathe.db")}`);
    }
    expect(fs.readdirSync(dir)).toEqual(["lathe.db"]);
  });

  it("a data folder path that is a file is refused as such", () => {
    const parent = dataDir();
    fs.writeFileSync(path.join(parent, "file"), "x");
    const error = thrownBy(() => openDatabase({ dataDir: path.join(parent, "file", "data") }));
    expect(error.message).toMatch(/^creating the data folder .*data failed: /);
  });

  it("moves a damaged file aside with its WAL and SHM companions, under a time stamp, and starts a private fresh file", () => {
    const dir = dataDir();
    const file = path.join(dir, "lathe.db");
    fs.writeFileSync(file, "not a database ".repeat(500));
    fs.writeFileSync(`${file}-wal`, "the damaged file's log");
    fs.writeFileSync(`${file}-shm`, "its index");
    // Another connection has the file open (a read-only Lathe, say): closing the probe's own
    // connection then leaves the companions in place, so they are there to be moved.
    const other = new Database(file);
    expect(() => other.pragma("user_version")).toThrow(/not a database/);
    const opened = openDatabase({ dataDir: dir });
    other.close();
    try {
      const notice = opened.notices.find((n) => n.kind === "database-corrupt");
      if (notice?.kind !== "database-corrupt") throw new Error("no database-corrupt notice");
      expect(notice.movedTo.startsWith(`${file}.corrupt-`)).toBe(true);
      expect(notice.movedTo).toMatch(STAMP);
      expect(fs.readFileSync(`${notice.movedTo}-wal`, "utf8")).toBe("the damaged file's log");
      expect(fs.existsSync(`${notice.movedTo}-shm`)).toBe(true); // (its content is SQLite's to rewrite)
      expect(opened.db.pragma("user_version", { simple: true })).toBe(LATEST_VERSION);
      if (process.platform !== "win32") expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    } finally {
      opened.db.close();
    }
  });

  it("a zero-length file whose WAL has content is not announced as empty", () => {
    const dir = dataDir();
    const file = path.join(dir, "lathe.db");
    fs.writeFileSync(file, "");
    fs.writeFileSync(`${file}-wal`, "x".repeat(100));
    const opened = openDatabase({ dataDir: dir });
    opened.db.close();
    expect(opened.notices.map((n) => n.kind)).not.toContain("database-empty");
  });

  it("a damaged file that cannot be set aside is an error, and one that stays damaged is refused", () => {
    const dir = dataDir();
    const file = path.join(dir, "lathe.db");
    fs.writeFileSync(file, "not a database ".repeat(500));
    vi.spyOn(fs, "renameSync").mockImplementation(() => {
      throw Object.assign(new Error("EACCES: permission denied, rename"), { code: "EACCES" });
    });
    const refused = thrownBy(() => openDatabase({ dataDir: dir }));
    expect(refused).toMatchObject({ name: "StoreError", failure: "read-only" });
    expect(refused.message).toContain(`moving the damaged database ${file} aside failed`);
    // A rename that reports success but leaves the file where it was: the "fresh" file is damaged too.
    vi.spyOn(fs, "renameSync").mockImplementation(() => {});
    const stillDamaged = thrownBy(() => openDatabase({ dataDir: dir }));
    expect(stillDamaged).toMatchObject({ name: "StoreError", failure: "corrupt" });
    expect(stillDamaged.message).toBe(`A fresh session database at ${file} could not be created.`);
  });
});

describe("openDatabase upgrading an older file", () => {
  it("names the versions and the backup in its notice; the backup is named by the time", () => {
    const dir = dataDir();
    const file = versionOneDatabase(dir);
    const opened = openDatabase({ dataDir: dir });
    opened.db.close();
    const notice = opened.notices.find((n) => n.kind === "database-migrated");
    if (notice?.kind !== "database-migrated") throw new Error("no database-migrated notice");
    expect(notice.backupPath.startsWith(`${file}.backup-v1-`)).toBe(true);
    expect(notice.backupPath).toMatch(STAMP);
    expect(notice.message).toBe(`The session database was upgraded from version 1 to ${LATEST_VERSION}; a copy of the old file is at ${notice.backupPath}.`);
  });

  it("a backup that cannot be written stops the upgrade before it starts", () => {
    const dir = dataDir();
    const file = versionOneDatabase(dir);
    vi.useFakeTimers({ now: Date.UTC(2026, 0, 2, 3, 4, 5, 6), toFake: ["Date"] });
    const backupPath = `${file}.backup-v1-2026-01-02T03-04-05-006Z`;
    fs.mkdirSync(backupPath); // VACUUM INTO cannot write over a folder
    const error = thrownBy(() => openDatabase({ dataDir: dir }));
    expect(error.name).toBe("StoreError");
    expect(error.message).toContain(`writing the backup ${backupPath} before upgrading the database failed`);
    expect(new Database(file, { readonly: true }).pragma("user_version", { simple: true })).toBe(1);
  });

  it("a migration that fails is rolled back, and the error names it and the version the file was left at", () => {
    const dir = dataDir();
    const file = versionOneDatabase(dir);
    // Version 2 creates this view: the older file already has a table of that name.
    const db = new Database(file);
    db.exec("CREATE TABLE message_text (x)");
    db.close();
    const error = thrownBy(() => openDatabase({ dataDir: dir }));
    expect(error).toMatchObject({ name: "StoreError", failure: "io" });
    expect(error.message).toMatch(/^upgrading the database to version 2 \(full-text search over message text\) failed: .*already exists.* The database was left at version 1\.$/);
    expect(error.cause).toMatchObject({ code: "SQLITE_ERROR" });
    const after = new Database(file, { readonly: true });
    expect(after.pragma("user_version", { simple: true })).toBe(1);
    expect(after.prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'message_fts'").pluck().get()).toBe(0);
    after.close();
    // Closed after the failure: the same file opens again (and fails the same way).
    expect(thrownBy(() => openDatabase({ dataDir: dir })).message).toMatch(/left at version 1\.$/);
  });

  it("runs the integrity check on a file of exactly quickCheckMaxBytes", () => {
    const dir = dataDir();
    openDatabase({ dataDir: dir }).db.close();
    const size = fs.statSync(path.join(dir, "lathe.db")).size;
    const atBound = openDatabase({ dataDir: dir, quickCheckMaxBytes: size });
    atBound.db.close();
    expect(atBound.checked).toBe(true);
  });
});

/** A database whose last table page is overwritten: its schema reads, `PRAGMA quick_check` finds the damage. */
function damagedDataPage(file: string): void {
  const db = new Database(file);
  db.exec("CREATE TABLE filler (x TEXT)");
  const insert = db.prepare("INSERT INTO filler VALUES (?)");
  db.transaction(() => {
    for (let i = 0; i < 200; i++) insert.run(`${"x".repeat(500)}${i}`);
  })();
  const pageSize = db.pragma("page_size", { simple: true }) as number;
  db.close();
  const pages = fs.statSync(file).size / pageSize;
  const fd = fs.openSync(file, "r+");
  fs.writeSync(fd, Buffer.alloc(64, 0xff), 0, 64, (pages - 2) * pageSize);
  fs.closeSync(fd);
}

/** How many descriptors this process has open on `file` (Linux: /proc/self/fd). */
function descriptorsOn(file: string): number {
  return fs.readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return fs.readlinkSync(path.join("/proc/self/fd", fd)) === file;
    } catch {
      return false; // closed since the listing
    }
  }).length;
}

describe("openDatabase's checks", () => {
  it("finds damage the schema read does not with the integrity check, and runs it only when asked", () => {
    const dir = dataDir();
    damagedDataPage(path.join(dir, "lathe.db"));
    const unchecked = openDatabase({ dataDir: dir, quickCheck: false });
    unchecked.db.close();
    expect(unchecked.checked).toBe(false);
    expect(unchecked.notices.map((n) => n.kind)).not.toContain("database-corrupt");
    const checked = openDatabase({ dataDir: dir });
    checked.db.close();
    expect(checked.notices.map((n) => n.kind)).toContain("database-corrupt");
  });

  it("refuses a database that cannot switch to WAL mode", () => {
    const dir = dataDir();
    const pragma = Database.prototype.pragma;
    vi.spyOn(Database.prototype, "pragma").mockImplementation(function (this: Database.Database, source: string, options?: Database.PragmaOptions) {
      return source === "journal_mode = WAL" ? "delete" : pragma.call(this, source, options);
    });
    const error = thrownBy(() => openDatabase({ dataDir: dir }));
    expect(error).toMatchObject({ name: "StoreError", failure: "io", message: 'The session database could not switch to WAL mode (got "delete").' });
  });

  it("names the file when setting up the connection fails", () => {
    const dir = dataDir();
    const pragma = Database.prototype.pragma;
    vi.spyOn(Database.prototype, "pragma").mockImplementation(function (this: Database.Database, source: string, options?: Database.PragmaOptions) {
      if (source === "foreign_keys = ON") throw Object.assign(new Error("disk I/O error"), { code: "SQLITE_IOERR" });
      return pragma.call(this, source, options);
    });
    expect(thrownBy(() => openDatabase({ dataDir: dir })).message).toBe(
      `A disk error stopped opening the session database ${path.join(dir, "lathe.db")}; nothing of it was written (disk I/O error).`,
    );
  });

  itWhen(needsLinux(), "closes the file whenever it refuses it or sets it aside", () => {
    const dir = dataDir();
    const file = path.join(dir, "lathe.db");
    databaseAt(file, LATEST_VERSION + 1);
    expect(thrownBy(() => openDatabase({ dataDir: dir }))).toBeInstanceOf(NewerDatabaseError);
    expect(descriptorsOn(file)).toBe(0);
    expect(thrownBy(() => openDatabase({ dataDir: dir, readOnly: true }))).toBeInstanceOf(NewerDatabaseError);
    expect(descriptorsOn(file)).toBe(0);
    fs.rmSync(file);
    databaseAt(file, LATEST_VERSION - 1);
    expect(thrownBy(() => openDatabase({ dataDir: dir, readOnly: true })).failure).toBe("read-only");
    expect(descriptorsOn(file)).toBe(0);
    fs.rmSync(file);
    const older = versionOneDatabase(dir);
    const db = new Database(older);
    db.exec("CREATE TABLE message_text (x)"); // version 2's view cannot be created
    db.close();
    expect(thrownBy(() => openDatabase({ dataDir: dir })).message).toMatch(/left at version 1\.$/);
    expect(descriptorsOn(file)).toBe(0);
    for (const name of fs.readdirSync(dir)) fs.rmSync(path.join(dir, name));
    damagedDataPage(file);
    const opened = openDatabase({ dataDir: dir });
    const notice = opened.notices.find((n) => n.kind === "database-corrupt");
    if (notice?.kind !== "database-corrupt") throw new Error("no database-corrupt notice");
    expect(descriptorsOn(notice.movedTo)).toBe(0);
    opened.db.close();
  });
});
