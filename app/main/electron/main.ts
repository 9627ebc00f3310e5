// The Electron shell: the only main-process code that imports electron (with secrets.ts and
// menu.ts). It owns the window and the platform pieces (folder picker, keyring, notifications,
// menus) and carries requests and events between the renderer and the services, which are the
// same ones the headless host runs. One app per user: Electron's single-instance lock sends a
// second launch to the running window (focused) and quits it. One writer per data folder: when
// another process (a headless host on the same folder) holds it, a dialog names it and offers to
// open the folder read-only or quit.
import { app, BrowserWindow, dialog, ipcMain, Notification, screen, session, shell } from "electron";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { EVENT_CHANNEL, REQUEST_CHANNEL } from "../../shared/ipc/channels.ts";
import type { SessionState } from "../../shared/ipc/contract.ts";
import { createAppServices, type AppServices } from "../app-services.ts";
import { utilityHelper } from "./utility-helper.ts";
import { EventBatcher } from "../ipc/event-batcher.ts";
import { FolderLockedError } from "../store/index.ts";
import { takeProviderKeysFromEnvironment } from "../sandbox/env-keys.ts";
import { startAttentionNotifier } from "../sessions/attention-notifier.ts";
import { installMenu } from "./menu.ts";
import { electronNotificationPort } from "./notification-port.ts";
import { startAutoUpdates } from "./updater.ts";
import { electronSecretStore } from "./secrets.ts";
import { isAppUrl, mainWindowOptions, type WindowBounds } from "./window-config.ts";
import { loadWindowState, saveWindowState } from "./window-state.ts";

// Provider keys leave process.env (and, on Linux, this process's /proc/self/environ); the services
// keep a copy. See env-keys.ts for what this cannot reach.
const startEnvironment = takeProviderKeysFromEnvironment().env;

const rendererIndex = path.join(__dirname, "..", "renderer", "index.html");
const rendererUrl = pathToFileURL(rendererIndex).toString();
let window: BrowserWindow | undefined;
let services: AppServices | undefined;

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on("second-instance", () => showWindow());
  app.on("web-contents-created", (_event, contents) => {
    contents.on("will-navigate", (event, url) => {
      if (!isAppUrl(url, rendererUrl)) event.preventDefault();
    });
    contents.on("will-attach-webview", (event) => event.preventDefault());
    contents.setWindowOpenHandler(({ url }) => {
      // Links in the transcript open in the user's browser, never in a Lathe window.
      if (/^https?:\/\//.test(url)) void shell.openExternal(url);
      return { action: "deny" };
    });
  });
  app
    .whenReady()
    .then(start)
    .catch((error: unknown) => fatal(error));
  app.on("window-all-closed", () => {
    if (process.platform !== "darwin") app.quit();
  });
  app.on("activate", () => {
    if (BrowserWindow.getAllWindows().length === 0 && services) createWindow(services);
  });
  app.on("before-quit", (event) => {
    // Stop running sessions and flush the store before the process goes away.
    const closing = services;
    if (!closing) return;
    event.preventDefault();
    services = undefined;
    void closing
      .close()
      .catch((error: unknown) => console.error("Lathe could not close cleanly:", error))
      .finally(() => app.quit());
  });
}

