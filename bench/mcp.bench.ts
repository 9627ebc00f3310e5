// npm run bench:mcp: MCP with 20 stdio servers of 50 tools each configured (bench/mcp-fixture-server.ts,
// on the official SDK, started from a Node startup snapshot). Prints one JSON line:
// - connectAllMs / connectAllMinMs: median and minimum wall time, over 5 starts, from starting
//   the app's MCP service to all 20 servers connected with their 1,000 tools read (servers start
//   in parallel); connectAllCpuMs: Lathe's own CPU time in that (median), the servers' excluded;
//   connectAllSdkMs: the same 20 servers connected and listed by bare SDK clients, in runs
//   alternated with Lathe's (the part of connectAllMs the servers themselves take);
// - firstRequestExtraTokens: how much the first model request of a new session grows (system
//   prompt, tools, messages as JSON, 4 characters a token) over a session with the coding tools
//   only, with all 20 servers connected: the search tool and its prompt line, nothing else;
// - perCallOverheadMs: median time of a call through Lathe (argument check against the server's
//   schema, the call, the result bounded to content) minus the median of the same call through the
//   SDK's own Client and stdio transport, over 10 alternated rounds of 100 calls each;
//   perCallMs gives both medians, perCallMinOverheadMs the smallest round difference;
// - argumentCheck: CPU time of checking a call's arguments against a recursive schema that reads
//   the same data twice per level (`properties.c.allOf: [{$ref: "#"}, {$ref: "#"}]`), medians of
//   5 alternated runs: `unboundedDepth16CpuMs` is bare TypeBox on 16 levels (as Lathe checked
//   before its budget; each level doubles it, so 64 levels would never end), `depth16CpuMs` and
//   `depth64CpuMs` Lathe's check (stopped at its budget), `paddedCpuMs` the worst case: 40 levels
//   and an array of 50,000 numbers beside them, which raise the budget to its maximum.
// `npm run bench:mcp -- argument-check` runs only the argumentCheck figures.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createAppServices } from "../app/main/app-services.ts";
import type { LlmContext } from "../app/main/loop/index.ts";
import { McpConfigStore } from "../app/main/mcp/config-store.ts";
import { parseMcpServers } from "../app/main/mcp/config.ts";
import { McpService } from "../app/main/mcp/mcp-service.ts";
import { readToolDefinition } from "../app/main/mcp/tool-definitions.ts";
import Schema from "typebox/schema";
import { noSecretStore } from "../app/main/settings/settings-service.ts";
import { openStore } from "../app/main/store/index.ts";
import { createCodingTools } from "../app/main/tools/index.ts";
import { createScriptedModel } from "../app/main/loop/test/scripted-model.ts";

const SERVERS = 20;
const TOOLS = 50;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const require = createRequire(import.meta.url);
let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Bundles the fixture server and builds its startup snapshot; returns the snapshot's path. */
function buildFixture(): string {
  const outDir = path.join(root, "out", "bench");
  mkdirSync(outDir, { recursive: true });
  const bundle = path.join(outDir, "mcp-fixture-server.cjs");
  const blob = path.join(outDir, "mcp-fixture.blob");
  const esbuild = require.resolve("esbuild/bin/esbuild", { paths: [root] });
  const built = spawnSync(
    esbuild,
    [path.join(root, "bench", "mcp-fixture-server.ts"), "--bundle", "--platform=node", "--format=cjs", `--outfile=${bundle}`, "--log-level=warning"],
    { encoding: "utf8" },
  );
  if (built.status !== 0) throw new Error(`esbuild failed: ${built.stderr}`);
  const snapshot = spawnSync(process.execPath, ["--snapshot-blob", blob, "--build-snapshot", bundle], { encoding: "utf8" });
  if (snapshot.status !== 0) throw new Error(`the snapshot failed: ${snapshot.stderr}`);
  return blob;
}

if (process.argv.includes("argument-check")) {
  clearInterval(sampler);
  console.log(JSON.stringify({ argumentCheck: argumentCheck() }));
  process.exit(0);
}

const blob = buildFixture();
const serverConfig = (i: number) => ({ command: process.execPath, args: ["--snapshot-blob", blob], env: { FIXTURE_INDEX: String(i) } });
const config = { mcpServers: Object.fromEntries(Array.from({ length: SERVERS }, (_, i) => [`svc${String(i + 1).padStart(2, "0")}`, serverConfig(i + 1)])) };

