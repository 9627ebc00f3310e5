// A project's page: start a session by typing its first message right here (or New session for an
// empty one), or resume one of its latest sessions (with their live badges: running, needs
// approval, failed).
import { useEffect, useState } from "react";
import type { Project, Session } from "../../../shared/ipc/contract";
import { getApi } from "../api/client";
import { errorText, unwrap } from "../state/api-hooks";
import { formatCost, formatWhen, plural } from "../state/format";
import { useDirectorySnapshot } from "../shell/directory-context";
import { BADGE_TEXT, badgeOf } from "../shell/session-directory";

export function ProjectHome({
  project,
  onOpenSession,
  onNewSession,
  onStart,
}: {
  project: Project;
  onOpenSession: (session: Session) => void;
  onNewSession: () => Promise<void>;
  onStart: (text: string) => Promise<void>;
}) {
  const [first, setFirst] = useState("");
  const { states } = useDirectorySnapshot();
  const [sessions, setSessions] = useState<Session[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    unwrap(getApi().sessions.list({ projectId: project.id, limit: 30 })).then(
      (page) => setSessions(page.sessions),
      (e: unknown) => setError(errorText(e)),
    );
  }, [project.id]);

  const create = async () => {
    setBusy(true);
    setError(null);
    try {
      await onNewSession();
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  const start = async () => {
    if (!first.trim() || busy) return;
    setBusy(true);
    setError(null);
    try {
      await onStart(first.trim());
    } catch (e) {
      setError(errorText(e));
      setBusy(false);
    }
  };

  return (
    <div className="page">
      <div className="page-inner">
        <div className="row" style={{ alignItems: "center" }}>
          <h1 style={{ flex: 1 }}>
            {project.name} <span className="muted project-folder">{project.folder}</span>
          </h1>
          <button onClick={() => void create()} disabled={busy}>
            New session
          </button>
        </div>
        <form
          className="panel start-form"
          aria-label="Start a session"
          onSubmit={(e) => {
            e.preventDefault();
            void start();
          }}
        >
          <label htmlFor="first-message">What should Lathe do in {project.name}?</label>
          <textarea
            id="first-message"
            autoFocus
            value={first}
            rows={3}
            placeholder="Fix the failing test…  (Enter starts, Shift+Enter for a new line)"
            onChange={(e) => setFirst(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
                e.preventDefault();
                void start();
              }
            }}
          />
          <div className="row" style={{ justifyContent: "flex-end" }}>
            <button type="submit" className="primary" disabled={busy || !first.trim()}>
              Start
            </button>
          </div>
        </form>
        {error && (
          <p className="error-text" role="alert">
            {error}
          </p>
        )}
        <section className="panel" aria-labelledby="sessions-title">
          <h2 id="sessions-title">Sessions</h2>
          {sessions === null ? (
            <p className="muted">Loading…</p>
          ) : sessions.length === 0 ? (
            <p className="muted">No sessions yet in this project.</p>
          ) : (
            <ul className="list">
              {sessions.map((s) => {
                const badge = badgeOf(states.get(s.id));
                return (
                  <li key={s.id}>
                    <button className="list-button" data-session-id={s.id} onClick={() => onOpenSession(s)}>
                      <span>
                        {s.title ?? "Untitled session"}
                        {s.parentSessionId !== null && <span className="muted"> (fork)</span>}
                        {badge && <span className={`badge ${badge}`}>{BADGE_TEXT[badge]}</span>}
                      </span>
                      <span className="muted">
                        {plural(s.messageCount, "message")} · {formatCost(s.cost)} · {formatWhen(s.updatedAt)}
                      </span>
                    </button>
                  </li>
                );
              })}
            </ul>
          )}
        </section>
      </div>
    </div>
  );
}
