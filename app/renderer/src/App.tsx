// The app shell: the sidebar (navigation, projects and their sessions with live badges), banners
// (the connection to the host, notices), and one screen at a time: welcome, a project's page, a
// session, the history browser or settings. The screen is in the page address (shell/route.ts),
// so a reload, Back and a bookmark land where they should. The window's keys are handled here
// (shell/keyboard.ts), as are menu commands from the Electron menu and, in the browser host,
// desktop notifications (shell/notifications.tsx).
import { useCallback, useEffect, useRef, useState } from "react";
import type { EventPayload, Project, Session } from "../../shared/ipc/contract";
import { getApi, isBrowserHost, onConnectionStatus } from "./api/client";
import type { ConnectionStatus } from "./api/ws-client";
import { HistoryBrowser } from "./history/HistoryBrowser";
import { SessionView } from "./session/SessionView";
import { SettingsScreen } from "./settings/SettingsScreen";
import { ConnectionBanner, NoticeBanner } from "./shell/Banners";
import { DirectoryProvider, useDirectory, useDirectorySnapshot } from "./shell/directory-context";
import { screenDocumentTitle } from "./shell/document-title";
import { handleGlobalKey } from "./shell/keyboard";
import { startNotifications } from "./shell/notifications";
import { routeFromSearch, showInAddress, type Route } from "./shell/route";
import { ShortcutsSheet } from "./shell/ShortcutsSheet";
import { Sidebar, sidebarOrder } from "./shell/Sidebar";
import { useOpenProject } from "./shell/use-open-project";
import { errorText, unwrap, useSubscription } from "./state/api-hooks";
import { AppDataProvider } from "./state/app-data";
import { ProjectHome } from "./welcome/ProjectHome";
import { Welcome } from "./welcome/Welcome";

export function App() {
  return (
    <AppDataProvider>
      <DirectoryProvider>
        <Shell />
      </DirectoryProvider>
    </AppDataProvider>
  );
}

