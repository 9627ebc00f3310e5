// Full-text search over every message's text (FTS5). User input is never passed to FTS5 as query
// syntax: it is split into words, each quoted, all required (AND). Hits come newest session first
// (then latest message first): FTS5 walks an exact term's index in rowid order and stops at the
// page limit, so such a query costs the same over 2 million messages as over 2 thousand.
// Search-as-you-type: the last word (3 characters or more, no space after it) may be a word being
// typed, so it also matches the words it completes to, but only when the exact words find fewer
// hits than the page. The completions come from the word list (search-words.ts, the most frequent
// MAX_COMPLETIONS) and are asked for as an OR of exact words: an FTS5 prefix query would merge the
// index entries of every word with that prefix before it could return anything (54 ms for
// "functi"* over 2 M messages, against under 1 ms for the OR). The choice depends on the query
// alone (the first page of exact hits), so every page of one query uses the same form. While the
// word list is still being filled after an upgrade (search-words-fill.ts), the caller says so
// (`wordListComplete: false`) and a word being typed is searched as an FTS5 prefix query instead:
// slower on a large index, but complete. Never throws on odd input.
import type { Database } from "better-sqlite3";
import type { AgentMessage } from "../../shared/agent-types.ts";
import { positionOf, sessionOf } from "./messages.ts";
import { completionsOf } from "./search-words.ts";
import type { SearchHit, SearchOptions, SearchResult, SnippetPart } from "./store-types.ts";
import { statement } from "./sql.ts";

const OPEN = "\u0002";
const CLOSE = "\u0003";
const SNIPPET_WORDS = 16;

const quoted = (word: string) => `"${word.replaceAll('"', '""')}"`;

/** The words of what the user typed, and whether the last may be unfinished; null when it holds no searchable word. */
export function parseQuery(input: string): { words: string[]; lastMayBeTyped: boolean } | null {
  const words = input.match(/[\p{L}\p{N}\p{Co}]+/gu);
  if (!words) return null;
  return { words, lastMayBeTyped: !/\s$/u.test(input) && words[words.length - 1]!.length >= 3 };
}

/** The FTS5 query requiring every word, the last as itself or as any of `completions`. */
export function toFtsQuery(words: readonly string[], completions: readonly string[] = []): string {
  const required = words.slice(0, -1).map(quoted);
  const last = [words[words.length - 1]!, ...completions].map(quoted);
  required.push(last.length === 1 ? last[0]! : `(${last.join(" OR ")})`);
  return required.join(" AND ");
}

/** The FTS5 query requiring every word, the last as a prefix (`"word"*`: any word starting with it). */
export function toPrefixFtsQuery(words: readonly string[]): string {
  return [...words.slice(0, -1).map(quoted), `${quoted(words[words.length - 1]!)}*`].join(" AND ");
}

/** Splits FTS5 snippet output (matches between OPEN and CLOSE markers) into parts. */
export function parseSnippet(snippet: string): SnippetPart[] {
  const parts: SnippetPart[] = [];
  let rest = snippet;
  while (rest.length > 0) {
    const open = rest.indexOf(OPEN);
    if (open < 0) {
      parts.push({ text: rest, match: false });
      break;
    }
    if (open > 0) parts.push({ text: rest.slice(0, open), match: false });
    const close = rest.indexOf(CLOSE, open + 1);
    const end = close < 0 ? rest.length : close;
    parts.push({ text: rest.slice(open + 1, end), match: true });
    rest = close < 0 ? "" : rest.slice(close + 1);
  }
  return parts.filter((p) => p.text !== "");
}

interface HitRow {
  id: number;
  snippet: string;
  title: string | null;
  projectId: number;
  role: AgentMessage["role"];
}

export function searchMessages(db: Database, input: string, options: SearchOptions, wordListComplete: boolean): SearchResult {
  const parsed = parseQuery(input);
  if (parsed === null) return { hits: [], nextCursor: null };
  const limit = Math.max(1, Math.min(options.limit ?? 20, 200));
  const exact = toFtsQuery(parsed.words);
  let query = exact;
  let rows: HitRow[] | null = null;
  if (parsed.lastMayBeTyped) {
    const exactFirstPage = runQuery(db, exact, limit, { ...options, cursor: null });
    if (exactFirstPage.length < limit)
      query = wordListComplete ? toFtsQuery(parsed.words, completionsOf(db, parsed.words[parsed.words.length - 1]!)) : toPrefixFtsQuery(parsed.words);
    if (query === exact && options.cursor == null) rows = exactFirstPage;
  }
  rows ??= runQuery(db, query, limit, options);
  const page = rows.slice(0, limit);
  const hits: SearchHit[] = page.map((row) => ({
    sessionId: sessionOf(row.id),
    sessionTitle: row.title,
    projectId: row.projectId,
    position: positionOf(row.id),
    role: row.role,
    snippet: parseSnippet(row.snippet),
  }));
  return { hits, nextCursor: rows.length > limit ? page[page.length - 1]!.id : null };
}

/** Up to limit + 1 hits of one FTS5 query (the extra one says whether there is a next page). */
function runQuery(db: Database, query: string, limit: number, options: SearchOptions): HitRow[] {
  const conditions = ["message_fts MATCH @query", "s.deleted_at IS NULL"];
  if (options.cursor != null) conditions.push("f.rowid < @cursor");
  if (!options.includeArchived) conditions.push("s.archived_at IS NULL");
  if (options.projectId !== undefined) conditions.push("s.project_id = @projectId");
  return statement(
    db,
    `SELECT f.rowid AS id, snippet(message_fts, 0, '${OPEN}', '${CLOSE}', '…', ${SNIPPET_WORDS}) AS snippet,
            s.title, s.project_id AS projectId, m.role
       FROM message_fts f
       JOIN sessions s ON s.id = (f.rowid >> 24)
       JOIN messages m ON m.id = f.rowid
      WHERE ${conditions.join(" AND ")}
      ORDER BY f.rowid DESC LIMIT @limit`,
  ).all({
    query,
    limit: limit + 1,
    ...(options.cursor != null ? { cursor: options.cursor } : {}),
    ...(options.projectId !== undefined ? { projectId: options.projectId } : {}),
  }) as HitRow[];
}
