// Opens (or creates) the one database file in a data folder and brings it to the latest schema.
// Integrity: `PRAGMA quick_check` (files up to 256 MiB) when asked; the store asks only after an
// unclean shutdown (index.ts), since it reads the whole file (about a second for 160 MB).
// Contract: a corrupt file is moved aside (never deleted) and a fresh database started, with a
// notice saying so; a file from a newer Lathe throws NewerDatabaseError and is left untouched;
// before any migration a backup copy is written next to the file; each migration runs in one
// transaction together with its user_version bump. Any other failure throws a StoreError.
// Private by default (private-folder.ts): the folder is 0700 and the database and its companions
// 0600, tightened at open when looser, with a notice; a zero-length file starts fresh with a notice.
// Read-only (`readOnly: true`, for a second process while another Lathe holds the folder): the
// file is opened without write access and nothing is changed: no folder or file is created, a
// damaged file is reported instead of moved aside, and a file needing an upgrade is refused.
import Database from "better-sqlite3";
import fs from "node:fs";
import path from "node:path";
import { NewerDatabaseError, StoreError, isCorruptionError, toStoreError } from "./errors.ts";
import { MESSAGE_TEXT_FUNCTION, searchableTextOfJson } from "./message-text.ts";
import { LATEST_VERSION, MIGRATIONS } from "./migrations.ts";
import { createPrivateFile, makeDataFolderPrivate, privacyNotice, PRIVATE_FILE_MODE } from "./private-folder.ts";

export type StoreNotice =
  | { kind: "data-folder-private"; message: string }
  | { kind: "database-empty"; message: string }
  | { kind: "database-corrupt"; message: string; movedTo: string }
  | { kind: "database-migrated"; message: string; fromVersion: number; toVersion: number; backupPath: string };

export interface OpenDatabaseOptions {
  dataDir: string;
  /** Default "lathe.db". */
  fileName?: string;
  /** Files up to this size get a full `PRAGMA quick_check` at open (default 256 MiB). */
  quickCheckMaxBytes?: number;
  /** Whether to run that check (default true): the store runs it only after an unclean shutdown. */
  quickCheck?: boolean;
  /** Open without write access; change nothing. */
  readOnly?: boolean;
}

export interface OpenedDatabase {
  db: Database.Database;
  path: string;
  notices: StoreNotice[];
  /** Whether `PRAGMA quick_check` ran on the file at open. */
  checked: boolean;
}

const DEFAULT_QUICK_CHECK_MAX_BYTES = 256 * 1024 * 1024;

function stamp(): string {
  return new Date().toISOString().replace(/[:.]/g, "-");
}

/** The file's size in bytes, or null when there is no such file. */
function sizeOf(file: string): number | null {
  try {
    return fs.statSync(file).size;
  } catch {
    return null;
  }
}

/**
 * Registers what the schema needs on a fresh connection: the FTS text function, with one argument
 * (the whole text, as migrations before version 10 indexed it) and with two (see searchableTextOfJson).
 */
export function prepareConnection(db: Database.Database): void {
  db.function(MESSAGE_TEXT_FUNCTION, { deterministic: true }, (json: unknown) => searchableTextOfJson(json));
  db.function(MESSAGE_TEXT_FUNCTION, { deterministic: true }, (json: unknown, capped: unknown) => searchableTextOfJson(json, capped));
}

/** Opens and probes the file; returns its schema version (and whether it ran quick_check), or "corrupt". */
function probe(file: string, quickCheckMaxBytes: number, readOnly = false): { db: Database.Database; version: number; checked: boolean } | "corrupt" {
  let db: Database.Database | undefined;
  try {
    db = new Database(file, readOnly ? { readonly: true, fileMustExist: true } : {});
    prepareConnection(db);
    const version = db.pragma("user_version", { simple: true }) as number;
    db.prepare("SELECT count(*) FROM sqlite_schema").get();
    const size = fs.statSync(file).size;
    const checked = size > 0 && size <= quickCheckMaxBytes;
    if (checked) {
      const result = db.pragma("quick_check", { simple: true });
      if (result !== "ok") {
        db.close();
        return "corrupt";
      }
    }
    return { db, version, checked };
  } catch (err) {
    db?.close();
    if (isCorruptionError(err)) return "corrupt";
    throw toStoreError(err, `opening the session database ${file}`);
  }
}

/** Renames the file and its WAL/SHM companions to `<file>.corrupt-<time>`; returns the new main path. */
function moveAside(file: string): string {
  const target = `${file}.corrupt-${stamp()}`;
  for (const suffix of ["", "-wal", "-shm"]) {
    if (fs.existsSync(file + suffix)) fs.renameSync(file + suffix, target + suffix);
  }
  return target;
}

function configure(db: Database.Database): void {
  const mode = db.pragma("journal_mode = WAL", { simple: true });
  if (mode !== "wal") throw new StoreError("io", `The session database could not switch to WAL mode (got "${String(mode)}").`);
  // NORMAL in WAL mode: a commit is in the WAL file (the OS's cache) when it returns, so it survives
  // a killed process; only a power loss can drop the last commits, and it never corrupts the file.
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  db.pragma("busy_timeout = 1000");
  db.pragma("temp_store = MEMORY");
  // After a checkpoint lets the WAL restart, shrink it back to 64 MiB at most.
  db.pragma("journal_size_limit = 67108864");
}

