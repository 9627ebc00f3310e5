// A host in-process on a temporary folder (data, and a renderer of one page), for the host's
// tests; `close` stops it and removes the folder.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startHost, type RunningHost, type StartHostOptions } from "../../../app/main/host/start-host.ts";

export interface TempHost {
  host: RunningHost;
  /** The temporary folder (data/, renderer/ and whatever the test adds). */
  dir: string;
  close(): Promise<void>;
}

export async function startTempHost(prefix: string, options: Omit<StartHostOptions, "dataDir" | "rendererDir"> = {}): Promise<TempHost> {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
  mkdirSync(path.join(dir, "renderer"));
  writeFileSync(path.join(dir, "renderer", "index.html"), "<title>Lathe</title>");
  const host = await startHost({ env: {}, ...options, dataDir: path.join(dir, "data"), rendererDir: path.join(dir, "renderer") });
  return {
    host,
    dir,
    close: async () => {
      await host.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
