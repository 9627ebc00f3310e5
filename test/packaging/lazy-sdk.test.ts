// The provider SDKs are not part of start-up (issue 16): the CommonJS main bundle requires each from
// a file of its own only when a provider is first used, the host's ESM bundle has them in chunks,
// and both load when needed: the built host, testing an Anthropic provider at a closed port, gets
// a connection failure (the SDK ran), not a missing module. The MCP SDK likewise (with zod, Ajv and
// the tool-list reader): out of both start-up bundles, loaded at the first MCP server start, which
// works in the built host.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectHost, startHostProcess } from "../support/host-process.ts";
import { FIXTURE } from "../mcp/support/mcp-harness.ts";

const root = path.join(import.meta.dirname, "..", "..");
let out: string;

beforeAll(() => {
  // Inside the repository, so the built host finds the native modules in node_modules (out/ does
  // not exist yet in a fresh clone).
  mkdirSync(path.join(root, "out"), { recursive: true });
  out = mkdtempSync(path.join(root, "out", "lazy-sdk-test-"));
  const built = spawnSync(process.execPath, ["scripts/build.mjs", "--no-renderer", "--out", out], { cwd: root, encoding: "utf8" });
  if (built.status !== 0) throw new Error(`build failed: ${built.stderr}`);
}, 120_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("provider SDKs load on first use", () => {
  it("are outside the main bundle, in files it requires lazily, each exporting its client", () => {
    const main = readFileSync(path.join(out, "main", "index.cjs"), "utf8");
    for (const [file, marker] of [
      ["sdk-anthropic.cjs", "anthropic-version"],
      ["sdk-openai.cjs", "OpenAI-Organization"],
    ] as const) {
      const sdk = readFileSync(path.join(out, "main", file), "utf8");
      expect(sdk).toContain(marker);
      expect(main).not.toContain(marker);
      expect(main).toContain(`require("./${file}")`);
      // The file exports the client class as `default`, which the module inlined in index.cjs hands to sdk.ts's import().
      const loaded = createRequire(path.join(out, "main", "index.cjs"))(`./${file}`) as { default: { name: string } };
      expect(typeof loaded.default).toBe("function");
      expect(loaded.default.name).toMatch(/Anthropic|OpenAI/);
      expect(main).toContain(`module2.exports = require("./${file}").default;`);
      expect(main).toContain(`__toESM(require_sdk_${file.slice(4, -4)}(), 1)`);
    }
    // The host: the SDKs are chunks of their own, not in index.mjs.
    const host = readFileSync(path.join(out, "host", "index.mjs"), "utf8");
    expect(host).not.toContain("anthropic-version");
    expect(readdirSync(path.join(out, "host")).some((f) => f.endsWith(".mjs") && readFileSync(path.join(out, "host", f), "utf8").includes("anthropic-version"))).toBe(true);
  });

  it("load in the built host when a provider is first used", async () => {
    const data = mkdtempSync(path.join(out, "data-"));
    const host = startHostProcess(data, [], { cli: path.join(out, "host", "index.mjs"), env: { ANTHROPIC_API_KEY: "sk-test-not-a-key" } });
    try {
      const connection = await connectHost(await host.url);
      expect((await connection.call("settings.setProvider", { id: "anthropic", kind: "anthropic", baseUrl: "http://127.0.0.1:9" })).ok).toBe(true);
      const tested = await connection.call<{ ok: boolean; message: string }>("providers.test", { id: "anthropic" });
      expect(tested.data?.ok).toBe(false);
      expect(tested.data?.message).not.toMatch(/module|Cannot find|is not a constructor/i);
      expect(tested.data?.message).toMatch(/connect|reach|refused|network|fetch/i);
      connection.close();
    } finally {
      host.child.kill("SIGTERM");
      await host.exited;
    }
  }, 60_000);
});

/** A string of the MCP SDK's own code (the tool-list notice's method name), in no Lathe module. */
const MCP_MARKER = "notifications/tools/list_changed";

/** The host's files the entry loads before serving: index.mjs and the static imports of what it imports. */
function hostStartFiles(dir: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(path.join(dir, file), "utf8");
    // Static imports, and the entry's own import() of the cli chunk (its one dynamic import).
    for (const m of text.matchAll(/(?:^|\n)import\s[^;]*?from\s*"\.\/([^"]+)"|(?:^|\n)import\s*"\.\/([^"]+)"/g)) visit(m[1] ?? m[2]!);
    if (file === "index.mjs") for (const m of text.matchAll(/import\("\.\/([^"]+)"\)/g)) visit(m[1]!);
  };
  visit("index.mjs");
  return [...seen];
}

describe("the MCP SDK loads at the first server start", () => {
  it("is outside both start-up bundles, in a file or chunk loaded by import()", () => {
    const main = readFileSync(path.join(out, "main", "index.cjs"), "utf8");
    expect(main).not.toContain(MCP_MARKER);
    expect(main).toContain('require("./mcp-sdk.cjs")');
    const sdk = createRequire(path.join(out, "main", "index.cjs"))("./mcp-sdk.cjs") as Record<string, unknown>;
    expect(readFileSync(path.join(out, "main", "mcp-sdk.cjs"), "utf8")).toContain(MCP_MARKER);
    for (const name of ["Client", "StreamableHTTPClientTransport", "StdioTransport", "McpError", "readToolList"]) expect(typeof sdk[name]).toBe("function");
    const startFiles = hostStartFiles(path.join(out, "host"));
    expect(startFiles.some((f) => f.startsWith("cli-"))).toBe(true);
    for (const file of startFiles) expect(readFileSync(path.join(out, "host", file), "utf8")).not.toContain(MCP_MARKER);
    expect(readdirSync(path.join(out, "host")).some((f) => f.startsWith("mcp-sdk-modules-") && readFileSync(path.join(out, "host", f), "utf8").includes(MCP_MARKER))).toBe(true);
  });

  it("starts a stdio server in the built host", async () => {
    const data = mkdtempSync(path.join(out, "data-"));
    const host = startHostProcess(data, [], { cli: path.join(out, "host", "index.mjs") });
    try {
      const connection = await connectHost(await host.url);
      const imported = await connection.call<{ list: { servers: { status: { state: string; toolCount: number; error?: string } }[] } }>("mcp.import", {
        text: JSON.stringify({ mcpServers: { fixture: FIXTURE } }),
        scope: "user",
      });
      expect(imported.data?.list.servers[0]?.status).toMatchObject({ state: "connected", toolCount: 20 });
      connection.close();
    } finally {
      host.child.kill("SIGTERM");
      await host.exited;
    }
  }, 60_000);
});