function migrate(db: Database.Database, file: string, from: number, notices: StoreNotice[]): void {
  if (from >= LATEST_VERSION) return;
  if (from > 0) {
    const backupPath = `${file}.backup-v${from}-${stamp()}`;
    try {
      db.prepare("VACUUM INTO ?").run(backupPath);
      if (process.platform !== "win32") fs.chmodSync(backupPath, PRIVATE_FILE_MODE);
    } catch (err) {
      throw toStoreError(err, `writing the backup ${backupPath} before upgrading the database`);
    }
    notices.push({
      kind: "database-migrated",
      message: `The session database was upgraded from version ${from} to ${LATEST_VERSION}; a copy of the old file is at ${backupPath}.`,
      fromVersion: from,
      toVersion: LATEST_VERSION,
      backupPath,
    });
  }
  for (const migration of MIGRATIONS) {
    if (migration.version <= from) continue;
    try {
      db.transaction(() => {
        migration.up(db);
        db.pragma(`user_version = ${migration.version}`);
      })();
    } catch (err) {
      const cause = toStoreError(err, `upgrading the database to version ${migration.version} (${migration.description})`);
      throw new StoreError(cause.failure, `${cause.message} The database was left at version ${migration.version - 1}.`, { cause: err });
    }
  }
}

/** Opens the database without changing anything; throws a StoreError when that cannot be done. */
function openReadOnly(file: string, quickCheckMaxBytes: number): OpenedDatabase {
  if (!fs.existsSync(file)) throw new StoreError("not-found", `There is no session database at ${file} to open read-only.`);
  const probed = probe(file, quickCheckMaxBytes, true);
  if (probed === "corrupt") throw new StoreError("corrupt", `The session database ${file} is damaged; open it without read-only to move it aside and start a fresh one.`);
  const { db, version } = probed;
  if (version > LATEST_VERSION) {
    db.close();
    throw new NewerDatabaseError(file, version, LATEST_VERSION);
  }
  if (version < LATEST_VERSION) {
    db.close();
    throw new StoreError("read-only", `The session database ${file} needs an upgrade (version ${version} to ${LATEST_VERSION}), which cannot be done read-only.`);
  }
  db.pragma("busy_timeout = 1000");
  return { db, path: file, notices: [], checked: probed.checked };
}

export function openDatabase(options: OpenDatabaseOptions): OpenedDatabase {
  const file = path.join(options.dataDir, options.fileName ?? "lathe.db");
  const quickCheckMaxBytes = options.quickCheck === false ? 0 : (options.quickCheckMaxBytes ?? DEFAULT_QUICK_CHECK_MAX_BYTES);
  if (options.readOnly) return openReadOnly(file, quickCheckMaxBytes);
  const notices: StoreNotice[] = [];
  let empty: boolean;
  try {
    const privacy = privacyNotice(options.dataDir, makeDataFolderPrivate(options.dataDir));
    if (privacy) notices.push({ kind: "data-folder-private", message: privacy });
    // A WAL with content would bring sessions back into an empty file: that is not a fresh start.
    empty = sizeOf(file) === 0 && !sizeOf(`${file}-wal`);
    // Created here, private, so SQLite gives its -wal and -shm files the same mode.
    createPrivateFile(file);
  } catch (err) {
    throw toStoreError(err, `creating the data folder ${options.dataDir}`);
  }
  if (empty) {
    notices.push({
      kind: "database-empty",
      message: `The session database ${file} was empty (0 bytes), so there were no sessions to load; a fresh one was started. If you expected sessions, look for a lathe.db.backup-… copy in that folder.`,
    });
  }
  const size = sizeOf(file) ?? 0;
  const checked = size > 0 && size <= quickCheckMaxBytes;
  let probed = probe(file, quickCheckMaxBytes);
  if (probed === "corrupt") {
    let movedTo: string;
    try {
      movedTo = moveAside(file);
      createPrivateFile(file);
    } catch (err) {
      throw toStoreError(err, `moving the damaged database ${file} aside`);
    }
    notices.push({
      kind: "database-corrupt",
      message: `The session database was damaged. It was moved to ${movedTo} (nothing was deleted) and a fresh one was started.`,
      movedTo,
    });
    probed = probe(file, quickCheckMaxBytes);
    if (probed === "corrupt") throw new StoreError("corrupt", `A fresh session database at ${file} could not be created.`);
  }
  const { db, version } = probed;
  if (version > LATEST_VERSION) {
    db.close();
    throw new NewerDatabaseError(file, version, LATEST_VERSION);
  }
  try {
    configure(db);
    migrate(db, file, version, notices);
  } catch (err) {
    db.close();
    throw toStoreError(err, `opening the session database ${file}`);
  }
  return { db, path: file, notices, checked };
}
