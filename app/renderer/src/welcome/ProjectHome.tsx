// A project's page: start a new session, or resume one of its latest sessions.
import { useEffect, useState } from "react";
import type { Project, Session } from "../../../shared/ipc/contract";
import { getApi } from "../api/client";
import { errorText, unwrap } from "../state/api-hooks";
import { formatCost, formatWhen } from "../state/format";

export function ProjectHome({ project, onOpenSession }: { project: Project; onOpenSession: (session: Session) => void }) {
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
      onOpenSession(await unwrap(getApi().sessions.create({ projectId: project.id })));
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="page">
      <div className="page-inner">
        <div className="row" style={{ alignItems: "center" }}>
          <h1 style={{ flex: 1 }}>
            {project.name} <span className="muted" style={{ fontWeight: 400, fontSize: 13 }}>{project.folder}</span>
          </h1>
          <button className="primary" onClick={() => void create()} disabled={busy} autoFocus>
            New session
          </button>
        </div>
        {error && <p className="error-text" role="alert">{error}</p>}
        <section className="panel" aria-labelledby="sessions-title">
          <h2 id="sessions-title">Sessions</h2>
          {sessions === null ? (
            <p className="muted">Loading…</p>
          ) : sessions.length === 0 ? (
            <p className="muted">No sessions yet in this project.</p>
          ) : (
            <ul className="list">
              {sessions.map((s) => (
                <li key={s.id}>
                  <button className="list-button" onClick={() => onOpenSession(s)}>
                    <span>{s.title ?? "Untitled session"}</span>
                    <span className="muted">
                      {s.messageCount} messages · {formatCost(s.cost)} · {formatWhen(s.updatedAt)}
                    </span>
                  </button>
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>
    </div>
  );
}