async function start(): Promise<void> {
  session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.defaultSession.setPermissionCheckHandler(() => false);
  const open = (readOnly: boolean) =>
    createAppServices({
      dataDir: app.getPath("userData"),
      secrets: electronSecretStore(),
      host: "electron",
      version: app.getVersion(),
      env: startEnvironment,
      pickFolder: pickFolder,
      readOnly,
      // The bash grammar and the MCP servers start once the window is shown (createWindow).
      warmUp: "later",
      // The first checkpoint's process: the RunAsNode fuse is off, so not child_process.fork.
      launchHelper: utilityHelper,
    });
  try {
    services = open(false);
  } catch (error) {
    if (!(error instanceof FolderLockedError)) {
      fatal(error);
      return;
    }
    const choice = await dialog.showMessageBox({
      type: "warning",
      title: "Lathe's data folder is in use",
      message: "Another Lathe is using this data folder.",
      detail: `${error.message}\n\nRead-only, you can read and search sessions, but nothing is saved or run.`,
      buttons: ["Open read-only", "Quit"],
      defaultId: 1,
      cancelId: 1,
    });
    if (choice.response !== 0) {
      app.exit(3);
      return;
    }
    try {
      services = open(true);
    } catch (readOnlyError) {
      fatal(readOnlyError);
      return;
    }
  }
  const ready = services;
  ipcMain.handle(REQUEST_CHANNEL, (event, name: unknown, params: unknown) => {
    // Only the app's own page in our window may call in.
    const frameUrl = event.senderFrame?.url ?? "";
    if (!window || event.sender !== window.webContents || !isAppUrl(frameUrl, rendererUrl)) {
      return { ok: false, error: { code: "invalid-request", message: "Requests are accepted from the Lathe window only." } };
    }
    return ready.router.handle(name, params);
  });
  installMenu((command) => ready.hub.emit("app.command", { command }));
  // Desktop notifications read the same state events as the window (sessions/attention-notifier.ts).
  startAttentionNotifier({
    onSessionState: (listener) =>
      ready.hub.add({
        sessionEvent: () => undefined,
        emit: (event, payload) => {
          if (event === "session.state") listener(payload as SessionState);
        },
      }),
    liveStates: () => ready.sessions.liveStates(),
    titleOf: (sessionId) => ready.store.getSession(sessionId)?.title ?? null,
    inFront: () => !window || (window.isVisible() && window.isFocused()),
    onOpen: (sessionId) => {
      showWindow();
      ready.hub.emit("app.command", { command: "open-session", sessionId });
    },
    port: electronNotificationPort(Notification),
  });
  createWindow(ready);
  void startAutoUpdates(() => window);
}

function createWindow(ready: AppServices): void {
  const stateFile = path.join(app.getPath("userData"), "window-state.json");
  const bounds = visibleBounds(loadWindowState(stateFile));
  const win = new BrowserWindow(mainWindowOptions(path.join(__dirname, "..", "preload", "index.cjs"), bounds));
  window = win;
  if (bounds.maximized) win.maximize();
  const batcher = new EventBatcher((event, payload) => {
    if (win.isDestroyed()) return;
    try {
      win.webContents.send(EVENT_CHANNEL, event, payload);
    } catch (error) {
      // An event that cannot be cloned must not stop the batch, nor the process (this runs in a timer).
      console.error(`[events] ${event} could not be sent to the window:`, error);
    }
  });
  const removeListener = ready.hub.add(batcher);
  win.once("ready-to-show", () => {
    win.show();
    setImmediate(() => ready.warmUp());
  });
  const remember = () => {
    if (win.isDestroyed()) return;
    saveWindowState(stateFile, { ...win.getNormalBounds(), maximized: win.isMaximized() });
  };
  win.on("resize", remember);
  win.on("move", remember);
  win.on("closed", () => {
    removeListener();
    batcher.dispose();
    if (window === win) window = undefined;
  });
  void win.loadFile(rendererIndex);
}

/** Saved bounds on a screen that is no longer attached would open the window out of sight. */
function visibleBounds(bounds: WindowBounds): WindowBounds {
  if (bounds.x === undefined || bounds.y === undefined) return bounds;
  const area = screen.getDisplayMatching({ x: bounds.x, y: bounds.y, width: bounds.width, height: bounds.height }).workArea;
  const visible = bounds.x < area.x + area.width - 50 && bounds.y < area.y + area.height - 50 && bounds.x + bounds.width > area.x + 50 && bounds.y >= area.y - 10;
  return visible ? bounds : { width: bounds.width, height: bounds.height, maximized: bounds.maximized };
}

async function pickFolder(): Promise<string | null> {
  const options = { title: "Open a project folder", properties: ["openDirectory", "createDirectory"] as ("openDirectory" | "createDirectory")[] };
  const result = window ? await dialog.showOpenDialog(window, options) : await dialog.showOpenDialog(options);
  return result.canceled ? null : (result.filePaths[0] ?? null);
}

function showWindow(): void {
  if (!window) return;
  if (window.isMinimized()) window.restore();
  window.show();
  window.focus();
}

function fatal(error: unknown): void {
  dialog.showErrorBox("Lathe could not start", error instanceof Error ? error.message : String(error));
  app.exit(1);
}
