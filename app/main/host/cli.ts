// `npm run serve -- --port P --data-dir D [--host 127.0.0.1]`: runs Lathe's services headless and
// serves the renderer to a browser on this machine (or through an SSH tunnel). Prints the URL with
// its access token; stops cleanly on Ctrl-C.
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { applyMainProcessFlags } from "../runtime-flags.ts";
import { startHost } from "./start-host.ts";
import pkg from "../../../package.json" with { type: "json" };

applyMainProcessFlags();

const usage = "usage: npm run serve -- [--port 4317] [--data-dir ~/.local/share/lathe] [--host 127.0.0.1]";
let values: { port?: string; "data-dir"?: string; host?: string; "renderer-dir"?: string; help?: boolean };
try {
  ({ values } = parseArgs({
    options: {
      port: { type: "string" },
      "data-dir": { type: "string" },
      host: { type: "string" },
      "renderer-dir": { type: "string" },
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

try {
  const host = await startHost({ dataDir, rendererDir, port, host: values.host, version: pkg.version });
  for (const notice of host.services.notices) console.log(`notice: ${notice}`);
  console.log(`Lathe is serving ${dataDir}`);
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
  console.error(`Lathe could not start: ${(error as Error).message}`);
  process.exit(1);
}
