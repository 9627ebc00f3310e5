// The session header: the title (click it to rename: saved explicitly, TitleEditor.tsx), the project (opens its page), the model, and for a fork "forked from X at message N"
// (opens X at that message); a badge while it runs, waits for you or failed. Also sets the tab's
// title from the same facts.
import { useEffect, useState } from "react";
import type { Project, Session, SessionState } from "../../../shared/ipc/contract";
import { getApi } from "../api/client";
import { errorText, unwrap } from "../state/api-hooks";
import { useAppData } from "../state/app-data";
import { sessionDocumentTitle } from "./document-title";
import { BADGE_TEXT, badgeOf } from "./session-directory";
import { TitleEditor } from "./TitleEditor";

export interface SessionHeaderProps {
  sessionId: number;
  info: Session | null;
  state: SessionState | null;
  /** The title until the session has one (its first prompt, as the store will title it). */
  fallbackTitle: string | null;
  project: Project | null;
  onOpenProject: (project: Project) => void;
  onOpenSession: (session: Pick<Session, "id" | "projectId">, jumpTo: number | null) => void;
}

export function SessionHeader({ sessionId, info, state, fallbackTitle, project, onOpenProject, onOpenSession }: SessionHeaderProps) {
  const { models } = useAppData();
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [parent, setParent] = useState<Session | null>(null);
  const title = info?.title ?? fallbackTitle ?? "Untitled session";
  const badge = badgeOf(state ?? undefined);
  const modelRef = state?.model ?? info?.model ?? null;
  const model = models.find((m) => `${m.provider}/${m.id}` === modelRef);

  useEffect(() => {
    document.title = sessionDocumentTitle(title, badge);
  }, [title, badge]);
  useEffect(() => () => void (document.title = "Lathe"), []);

  const parentId = info?.parentSessionId ?? null;
  useEffect(() => {
    if (parentId === null) return;
    let live = true;
    unwrap(getApi().sessions.get({ sessionId: parentId })).then(
      (s) => live && setParent(s),
      () => live && setParent(null),
    );
    return () => {
      live = false;
    };
  }, [parentId]);

  const startEditing = () => {
    setError(null);
    setEditing(true);
  };
  const save = (next: string) => {
    unwrap(getApi().sessions.rename({ sessionId, title: next })).catch((e: unknown) => setError(errorText(e)));
  };

  return (
    <header className="session-header" role="region" aria-label="Session">
      <div className="heading">
        {editing ? (
          <TitleEditor initial={info?.title ?? fallbackTitle ?? ""} label="Session title" onSave={save} onClose={() => setEditing(false)} />
        ) : (
          <h1>
            <button className="title-button" onClick={startEditing} title="Rename this session">
              {title}
              <span className="sr-only"> (rename)</span>
            </button>
          </h1>
        )}
        <div className="facts">
          {project && (
            <button className="link" onClick={() => onOpenProject(project)} title={project.folder}>
              {project.name}
            </button>
          )}
          <span title={modelRef ?? undefined}>{model ? model.name : (modelRef ?? "No model chosen")}</span>
          {info && info.parentSessionId !== null && (
            <span>
              forked from{" "}
              <button className="link" onClick={() => onOpenSession({ id: info.parentSessionId!, projectId: info.projectId }, info.forkPosition ?? null)}>
                “{parent?.title ?? `session ${info.parentSessionId}`}”
              </button>{" "}
              at message {(info.forkPosition ?? 0) + 1}
            </span>
          )}
        </div>
        {error && (
          <span className="error-text text-sm" role="alert">
            {error}
          </span>
        )}
      </div>
      <span className="spacer" />
      {badge && (
        <span className={`badge ${badge}`} role="status">
          {BADGE_TEXT[badge]}
        </span>
      )}
    </header>
  );
}
