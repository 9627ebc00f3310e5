// Prepared statements, compiled once per connection and reused (compiling costs more than running).
import type { Database, Statement } from "better-sqlite3";

const caches = new WeakMap<Database, Map<string, Statement>>();

export function statement(db: Database, text: string): Statement {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new Map()));
  let prepared = cache.get(text);
  if (!prepared) cache.set(text, (prepared = db.prepare(text)));
  return prepared;
}
