// Updates: electron-updater, off unless the build was given a publish target, and never installing
// without asking. electron-builder writes resources/app-update.yml only when the config has a
// publish target (electron-builder.config.ts, from LATHE_UPDATE_URL / LATHE_GITHUB_REPO); without
// that file, or when not packaged, or with LATHE_DISABLE_UPDATES=1, nothing is checked.
// With it: one check at start; if an update exists the user is asked to download it; once
// downloaded, asked to restart now or install when Lathe quits. Nothing downloads on its own.
// The decision logic (startUpdater) takes its updater, prompts and file check as arguments, so it
// runs in plain Node tests; startAutoUpdates wires in Electron and electron-updater (bundled into
// the main process by esbuild, like every other library). Never throws; failures are logged.
import { app, dialog, type BrowserWindow } from "electron";
import fs from "node:fs";
import path from "node:path";
import { startUpdater, type UpdaterState } from "./update-policy.ts";

/** The Electron wiring: call once the app is ready. */
export async function startAutoUpdates(getWindow: () => BrowserWindow | undefined): Promise<UpdaterState> {
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
