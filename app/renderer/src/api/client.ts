// The renderer's one way to reach the main process: the preload's `window.lathe` in the app, a
// WebSocket to the headless host in a browser (the token comes from the page's URL).
import type { LatheApi } from "../../../shared/ipc/contract";
import { createWsApi } from "./ws-client";

declare global {
  interface Window {
    lathe?: LatheApi;
  }
}

let api: LatheApi | undefined;
const statusListeners = new Set<(s: "connecting" | "open" | "closed") => void>();

export function getApi(): LatheApi {
  if (api) return api;
  if (window.lathe) return (api = window.lathe);
  const token = new URLSearchParams(window.location.search).get("token") ?? "";
  const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
  api = createWsApi({
    url: `${scheme}//${window.location.host}/ws?token=${encodeURIComponent(token)}`,
    onStatus: (s) => statusListeners.forEach((l) => l(s)),
  });
  return api;
}

export function isBrowserHost(): boolean {
  return !window.lathe;
}

export function onConnectionStatus(listener: (s: "connecting" | "open" | "closed") => void): () => void {
  statusListeners.add(listener);
  return () => statusListeners.delete(listener);
}
