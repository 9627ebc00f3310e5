// Existing MCP configurations on this machine that can be imported: Claude Desktop's
// claude_desktop_config.json, Claude Code's ~/.claude.json (its user servers, and the servers it
// keeps for this project folder) and the project's own .mcp.json. Reads regular files the user points
// at; never throws: an unreadable or malformed file comes back with its error, which never quotes
// the file's content.
import { readFile, realpath, stat } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";
import { parseMcpServers, serverDetails, type McpServerDetails } from "./config.ts";

export interface ConfigSource {
  path: string;
  /** For ~/.claude.json: the servers Claude Code keeps for this project folder instead of its user servers. */
  projectFolder?: string;
}

export interface FoundConfig extends ConfigSource {
  label: string;
  servers: string[];
  /** What each importable server runs or connects to (never env or header values). */
  details: McpServerDetails[];
  error?: string;
}

const MAX_FILE_BYTES = 64 * 1024 * 1024;

export function claudeDesktopConfigPath(platform: NodeJS.Platform, env: Record<string, string | undefined>, home: string): string {
  if (platform === "darwin") return path.join(home, "Library", "Application Support", "Claude", "claude_desktop_config.json");
  if (platform === "win32") return path.join(env.APPDATA ?? path.join(home, "AppData", "Roaming"), "Claude", "claude_desktop_config.json");
  return path.join(env.XDG_CONFIG_HOME ?? path.join(home, ".config"), "Claude", "claude_desktop_config.json");
}

/** The JSON object holding `mcpServers` in a source: the file itself, or its entry for a project folder. */
export async function readConfigSource(source: ConfigSource): Promise<{ json: unknown } | { error: string }> {
  let text: string;
  try {
    const info = await stat(source.path);
    const real = await realpath(source.path);
    // /proc, /sys and /dev hold "files" that are views of processes and devices (a process's environment).
    if (!info.isFile() || /^\/(?:proc|sys|dev)(?:\/|$)/.test(real)) return { error: `${source.path} is not a regular file.` };
    if (info.size > MAX_FILE_BYTES) return { error: `${source.path} is larger than 64 MB.` };
    text = await readFile(source.path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { error: code === "ENOENT" ? `There is no file at ${source.path}.` : `${source.path} cannot be read (${code ?? (error as Error).message}).` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    return { error: `${source.path} is not valid JSON${jsonErrorPosition(error)}.` };
  }
  if (source.projectFolder === undefined) return { json };
  const projects = (json as { projects?: unknown } | null)?.projects;
  const entry = projects && typeof projects === "object" ? (projects as Record<string, unknown>)[source.projectFolder] : undefined;
  if (!entry) return { error: `${source.path} has no servers for ${source.projectFolder}.` };
  return { json: entry };
}

/** The configurations that exist for this user (and project folder), with the servers each defines. */
export async function findConfigFiles(options: {
  projectFolder?: string;
  env?: Record<string, string | undefined>;
  home?: string;
  platform?: NodeJS.Platform;
}): Promise<FoundConfig[]> {
  const home = options.home ?? homedir();
  const env = options.env ?? process.env;
  const candidates: (ConfigSource & { label: string })[] = [
    { path: claudeDesktopConfigPath(options.platform ?? process.platform, env, home), label: "Claude Desktop" },
    { path: path.join(home, ".claude.json"), label: "Claude Code (user servers)" },
  ];
  if (options.projectFolder) {
    candidates.push({ path: path.join(home, ".claude.json"), projectFolder: options.projectFolder, label: "Claude Code (this project, local)" });
    candidates.push({ path: path.join(options.projectFolder, ".mcp.json"), label: "This project's .mcp.json" });
  }
  const found: FoundConfig[] = [];
  for (const candidate of candidates) {
    const read = await readConfigSource(candidate);
    if ("error" in read) {
      if (!read.error.startsWith("There is no file") && !read.error.includes(" has no servers for ")) found.push({ ...candidate, servers: [], details: [], error: read.error });
      continue;
    }
    const { servers, skipped } = parseMcpServers(read.json);
    if (servers.length === 0 && skipped.every((s) => s.name === "(configuration)")) continue;
    found.push({
      ...candidate,
      servers: [...servers.map((s) => s.name), ...skipped.map((s) => `${s.name} (cannot be imported: ${s.reason})`)],
      details: servers.map(serverDetails),
    });
  }
  return found;
}

/**
 * Where JSON.parse failed, without its message: V8 quotes the text's first bytes, and the file may
 * be anything the renderer named (a secret). " (at line L, column C)", " (it ends too early)" or "".
 */
export function jsonErrorPosition(error: unknown): string {
  const message = error instanceof Error ? error.message : "";
  const lineColumn = /\(line (\d+) column (\d+)\)/.exec(message);
  if (lineColumn) return ` (at line ${lineColumn[1]}, column ${lineColumn[2]})`;
  const position = /at position (\d+)/.exec(message);
  if (position) return ` (at character ${position[1]})`;
  if (/Unexpected end of JSON input|Unterminated/i.test(message)) return " (it ends too early)";
  return "";
}
