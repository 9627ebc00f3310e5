// The update policy, kept free of electron so it is tested in plain Node: whether this run may
// check for updates at all, and the ask-before-download, ask-before-install flow over any updater
// with electron-updater's interface. The Electron wiring is updater.ts.
import path from "node:path";

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
