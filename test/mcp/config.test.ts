// MCP configuration: the mcpServers shapes of Claude Desktop, .mcp.json and ~/.claude.json,
// checked entry by entry; ${VAR} expansion; values stored like provider keys; the files found on
// this machine for import.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { expandSpec, expandVariables, normalizeServerName, parseMcpServers } from "../../app/main/mcp/config.ts";
import { findConfigFiles } from "../../app/main/mcp/config-files.ts";
import { McpConfigStore, looksSecret } from "../../app/main/mcp/config-store.ts";
import { noSecretStore } from "../../app/main/settings/settings-service.ts";
import { openStore } from "../../app/main/store/index.ts";
import { fakeKeyring } from "./support/secrets.ts";

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), "lathe-mcp-config-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("parsing mcpServers", () => {
  it("reads Claude Desktop's stdio servers and Claude Code's http servers", () => {
    const { servers, skipped } = parseMcpServers({
      globalShortcut: "Ctrl+Space",
      mcpServers: {
        filesystem: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"], env: { DEBUG: "1", PORT: 8080 } },
        "remote api": { type: "http", url: "https://api.example.com/mcp", headers: { Authorization: "Bearer ${API_TOKEN}" } },
        inferred: { url: "http://127.0.0.1:9000/mcp" },
        legacy: { type: "sse", url: "https://api.example.com/sse" },
        broken: { args: ["x"] },
        badurl: { type: "http", url: "ftp://x" },
        weird: "not an object",
      },
    });
    expect(servers).toEqual([
      {
        name: "filesystem",
        transport: "stdio",
        command: "npx",
        args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
        env: { DEBUG: "1", PORT: "8080" },
        disabled: false,
        loadAllTools: false,
        timeoutMs: 60_000,
      },
      {
        name: "remote-api",
        transport: "http",
        url: "https://api.example.com/mcp",
        headers: { Authorization: "Bearer ${API_TOKEN}" },
        disabled: false,
        loadAllTools: false,
        timeoutMs: 60_000,
      },
      { name: "inferred", transport: "http", url: "http://127.0.0.1:9000/mcp", disabled: false, loadAllTools: false, timeoutMs: 60_000 },
    ]);
    expect(skipped.map((s) => s.name)).toEqual(["legacy", "broken", "badurl", "weird"]);
    expect(skipped[0]!.reason).toMatch(/SSE transport .* not supported/);
    expect(skipped[1]!.reason).toMatch(/needs a "command"/);
    expect(skipped[2]!.reason).toMatch(/must use http or https/);
  });

  it("accepts a bare map, Lathe's own fields (clamped), and refuses what is not a configuration", () => {
    const { servers } = parseMcpServers({ one: { command: "a", disabled: true, loadAllTools: true, timeoutMs: 5 }, two: { command: "b", enabled: false, timeoutMs: 10 ** 9 } });
    expect(servers.map((s) => [s.name, s.disabled, s.loadAllTools, s.timeoutMs])).toEqual([
      ["one", true, true, 1_000],
      ["two", true, false, 600_000],
    ]);
    expect(parseMcpServers([1, 2]).skipped[0]!.reason).toMatch(/not a JSON object/);
    expect(parseMcpServers({ other: 1 }).skipped[0]!.reason).toMatch(/no "mcpServers"/);
    expect(parseMcpServers({ mcpServers: { x: { command: "a", env: { "A=B": "1" } } } }).skipped[0]!.reason).toMatch(/invalid name/);
    expect(parseMcpServers({ mcpServers: { x: { type: "http", url: "http://h", headers: { A: "1\r\nX: y" } } } }).skipped[0]!.reason).toMatch(/forbidden character/);
    expect(parseMcpServers({ mcpServers: { "a b": { command: "x" }, "a-b": { command: "y" } } }).skipped[0]!.reason).toMatch(/also named "a-b"/);
  });

  it("normalizes names for tool names (no double underscores)", () => {
    expect(normalizeServerName("my__server")).toBe("my_server");
    expect(normalizeServerName("GitHub (work)")).toBe("GitHub-work");
    expect(normalizeServerName("...")).toBe("");
  });

  it("expands ${VAR} and ${VAR:-default}, and names what is missing", () => {
    expect(expandVariables("Bearer ${TOKEN}", { TOKEN: "abc" })).toEqual({ text: "Bearer abc", missing: [] });
    expect(expandVariables("${A:-fallback}/${B}", {})).toEqual({ text: "fallback/", missing: ["B"] });
    const spec = parseMcpServers({ mcpServers: { s: { command: "${BIN:-node}", args: ["${DIR}/x"], env: { K: "${KEY}" } } } }).servers[0]!;
    expect(expandSpec(spec, { DIR: "/d", KEY: "k" })).toMatchObject({ command: "node", args: ["/d/x"], env: { K: "k" } });
    expect(() => expandSpec(spec, {})).toThrow("The configuration uses DIR, KEY, which are not set in Lathe's environment.");
  });
});

