// The preload: exposes `window.lathe`, the named, typed API generated from the IPC contract, and
// nothing else (no generic send or on). Bundled into one CommonJS file for the sandbox.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from "electron";
import { buildApi, type EventName } from "../shared/ipc/contract.ts";
import { EVENT_CHANNEL, REQUEST_CHANNEL } from "../shared/ipc/channels.ts";

type Listener = (payload: unknown) => void;
const listeners = new Map<EventName, Set<Listener>>();

ipcRenderer.on(EVENT_CHANNEL, (_event: IpcRendererEvent, name: EventName, payload: unknown) => {
  for (const listener of listeners.get(name) ?? []) listener(payload);
});

const api = buildApi(
  (name, params) => ipcRenderer.invoke(REQUEST_CHANNEL, name, params),
  (event, listener) => {
    let set = listeners.get(event);
    if (!set) listeners.set(event, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  },
);

contextBridge.exposeInMainWorld("lathe", api);