function dataWithServers(): { dir: string; projectDir: string } {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), "lathe-bench-mcp-")));
  const projectDir = path.join(dir, "project");
  mkdirSync(projectDir);
  const { store } = openStore({ dataDir: path.join(dir, "data") });
  new McpConfigStore(store.settings, noSecretStore).put("user", null, parseMcpServers(config).servers);
  store.close();
  return { dir, projectDir };
}

async function connectAll(): Promise<{ ms: number; cpuMs: number }> {
  const { dir, projectDir } = dataWithServers();
  const { store } = openStore({ dataDir: path.join(dir, "data") });
  const projectId = store.openProject(projectDir, "project").id;
  const service = new McpService({
    settings: store.settings,
    secrets: noSecretStore,
    env: process.env,
    projectFolder: () => projectDir,
    clientInfo: { name: "bench", version: "0" },
    connectTimeoutMs: 60_000,
  });
  const cpu = process.cpuUsage();
  const started = performance.now();
  service.start();
  await service.catalog.ready(projectId);
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const servers = service.list().servers;
  const bad = servers.filter((s) => s.status.state !== "connected" || s.status.toolCount !== TOOLS);
  if (servers.length !== SERVERS || bad.length > 0) throw new Error(`not all servers connected: ${JSON.stringify(bad.map((s) => [s.name, s.status]))}`);
  await service.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });
  return { ms, cpuMs: (used.user + used.system) / 1000 };
}

/** The same servers through bare SDK clients: start, initialize, list tools, all in parallel. */
async function connectAllSdk(): Promise<number> {
  const started = performance.now();
  const clients = await Promise.all(
    Array.from({ length: SERVERS }, async (_, i) => {
      const client = new Client({ name: "bench-direct", version: "0" });
      await client.connect(new StdioClientTransport(serverConfig(i + 1)));
      const { tools } = await client.listTools();
      if (tools.length !== TOOLS) throw new Error(`server ${i + 1} listed ${tools.length} tools`);
      return client;
    }),
  );
  const ms = performance.now() - started;
  await Promise.all(clients.map((c) => c.close()));
  return ms;
}

function requestTokens(context: LlmContext): number {
  const tools = (context.tools ?? []).map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));
  return Math.ceil(JSON.stringify({ system: context.systemPrompt, tools, messages: context.messages }).length / 4);
}

async function firstRequests(): Promise<{ extraTokens: number; toolsWithout: number; toolsWith: number }> {
  const { dir, projectDir } = dataWithServers();
  const scripted = createScriptedModel([{ text: "hello" }, { text: "hello" }]);
  const services = createAppServices({ dataDir: path.join(dir, "data"), secrets: noSecretStore, host: "browser", version: "bench", env: {}, streamFn: scripted.streamFn });
  services.settings.setProvider({ id: "local", kind: "compatible", name: "Local", baseUrl: "http://127.0.0.1:9/v1", models: [{ id: "bench" }] });
  services.settings.update({ defaultModel: "local/bench" });
  const project = await services.sessions.openProject(projectDir);
  await services.mcp.catalog.ready(project.id);
  const codingOnly = services.store.createSession({ projectId: project.id, model: "local/bench", baseToolNames: createCodingTools({ projectDir }).tools.map((t) => t.name) });
  const withMcp = await services.sessions.create(project.id);
  const runs = new Map<number, number>();
  services.hub.add({ sessionEvent: (id, e) => void (e.type === "agent_end" && runs.set(id, 1)), emit: () => {} });
  for (const session of [codingOnly, withMcp]) {
    services.sessions.prompt(session.id, "Summarize the open issues.");
    while (!runs.has(session.id) || services.sessions.isRunning(session.id)) await new Promise((r) => setTimeout(r, 5));
  }
  const [without, withServers] = scripted.requests.map((r) => r.context);
  await services.close();
  rmSync(dir, { recursive: true, force: true });
  return { extraTokens: requestTokens(withServers!) - requestTokens(without!), toolsWithout: without!.tools?.length ?? 0, toolsWith: withServers!.tools?.length ?? 0 };
}