describe("stored configurations", () => {
  const open = () => {
    const { store } = openStore({ dataDir: tempDir() });
    return store;
  };

  it("seals env and header values with the keyring; views and the stored row never hold them", () => {
    const store = open();
    const config = new McpConfigStore(store.settings, fakeKeyring);
    const { servers } = parseMcpServers({
      mcpServers: {
        gh: { command: "gh-mcp", env: { GITHUB_TOKEN: "ghp_abcdefghijklmnopqrstuvwxyz0123456789", LOG: "info", REF: "${HOME_TOKEN}" } },
        web: { type: "http", url: "https://x.example/mcp", headers: { Authorization: "Bearer sekrit-value-123" } },
      },
    });
    expect(config.put("user", null, servers)).toEqual({ saved: ["user/gh", "user/web"], refused: [] });
    const raw = JSON.stringify(store.settings.get("mcpServers"));
    expect(raw).not.toContain("ghp_abcdefghijklmnopqrstuvwxyz0123456789");
    expect(raw).not.toContain("sekrit-value-123");
    expect(raw).not.toContain('"info"');
    expect(raw).toContain("${HOME_TOKEN}");
    const gh = config.get("user/gh")!;
    expect(gh.spec.env).toEqual({ GITHUB_TOKEN: "ghp_abcdefghijklmnopqrstuvwxyz0123456789", LOG: "info", REF: "${HOME_TOKEN}" });
    expect(gh.encrypted.env).toEqual(["GITHUB_TOKEN", "LOG"]);
    expect(config.secretValues()).toEqual(expect.arrayContaining(["ghp_abcdefghijklmnopqrstuvwxyz0123456789", "Bearer sekrit-value-123"]));
    store.close();
  });

  it("without a keyring refuses a secret-looking value (and says how to pass it) but keeps the rest", () => {
    const store = open();
    const config = new McpConfigStore(store.settings, noSecretStore);
    const { servers } = parseMcpServers({
      mcpServers: {
        plain: { command: "x", env: { LOG_LEVEL: "debug", TOKEN: "${MY_TOKEN}" } },
        secret: { command: "y", env: { API_KEY: "abc" } },
        header: { type: "http", url: "http://h", headers: { Authorization: "Bearer abc" } },
      },
    });
    const result = config.put("project", 7, servers);
    expect(result.saved).toEqual(["project/7/plain"]);
    expect(result.refused.map((r) => r.name)).toEqual(["secret", "header"]);
    expect(result.refused[0]!.reason).toMatch(/will not store the value of API_KEY in plain text: write it as \$\{API_KEY\}/);
    expect(config.get("project/7/plain")!.spec.env).toEqual({ LOG_LEVEL: "debug", TOKEN: "${MY_TOKEN}" });
    store.close();
  });

  it("a value sealed by another keyring is reported, not thrown", () => {
    const store = open();
    new McpConfigStore(store.settings, fakeKeyring).put("user", null, parseMcpServers({ mcpServers: { s: { command: "x", env: { A: "1" } } } }).servers);
    const elsewhere = new McpConfigStore(store.settings, noSecretStore);
    expect(elsewhere.get("user/s")!.secretError).toMatch(/cannot be decrypted on this machine/);
    store.close();
  });

  it("updates Lathe's fields and removes servers", () => {
    const store = open();
    const config = new McpConfigStore(store.settings, noSecretStore);
    config.put("user", null, parseMcpServers({ mcpServers: { s: { command: "x" } } }).servers);
    expect(config.update("user/s", { disabled: true, loadAllTools: true, timeoutMs: 1 })).toBe(true);
    expect(config.get("user/s")!.spec).toMatchObject({ disabled: true, loadAllTools: true, timeoutMs: 1_000 });
    expect(config.update("user/none", { disabled: true })).toBe(false);
    expect(config.remove("user/s")).toBe(true);
    expect(config.all()).toEqual([]);
    store.close();
  });

  it("tells secrets from plain values", () => {
    expect(looksSecret("GITHUB_PERSONAL_ACCESS_TOKEN", "x", false)).toBe(true);
    expect(looksSecret("DATABASE_URL", "postgres://user:pw@host/db", false)).toBe(true);
    expect(looksSecret("X", "a1b2c3d4e5f6a7b8c9d0e1f2a3b4", false)).toBe(true);
    expect(looksSecret("Cookie", "x", true)).toBe(true);
    expect(looksSecret("LOG_LEVEL", "debug", false)).toBe(false);
    expect(looksSecret("API_KEY", "${API_KEY}", false)).toBe(false);
    expect(looksSecret("Authorization", "Bearer ${TOKEN}", true)).toBe(false);
    expect(looksSecret("Authorization", "Bearer abc", true)).toBe(true);
    expect(looksSecret("DATABASE_URL", "postgres://user:${PW}@host/db", false)).toBe(false);
    expect(looksSecret("X", "${A}a1b2c3d4e5f6a7b8c9d0e1f2a3b4", false)).toBe(true);
  });
});

