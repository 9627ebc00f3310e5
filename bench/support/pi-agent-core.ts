// Loads pi's agent core for bench:loop's side-by-side run. It lives in its own package,
// bench/pi (exact pins, its own committed lock), so neither the app's lock nor `npm test` ever
// carries it or the provider SDKs it depends on. Installed on demand with
// `npm ci --prefix bench/pi`; when that fails this throws an Error whose message says what to do
// (the bench prints it and exits non-zero). Only the part of pi's API the bench calls is typed here.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export type PiRunAgentLoop = (
  prompts: unknown[],
  context: unknown,
  config: unknown,
  emit: (event: { type: string; toolResults?: unknown[] }) => void,
  signal?: AbortSignal,
  streamFn?: unknown,
) => Promise<unknown[]>;

export interface PiAgentCore {
  version: string;
  runAgentLoop: PiRunAgentLoop;
}

/** The folder holding bench/pi, found upwards from this module (it runs bundled in out/bench). */
function packageDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, "bench", "pi");
    if (existsSync(join(candidate, "package.json"))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error("bench:loop: cannot find bench/pi/package.json above " + fileURLToPath(import.meta.url));
    dir = parent;
  }
}

function installedVersion(dir: string, wanted: string): string | undefined {
  const manifest = join(dir, "node_modules", "@mariozechner", "pi-agent-core", "package.json");
  if (!existsSync(manifest)) return undefined;
  const version = (JSON.parse(readFileSync(manifest, "utf8")) as { version?: string }).version;
  return version === wanted ? version : undefined;
}

export async function loadPiAgentCore(): Promise<PiAgentCore> {
  const dir = packageDir();
  const pins = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { dependencies: Record<string, string> };
  const wanted = pins.dependencies["@mariozechner/pi-agent-core"]!;
  let version = installedVersion(dir, wanted);
  if (!version) {
    process.stderr.write(`bench:loop: installing @mariozechner/pi-agent-core ${wanted} into bench/pi (npm ci --prefix bench/pi)\n`);
    // npm sets npm_execpath when the bench runs as an npm script; otherwise npm from PATH.
    const npmCli = process.env["npm_execpath"];
    const args = ["ci", "--prefix", dir, "--ignore-scripts", "--no-audit", "--no-fund"];
    const run = npmCli ? spawnSync(process.execPath, [npmCli, ...args], { encoding: "utf8" }) : spawnSync("npm", args, { encoding: "utf8" });
    version = installedVersion(dir, wanted);
    if (run.status !== 0 || !version) {
      const why = run.error?.message ?? (run.stderr || run.stdout || `exit status ${run.status}`).trim().split("\n").slice(-5).join("\n");
      throw new Error(
        `bench:loop: cannot install pi's agent core into bench/pi, so ratioVsPi cannot be measured.\n` +
          `Ran: npm ${args.join(" ")}\n${why}\n` +
          `It needs the npm registry once; run that command by hand when the registry is reachable.`,
      );
    }
  }
  const entry = join(dir, "node_modules", "@mariozechner", "pi-agent-core", "dist", "index.js");
  const module = (await import(pathToFileURL(entry).href)) as { runAgentLoop?: PiRunAgentLoop };
  if (typeof module.runAgentLoop !== "function") throw new Error(`bench:loop: ${entry} exports no runAgentLoop`);
  return { version, runAgentLoop: module.runAgentLoop };
}
