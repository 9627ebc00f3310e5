// The schema, as numbered migrations. Migration N brings a database from user_version N-1 to N;
// open-database.ts runs each one in its own transaction and sets user_version with it. A shipped
// migration is never edited: change the schema by appending a new one (test/store/fixtures keeps a
// frozen copy of version 1 to prove old files still migrate).
//
// Layout choices (why the store stays fast at millions of messages):
// - messages.id = session_id * 2^24 + position. The table is clustered on it, so one session's
//   messages are one contiguous range of the B-tree (opening a session is a range scan, no index
//   lookups), an FTS hit's rowid names its session and position directly, and positions stay dense.
//   session_id and position exist as VIRTUAL generated columns (no storage) for readable SQL.
// - sessions keep message_count, tokens and cost counters, updated in the same transaction as each
//   append, so listing never counts rows.
// - The full-text index is an FTS5 table with external content: its "content" is a view computing
//   each message's text from the stored JSON, so the text is never stored twice.
import type { Database } from "better-sqlite3";
import { MESSAGE_TEXT_FUNCTION } from "./message-text.ts";

export interface Migration {
  version: number;
  description: string;
  up(db: Database): void;
}

/** Sessions hold at most 2^24 (16.7 million) messages; message ids encode session and position. */
export const POSITION_BITS = 24;
export const POSITION_SPAN = 2 ** POSITION_BITS;

/**
 * SQL expression: the searchable text of a stored message. It calls the app-defined function that
 * open-database.ts registers on every connection (message-text.ts), because FTS5 cannot read a
 * view that uses json_each. A connection without it (the sqlite3 shell) can read but not write messages.
 */
function messageTextSql(data: string): string {
  return `${MESSAGE_TEXT_FUNCTION}(${data})`;
}

export const V1_SCHEMA = `
CREATE TABLE projects (
  id INTEGER PRIMARY KEY,
  folder TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  last_opened_at INTEGER NOT NULL
);
CREATE INDEX projects_by_last_opened ON projects(last_opened_at DESC);

CREATE TABLE sessions (
  id INTEGER PRIMARY KEY,
  project_id INTEGER NOT NULL REFERENCES projects(id),
  title TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  model TEXT,
  base_tool_names TEXT NOT NULL DEFAULT '[]',
  parent_session_id INTEGER REFERENCES sessions(id) ON DELETE SET NULL,
  fork_position INTEGER,
  message_count INTEGER NOT NULL DEFAULT 0,
  tokens INTEGER NOT NULL DEFAULT 0,
  cost REAL NOT NULL DEFAULT 0,
  archived_at INTEGER
);
CREATE INDEX sessions_by_updated ON sessions(updated_at DESC, id DESC);
CREATE INDEX sessions_by_project ON sessions(project_id, updated_at DESC, id DESC);
CREATE INDEX sessions_by_parent ON sessions(parent_session_id);

CREATE TABLE messages (
  id INTEGER PRIMARY KEY,
  role TEXT NOT NULL,
  data TEXT NOT NULL,
  tokens INTEGER NOT NULL DEFAULT 0,
  cost REAL NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  session_id INTEGER GENERATED ALWAYS AS (id >> 24) VIRTUAL,
  position INTEGER GENERATED ALWAYS AS (id & 16777215) VIRTUAL
);

CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  started_at INTEGER NOT NULL,
  ended_at INTEGER,
  status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'interrupted'))
);
CREATE INDEX runs_by_session ON runs(session_id, id);
CREATE INDEX runs_still_running ON runs(session_id) WHERE status = 'running';

CREATE TABLE events (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  at INTEGER NOT NULL,
  type TEXT NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;

CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL,
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;
`;

