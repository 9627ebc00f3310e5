// The two Electron IPC channels under the typed API: requests go through one invoke channel
// (validated by the router), events come back on one channel. Only the preload and the shell use
// these names.
export const REQUEST_CHANNEL = "lathe:request";
export const EVENT_CHANNEL = "lathe:event";
