// Updates: electron-updater, off unless the build was given a publish target, and never installing
// without asking. electron-builder writes resources/app-update.yml only when the config has a
// publish target (electron-builder.config.ts, from LATHE_UPDATE_URL / LATHE_GITHUB_REPO); without
// that file, or when not packaged, or with LATHE_DISABLE_UPDATES=1, nothing is checked.
// With it: one check at start; if an update exists the user is asked to download it; once
// downloaded, asked to restart now or install when Lathe quits. Nothing downloads on its own.
// The decision logic (startUpdater) takes its updater, prompts and file check as arguments, so it
// runs in plain Node tests; startAutoUpdates wires in Electron and electron-updater (bundled into
// the main process by esbuild, like every other library). Never throws; failures are logged.
import type { BrowserWindow } from "electron";
import fs from "node:fs";
import path from "node:path";

/** The part of electron-updater's AppUpdater that Lathe uses. */
export interface UpdaterLike {
  autoDownload: boolean;
  autoInstallOnAppQuit: boolean;
  on(event: "update-available", listener: (info: { version: string }) => void): unknown;
  on(event: "update-downloaded", listener: (info: { version: string }) => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  checkForUpdates(): Promise<unknown>;
  downloadUpdate(): Promise<unknown>;
  quitAndInstall(): void;
}

export interface UpdatePrompts {
  /** True to download version; false leaves it for the next start. */
  askToDownload(version: string): Promise<boolean>;
  /** "now" restarts into the update; "on-quit" installs it when Lathe quits. */
  askToInstall(version: string): Promise<"now" | "on-quit">;
}

export interface UpdaterDeps {
  isPackaged: boolean;
  /** resources/app-update.yml: present only in builds with a publish target. */
  feedFile: string;
  env: Record<string, string | undefined>;
  exists(file: string): boolean;
  loadUpdater(): Promise<UpdaterLike>;
  prompts: UpdatePrompts;
  log(message: string): void;
}

export type UpdaterState = { on: false; reason: string } | { on: true };

/** Whether this run may check for updates at all, and why not. */
export function updateDecision(deps: Pick<UpdaterDeps, "isPackaged" | "feedFile" | "env" | "exists">): UpdaterState {
  if (deps.env.LATHE_DISABLE_UPDATES === "1") return { on: false, reason: "LATHE_DISABLE_UPDATES=1" };
  if (!deps.isPackaged) return { on: false, reason: "not a packaged build" };
  if (!deps.exists(deps.feedFile)) return { on: false, reason: `no publish configuration (${path.basename(deps.feedFile)} is absent)` };
  return { on: true };
}

/** Sets up the updater per updateDecision and starts one check. Resolves once the check is started. */
export async function startUpdater(deps: UpdaterDeps): Promise<UpdaterState> {
  const state = updateDecision(deps);
  if (!state.on) {
    deps.log(`updates off: ${state.reason}`);
    return state;
  }
  try {
    const updater = await deps.loadUpdater();
    updater.autoDownload = false;
    updater.autoInstallOnAppQuit = false;
    let asked = false;
    updater.on("error", (error) => deps.log(`update failed: ${error.message}`));
    updater.on("update-available", (info) => {
      if (asked) return;
      asked = true;
      void (async () => {
        if (!(await deps.prompts.askToDownload(info.version))) return deps.log(`update ${info.version} declined`);
        await updater.downloadUpdate();
      })().catch((error: unknown) => deps.log(`update download failed: ${String(error)}`));
    });
    updater.on("update-downloaded", (info) => {
      void (async () => {
        const when = await deps.prompts.askToInstall(info.version);
        if (when === "now") updater.quitAndInstall();
        // The user accepted this update when they chose to download it.
        else updater.autoInstallOnAppQuit = true;
      })().catch((error: unknown) => deps.log(`update install failed: ${String(error)}`));
    });
    void updater.checkForUpdates().catch((error: unknown) => deps.log(`update check failed: ${String(error)}`));
    return state;
  } catch (error) {
    deps.log(`updates off: the updater could not start: ${String(error)}`);
    return { on: false, reason: String(error) };
  }
}

/** The Electron wiring: call once the app is ready. */
export async function startAutoUpdates(getWindow: () => BrowserWindow | undefined): Promise<UpdaterState> {
  const { app, dialog } = await import("electron");
  const ask = async (options: Electron.MessageBoxOptions): Promise<number> => {
    const window = getWindow();
    return (window ? await dialog.showMessageBox(window, options) : await dialog.showMessageBox(options)).response;
  };
  return startUpdater({
    isPackaged: app.isPackaged,
    feedFile: path.join(process.resourcesPath, "app-update.yml"),
    env: process.env,
    exists: (file) => fs.existsSync(file),
    loadUpdater: async () => (await import("electron-updater")).autoUpdater,
    log: (message) => console.log(`[updater] ${message}`),
    prompts: {
      askToDownload: async (version) =>
        (await ask({
          type: "info",
          title: "Update available",
          message: `Lathe ${version} is available (you have ${app.getVersion()}).`,
          detail: "Download it now? You will be asked again before it is installed.",
          buttons: ["Download", "Not now"],
          defaultId: 0,
          cancelId: 1,
        })) === 0,
      askToInstall: async (version) =>
        (await ask({
          type: "info",
          title: "Update ready",
          message: `Lathe ${version} has been downloaded.`,
          detail: "Restart now to install it, or it will be installed when you quit Lathe.",
          buttons: ["Restart and install", "Install when I quit"],
          defaultId: 0,
          cancelId: 1,
        })) === 0
          ? "now"
          : "on-quit",
    },
  });
}