describe("configuration files on this machine", () => {
  it("finds Claude Desktop's, ~/.claude.json's user and project servers, and the project's .mcp.json", async () => {
    const home = tempDir();
    const project = path.join(home, "work", "app");
    mkdirSync(project, { recursive: true });
    mkdirSync(path.join(home, ".config", "Claude"), { recursive: true });
    writeFileSync(
      path.join(home, ".config", "Claude", "claude_desktop_config.json"),
      JSON.stringify({ mcpServers: { memory: { command: "npx", args: ["-y", "@modelcontextprotocol/server-memory"] } } }),
    );
    writeFileSync(
      path.join(home, ".claude.json"),
      JSON.stringify({
        numStartups: 3,
        mcpServers: { sentry: { type: "http", url: "https://mcp.sentry.dev/mcp" } },
        projects: { [project]: { mcpServers: { local: { command: "./serve" } } } },
      }),
    );
    writeFileSync(path.join(project, ".mcp.json"), JSON.stringify({ mcpServers: { shared: { command: "node", args: ["tools.js"] }, old: { type: "sse", url: "http://x" } } }));
    const found = await findConfigFiles({ projectFolder: project, home, env: {}, platform: "linux" });
    expect(found.map((f) => [f.label, f.servers])).toEqual([
      ["Claude Desktop", ["memory"]],
      ["Claude Code (user servers)", ["sentry"]],
      ["Claude Code (this project, local)", ["local"]],
      ["This project's .mcp.json", ["shared", expect.stringMatching(/^old \(cannot be imported: The SSE transport/)]],
    ]);
    writeFileSync(path.join(project, ".mcp.json"), "{ not json");
    const broken = await findConfigFiles({ projectFolder: project, home, env: {}, platform: "linux" });
    expect(broken.at(-1)!.error).toMatch(/is not valid JSON/);
  });
});