async function callOverhead(): Promise<{ lathe: number; sdk: number; overhead: number; minOverhead: number }> {
  const { dir, projectDir } = dataWithServers();
  const { store } = openStore({ dataDir: path.join(dir, "data") });
  const projectId = store.openProject(projectDir, "project").id;
  const service = new McpService({
    settings: store.settings,
    secrets: noSecretStore,
    env: process.env,
    projectFolder: () => projectDir,
    clientInfo: { name: "bench", version: "0" },
  });
  service.start();
  await service.catalog.ready(projectId);
  const tool = service.externalTools({ sessionId: 1, projectId, projectDir }, []).find((t) => t.name === "mcp__svc01__search_issue")!;
  const client = new Client({ name: "bench-direct", version: "0" });
  await client.connect(new StdioClientTransport(serverConfig(1)));
  const args = { text: "find the flaky test", issue_id: 7, labels: ["ci"], state: "open" };
  const viaLathe = async () => {
    const prepared = tool.prepareArguments!(args);
    const result = await tool.execute("bench", prepared, undefined, undefined);
    if (result.content[0]?.type !== "text") throw new Error("unexpected result");
  };
  const direct = async () => {
    const result = await client.callTool({ name: "search_issue", arguments: args });
    if (!Array.isArray(result.content)) throw new Error("unexpected result");
  };
  const timed = async (fn: () => Promise<void>, n: number) => {
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      await fn();
      times.push(performance.now() - t);
    }
    return times;
  };
  await timed(viaLathe, 100);
  await timed(direct, 100);
  const lathe: number[] = [];
  const sdk: number[] = [];
  const differences: number[] = [];
  for (let round = 0; round < 10; round++) {
    const a = await timed(viaLathe, 100);
    const b = await timed(direct, 100);
    lathe.push(...a);
    sdk.push(...b);
    differences.push(median(a) - median(b));
  }
  await client.close();
  await service.close();
  store.close();
  rmSync(dir, { recursive: true, force: true });
  return { lathe: median(lathe), sdk: median(sdk), overhead: median(lathe) - median(sdk), minOverhead: Math.min(...differences) };
}

function cpuMsOf(fn: () => unknown): number {
  const cpu = process.cpuUsage();
  fn();
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / 1000;
}

function argumentCheck(): Record<string, number> {
  const schema = { type: "object", properties: { c: { allOf: [{ $ref: "#" }, { $ref: "#" }] }, pad: { type: "array" } } };
  const nested = (depth: number): Record<string, unknown> => {
    let value: Record<string, unknown> = {};
    for (let i = 0; i < depth; i++) value = { c: value };
    return value;
  };
  const tool = readToolDefinition("bench", "recursive", { name: "recursive", inputSchema: schema });
  const bare = Schema.Compile(schema as never);
  const cases: Record<string, () => unknown> = {
    unboundedDepth16CpuMs: () => {
      if (!bare.Check(nested(16))) throw new Error("unexpected");
    },
    depth16CpuMs: () => {
      if (!tool.checkArguments(nested(16))?.[0]?.includes("too deeply nested")) throw new Error("not stopped");
    },
    depth64CpuMs: () => {
      if (!tool.checkArguments(nested(64))?.[0]?.includes("too deeply nested")) throw new Error("not stopped");
    },
    paddedCpuMs: () => {
      if (!tool.checkArguments({ ...nested(40), pad: Array.from({ length: 50_000 }, () => 0) })?.[0]?.includes("150,000 steps")) throw new Error("not stopped");
    },
  };
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  for (let run = 0; run < 5; run++) for (const [name, fn] of Object.entries(cases)) times[name]!.push(cpuMsOf(fn));
  return Object.fromEntries(Object.entries(times).map(([name, list]) => [name, Number(median(list).toFixed(1))]));
}

const connects: { ms: number; cpuMs: number }[] = [];
const sdkConnects: number[] = [];
for (let i = 0; i < 5; i++) {
  connects.push(await connectAll());
  sdkConnects.push(await connectAllSdk());
}
const first = await firstRequests();
const calls = await callOverhead();
const argumentCheckCpu = argumentCheck();
clearInterval(sampler);

const round = (n: number, digits = 2) => Number(n.toFixed(digits));
console.log(
  JSON.stringify({
    servers: SERVERS,
    toolsPerServer: TOOLS,
    connectAllMs: round(median(connects.map((c) => c.ms)), 0),
    connectAllMinMs: round(Math.min(...connects.map((c) => c.ms)), 0),
    connectAllCpuMs: round(median(connects.map((c) => c.cpuMs)), 0),
    connectAllSdkMs: round(median(sdkConnects), 0),
    firstRequestExtraTokens: first.extraTokens,
    firstRequestTools: { codingOnly: first.toolsWithout, withServers: first.toolsWith },
    perCallOverheadMs: round(calls.overhead, 3),
    perCallMinOverheadMs: round(calls.minOverhead, 3),
    perCallMs: { lathe: round(calls.lathe, 3), sdk: round(calls.sdk, 3) },
    argumentCheck: argumentCheckCpu,
    peakRssMB: round(peakRss / 1024 / 1024, 1),
  }),
);
