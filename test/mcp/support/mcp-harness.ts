// An McpService on a fresh store, with helpers to configure servers the way the settings screen
// does (pasted mcpServers JSON) and to call their tools as the loop would. Also the commands of
// the real servers the tests run: the reference server from npm and the misbehaving fixture.
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { McpService } from "../../../app/main/mcp/mcp-service.ts";
import type { AgentToolResult } from "../../../app/shared/agent-types.ts";
import type { SecretStore } from "../../../app/main/settings/settings-service.ts";
import { noSecretStore } from "../../../app/main/settings/settings-service.ts";
import { openStore, type SessionStore } from "../../../app/main/store/index.ts";

const require = createRequire(import.meta.url);

/** The reference server from npm (`@modelcontextprotocol/server-everything`), over stdio. */
export const EVERYTHING = {
  command: process.execPath,
  args: [path.join(path.dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")), "dist", "index.js"), "stdio"],
};

export const FIXTURE = { command: process.execPath, args: [path.join(import.meta.dirname, "..", "fixtures", "fixture-server.ts")] };

export interface McpHarness {
  service: McpService;
  store: SessionStore;
  dir: string;
  projectId: number;
  changes: string[];
  /** Adds servers from an mcpServers object; fails the test on a skipped one. */
  add(servers: Record<string, unknown>, scope?: "user" | "project"): Promise<void>;
  /** Calls a tool by its model name as the loop would (prepareArguments, then execute). */
  call(modelName: string, args: Record<string, unknown>, options?: { signal?: AbortSignal; onUpdate?: (u: AgentToolResult) => void }): Promise<AgentToolResult>;
  waitFor(predicate: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startMcp(options: { secrets?: SecretStore; env?: Record<string, string | undefined>; connectTimeoutMs?: number } = {}): Promise<McpHarness> {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), "lathe-mcp-")));
  const { store } = openStore({ dataDir: path.join(dir, "data") });
  const project = store.openProject(dir, "project");
  const changes: string[] = [];
  const service = new McpService({
    settings: store.settings,
    secrets: options.secrets ?? noSecretStore,
    env: { HOME: dir, ...options.env },
    projectFolder: (id) => store.getProject(id)?.folder,
    clientInfo: { name: "lathe-test", version: "0" },
    connectTimeoutMs: options.connectTimeoutMs ?? 20_000,
    onServerChange: (id) => changes.push(id),
  });
  service.start();
  const scope = { sessionId: 1, projectId: project.id, projectDir: dir };
  return {
    service,
    store,
    dir,
    projectId: project.id,
    changes,
    async add(servers, serverScope = "user") {
      const result = await service.import({ text: JSON.stringify({ mcpServers: servers }), scope: serverScope, ...(serverScope === "project" ? { projectId: project.id } : {}) });
      if (result.skipped.length > 0) throw new Error(`skipped: ${JSON.stringify(result.skipped)}`);
    },
    async call(modelName, args, callOptions = {}) {
      const tool = service.externalTools(scope, [modelName]).find((t) => t.name === modelName);
      if (!tool) throw new Error(`no tool ${modelName}`);
      const prepared = tool.prepareArguments ? tool.prepareArguments(args) : args;
      return tool.execute("call", prepared, callOptions.signal, callOptions.onUpdate);
    },
    async waitFor(predicate, what, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 10));
      }
    },
    async close() {
      await service.close();
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function textOf(result: AgentToolResult): string {
  return result.content.map((c) => (c.type === "text" ? c.text : `[${c.type}]`)).join("\n");
}