// Indexing is deferred: inserting a message only queues its id in message_fts_pending (cheap), and
// search-indexer.ts moves queued messages into the index in small batches shortly after. A 'delete'
// must only be sent to FTS5 for a message that was indexed, or the index would be damaged.
// (Version 4 replaced the queue: see V4_APPEND_PAGES.)
const V2_SEARCH = `
CREATE VIEW message_text(id, text) AS SELECT id, ${messageTextSql("data")} FROM messages;
CREATE VIRTUAL TABLE message_fts USING fts5(
  text, content = 'message_text', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TABLE message_fts_pending (id INTEGER PRIMARY KEY);
CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
  INSERT INTO message_fts_pending(id) VALUES (new.id);
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
  INSERT INTO message_fts(message_fts, rowid, text)
    SELECT 'delete', old.id, ${messageTextSql("old.data")} WHERE NOT EXISTS (SELECT 1 FROM message_fts_pending WHERE id = old.id);
  DELETE FROM message_fts_pending WHERE id = old.id;
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF data ON messages BEGIN
  INSERT INTO message_fts(message_fts, rowid, text)
    SELECT 'delete', old.id, ${messageTextSql("old.data")} WHERE NOT EXISTS (SELECT 1 FROM message_fts_pending WHERE id = old.id);
  INSERT OR IGNORE INTO message_fts_pending(id) VALUES (new.id);
END;
INSERT INTO message_fts(message_fts) VALUES ('rebuild');
`;

const V3_AUDIT_AND_RULES = `
CREATE TABLE tool_audit (
  id INTEGER PRIMARY KEY,
  at INTEGER NOT NULL,
  session_id INTEGER REFERENCES sessions(id) ON DELETE SET NULL,
  tool_call_id TEXT,
  tool_name TEXT NOT NULL,
  args TEXT NOT NULL,
  decision TEXT NOT NULL CHECK (decision IN ('allow', 'deny')),
  decided_by TEXT NOT NULL,
  duration_ms INTEGER,
  outcome TEXT
);
CREATE INDEX tool_audit_by_session ON tool_audit(session_id, id);

CREATE TABLE permission_rules (
  id INTEGER PRIMARY KEY,
  tool TEXT NOT NULL,
  pattern TEXT NOT NULL DEFAULT '*',
  action TEXT NOT NULL CHECK (action IN ('allow', 'deny')),
  scope TEXT NOT NULL CHECK (scope IN ('session', 'project', 'global')),
  scope_id INTEGER,
  created_at INTEGER NOT NULL,
  CHECK ((scope = 'global') = (scope_id IS NULL))
);
CREATE INDEX permission_rules_by_scope ON permission_rules(scope, scope_id, tool);
CREATE TRIGGER sessions_drop_rules AFTER DELETE ON sessions BEGIN
  DELETE FROM permission_rules WHERE scope = 'session' AND scope_id = old.id;
END;
`;

// Version 4 replaces the search queue table with a watermark: sessions.indexed_count says how many of the
// session's messages (positions 0..indexed_count-1) are in the index. Appending then writes no page
// beyond the message and its session row (the queue cost one more page per commit, ~12% of an
// append). Everything still queued is indexed here, so every stored message is below its session's
// watermark afterwards. Only messages below the watermark are ever sent to FTS5 as 'delete'; an
// edited message below it is re-indexed at once (edits are rare), one above it is indexed later.
// Version 4 also keeps one session list index instead of two: every append moves its session's
// entry (updated_at changes), so each index costs a page per commit. The remaining one covers
// project_id and archived_at, so a project's list is a scan of index entries alone (no table
// lookups until a row is returned); the all-projects list reads its first entries as before.
const V4_APPEND_PAGES = `
INSERT INTO message_fts(rowid, text)
  SELECT m.id, ${messageTextSql("m.data")} FROM message_fts_pending p JOIN messages m ON m.id = p.id ORDER BY p.id;
DROP TRIGGER messages_fts_insert;
DROP TRIGGER messages_fts_delete;
DROP TRIGGER messages_fts_update;
DROP TABLE message_fts_pending;
DROP INDEX sessions_by_project;
DROP INDEX sessions_by_updated;
CREATE INDEX sessions_by_updated ON sessions(updated_at DESC, id DESC, project_id, archived_at);
ALTER TABLE sessions ADD COLUMN indexed_count INTEGER NOT NULL DEFAULT 0;
UPDATE sessions SET indexed_count = coalesce(
  (SELECT (max(m.id) & ${POSITION_SPAN - 1}) + 1 FROM messages m WHERE m.id >= sessions.id * ${POSITION_SPAN} AND m.id < (sessions.id + 1) * ${POSITION_SPAN}), 0);
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages
  WHEN (old.id & ${POSITION_SPAN - 1}) < (SELECT indexed_count FROM sessions WHERE id = old.id >> ${POSITION_BITS})
BEGIN
  INSERT INTO message_fts(message_fts, rowid, text) VALUES ('delete', old.id, ${messageTextSql("old.data")});
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF data ON messages
  WHEN (old.id & ${POSITION_SPAN - 1}) < (SELECT indexed_count FROM sessions WHERE id = old.id >> ${POSITION_BITS})
BEGIN
  INSERT INTO message_fts(message_fts, rowid, text) VALUES ('delete', old.id, ${messageTextSql("old.data")});
  INSERT INTO message_fts(rowid, text) VALUES (new.id, ${messageTextSql("new.data")});
END;
`;

