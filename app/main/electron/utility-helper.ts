// Starts a helper process of the app (the first checkpoint's snapshot process,
// workers/snapshot-client.ts) with Electron's utilityProcess: the packaged app's RunAsNode fuse is
// off (scripts/fuses.ts), so child_process.fork of the Electron binary cannot run a script as
// Node. A utility process is a Node environment (worker threads included) that Electron ends with
// the app. Contract: as HelperLauncher (snapshot-client.ts); call only after the app is ready.
import { utilityProcess } from "electron";
import type { HelperLauncher, HelperProcess } from "../workers/snapshot-client.ts";

export const utilityHelper: HelperLauncher = (file: string): HelperProcess => {
  const child = utilityProcess.fork(file, [], { serviceName: "Lathe checkpoint snapshot", stdio: "ignore" });
  let exited: string | undefined;
  const exitListeners: ((why: string) => void)[] = [];
  child.once("exit", (code) => {
    exited = `it exited with code ${code}`;
    for (const listener of exitListeners) listener(exited);
  });
  return {
    get pid() {
      return child.pid;
    },
    send: (message) => child.postMessage(message),
    kill: () => void child.kill(),
    onMessage: (listener) => child.on("message", listener),
    onExit: (listener) => (exited !== undefined ? listener(exited) : exitListeners.push(listener)),
  };
};
