// The history browser: every session grouped by project in one virtualized list (pages of 200
// load as their "more" row scrolls into view, so 10,000 sessions scroll smoothly); full-text
// search with highlighted snippets that open the session at the message; a session that runs,
// waits for an answer or failed wears its badge; rename, export to Markdown, and delete with undo:
// the delete is stored at once (a soft delete, so quitting during the undo window keeps it) and
// Undo restores the session; the host purges it for good later.
import { useVirtualizer } from "@tanstack/react-virtual";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { Project, Session } from "../../../shared/ipc/contract";
import type { Static } from "@sinclair/typebox";
import type { SearchHitSchema } from "../../../shared/ipc/store-schemas";
import { getApi } from "../api/client";
import { errorText, unwrap } from "../state/api-hooks";
import { formatCost, formatWhen, plural } from "../state/format";
import { useDirectorySnapshot } from "../shell/directory-context";
import { BADGE_TEXT, badgeOf } from "../shell/session-directory";
import { TitleEditor } from "../shell/TitleEditor";
import { downloadText } from "./export";
import { historyRows, type ProjectSessions } from "./history-rows";

type Hit = Static<typeof SearchHitSchema>;
const PAGE = 200;
const UNDO_MS = 6000;

export function HistoryBrowser({ onOpenSession }: { onOpenSession: (session: Pick<Session, "id" | "projectId">, jumpTo: number | null) => void }) {
  const [projects, setProjects] = useState<Project[]>([]);
  const [groups, setGroups] = useState<Map<number, ProjectSessions & { cursor: unknown }>>(new Map());
  const [hidden, setHidden] = useState<ReadonlySet<number>>(new Set());
  const [pendingDelete, setPendingDelete] = useState<{ session: Session; timer: ReturnType<typeof setTimeout> } | null>(null);
  const [query, setQuery] = useState("");
  const [hits, setHits] = useState<Hit[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const loadingRef = useRef(new Set<number>());

  const loadMore = useCallback(async (projectId: number, cursor: unknown) => {
    if (loadingRef.current.has(projectId)) return;
    loadingRef.current.add(projectId);
    try {
      const page = await unwrap(getApi().sessions.list({ projectId, limit: PAGE, ...(cursor ? { cursor: cursor as { updatedAt: number; id: number } } : {}) }));
      setGroups((prev) => {
        const next = new Map(prev);
        const old = prev.get(projectId);
        // A first page replaces; a later page appends what is not already listed.
        const kept = cursor ? (old?.sessions ?? []) : [];
        const seen = new Set(kept.map((s) => s.id));
        next.set(projectId, { sessions: [...kept, ...page.sessions.filter((s) => !seen.has(s.id))], hasMore: page.nextCursor !== null, loading: false, cursor: page.nextCursor });
        return next;
      });
    } catch (e) {
      setError(errorText(e));
    } finally {
      loadingRef.current.delete(projectId);
    }
  }, []);

  useEffect(() => {
    unwrap(getApi().projects.list({})).then(
      (list) => {
        const sorted = list.sort((a, b) => b.lastOpenedAt - a.lastOpenedAt);
        setProjects(sorted);
        for (const p of sorted) void loadMore(p.id, null);
      },
      (e: unknown) => setError(errorText(e)),
    );
  }, [loadMore]);

  useEffect(() => {
    const q = query.trim();
    if (!q) {
      setHits(null);
      return;
    }
    const timer = setTimeout(() => {
      unwrap(getApi().sessions.search({ query: q, limit: 100 })).then(
        (r) => setHits(r.hits),
        (e: unknown) => setError(errorText(e)),
      );
    }, 200);
    return () => clearTimeout(timer);
  }, [query]);

  const rows = useMemo(() => historyRows(projects, groups, hidden), [projects, groups, hidden]);
  // Stable key and size functions (through a ref): a new key function on every render would make
  // TanStack Virtual recompute every row's offset; it changes only when the rows are replaced.
  const rowsRef = useRef(rows);
  rowsRef.current = rows;
  const firstKey = rows[0]?.key;
  const lastKey = rows[rows.length - 1]?.key;
  // eslint-disable-next-line react-hooks/exhaustive-deps -- a new key function exactly when the rows were replaced
  const getItemKey = useMemo(() => (i: number) => rowsRef.current[i]?.key ?? i, [rows.length, firstKey, lastKey]);
  const estimateSize = useCallback((i: number) => (rowsRef.current[i]?.kind === "project" ? 36 : 34), []);
  // TanStack Virtual returns a mutable instance; these components are not memoized by the compiler.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize, overscan: 10, getItemKey });
  const virtualRows = virtualizer.getVirtualItems();

  useEffect(() => {
    for (const v of virtualRows) {
      const row = rows[v.index];
      if (row?.kind === "more") void loadMore(row.project.id, groups.get(row.project.id)?.cursor ?? null);
    }
  });

  const replaceSession = (session: Session) =>
    setGroups((prev) => {
      const next = new Map(prev);
      const group = prev.get(session.projectId);
      if (group) next.set(session.projectId, { ...group, sessions: group.sessions.map((s) => (s.id === session.id ? session : s)) });
      return next;
    });

  const remove = (session: Session) => {
    if (pendingDelete) clearTimeout(pendingDelete.timer);
    setHidden((h) => new Set(h).add(session.id));
    const timer = setTimeout(() => setPendingDelete(null), UNDO_MS);
    setPendingDelete({ session, timer });
    unwrap(getApi().sessions.delete({ sessionId: session.id })).catch((e: unknown) => {
      setError(`Could not delete “${session.title ?? "Untitled"}”: ${errorText(e)}`);
      setHidden((h) => new Set([...h].filter((id) => id !== session.id)));
      setPendingDelete((p) => (p?.session.id === session.id ? null : p));
    });
  };

  const undo = () => {
    if (!pendingDelete) return;
    clearTimeout(pendingDelete.timer);
    const { session } = pendingDelete;
    setPendingDelete(null);
    unwrap(getApi().sessions.restore({ sessionId: session.id })).then(
      (restored) => {
        replaceSession(restored);
        setHidden((h) => new Set([...h].filter((x) => x !== session.id)));
      },
      (e: unknown) => setError(`Could not restore “${session.title ?? "Untitled"}”: ${errorText(e)}`),
    );
  };

  const projectName = (id: number) => projects.find((p) => p.id === id)?.name ?? `Project ${id}`;

  return (
    <div className="history">
      <div className="history-bar">
        <h1 style={{ fontSize: 15 }}>History</h1>
        <input type="search" aria-label="Search all sessions" placeholder="Search every message…" value={query} onChange={(e) => setQuery(e.target.value)} />
        {error && (
          <span className="error-text" role="alert">
            {error}
          </span>
        )}
      </div>
      {hits !== null ? (
        <div className="page" style={{ padding: "8px 16px" }} aria-label="Search results">
          {hits.length === 0 && <p className="muted">No messages match.</p>}
          {hits.map((hit) => (
            <div className="hit" key={`${hit.sessionId}:${hit.position}`}>
              <button
                className="link"
                onClick={() => onOpenSession({ id: hit.sessionId, projectId: hit.projectId }, hit.position)}
                aria-label={`Open ${hit.sessionTitle ?? "Untitled"} at message ${hit.position + 1}`}
              >
                {hit.sessionTitle ?? "Untitled session"}
              </button>{" "}
              <span className="where">
                {projectName(hit.projectId)} · {hit.role} message {hit.position + 1}
              </span>
              <div>{hit.snippet.map((part, i) => (part.match ? <mark key={i}>{part.text}</mark> : <span key={i}>{part.text}</span>))}</div>
            </div>
          ))}
        </div>
      ) : (
        <div className="vlist" ref={scroller} aria-label="Sessions by project">
          <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
            {virtualRows.map((v) => {
              const row = rows[v.index]!;
              return (
                <div key={v.key} className="vlist-row" style={{ transform: `translateY(${v.start}px)`, height: v.size }}>
                  {row.kind === "project" ? (
                    <div className="group-head">
                      {row.project.name} <span style={{ fontWeight: 400 }}>{row.project.folder}</span>
                    </div>
                  ) : row.kind === "more" ? (
                    <div className="muted" style={{ padding: 8 }}>
                      Loading more sessions…
                    </div>
                  ) : (
                    <SessionRow
                      session={row.session}
                      onOpen={() => onOpenSession(row.session, null)}
                      onRenamed={replaceSession}
                      onDelete={() => remove(row.session)}
                      onError={setError}
                    />
                  )}
                </div>
              );
            })}
          </div>
          {rows.length === 0 && (
            <p className="muted" style={{ padding: 16 }}>
              No sessions yet.
            </p>
          )}
        </div>
      )}
      {pendingDelete && (
        <div className="toast" role="status">
          Deleted “{pendingDelete.session.title ?? "Untitled session"}”.
          <button onClick={undo} autoFocus>
            Undo
          </button>
        </div>
      )}
    </div>
  );
}

function SessionRow({
  session,
  onOpen,
  onRenamed,
  onDelete,
  onError,
}: {
  session: Session;
  onOpen: () => void;
  onRenamed: (s: Session) => void;
  onDelete: () => void;
  onError: (m: string) => void;
}) {
  const [renaming, setRenaming] = useState(false);
  const title0 = session.title ?? "Untitled session";
  // Running, waiting for an answer, or failed: the same badge as in the sidebar.
  const badge = badgeOf(useDirectorySnapshot().states.get(session.id));
  const rename = (title: string) => {
    unwrap(getApi().sessions.rename({ sessionId: session.id, title })).then(onRenamed, (e: unknown) => onError(errorText(e)));
  };
  const exportMarkdown = () =>
    unwrap(getApi().sessions.export({ sessionId: session.id, format: "markdown" })).then(
      (file) => downloadText(file.fileName, file.content),
      (e: unknown) => onError(errorText(e)),
    );
  return (
    <div className="session-row" data-session-id={session.id}>
      {renaming ? (
        <TitleEditor className="grow" initial={session.title ?? ""} label="New title" onSave={rename} onClose={() => setRenaming(false)} />
      ) : (
        <button className="title" onClick={onOpen} title={title0}>
          {title0}
          {session.parentSessionId !== null && <span className="muted"> (fork)</span>}
        </button>
      )}
      {badge && <span className={`badge ${badge}`}>{BADGE_TEXT[badge]}</span>}
      <span className="meta">
        {plural(session.messageCount, "message")} · {formatCost(session.cost)} · {formatWhen(session.updatedAt)}
      </span>
      <button onClick={() => setRenaming(true)} aria-label={`Rename ${title0}`}>
        Rename
      </button>
      <button onClick={() => void exportMarkdown()} aria-label={`Export ${title0} to Markdown`}>
        Export
      </button>
      <button className="danger" onClick={onDelete} aria-label={`Delete ${title0}`}>
        Delete
      </button>
    </div>
  );
}
