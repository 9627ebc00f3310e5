// The renderer's one way to reach the main process: the preload's `window.lathe` in the app, a
// WebSocket to the headless host in a browser (the token comes from host-token.ts and is sent as
// the connection's first message, never in the WebSocket's address).
import type { LatheApi } from "../../../shared/ipc/contract";
import { hostToken, watchForNewToken } from "./host-token";
import { createWsApi, type ConnectionStatus } from "./ws-client";

declare global {
  interface Window {
    lathe?: LatheApi;
  }
}

let api: LatheApi | undefined;
const statusListeners = new Set<(s: ConnectionStatus) => void>();

export function getApi(): LatheApi {
  if (api) return api;
  if (window.lathe) return (api = window.lathe);
  const token = hostToken();
  watchForNewToken();
  const scheme = window.location.protocol === "https:" ? "wss:" : "ws:";
  api = createWsApi({
    url: `${scheme}//${window.location.host}/ws`,
    token,
    onStatus: (s) => statusListeners.forEach((l) => l(s)),
  });
  return api;
}

export function isBrowserHost(): boolean {
  return !window.lathe;
}

export function onConnectionStatus(listener: (s: ConnectionStatus) => void): () => void {
  statusListeners.add(listener);
  return () => statusListeners.delete(listener);
}
