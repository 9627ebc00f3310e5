// Starts the headless host in this process: the app's services behind the loopback HTTP and
// WebSocket server. Used by the `serve` command and by the browser tests.
import { createAppServices, type AppServices, type AppServicesOptions } from "../app-services.ts";
import { noSecretStore } from "../settings/settings-service.ts";
import { startHostServer, type HostServer, type HostServerOptions } from "./server.ts";

export interface StartHostOptions extends Partial<Omit<AppServicesOptions, "dataDir" | "host">> {
  dataDir: string;
  rendererDir: string;
  port?: number;
  host?: string;
  token?: string;
  timeouts?: HostServerOptions["timeouts"];
  maxFrameBytes?: number;
  maxBufferedBytes?: number;
  report?: HostServerOptions["report"];
}

export interface RunningHost extends HostServer {
  services: AppServices;
}

export async function startHost(options: StartHostOptions): Promise<RunningHost> {
  const { rendererDir, port, host, token, timeouts, maxFrameBytes, maxBufferedBytes, report, ...rest } = options;
  // The bash grammar and the MCP servers start once the first page was sent (app-services.ts).
  const services = createAppServices({ secrets: noSecretStore, version: "dev", ...rest, host: "browser", warmUp: "later" });
  try {
    const server = await startHostServer({
      router: services.router,
      hub: services.hub,
      rendererDir,
      port,
      host,
      token,
      timeouts,
      maxFrameBytes,
      maxBufferedBytes,
      report,
      onFirstPage: () => services.warmUp(),
    });
    return {
      ...server,
      services,
      close: async () => {
        await server.close();
        await services.close();
      },
    };
  } catch (error) {
    await services.close();
    throw error;
  }
}
