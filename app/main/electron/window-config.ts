// The main window's hardened options, kept apart from the code that imports electron so tests can
// assert them in plain Node. Follows electron-secure-defaults: isolated, sandboxed, no Node in
// the renderer, no remote content.
import type { BrowserWindowConstructorOptions } from "electron";

export interface WindowBounds {
  x?: number;
  y?: number;
  width: number;
  height: number;
  maximized?: boolean;
}

export const DEFAULT_BOUNDS: WindowBounds = { width: 1280, height: 860 };

export function mainWindowOptions(preloadPath: string, bounds: WindowBounds = DEFAULT_BOUNDS): BrowserWindowConstructorOptions {
  return {
    x: bounds.x,
    y: bounds.y,
    width: Math.max(bounds.width, 720),
    height: Math.max(bounds.height, 480),
    minWidth: 720,
    minHeight: 480,
    title: "Lathe",
    show: false,
    backgroundColor: "#1e1f22",
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: true,
      safeDialogs: true,
    },
  };
}

/** The only page the window may show: the bundled renderer. */
export function isAppUrl(url: string, rendererIndexUrl: string): boolean {
  try {
    const target = new URL(url);
    const app = new URL(rendererIndexUrl);
    return target.protocol === app.protocol && target.pathname === app.pathname;
  } catch {
    return false;
  }
}
