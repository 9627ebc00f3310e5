// `npm run serve -- --port P --data-dir D [--host 127.0.0.1] [--read-only] [--token-file F]`: runs
// Lathe's services headless and serves the renderer to a browser on this machine (or through an SSH
// tunnel). Prints the URL with its access token (a new one each start, or the one kept in
// --token-file: see token-file.ts); stops cleanly on Ctrl-C. When another Lathe holds the data folder
// it says which (pid, app, since when) and exits with status 3, unless --read-only was given: then
// it serves the folder without writing anything.
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { describeHolder, FolderLockedError } from "../store/index.ts";
import { takeProviderKeysFromEnvironment } from "../sandbox/env-keys.ts";
import { startHost } from "./start-host.ts";
import { readOrCreateToken, TokenFileError } from "./token-file.ts";
import pkg from "../../../package.json" with { type: "json" };

// Provider keys leave process.env and /proc/self/environ; the services keep a copy (env-keys.ts).
const { env } = takeProviderKeysFromEnvironment();

const usage = "usage: npm run serve -- [--port 4317] [--data-dir ~/.local/share/lathe] [--host 127.0.0.1] [--read-only] [--token-file PATH]";
let values: { port?: string; "data-dir"?: string; host?: string; "renderer-dir"?: string; "read-only"?: boolean; "token-file"?: string; help?: boolean };
try {
  ({ values } = parseArgs({
    options: {
      port: { type: "string" },
      "data-dir": { type: "string" },
      host: { type: "string" },
      "renderer-dir": { type: "string" },
      "read-only": { type: "boolean" },
      "token-file": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  }));
} catch (error) {
  console.error(`${(error as Error).message}\n${usage}`);
  process.exit(2);
}
if (values.help) {
  console.log(usage);
  process.exit(0);
}
const port = Number(values.port ?? 4317);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port must be a number from 0 to 65535, not "${values.port}".\n${usage}`);
  process.exit(2);
}
const dataHome = process.env.XDG_DATA_HOME ?? join(homedir(), ".local", "share");
const dataDir = resolve(values["data-dir"] ?? join(dataHome, "lathe"));
const here = dirname(fileURLToPath(import.meta.url));
const rendererDir = resolve(values["renderer-dir"] ?? join(here, "..", "renderer"));

// A token kept across restarts, so open tabs reconnect to a restarted host by themselves.
let kept: { token: string; created: boolean; path: string } | undefined;
if (values["token-file"] !== undefined) {
  const path = resolve(values["token-file"]);
  try {
    kept = { ...readOrCreateToken(path), path };
  } catch (error) {
    if (!(error instanceof TokenFileError)) throw error;
    console.error(`Lathe could not start: ${error.message}`);
    process.exit(2);
  }
}

try {
  const readOnly = values["read-only"] ?? false;
  const host = await startHost({ dataDir, rendererDir, port, host: values.host, version: pkg.version, readOnly, env, token: kept?.token });
  for (const notice of host.services.notices) console.log(`notice: ${notice}`);
  console.log(`Lathe is serving ${dataDir}${readOnly ? " read-only" : ""}`);
  if (kept)
    console.log(`The access token is kept in ${kept.path}${kept.created ? " (created now, readable by you only)" : ""}: this address stays the same when the host restarts.`);
  console.log(`Open ${host.url}`);
  let closing = false;
  const stop = () => {
    if (closing) return;
    closing = true;
    void host.close().then(() => process.exit(0));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
} catch (error) {
  if (error instanceof FolderLockedError) {
    console.error(`Lathe could not start: ${describeHolder(error.dataDir, error.holder)} Quit it first, or add --read-only to browse the folder without changing anything.`);
    process.exit(3);
  }
  console.error(`Lathe could not start: ${(error as Error).message}`);
  process.exit(1);
}