// Version 5: nothing lost at a quit or a crash.
// - sessions.deleted_at: "delete with undo" is a soft delete, stored at once; a deleted session
//   leaves the list, search and open, and is purged (rows removed) once the undo window is long
//   past. The list index gains the column, so listing still reads index entries only.
// - tool_output: a bounded terminal log per tool call (raw bytes as the terminal showed them, head
//   and tail; terminal-log.ts), written while the command runs, so a reopened session and a
//   session after kill -9 replay the output with its colours.
const V5_SOFT_DELETE_AND_TOOL_OUTPUT = `
ALTER TABLE sessions ADD COLUMN deleted_at INTEGER;
DROP INDEX sessions_by_updated;
CREATE INDEX sessions_by_updated ON sessions(updated_at DESC, id DESC, project_id, archived_at, deleted_at);
CREATE INDEX sessions_deleted ON sessions(deleted_at) WHERE deleted_at IS NOT NULL;
CREATE TABLE tool_output (
  id INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  tool_call_id TEXT NOT NULL,
  head TEXT NOT NULL,
  tail TEXT NOT NULL,
  total_chars INTEGER NOT NULL,
  omitted_chars INTEGER NOT NULL,
  skipped_chars INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (session_id, tool_call_id)
);
`;

// Version 6: opening a session reads a page, not the session (issue 16).
// - message_marks: the ids of the messages that change session-wide state, wherever they are:
//   custom entries (compaction summaries and their undo) and tool results with addedToolNames. The
//   compaction in force and the active tool set at the end come from these and nothing else.
// - tool_calls: when each tool call started and ended (the view's elapsed times and parallel
//   timeline), keyed by call, so a page's calls are found without reading any run's log.
// - The event log keeps only what the messages do not say (provider retries, unknown events);
//   the rows that only pointed at stored messages (message_*, turn_*, agent_*) and the tool start
//   and end rows (now in tool_calls) are removed.
const V6_PAGED_OPEN = `
CREATE TABLE message_marks (id INTEGER PRIMARY KEY);
INSERT INTO message_marks (id)
  SELECT id FROM messages WHERE role = 'custom' OR (role = 'toolResult' AND json_type(data, '$.addedToolNames') = 'array');
CREATE TABLE tool_calls (
  session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  tool_call_id TEXT NOT NULL,
  started_at INTEGER,
  ended_at INTEGER,
  is_error INTEGER,
  PRIMARY KEY (session_id, tool_call_id)
) WITHOUT ROWID;
INSERT OR IGNORE INTO tool_calls (session_id, tool_call_id, started_at)
  SELECT r.session_id, json_extract(e.data, '$.toolCallId'), min(e.at) FROM events e JOIN runs r ON r.id = e.run_id
   WHERE e.type = 'tool_execution_start' AND json_type(e.data, '$.toolCallId') = 'text' GROUP BY 1, 2;
INSERT INTO tool_calls (session_id, tool_call_id, ended_at, is_error)
  SELECT r.session_id, json_extract(e.data, '$.toolCallId'), max(e.at), max(coalesce(json_extract(e.data, '$.isError'), 0)) FROM events e JOIN runs r ON r.id = e.run_id
   WHERE e.type = 'tool_execution_end' AND json_type(e.data, '$.toolCallId') = 'text' GROUP BY 1, 2
  ON CONFLICT (session_id, tool_call_id) DO UPDATE SET ended_at = excluded.ended_at, is_error = excluded.is_error;
DELETE FROM events WHERE type IN ('agent_start', 'agent_end', 'turn_start', 'turn_end', 'message_start', 'message_update', 'message_end',
  'tool_execution_start', 'tool_execution_end');
`;

