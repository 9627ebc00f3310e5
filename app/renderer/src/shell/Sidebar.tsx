// The sidebar: navigation (Home, History, Settings), then every project, most
// recently opened first, with its newest sessions, newest first; a session that runs, waits for an
// answer, or whose last run failed wears a badge (from the sessions' state events). The session
// shown, or the project page shown, is marked as current.
import type { Project, Session } from "../../../shared/ipc/contract";
import { isBrowserHost } from "../api/client";
import { formatWhen } from "../state/format";
import { NotificationPrompt } from "./notifications";
import type { Route } from "./route";
import { BADGE_TEXT, badgeOf, type DirectorySnapshot } from "./session-directory";

export interface SidebarProps {
  route: Route;
  directory: DirectorySnapshot;
  onNavigate: (screen: "welcome" | "history" | "settings") => void;
  onOpenProject: (project: Project) => void;
  onOpenSession: (session: Session) => void;
  onNewSession: (project: Project) => void;
  onShowShortcuts: () => void;
}

export function sessionTitle(session: Pick<Session, "title">): string {
  return session.title ?? "Untitled session";
}

/** The sessions in the sidebar's order (for Alt+↑/↓). */
export function sidebarOrder(directory: DirectorySnapshot): Session[] {
  return directory.projects.flatMap((p) => [...(directory.sessions.get(p.id) ?? [])]);
}

export function Sidebar({ route, directory, onNavigate, onOpenProject, onOpenSession, onNewSession, onShowShortcuts }: SidebarProps) {
  const current = (screen: Route["screen"]) => (route.screen === screen ? "page" : undefined);
  const hasSessions = [...directory.sessions.values()].some((list) => list.length > 0);
  return (
    <aside className="sidebar" aria-label="Sidebar">
      <div className="sidebar-top">
        <div className="sidebar-brand">
          <img src="./favicon.png" alt="" width={20} height={20} />
          Lathe
        </div>
        <nav className="sidebar-nav" aria-label="Main">
          <button aria-current={current("welcome")} onClick={() => onNavigate("welcome")}>
            Home
          </button>
          <button aria-current={current("history")} onClick={() => onNavigate("history")}>
            History
          </button>
          <button aria-current={current("settings")} onClick={() => onNavigate("settings")}>
            Settings
          </button>
        </nav>
      </div>
      <nav className="sidebar-projects" aria-label="Projects and sessions">
        <h2 className="sidebar-heading">Projects</h2>
        {directory.error && <p className="error-text text-sm">Could not load the projects: {directory.error}</p>}
        {directory.loaded && directory.projects.length === 0 && <p className="muted text-sm">No projects yet: open a folder on Home.</p>}
        {directory.projects.map((project) => (
          <section key={project.id} className="sidebar-project" aria-label={project.name} data-project-id={project.id}>
            <div className="sidebar-project-head">
              <button
                aria-current={route.screen === "project" && route.projectId === project.id ? "page" : undefined}
                onClick={() => onOpenProject(project)}
                title={project.folder}
              >
                <span className="name">{project.name}</span>
              </button>
              <button className="ghost small" onClick={() => onNewSession(project)} aria-label={`Start a session in ${project.name}`} title={`Start a session in ${project.name}`}>
                +
              </button>
            </div>
            <ul className="sidebar-sessions">
              {(directory.sessions.get(project.id) ?? []).map((session) => {
                const badge = badgeOf(directory.states.get(session.id));
                const title = sessionTitle(session);
                return (
                  <li key={session.id}>
                    <button
                      className="sidebar-session"
                      data-session-id={session.id}
                      data-badge={badge ?? undefined}
                      aria-current={route.screen === "session" && route.sessionId === session.id ? "page" : undefined}
                      onClick={() => onOpenSession(session)}
                      title={title}
                    >
                      <span className="title">
                        {title}
                        {session.parentSessionId !== null && <span className="fork-mark"> (fork)</span>}
                      </span>
                      {badge ? <span className={`badge ${badge}`}>{BADGE_TEXT[badge]}</span> : <span className="when">{formatWhen(session.updatedAt)}</span>}
                    </button>
                  </li>
                );
              })}
            </ul>
            {directory.more.has(project.id) && (
              <button className="link sidebar-more" onClick={() => onOpenProject(project)}>
                All sessions of {project.name}
              </button>
            )}
          </section>
        ))}
      </nav>
      <div className="sidebar-foot">
        {isBrowserHost() && hasSessions && <NotificationPrompt />}
        <button className="ghost small" onClick={onShowShortcuts} aria-keyshortcuts="?">
          Keyboard shortcuts <kbd>?</kbd>
        </button>
      </div>
    </aside>
  );
}
