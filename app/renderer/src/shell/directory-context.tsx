// The window's one SessionDirectory, for the sidebar, the session header, the tab title and the
// notifications.
import { createContext, useContext, useEffect, useState, useSyncExternalStore, type ReactNode } from "react";
import { getApi, onConnectionStatus } from "../api/client";
import { SessionDirectory, type DirectorySnapshot } from "./session-directory";

const Context = createContext<SessionDirectory | null>(null);

export function DirectoryProvider({ children }: { children: ReactNode }) {
  const [directory] = useState(() => new SessionDirectory(getApi(), onConnectionStatus));
  useEffect(() => {
    directory.start();
    return () => directory.dispose();
  }, [directory]);
  return <Context.Provider value={directory}>{children}</Context.Provider>;
}

export function useDirectory(): SessionDirectory {
  const directory = useContext(Context);
  if (!directory) throw new Error("useDirectory outside DirectoryProvider");
  return directory;
}

export function useDirectorySnapshot(): DirectorySnapshot {
  const directory = useDirectory();
  return useSyncExternalStore(directory.subscribe, directory.getSnapshot);
}
