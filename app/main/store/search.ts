// Full-text search over every message's text (FTS5). User input is never passed to FTS5 as query
// syntax: it is split into words, each quoted, all required (AND). Hits come newest session first
// (then latest message first): FTS5 walks an exact term's index in rowid order and stops at the
// page limit, so such a query costs the same over 2 million messages as over 2 thousand.
// Search-as-you-type: the last word (3 characters or more, no space after it) may be a word being
// typed, so it also matches as a prefix, but only when the exact words find fewer hits than the
// page: a prefix query merges the index entries of every word with that prefix before it can
// return anything (75 ms for "function"* over 2 M messages, against 0.3 ms for "function"). The
// choice depends on the query alone (the first page of exact hits), so every page of one query
// uses the same form. Never throws on odd input.
import type { Database } from "better-sqlite3";
import type { AgentMessage } from "../../shared/agent-types.ts";
import { positionOf, sessionOf } from "./messages.ts";
import type { SearchHit, SearchOptions, SearchResult, SnippetPart } from "./store-types.ts";
import { statement } from "./sql.ts";

const OPEN = "\u0002";
const CLOSE = "\u0003";
const SNIPPET_WORDS = 16;

/** The FTS5 queries for what the user typed (exact words; and with the last as a prefix, when it may be unfinished); null when it holds no searchable word. */
export function toFtsQueries(input: string): { exact: string; prefix: string | null } | null {
  const words = input.match(/[\p{L}\p{N}\p{Co}]+/gu);
  if (!words) return null;
  const exact = words.map((word) => `"${word}"`).join(" ");
  const prefixLast = !/\s$/u.test(input) && words[words.length - 1]!.length >= 3;
  return { exact, prefix: prefixLast ? `${exact}*` : null };
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

export function searchMessages(db: Database, input: string, options: SearchOptions = {}): SearchResult {
  const queries = toFtsQueries(input);
  if (queries === null) return { hits: [], nextCursor: null };
  const limit = Math.max(1, Math.min(options.limit ?? 20, 200));
  let query = queries.exact;
  let rows: HitRow[] | null = null;
  if (queries.prefix !== null) {
    const exactFirstPage = runQuery(db, queries.exact, limit, { ...options, cursor: null });
    if (exactFirstPage.length < limit) query = queries.prefix;
    else if (options.cursor == null) rows = exactFirstPage;
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
