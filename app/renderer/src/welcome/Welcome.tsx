// The welcome screen: open a project folder (the native picker in the app, a path field in the
// browser host, where a relative path starts at the home folder), recent projects with their last
// session and when, and, until some provider is set up, the provider setup. Opening the home
// folder or `/` asks first (shell/use-open-project.tsx).
import { useEffect, useState } from "react";
import type { Project, Session } from "../../../shared/ipc/contract";
import { getApi, isBrowserHost } from "../api/client";
import { errorText, isRefusal, unwrap } from "../state/api-hooks";
import { useAppData } from "../state/app-data";
import { formatWhen } from "../state/format";
import { ProviderSetup } from "./ProviderSetup";

interface Recent {
  project: Project;
  last: Session | null;
}

export interface WelcomeProps {
  /** Opens a folder as a project (asking first about broad folders); null when the person said no. */
  openFolder: (folder: string) => Promise<Project | null>;
  /** A folder was just opened. */
  onOpenProject: (project: Project) => void;
  /** A recent project was chosen. */
  onShowProject: (project: Project) => void;
  onOpenSession: (project: Project, session: Session) => void;
}

export function Welcome({ openFolder, onOpenProject, onShowProject, onOpenSession }: WelcomeProps) {
  const { settings } = useAppData();
  const [recent, setRecent] = useState<Recent[] | null>(null);
  const [folder, setFolder] = useState("");
  const [error, setError] = useState<string | null>(null);
  // The host refused this page: the banner says so; the recent list is not "loading" forever.
  const [refused, setRefused] = useState(false);
  // Once the person starts setting up, the form stays (with its test result) after it succeeds.
  const [keepSetup, setKeepSetup] = useState(false);
  const browser = isBrowserHost();
  // The home folder relative paths start at, for the field's hint.
  const [home, setHome] = useState<string | null>(null);
  useEffect(() => {
    if (!browser) return;
    unwrap(getApi().projects.resolve({ folder: "~" })).then(
      (r) => setHome(r.home),
      () => undefined,
    );
  }, [browser]);

  useEffect(() => {
    const api = getApi();
    unwrap(api.projects.list({}))
      .then((projects) =>
        Promise.all(
          projects
            .sort((a, b) => b.lastOpenedAt - a.lastOpenedAt)
            .slice(0, 12)
            .map(async (project) => {
              const page = await unwrap(api.sessions.list({ projectId: project.id, limit: 1 }));
              return { project, last: page.sessions[0] ?? null };
            }),
        ),
      )
      .then(setRecent, (e: unknown) => (isRefusal(e) ? setRefused(true) : setError(errorText(e))));
  }, []);

  const open = async (path: string) => {
    setError(null);
    try {
      const project = await openFolder(path);
      if (project) onOpenProject(project);
    } catch (e) {
      setError(errorText(e));
    }
  };

  const pick = async () => {
    setError(null);
    try {
      const { folder: picked } = await unwrap(getApi().projects.pickFolder({}));
      if (picked) await open(picked);
    } catch (e) {
      setError(errorText(e));
    }
  };

  // The catalogue lists models of every known provider; what matters is whether one can be reached.
  const needsProvider = settings !== null && !settings.providers.some((p) => p.keySource !== "none" || p.kind === "compatible");
  return (
    <div className="page">
      <div className="page-inner">
        <h1>Welcome to Lathe</h1>
        {(needsProvider || keepSetup) && <ProviderSetup onStart={() => setKeepSetup(true)} />}
        <section className="panel" aria-labelledby="open-title">
          <h2 id="open-title">Open a project</h2>
          {browser ? (
            <form
              className="row"
              onSubmit={(e) => {
                e.preventDefault();
                if (folder.trim()) void open(folder.trim());
              }}
            >
              <label>
                Project folder
                <input value={folder} onChange={(e) => setFolder(e.target.value)} placeholder="code/my-project" aria-describedby="folder-hint" autoFocus />
              </label>
              <button type="submit" className="primary" disabled={!folder.trim()}>
                Open
              </button>
              <p id="folder-hint" className="field-hint" style={{ flexBasis: "100%", margin: 0 }}>
                A folder on the machine the host runs on. A relative path starts at your home folder{home ? ` (${home})` : ""}; <code>~/</code> works too.
              </p>
            </form>
          ) : (
            <button className="primary" onClick={() => void pick()} autoFocus>
              Open a folder…
            </button>
          )}
          {error && (
            <p className="error-text" role="alert">
              {error}
            </p>
          )}
        </section>
        {!refused && (
          <section className="panel" aria-labelledby="recent-title">
            <h2 id="recent-title">Recent projects</h2>
            {recent === null ? (
              <p className="muted">Loading…</p>
            ) : recent.length === 0 ? (
              <p className="muted">No projects yet.</p>
            ) : (
              <ul className="list">
                {recent.map(({ project, last }) => (
                  <li key={project.id} style={{ display: "flex", alignItems: "center" }}>
                    <button className="list-button" onClick={() => onShowProject(project)} style={{ flex: 1 }}>
                      <span>
                        <strong>{project.name}</strong> <span className="muted">{project.folder}</span>
                      </span>
                      <span className="muted">{formatWhen(project.lastOpenedAt)}</span>
                    </button>
                    {last && (
                      <button
                        className="link"
                        style={{ marginLeft: 8, whiteSpace: "nowrap" }}
                        onClick={() => onOpenSession(project, last)}
                        title={`Resume the last session of ${project.name}`}
                      >
                        Resume “{last.title ?? "Untitled"}” · {formatWhen(last.updatedAt)}
                      </button>
                    )}
                  </li>
                ))}
              </ul>
            )}
          </section>
        )}
      </div>
    </div>
  );
}
