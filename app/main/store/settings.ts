// Application settings: JSON values under string keys. Writes are single-statement transactions.
import type { Database } from "better-sqlite3";
import { toStoreError } from "./errors.ts";
import { statement } from "./sql.ts";

export class SettingsStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  /** The stored value, or `fallback` when the key is absent. */
  get<T>(key: string, fallback: T): T;
  get<T>(key: string): T | undefined;
  get<T>(key: string, fallback?: T): T | undefined {
    const value = statement(this.#db, "SELECT value FROM settings WHERE key = ?").pluck().get(key) as string | undefined;
    return value === undefined ? fallback : (JSON.parse(value) as T);
  }

  /** Stores any JSON-serialisable value; `undefined` deletes the key. */
  set(key: string, value: unknown): void {
    if (value === undefined) return this.delete(key);
    try {
      statement(
        this.#db,
        "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
      ).run(key, JSON.stringify(value), Date.now());
    } catch (err) {
      throw toStoreError(err, `saving the setting "${key}"`);
    }
  }

  delete(key: string): void {
    try {
      statement(this.#db, "DELETE FROM settings WHERE key = ?").run(key);
    } catch (err) {
      throw toStoreError(err, `deleting the setting "${key}"`);
    }
  }

  all(): Record<string, unknown> {
    const rows = statement(this.#db, "SELECT key, value FROM settings ORDER BY key").all() as { key: string; value: string }[];
    return Object.fromEntries(rows.map((r) => [r.key, JSON.parse(r.value)]));
  }
}
