// App-wide data shared by screens: settings and the model list, loaded once and refreshed after
// changes; and the theme applied to the document. Load failures are kept as a message to show.
import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from "react";
import type { Model } from "../../../shared/agent-types";
import type { Settings } from "../../../shared/ipc/contract";
import { getApi } from "../api/client";
import { errorText, unwrap } from "./api-hooks";

export interface AppData {
  settings: Settings | null;
  models: Model[];
  error: string | null;
  setSettings: (settings: Settings) => void;
  reloadModels: () => Promise<void>;
}

const Context = createContext<AppData | null>(null);

export function AppDataProvider({ children }: { children: ReactNode }) {
  const [settings, setSettings] = useState<Settings | null>(null);
  const [models, setModels] = useState<Model[]>([]);
  const [error, setError] = useState<string | null>(null);

  const reloadModels = useCallback(
    () =>
      unwrap(getApi().models.list({})).then(setModels, (e: unknown) => {
        setError(errorText(e));
      }),
    [],
  );

  useEffect(() => {
    unwrap(getApi().settings.get({})).then(setSettings, (e: unknown) => setError(errorText(e)));
    unwrap(getApi().models.list({})).then(setModels, (e: unknown) => setError(errorText(e)));
  }, []);

  useEffect(() => {
    document.documentElement.dataset.theme = settings?.theme ?? "system";
  }, [settings?.theme]);

  return <Context.Provider value={{ settings, models, error, setSettings, reloadModels }}>{children}</Context.Provider>;
}

export function useAppData(): AppData {
  const value = useContext(Context);
  if (!value) throw new Error("useAppData outside AppDataProvider");
  return value;
}
