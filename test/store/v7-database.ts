// A schema-7 database (before the search word list), for the tests of the upgrade to 8.
import Database from "better-sqlite3";
import path from "node:path";
import { MIGRATIONS } from "../../app/main/store/migrations.ts";
import { prepareConnection } from "../../app/main/store/open-database.ts";
import { user } from "./helpers.ts";

/** Writes dir/lathe.db at version 7: one project, one session holding `texts` as user messages, all indexed. */
export function writeV7Database(dir: string, texts: string[]): void {
  const db = new Database(path.join(dir, "lathe.db"));
  prepareConnection(db);
  for (const migration of MIGRATIONS.filter((m) => m.version <= 7)) migration.up(db);
  db.pragma("user_version = 7");
  db.prepare("INSERT INTO projects VALUES (1, '/p', 'p', 1, 1)").run();
  db.prepare("INSERT INTO sessions (id, project_id, created_at, updated_at, base_tool_names, message_count, indexed_count) VALUES (1, 1, 1, 1, '[]', ?, ?)").run(
    texts.length,
    texts.length,
  );
  const insert = db.prepare("INSERT INTO messages (id, role, data, created_at) VALUES (?, 'user', ?, 1)");
  db.transaction(() => texts.forEach((t, p) => insert.run(2 ** 24 + p, JSON.stringify(user(t)))))();
  db.exec("INSERT INTO message_fts(rowid, text) SELECT id, lathe_message_text(data) FROM messages");
  db.close();
}
