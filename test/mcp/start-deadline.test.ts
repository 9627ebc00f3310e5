// One time limit over the whole start of an MCP server (connection.ts), against servers that stall
// it step by step: an HTTP server on 127.0.0.1 that answers initialize and then never finishes its
// answer to the notifications/initialized notice (no answer at all, or a 500 whose body trickles),
// and a stdio server that answers each tools/list page well inside a per-request timeout, each
// with a new cursor. The start fails at the bound with an error naming the server and the step,
// the connection is closed, and sessions are created meanwhile with the servers that are up. A
// listing after tools/list_changed has the same bound, and a new session waits for a server no
// longer than that even when the server's process takes seconds to stop. The bounds are 1–2 s,
// checked with seconds of margin, against stalls of 4 s, 18 s or forever.
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAppServices } from "../../app/main/app-services.ts";
import { noSecretStore } from "../../app/main/settings/settings-service.ts";
import { startHttpMcp, type TestHttpMcp } from "./support/http-server.ts";
import { FIXTURE, startMcp, textOf, type McpHarness } from "./support/mcp-harness.ts";

interface StuckHttpMcp {
  /** `${url}/silent` never answers the initialized notice; `${url}/trickle` answers 500 and a byte every 200 ms. */
  url: string;
  /** Initialized notices whose connection is still open. */
  openNotices(): number;
  close(): void;
}

function startStuckHttpMcp(): Promise<StuckHttpMcp> {
  let open = 0;
  const server = createServer((req, res) => {
    if (req.method !== "POST") {
      res.writeHead(405).end();
      return;
    }
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const message = JSON.parse(body) as { id?: number; method?: string; params?: { protocolVersion?: string } };
      if (message.method === "initialize") {
        const result = { protocolVersion: message.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "stuck", version: "1" } };
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
      } else if (message.method === "notifications/initialized") {
        open++;
        res.on("close", () => open--);
        if (req.url?.endsWith("/trickle")) {
          res.writeHead(500, { "content-type": "text/plain" });
          const trickle = setInterval(() => res.write("."), 200);
          res.on("close", () => clearInterval(trickle));
        }
      } else {
        res.writeHead(202).end();
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
        openNotices: () => open,
        close: () => {
          server.closeAllConnections();
          server.close();
        },
      }),
    ),
  );
}

const stuckError = (name: string) =>
  `No answer within 1 s while starting. Lathe was waiting for the MCP server ${name} to finish its answer to the notifications/initialized notice, and closed the connection.`;

let stuck: StuckHttpMcp;
let remote: TestHttpMcp;
let h: McpHarness;
beforeAll(async () => {
  stuck = await startStuckHttpMcp();
  remote = await startHttpMcp("s3cret-token");
  h = await startMcp({ connectTimeoutMs: 1_000 });
});
afterAll(async () => {
  await h?.close();
  stuck?.close();
  await remote?.stop();
});

const status = (name: string) => h.service.list().servers.find((s) => s.name === name)!.status;

