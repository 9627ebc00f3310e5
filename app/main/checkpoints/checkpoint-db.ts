// The checkpoint index: which snapshot (a commit of the project's shadow repository) was taken
// when, by which session, for which turn, and what changed since the project's previous one; where
// each turn's message is in its session (turn_places: so a session's turns are listed from one
// message each, not from its whole transcript); the rewinds done (each with the checkpoint of the state before it, which makes it undoable); and
// the journal of a rewind in progress. Its own SQLite file, `checkpoints/checkpoints.db` in the
// data folder, so that nothing here can damage the sessions' database (and the reverse).
// A damaged file is moved aside (checkpoints.db.corrupt-<time>) and a fresh one started; the caller
// gets a notice. Calls are synchronous and small (a few rows), so they stay far under a
// millisecond: WAL with synchronous=NORMAL (no fsync on the main thread; a commit survives the
// process being killed, as the journal must); change lists are one compact BLOB per checkpoint.
import Database from "better-sqlite3";
import { Buffer } from "node:buffer";
import { chmodSync, existsSync, mkdirSync, renameSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Change, ChangeStatus, LargeFile } from "./shadow-types.ts";
import { createPrivateFile } from "../store/private-folder.ts";

/** baseline: a project's first; before/after: a turn's; preview: taken to plan a rewind; rewind: the state just before one (its undo point); restored: just after it. */
export type CheckpointKind = "baseline" | "before" | "after" | "preview" | "rewind" | "restored";

export interface CheckpointRow {
  id: number;
  projectId: number;
  sessionId: number | null;
  kind: CheckpointKind;
  /** The first tool call id of the turn (before/after), so forks find their parent's checkpoints. */
  turnKey: string | null;
  commit: string;
  tree: string;
  /** Changes since the project's previous checkpoint; null when they were too many to keep. */
  changes: Change[] | null;
  large: LargeFile[];
  createdAt: number;
}

export interface RewindRow {
  id: number;
  sessionId: number;
  projectId: number;
  /** The checkpoint restored. */
  targetId: number;
  /** The state just before the rewind: restoring it undoes the rewind. */
  undoId: number;
  /** Where the files were written (the project, or a new worktree). */
  destination: string;
  summary: { restored: number; removed: number; kept: number; label: string };
  createdAt: number;
  undoneBy: number | null;
}

/** A rewind being applied: written before the first file changes, removed after the last. */
export interface JournalRow {
  id: number;
  projectId: number;
  rewindId: number | null;
  plan: string;
  createdAt: number;
}

/** Where a turn is in its session: its assistant message's position and the user message's before it (-1: none). */
export interface TurnPlace {
  position: number;
  userPosition: number;
}

/** Changes beyond this are not stored: the list is computed from the trees when needed. */
const MAX_STORED_CHANGES = 5_000;
const STATUS_CODE: Record<ChangeStatus, number> = { added: 0x41, modified: 0x4d, deleted: 0x44 };

export function encodeChanges(changes: readonly Change[]): Buffer | null {
  if (changes.length > MAX_STORED_CHANGES) return null;
  const parts: Buffer[] = [];
  for (const c of changes) parts.push(Buffer.from([STATUS_CODE[c.status], c.large ? 0x4c : 0x2d]), c.path, Buffer.from([0]));
  return Buffer.concat(parts);
}

