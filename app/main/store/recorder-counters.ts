// The session row's counters (message_count, tokens, cost, updated_at) as the recorder keeps them.
//
// Why: every page a commit dirties is written to the WAL, and the session row (with its entry in
// the list index, which moves with updated_at) was half of what a per-message commit wrote. So the
// recorder commits each message row alone, at the position it keeps in memory, and writes the
// counters a few milliseconds later (and at the end of a run, and before the store serves any
// other read or write: SessionStore syncs its recorders first). The message itself is committed
// at once: durability is unchanged; only the counters lag, and only inside this process.
// After a crash the counters can be behind the rows: repair.ts recomputes them for every session
// whose run was cut short (the only ones that can lag, as a run's end writes them).
// The next position comes from the rows (max id), read once and then counted, so it is right even
// if the counters were behind. A session's title is set by its first user message, at once.
// Use: insert() and write() run inside the caller's transaction and return what to apply once it
// has committed (nothing changes in memory if it rolls back). A message that needs only its row
// (single()) is inserted without an explicit transaction: one statement commits atomically, and
// BEGIN and COMMIT cost a tenth of a message's write.
import type { Database } from "better-sqlite3";
import type { AgentMessage } from "../../shared/agent-types.ts";
import { StoreError } from "./errors.ts";
import { titleFromPrompt } from "./message-text.ts";
import { endMessageId, firstMessageId, insertMessageAt, isMarked, positionOf, usageOf } from "./messages.ts";
import { statement } from "./sql.ts";

interface Base {
  /** Position after the last stored row when read. */
  next: number;
  hasTitle: boolean;
}

const NOTHING = (): void => {};

export class RecorderCounters {
  readonly #db: Database;
  readonly #sessionId: number;
  #base: Base | null = null;
  /** Committed messages the row does not count yet. */
  #messages = 0;
  #tokens = 0;
  #cost = 0;
  #at = 0;

  constructor(db: Database, sessionId: number) {
    this.#db = db;
    this.#sessionId = sessionId;
  }

  /** Whether committed messages are missing from the row's counters. */
  get lagging(): boolean {
    return this.#messages > 0;
  }

  #read(): Base {
    const row = statement(this.#db, "SELECT (SELECT max(id) FROM messages WHERE id >= ? AND id < ?) AS last, title IS NOT NULL AS hasTitle FROM sessions WHERE id = ?").get(
      firstMessageId(this.#sessionId),
      endMessageId(this.#sessionId),
      this.#sessionId,
    ) as { last: number | null; hasTitle: number } | undefined;
    if (!row) throw new StoreError("not-found", `Session ${this.#sessionId} does not exist.`);
    return { next: row.last === null ? 0 : positionOf(row.last) + 1, hasTitle: row.hasTitle === 1 };
  }

  /**
   * Whether insert() would be a single statement (the position known, no mark, no title to set):
   * then it needs no BEGIN and COMMIT around it, one statement being atomic by itself.
   */
  single(message: AgentMessage): boolean {
    return this.#base !== null && !isMarked(message) && (this.#base.hasTitle || titleFromPrompt(message) === null);
  }

  /** Inserts the message at the session's next position. */
  insert(message: AgentMessage, at: number): () => void {
    const base = (this.#base ??= this.#read());
    insertMessageAt(this.#db, this.#sessionId, base.next + this.#messages, message, at);
    const title = base.hasTitle ? null : titleFromPrompt(message);
    if (title !== null) statement(this.#db, "UPDATE sessions SET title = coalesce(title, ?) WHERE id = ?").run(title, this.#sessionId);
    const { tokens, cost } = usageOf(message);
    return () => {
      this.#messages++;
      this.#tokens += tokens;
      this.#cost += cost;
      this.#at = Math.max(this.#at, at);
      if (title !== null) base.hasTitle = true;
    };
  }

  /** Brings the row's counters up to the committed messages. */
  write(): () => void {
    if (!this.lagging || !this.#base) return NOTHING;
    const written = { messages: this.#messages, tokens: this.#tokens, cost: this.#cost };
    statement(this.#db, "UPDATE sessions SET message_count = ?, tokens = tokens + ?, cost = cost + ?, updated_at = max(updated_at, ?) WHERE id = ?").run(
      this.#base.next + written.messages,
      written.tokens,
      written.cost,
      this.#at,
      this.#sessionId,
    );
    return () => {
      this.#messages -= written.messages;
      this.#tokens -= written.tokens;
      this.#cost -= written.cost;
      // Read the rows again before the next message: another writer may append once the row is current.
      if (this.#messages === 0) this.#base = null;
    };
  }
}