// Version 7: a reopened session shows each call as the live view did (issue 17). tool_calls gains
// when the call's execute began (the wait for an answer and the run are apart), its outcome
// (done, failed, denied, stopped) and the reason of a denial or a stop. Older databases logged the
// session's tool_call_phase events in the event log: they are moved here (the latest of each
// kind per call), the outcome of the other ended calls follows is_error, and the rows are removed.
// Sessions recorded before the phases existed have no execute start: their ended calls count as
// executing from their start (what those versions showed).
const V7_TOOL_OUTCOMES = `
ALTER TABLE tool_calls ADD COLUMN executing_at INTEGER;
ALTER TABLE tool_calls ADD COLUMN outcome TEXT CHECK (outcome IN ('done', 'failed', 'denied', 'stopped'));
ALTER TABLE tool_calls ADD COLUMN reason TEXT;
CREATE TEMP TABLE phases AS
  SELECT r.session_id AS session_id, json_extract(e.data, '$.toolCallId') AS tool_call_id, json_extract(e.data, '$.phase') AS phase,
         CASE WHEN json_type(e.data, '$.reason') = 'text' THEN json_extract(e.data, '$.reason') END AS reason, e.at AS at, r.id AS run_id, e.seq AS seq
    FROM events e JOIN runs r ON r.id = e.run_id
   WHERE e.type = 'tool_call_phase' AND json_type(e.data, '$.toolCallId') = 'text' AND json_extract(e.data, '$.phase') IN ('executing', 'denied', 'stopped');
INSERT INTO tool_calls (session_id, tool_call_id, executing_at)
  SELECT session_id, tool_call_id, max(at) FROM phases WHERE phase = 'executing' GROUP BY 1, 2
  ON CONFLICT (session_id, tool_call_id) DO UPDATE SET executing_at = excluded.executing_at;
INSERT INTO tool_calls (session_id, tool_call_id, outcome, reason)
  SELECT p.session_id, p.tool_call_id, p.phase, p.reason FROM phases p
   WHERE p.phase <> 'executing' AND NOT EXISTS (SELECT 1 FROM phases q WHERE q.session_id = p.session_id AND q.tool_call_id = p.tool_call_id
     AND q.phase <> 'executing' AND (q.run_id > p.run_id OR (q.run_id = p.run_id AND q.seq > p.seq)))
  ON CONFLICT (session_id, tool_call_id) DO UPDATE SET outcome = excluded.outcome, reason = excluded.reason;
UPDATE tool_calls SET outcome = CASE WHEN is_error THEN 'failed' ELSE 'done' END WHERE outcome IS NULL AND ended_at IS NOT NULL;
UPDATE tool_calls SET executing_at = started_at
 WHERE executing_at IS NULL AND outcome IN ('done', 'failed') AND session_id NOT IN (SELECT session_id FROM phases);
DROP TABLE phases;
DELETE FROM events WHERE type = 'tool_call_phase';
`;

// Version 8: the search's word list (search-words.ts), so a word being typed is searched as the
// exact words it completes to. A database with messages (an upgrade from version 7) gets the list
// filled from the index's own vocabulary in the background, after the start (search-words-fill.ts:
// reading it all costs about 5 s of CPU for 2.11 M messages, more wall time on a cold disk); the row
// of search_words_fill says that fill is pending. From then on the search indexer adds each batch's
// words. (The first form of this migration filled the list here; a database it upgraded has no
// search_words_fill table, which means complete.)
const V8_SEARCH_WORDS = `
CREATE TABLE search_words (word TEXT PRIMARY KEY, docs INTEGER NOT NULL) WITHOUT ROWID;
CREATE TABLE search_words_fill (id INTEGER PRIMARY KEY CHECK (id = 1), after TEXT NOT NULL);
INSERT INTO search_words_fill (id, after) SELECT 1, '' WHERE EXISTS (SELECT 1 FROM messages);
`;

// Version 9: words of Hangul text were listed as their letters (jamo, U+1100 to U+11FF) by an
// earlier foldWord, which decomposed syllables to remove marks; such entries match nothing the
// index holds, so a Korean word being typed found nothing in messages listed then. They are
// removed and, where there were any, the list is filled again from the index's vocabulary in the
// background (search-words-fill.ts; a fill already pending goes on from where it was: Hangul
// sorts after it). The index itself was always right.
const V9_HANGUL_WORDS = `
CREATE TABLE IF NOT EXISTS search_words_fill (id INTEGER PRIMARY KEY CHECK (id = 1), after TEXT NOT NULL);
INSERT OR IGNORE INTO search_words_fill (id, after) SELECT 1, '' WHERE EXISTS (SELECT 1 FROM search_words WHERE word GLOB '*[\u1100-\u11ff]*');
DELETE FROM search_words WHERE word GLOB '*[\u1100-\u11ff]*';
`;