export function decodeChanges(data: Buffer): Change[] {
  const out: Change[] = [];
  let at = 0;
  while (at + 2 < data.length) {
    const end = data.indexOf(0, at + 2);
    if (end === -1) break;
    const code = data[at];
    out.push({ status: code === 0x41 ? "added" : code === 0x44 ? "deleted" : "modified", large: data[at + 1] === 0x4c, path: Buffer.from(data.subarray(at + 2, end)) });
    at = end + 1;
  }
  return out;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS checkpoints (
  id INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL,
  session_id INTEGER,
  kind TEXT NOT NULL,
  turn_key TEXT,
  commit_id TEXT NOT NULL,
  tree TEXT NOT NULL,
  changes BLOB,
  large TEXT NOT NULL DEFAULT '[]',
  created_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS checkpoints_project ON checkpoints(project_id, id);
CREATE INDEX IF NOT EXISTS checkpoints_turn ON checkpoints(turn_key, kind);
CREATE TABLE IF NOT EXISTS turn_places (
  turn_key TEXT PRIMARY KEY,
  position INTEGER NOT NULL,
  user_position INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS rewinds (
  id INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL,
  project_id INTEGER NOT NULL,
  target_id INTEGER NOT NULL,
  undo_id INTEGER NOT NULL,
  destination TEXT NOT NULL,
  summary TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  undone_by INTEGER
);
CREATE INDEX IF NOT EXISTS rewinds_session ON rewinds(session_id, id);
CREATE TABLE IF NOT EXISTS journal (
  id INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL,
  rewind_id INTEGER,
  plan TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
`;

interface RawCheckpoint {
  id: number;
  project_id: number;
  session_id: number | null;
  kind: CheckpointKind;
  turn_key: string | null;
  commit_id: string;
  tree: string;
  changes: Buffer | null;
  large: string;
  created_at: number;
}

function toCheckpoint(r: RawCheckpoint): CheckpointRow {
  return {
    id: r.id,
    projectId: r.project_id,
    sessionId: r.session_id,
    kind: r.kind,
    turnKey: r.turn_key,
    commit: r.commit_id,
    tree: r.tree,
    changes: r.changes ? decodeChanges(r.changes) : null,
    large: JSON.parse(r.large) as LargeFile[],
    createdAt: r.created_at,
  };
}

interface RawRewind {
  id: number;
  session_id: number;
  project_id: number;
  target_id: number;
  undo_id: number;
  destination: string;
  summary: string;
  created_at: number;
  undone_by: number | null;
}

function toRewind(r: RawRewind): RewindRow {
  return {
    id: r.id,
    sessionId: r.session_id,
    projectId: r.project_id,
    targetId: r.target_id,
    undoId: r.undo_id,
    destination: r.destination,
    summary: JSON.parse(r.summary) as RewindRow["summary"],
    createdAt: r.created_at,
    undoneBy: r.undone_by,
  };
}

/**
 * The index and its -wal/-shm readable by the person only: created 0600 before SQLite opens it
 * (SQLite gives the -wal and -shm it creates the main file's mode), and an older Lathe's looser
 * files tightened. Not fatal when it fails: the data folder itself is 0700.
 */
function makePrivate(file: string): void {
  try {
    createPrivateFile(file);
    for (const name of [file, `${file}-wal`, `${file}-shm`]) {
      if (existsSync(name) && statSync(name).mode & 0o077) chmodSync(name, 0o600);
    }
  } catch {
    // A file system without modes, or a race with a file being removed.
  }
}

export class CheckpointDb {
  readonly db: Database.Database;
  readonly notices: string[] = [];

  constructor(dir: string, options: { readOnly?: boolean } = {}) {
    const file = join(dir, "checkpoints.db");
    if (options.readOnly) {
      this.db = existsSync(file) ? new Database(file, { readonly: true, fileMustExist: true }) : new Database(":memory:");
      if (!existsSync(file)) this.db.exec(SCHEMA);
      return;
    }
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.db = this.#open(file);
  }

  #open(file: string): Database.Database {
    try {
      makePrivate(file);
      const db = new Database(file);
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = NORMAL");
      const check = db.pragma("quick_check", { simple: true });
      if (check !== "ok") throw new Error(String(check));
      db.exec(SCHEMA);
      return db;
    } catch (error) {
      const aside = `${file}.corrupt-${new Date().toISOString().replace(/[:.]/g, "-")}`;
      try {
        renameSync(file, aside);
      } catch {
        // Nothing to move aside.
      }
      this.notices.push(
        `The checkpoint index ${file} could not be read (${(error as Error).message}); it was moved to ${aside} and a new one started. Files can be rewound only to checkpoints taken from now on.`,
      );
      makePrivate(file);
      const db = new Database(file);
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = NORMAL");
      db.exec(SCHEMA);
      return db;
    }
  }

  insertCheckpoint(input: Omit<CheckpointRow, "id" | "createdAt">): CheckpointRow {
    const createdAt = Date.now();
    const id = this.db
      .prepare(
        `INSERT INTO checkpoints (project_id, session_id, kind, turn_key, commit_id, tree, changes, large, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        input.projectId,
        input.sessionId,
        input.kind,
        input.turnKey,
        input.commit,
        input.tree,
        input.changes ? encodeChanges(input.changes) : null,
        JSON.stringify(input.large),
        createdAt,
      ).lastInsertRowid as number;
    return { ...input, changes: input.changes && input.changes.length <= MAX_STORED_CHANGES ? input.changes : null, id, createdAt };
  }

  checkpoint(id: number): CheckpointRow | undefined {
    const row = this.db.prepare("SELECT * FROM checkpoints WHERE id = ?").get(id) as RawCheckpoint | undefined;
    return row && toCheckpoint(row);
  }

  lastOfProject(projectId: number): CheckpointRow | undefined {
    const row = this.db.prepare("SELECT * FROM checkpoints WHERE project_id = ? ORDER BY id DESC LIMIT 1").get(projectId) as RawCheckpoint | undefined;
    return row && toCheckpoint(row);
  }

  /** The before/after checkpoints of the turns these sessions ran (turn keys are "session:call"), oldest first. */
  turnsOfSessions(sessionIds: readonly number[]): CheckpointRow[] {
    const select = this.db.prepare("SELECT * FROM checkpoints WHERE turn_key >= ? AND turn_key < ? ORDER BY id");
    const rows = sessionIds.flatMap((id) => select.all(`${id}:`, `${id};`) as RawCheckpoint[]);
    return rows.sort((a, b) => a.id - b.id).map(toCheckpoint);
  }

  /**
   * Where a turn's message is in its session's transcript (written when its first checkpoint is
   * asked for). The latest wins: a key can come back when a deleted session's id is reused and
   * the model repeats its call ids (sessions' ids are not AUTOINCREMENT).
   */
  recordTurnPlace(turnKey: string, place: TurnPlace): void {
    this.db.prepare("INSERT OR REPLACE INTO turn_places (turn_key, position, user_position) VALUES (?, ?, ?)").run(turnKey, place.position, place.userPosition);
  }

  /** The recorded places of these turns; turns taken before places were recorded are missing. */
  turnPlaces(turnKeys: readonly string[]): Map<string, TurnPlace> {
    const places = new Map<string, TurnPlace>();
    let select: Database.Statement;
    try {
      select = this.db.prepare("SELECT position, user_position AS userPosition FROM turn_places WHERE turn_key = ?");
    } catch {
      return places; // a read-only index written by an older Lathe: no such table
    }
    for (const key of turnKeys) {
      const place = select.get(key) as TurnPlace | undefined;
      if (place) places.set(key, place);
    }
    return places;
  }

  ofTurns(turnKeys: readonly string[]): CheckpointRow[] {
    if (turnKeys.length === 0) return [];
    const rows: CheckpointRow[] = [];
    const select = this.db.prepare("SELECT * FROM checkpoints WHERE turn_key = ? ORDER BY id");
    for (const key of turnKeys) for (const r of select.all(key) as RawCheckpoint[]) rows.push(toCheckpoint(r));
    return rows;
  }

  /** The project's checkpoints with id in (afterId, throughId], oldest first. */
  projectRange(projectId: number, afterId: number, throughId: number): CheckpointRow[] {
    return (this.db.prepare("SELECT * FROM checkpoints WHERE project_id = ? AND id > ? AND id <= ? ORDER BY id").all(projectId, afterId, throughId) as RawCheckpoint[]).map(
      toCheckpoint,
    );
  }

  /** Forgets every checkpoint of a project (its store was damaged and started anew). */
  forgetProject(projectId: number): void {
    this.db.prepare("DELETE FROM checkpoints WHERE project_id = ?").run(projectId);
  }

  insertRewind(input: Omit<RewindRow, "id" | "createdAt" | "undoneBy">): RewindRow {
    const createdAt = Date.now();
    const id = this.db
      .prepare("INSERT INTO rewinds (session_id, project_id, target_id, undo_id, destination, summary, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)")
      .run(input.sessionId, input.projectId, input.targetId, input.undoId, input.destination, JSON.stringify(input.summary), createdAt).lastInsertRowid as number;
    return { ...input, id, createdAt, undoneBy: null };
  }

  rewind(id: number): RewindRow | undefined {
    const row = this.db.prepare("SELECT * FROM rewinds WHERE id = ?").get(id) as RawRewind | undefined;
    return row && toRewind(row);
  }

  rewindsOf(sessionId: number): RewindRow[] {
    return (this.db.prepare("SELECT * FROM rewinds WHERE session_id = ? ORDER BY id").all(sessionId) as RawRewind[]).map(toRewind);
  }

  markUndone(rewindId: number, by: number): void {
    this.db.prepare("UPDATE rewinds SET undone_by = ? WHERE id = ?").run(by, rewindId);
  }

  beginJournal(projectId: number, plan: string): number {
    return this.db.prepare("INSERT INTO journal (project_id, plan, created_at) VALUES (?, ?, ?)").run(projectId, plan, Date.now()).lastInsertRowid as number;
  }

  /** Removes a journal row; returns its plan (undefined if there was none). */
  endJournal(id: number): string | undefined {
    return this.db.prepare("DELETE FROM journal WHERE id = ? RETURNING plan").pluck().get(id) as string | undefined;
  }

  journals(): JournalRow[] {
    return this.db.prepare("SELECT id, project_id AS projectId, rewind_id AS rewindId, plan, created_at AS createdAt FROM journal ORDER BY id").all() as JournalRow[];
  }

  close(): void {
    try {
      this.db.close();
    } catch {
      // Already closed.
    }
  }
}