function Shell() {
  const directory = useDirectory();
  const snapshot = useDirectorySnapshot();
  const [route, setRoute] = useState<Route>(() => routeFromSearch(window.location.search));
  // The current project follows what is shown: a project's page, or the shown session's project;
  // elsewhere, the last one shown.
  const [lastProjectId, setProjectId] = useState<number | null>(null);
  const [fetchedOwner, setFetchedOwner] = useState<{ sessionId: number; projectId: number } | null>(null);
  const listedOwner = route.screen === "session" ? [...snapshot.sessions.values()].flat().find((s) => s.id === route.sessionId)?.projectId : undefined;
  const projectId =
    route.screen === "project"
      ? route.projectId
      : route.screen === "session"
        ? (listedOwner ?? (fetchedOwner?.sessionId === route.sessionId ? fetchedOwner.projectId : lastProjectId))
        : lastProjectId;
  const [connection, setConnection] = useState<ConnectionStatus>("open");
  const [notice, setNotice] = useState<string | null>(null);
  const [showShortcuts, setShowShortcuts] = useState(false);
  const { openProject: openFolder, dialog: confirmDialog } = useOpenProject();
  const project = snapshot.projects.find((p) => p.id === projectId) ?? null;

  const navigate = useCallback((next: Route) => {
    setRoute(next);
    showInAddress(next);
  }, []);
  useEffect(() => {
    // The address may carry what the page understands differently (e.g. `?session=0`): say what is shown.
    showInAddress(routeFromSearch(window.location.search), true);
    const onPop = () => setRoute(routeFromSearch(window.location.search));
    window.addEventListener("popstate", onPop);
    return () => window.removeEventListener("popstate", onPop);
  }, []);

  const sessionShown = route.screen === "session" ? route.sessionId : null;
  useEffect(() => {
    if (sessionShown === null || listedOwner !== undefined) return;
    let live = true;
    unwrap(getApi().sessions.get({ sessionId: sessionShown })).then(
      (s) => live && setFetchedOwner({ sessionId: s.id, projectId: s.projectId }),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [sessionShown, listedOwner]);

  useEffect(() => {
    if (route.screen !== "session") document.title = screenDocumentTitle(route.screen, project?.name);
  }, [route.screen, project?.name]);

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

  const openSession = useCallback(
    (session: Pick<Session, "id" | "projectId">, jumpTo: number | null = null) => {
      setProjectId(session.projectId);
      navigate({ screen: "session", sessionId: session.id, jumpTo });
    },
    [navigate],
  );
  const openSessionById = useCallback(
    (sessionId: number) => {
      unwrap(getApi().sessions.get({ sessionId })).then(
        (s) => openSession(s),
        (e: unknown) => setNotice(errorText(e)),
      );
    },
    [openSession],
  );
  const showProject = useCallback(
    (p: Project) => {
      directory.noteProject(p);
      setProjectId(p.id);
      navigate({ screen: "project", projectId: p.id });
    },
    [directory, navigate],
  );
  const newSession = useCallback(
    async (p: Project) => {
      try {
        const session = await unwrap(getApi().sessions.create({ projectId: p.id }));
        directory.noteSession(session);
        openSession(session);
      } catch (e) {
        setNotice(errorText(e));
      }
    },
    [directory, openSession],
  );
  /** A session started from a project's page with its first message (errors go to the caller). */
  const startSession = useCallback(
    async (p: Project, text: string) => {
      const api = getApi();
      const session = await unwrap(api.sessions.create({ projectId: p.id }));
      directory.noteSession(session);
      await unwrap(api.sessions.prompt({ sessionId: session.id, text }));
      openSession(session);
    },
    [directory, openSession],
  );

  // The window's keys (see shell/keyboard.ts).
  const latest = useRef({ route, snapshot, openSession });
  useEffect(() => {
    latest.current = { route, snapshot, openSession };
  });
  useEffect(() => {
    const onKey = (e: KeyboardEvent) =>
      handleGlobalKey(e, {
        stopRun: () => {
          const { route: r } = latest.current;
          if (r.screen !== "session" || !document.querySelector(`.session[data-session-id="${r.sessionId}"][data-running="true"]`)) return false;
          void getApi().sessions.abort({ sessionId: r.sessionId });
          return true;
        },
        openShortcuts: () => setShowShortcuts(true),
        stepSession: (delta) => {
          const { route: r, snapshot: s, openSession: open } = latest.current;
          const order = sidebarOrder(s);
          if (order.length === 0) return;
          const at = r.screen === "session" ? order.findIndex((x) => x.id === r.sessionId) : -1;
          const next = at < 0 ? (delta > 0 ? order[0] : order.at(-1)) : order[at + delta];
          if (next) open(next);
        },
      });
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);

  // Desktop notifications in the browser (the app's come from its main process).
  useEffect(() => {
    if (!isBrowserHost()) return;
    return startNotifications(getApi(), { titleOf: (id) => directory.sessionInfo(id)?.title ?? null, onOpen: openSessionById, onConnectionStatus });
  }, [directory, openSessionById]);

  const onAppCommand = async ({ command, sessionId }: EventPayload<"app.command">) => {
    const api = getApi();
    try {
      switch (command) {
        case "show-history":
          return navigate({ screen: "history" });
        case "show-settings":
          return navigate({ screen: "settings" });
        case "open-session":
          if (sessionId !== undefined) openSessionById(sessionId);
          return;
        case "open-project": {
          // The browser host has no native picker: the welcome screen's path field is the way.
          if (isBrowserHost()) return navigate({ screen: "welcome" });
          const { folder } = await unwrap(api.projects.pickFolder({}));
          if (!folder) return;
          const opened = await openFolder(folder);
          if (opened) showProject(opened);
          return;
        }
        case "new-session": {
          if (!project) {
            setNotice("Open a project first: a session belongs to a project.");
            return navigate({ screen: "welcome" });
          }
          return newSession(project);
        }
      }
    } catch (e) {
      setNotice(errorText(e));
    }
  };
  useSubscription(getApi().events.onAppCommand, (payload) => void onAppCommand(payload));

  return (
    <div className="app">
      <Sidebar
        route={route}
        directory={snapshot}
        onNavigate={(screen) => navigate({ screen })}
        onOpenProject={showProject}
        onOpenSession={(s) => openSession(s)}
        onNewSession={(p) => void newSession(p)}
        onShowShortcuts={() => setShowShortcuts(true)}
      />
      <main className="main">
        <ConnectionBanner status={connection} />
        {notice && <NoticeBanner message={notice} onDismiss={() => setNotice(null)} />}
        <div className="screen">
          {route.screen === "welcome" && <Welcome openFolder={openFolder} onOpenProject={showProject} onShowProject={showProject} onOpenSession={(_p, s) => openSession(s)} />}
          {route.screen === "project" &&
            (project ? (
              <ProjectHome project={project} onOpenSession={(s) => openSession(s)} onNewSession={() => newSession(project)} onStart={(text) => startSession(project, text)} />
            ) : (
              <div className="page muted">{snapshot.loaded ? "There is no such project." : "Loading…"}</div>
            ))}
          {route.screen === "session" && (
            <SessionView
              key={route.sessionId}
              sessionId={route.sessionId}
              jumpTo={route.jumpTo}
              project={project}
              onOpenSession={(s, at) => openSession(s, at ?? null)}
              onOpenProject={showProject}
              onForked={(fork) => {
                directory.noteSession(fork);
                openSession(fork);
              }}
            />
          )}
          {route.screen === "history" && <HistoryBrowser onOpenSession={(s, jumpTo) => openSession(s, jumpTo)} />}
          {route.screen === "settings" && <SettingsScreen project={project} />}
        </div>
      </main>
      {showShortcuts && <ShortcutsSheet onClose={() => setShowShortcuts(false)} />}
      {confirmDialog}
    </div>
  );
}