describe("an HTTP server that answers initialize, then never finishes its answer to the initialized notice", () => {
  for (const mode of ["silent", "trickle"] as const) {
    it(`(${mode}) fails at the bound naming the server and the step, and its request is aborted`, { timeout: 15_000 }, async () => {
      const started = Date.now();
      await h.add({ [mode]: { type: "http", url: `${stuck.url}/${mode}` } });
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(status(mode)).toMatchObject({ state: "failed", error: stuckError(mode) });
      await h.waitFor(() => stuck.openNotices() === 0, "the notice's connection to close", 5_000);
    });
  }

  it("a call of its tools gets the same error, within the bound", { timeout: 15_000 }, async () => {
    const started = Date.now();
    await expect(h.call("mcp__silent__anything", {})).rejects.toThrow(`The MCP server silent is not available: ${stuckError("silent")}`);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe("session creation while a server hangs in its start", () => {
  it("creates the session with the servers that are up; the hanging one fails at the bound", { timeout: 15_000 }, async () => {
    const dataDir = realpathSync(mkdtempSync(path.join(tmpdir(), "lathe-deadline-")));
    const projectDir = realpathSync(mkdtempSync(path.join(tmpdir(), "lathe-deadline-project-")));
    const services = createAppServices({
      dataDir,
      secrets: noSecretStore,
      host: "browser",
      version: "test",
      env: { HOME: dataDir, REMOTE_TOKEN: "s3cret-token" },
      mcpConnectTimeoutMs: 1_000,
    });
    const call = async (name: string, params: unknown) => {
      const result = await services.router.handle(name, params);
      if (!result.ok) throw new Error(result.error.message);
      return result.data as never;
    };
    const importServer = (name: string, server: Record<string, unknown>) =>
      call("mcp.import", { text: JSON.stringify({ mcpServers: { [name]: { ...server, loadAllTools: true } } }), scope: "user" });
    const state = async (name: string) =>
      ((await call("mcp.list", {})) as { servers: { name: string; status: { state: string; error?: string } }[] }).servers.find((s) => s.name === name)!.status;
    try {
      await importServer("remote", { type: "http", url: remote.url, headers: { Authorization: "Bearer ${REMOTE_TOKEN}" } });
      expect((await state("remote")).state).toBe("connected");
      const importing = importServer("hanging", { type: "http", url: `${stuck.url}/silent` });
      const project: { id: number } = await call("projects.open", { folder: projectDir });
      const started = Date.now();
      const session: { baseToolNames: string[] } = await call("sessions.create", { projectId: project.id });
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(session.baseToolNames).toEqual(expect.arrayContaining(["tool_search", "mcp__remote__echo"]));
      expect(session.baseToolNames.some((n) => n.startsWith("mcp__hanging__"))).toBe(false);
      await importing;
      expect(await state("hanging")).toMatchObject({ state: "failed", error: stuckError("hanging") });
    } finally {
      await services.close();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(projectDir, { recursive: true, force: true });
    }
  });
});

describe("a new session's wait for a stdio server that never answers initialize and ignores SIGTERM", () => {
  it("ends at the bound, though stopping the server takes 4 s more", { timeout: 20_000 }, async () => {
    const adding = h.add({ stubborn: { ...FIXTURE, env: { FIXTURE_MODE: "stubborn" }, loadAllTools: true } });
    const started = Date.now();
    const names = await h.service.baseToolNames(h.projectId);
    expect(Date.now() - started).toBeLessThan(3_500);
    expect(names).toEqual(["tool_search"]);
    expect(["connecting", "failed"]).toContain(status("stubborn").state);
    await adding;
    expect(status("stubborn").state).toBe("failed");
    expect(status("stubborn").error).toMatch(
      /^No answer within 1 s while starting\. Lathe was waiting for the MCP server stubborn to start and answer initialize, and stopped it\./,
    );
  });
});

describe("a stdio server that answers each tools/list page in 0.9 s with a new cursor", () => {
  it("fails at the start's 2 s bound, not after 20 pages (18 s)", { timeout: 40_000 }, async () => {
    const slow = await startMcp({ connectTimeoutMs: 2_000 });
    try {
      const started = Date.now();
      await slow.add({ pages: { ...FIXTURE, env: { FIXTURE_MODE: "slow-pages", FIXTURE_PAGE_MS: "900" } } });
      expect(Date.now() - started).toBeLessThan(8_000);
      const pages = slow.service.list().servers[0]!.status;
      expect(pages.state).toBe("failed");
      expect(pages.error).toMatch(
        /^No answer within 2 s while starting\. Lathe was waiting for the MCP server pages to answer tools\/list \(page \d+ of its tool listing\), and stopped it\./,
      );
    } finally {
      await slow.close();
    }
  });

  it("a listing after tools/list_changed stops at the same bound, and the last listing stays", { timeout: 30_000 }, async () => {
    const relisted = await startMcp({ connectTimeoutMs: 2_000 });
    try {
      await relisted.add({ relisted: { ...FIXTURE, env: { FIXTURE_MODE: "slow-relist", FIXTURE_PAGE_MS: "900" } } });
      const before = relisted.service.list().servers[0]!.status;
      expect(before.state).toBe("connected");
      const listCount = async () => Number(textOf(await relisted.call("mcp__relisted__list_count", {})));
      expect(await listCount()).toBe(1);
      // "grow" says the tools changed; from now on every page takes 0.9 s and has a next cursor.
      await relisted.call("mcp__relisted__grow", {});
      const deadline = Date.now() + 10_000;
      while ((await listCount()) === 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      // 2 s fit at most 3 pages of 0.9 s; without the bound the listing would go on to 20 pages.
      await new Promise((r) => setTimeout(r, 6_000));
      expect((await listCount()) - 1).toBeGreaterThanOrEqual(1);
      expect((await listCount()) - 1).toBeLessThanOrEqual(3);
      expect(relisted.service.list().servers[0]!.status).toMatchObject({ state: "connected", toolCount: before.toolCount });
      expect(textOf(await relisted.call("mcp__relisted__echo", { text: "still here" }))).toBe("echo: still here");
    } finally {
      await relisted.close();
    }
  });
});