/**
 * SQL expression: whether the message with id `id` is indexed by its first part only (positions
 * from its session's capped_from on, see V10_CAPPED_TEXT). `id` must name its table (`m.id`,
 * `old.id`): a bare `id` would be the sessions row's own inside the subquery.
 */
function cappedSql(id: string): string {
  return `((${id}) & ${POSITION_SPAN - 1}) >= (SELECT capped.capped_from FROM sessions capped WHERE capped.id = (${id}) >> ${POSITION_BITS})`;
}

/** SQL expression: the text the index holds for a stored message, from version 10 on. */
export function indexedTextSql(data: string, id: string): string {
  return `${MESSAGE_TEXT_FUNCTION}(${data}, ${cappedSql(id)})`;
}

// Version 10: the index holds each new message's first MAX_INDEXED_CHARS characters
// (message-text.ts). A message indexed whole before must leave FTS5 with the text it was indexed
// with, or the external-content index is damaged; re-indexing the long ones would read every
// message once (10 s for a 1.8 GB database with a cold cache), so instead each session records
// how many of its messages were indexed then (capped_from): those keep their whole text, in the
// view FTS5 reads, in the triggers' deletes and in the indexer; later ones are capped.
// Safe to run again (a database whose user_version was set back keeps its sessions' boundaries).
function cappedText(db: Database): void {
  const has = db.prepare("SELECT 1 FROM pragma_table_info('sessions') WHERE name = 'capped_from'").get();
  if (!has) db.exec("ALTER TABLE sessions ADD COLUMN capped_from INTEGER NOT NULL DEFAULT 0; UPDATE sessions SET capped_from = indexed_count;");
  db.exec(V10_CAPPED_TEXT);
}

const V10_CAPPED_TEXT = `
DROP TRIGGER messages_fts_delete;
DROP TRIGGER messages_fts_update;
DROP VIEW message_text;
CREATE VIEW message_text(id, text) AS SELECT m.id, ${indexedTextSql("m.data", "m.id")} FROM messages m;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages
  WHEN (old.id & ${POSITION_SPAN - 1}) < (SELECT indexed_count FROM sessions WHERE id = old.id >> ${POSITION_BITS})
BEGIN
  INSERT INTO message_fts(message_fts, rowid, text) VALUES ('delete', old.id, ${indexedTextSql("old.data", "old.id")});
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF data ON messages
  WHEN (old.id & ${POSITION_SPAN - 1}) < (SELECT indexed_count FROM sessions WHERE id = old.id >> ${POSITION_BITS})
BEGIN
  INSERT INTO message_fts(message_fts, rowid, text) VALUES ('delete', old.id, ${indexedTextSql("old.data", "old.id")});
  INSERT INTO message_fts(rowid, text) VALUES (new.id, ${indexedTextSql("new.data", "new.id")});
END;
`;

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, description: "projects, sessions, messages, runs, events, settings", up: (db) => db.exec(V1_SCHEMA) },
  { version: 2, description: "full-text search over message text", up: (db) => db.exec(V2_SEARCH) },
  { version: 3, description: "tool audit log and permission rules", up: (db) => db.exec(V3_AUDIT_AND_RULES) },
  { version: 4, description: "fewer pages per append: search watermark, one session list index", up: (db) => db.exec(V4_APPEND_PAGES) },
  { version: 5, description: "soft delete, terminal logs of tool calls", up: (db) => db.exec(V5_SOFT_DELETE_AND_TOOL_OUTPUT) },
  { version: 6, description: "paged open: message marks, tool call times, no event rows repeating messages", up: (db) => db.exec(V6_PAGED_OPEN) },
  { version: 7, description: "tool call outcomes: execute start, done/failed/denied/stopped with the reason", up: (db) => db.exec(V7_TOOL_OUTCOMES) },
  { version: 8, description: "search word list: words being typed searched as their completions", up: (db) => db.exec(V8_SEARCH_WORDS) },
  { version: 9, description: "search word list: Hangul words listed whole, not as letters", up: (db) => db.exec(V9_HANGUL_WORDS) },
  { version: 10, description: "search index: each new message's first million characters", up: cappedText },
];

export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
