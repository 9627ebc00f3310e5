// The app shell: top bar with navigation, and one screen at a time: welcome, a project's page, a
// session, the history browser or settings. Which project is current follows what was opened last.
// Menu commands from the Electron menu (open a project, new session, history, settings) land here.
import { useCallback, useEffect, useState } from "react";
import type { EventPayload, Project, Session } from "../../shared/ipc/contract";
import { getApi, isBrowserHost, onConnectionStatus } from "./api/client";
import type { ConnectionStatus } from "./api/ws-client";
import { HistoryBrowser } from "./history/HistoryBrowser";
import { SessionView } from "./session/SessionView";
import { SettingsScreen } from "./settings/SettingsScreen";
import { errorText, unwrap, useSubscription } from "./state/api-hooks";
import { AppDataProvider } from "./state/app-data";
import { ProjectHome } from "./welcome/ProjectHome";
import { Welcome } from "./welcome/Welcome";

const CONNECTION_TEXT: Record<ConnectionStatus, string> = {
  connecting: "Connecting to the host…",
  open: "",
  closed: "Disconnected from the host; retrying…",
  refused: "The host refused this page: open the address it printed (with its #token=…).",
};

type Route =
  | { screen: "welcome" }
  | { screen: "project" }
  | { screen: "session"; sessionId: number; jumpTo: number | null }
  | { screen: "history" }
  | { screen: "settings" };

export function App() {
  return (
    <AppDataProvider>
      <Shell />
    </AppDataProvider>
  );
}

function Shell() {
  // `?session=ID` in the page address opens that session directly (bookmarks, the UI benchmark).
  const [route, setRoute] = useState<Route>(() => {
    const id = Number(new URLSearchParams(window.location.search).get("session"));
    return Number.isInteger(id) && id > 0 ? { screen: "session", sessionId: id, jumpTo: null } : { screen: "welcome" };
  });
  const [project, setProject] = useState<Project | null>(null);
  const [connection, setConnection] = useState<ConnectionStatus>("open");
  const [notice, setNotice] = useState<string | null>(null);

  useEffect(() => onConnectionStatus(setConnection), []);
  useEffect(
    () =>
      getApi().events.onAppNotice((n) => {
        if (n.level !== "info") setNotice(n.message);
      }),
    [],
  );
  // What happened at start-up, before this window connected: a damaged database moved aside, an
  // upgrade with its backup, sessions a crash interrupted.
  useEffect(() => {
    void unwrap(getApi().app.info({})).then(
      (info) => info.notices.length > 0 && setNotice(info.notices.join(" ")),
      () => undefined,
    );
  }, []);

  const openSession = useCallback(async (session: Pick<Session, "id" | "projectId">, jumpTo: number | null = null) => {
    setRoute({ screen: "session", sessionId: session.id, jumpTo });
    if (!project || project.id !== session.projectId) {
      const projects = await unwrap(getApi().projects.list({})).catch(() => [] as Project[]);
      const owner = projects.find((p) => p.id === session.projectId);
      if (owner) setProject(owner);
    }
  }, [project]);

  const go = (screen: "welcome" | "project" | "history" | "settings") => setRoute({ screen });

  const onAppCommand = async ({ command }: EventPayload<"app.command">) => {
    const api = getApi();
    try {
      switch (command) {
        case "show-history":
          return go("history");
        case "show-settings":
          return go("settings");
        case "open-project": {
          // The browser host has no native picker: the welcome screen's path field is the way.
          if (isBrowserHost()) return go("welcome");
          const { folder } = await unwrap(api.projects.pickFolder({}));
          if (!folder) return;
          setProject(await unwrap(api.projects.open({ folder })));
          return go("project");
        }
        case "new-session": {
          if (!project) {
            setNotice("Open a project first: a session belongs to a project.");
            return go("welcome");
          }
          return void openSession(await unwrap(api.sessions.create({ projectId: project.id })));
        }
      }
    } catch (e) {
      setNotice(errorText(e));
    }
  };
  useSubscription(getApi().events.onAppCommand, (payload) => void onAppCommand(payload));

  return (
    <div className="app">
      <header className="topbar">
        <span className="brand">Lathe</span>
        <nav aria-label="Main">
          <button aria-current={route.screen === "welcome" ? "page" : undefined} onClick={() => go("welcome")}>
            Home
          </button>
          {project && (
            <button aria-current={route.screen === "project" ? "page" : undefined} onClick={() => go("project")} title={project.folder}>
              {project.name}
            </button>
          )}
          <button aria-current={route.screen === "history" ? "page" : undefined} onClick={() => go("history")}>
            History
          </button>
          <button aria-current={route.screen === "settings" ? "page" : undefined} onClick={() => go("settings")}>
            Settings
          </button>
        </nav>
        <span className="spacer" />
        {notice && (
          <span className="notice" role="status">
            {notice}{" "}
            <button className="link" onClick={() => setNotice(null)} aria-label="Dismiss notice">
              ×
            </button>
          </span>
        )}
        {connection !== "open" && <span className="conn" role="status">{CONNECTION_TEXT[connection]}</span>}
      </header>
      <main className="main">
        {route.screen === "welcome" && (
          <Welcome
            onOpenProject={(p) => {
              setProject(p);
              go("project");
            }}
            onOpenSession={(p, s) => {
              setProject(p);
              void openSession(s);
            }}
          />
        )}
        {route.screen === "project" && project && <ProjectHome project={project} onOpenSession={(s) => void openSession(s)} />}
        {route.screen === "session" && <SessionView key={route.sessionId} sessionId={route.sessionId} jumpTo={route.jumpTo} projectName={project?.name ?? ""} onOpenSession={(s) => void openSession(s)} />}
        {route.screen === "history" && <HistoryBrowser onOpenSession={(s, jumpTo) => void openSession(s, jumpTo)} />}
        {route.screen === "settings" && <SettingsScreen project={project} />}
      </main>
    </div>
  );
}
