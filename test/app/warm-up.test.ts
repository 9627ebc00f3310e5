// The deferred warm-up (issue 16, start to first page): with warmUp "later", the work the first
// window does not need (the user's MCP servers, the bash grammar, the checkpoints' git check) waits
// for warmUp(), the first request, or the headless host's first page; with the default it starts
// with the services, as before.
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createAppServices, type AppServices } from "../../app/main/app-services.ts";
import { startHost } from "../../app/main/host/start-host.ts";
import { scannerFor, secretEnvValues } from "../../app/main/permissions/redaction.ts";
import { noSecretStore } from "../../app/main/settings/settings-service.ts";
import { FIXTURE } from "../mcp/support/mcp-harness.ts";
import { writeV7Database } from "../store/v7-database.ts";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A data folder whose settings hold one user MCP server (the fixture), saved by a closed app. */
async function folderWithServer(): Promise<string> {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), "lathe-warm-up-")));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const dataDir = path.join(root, "data");
  const first = createAppServices({ dataDir, secrets: noSecretStore, host: "browser", version: "test", env: {} });
  const imported = await first.router.handle("mcp.import", { text: JSON.stringify({ mcpServers: { fixture: FIXTURE } }), scope: "user" });
  expect(imported.ok).toBe(true);
  await first.close();
  return dataDir;
}

const serverState = (services: AppServices) => services.mcp.list().servers[0]!.status.state;

describe("deferred warm-up", () => {
  it("starts the user's MCP servers with the services by default", async () => {
    const dataDir = await folderWithServer();
    const services = createAppServices({ dataDir, secrets: noSecretStore, host: "browser", version: "test", env: {} });
    cleanups.push(() => services.close());
    expect(serverState(services)).toBe("connecting");
    await services.checkpointsReady;
  });

  it("waits for the first request when it is 'later', and runs once", async () => {
    const dataDir = await folderWithServer();
    const services = createAppServices({ dataDir, secrets: noSecretStore, host: "browser", version: "test", env: {}, warmUp: "later" });
    cleanups.push(() => services.close());
    expect(serverState(services)).toBe("idle");
    expect((await services.router.handle("app.info", {})).ok).toBe(true);
    expect(serverState(services)).not.toBe("idle");
    await services.checkpointsReady;
    await vi.waitFor(() => expect(serverState(services)).toBe("connected"), { timeout: 20_000 });
    services.warmUp();
    expect(serverState(services)).toBe("connected");
  }, 30_000);

  it("builds the secret scanner after the warm-up, with the secret values it knows; tool calls reuse it", async () => {
    const dataDir = realpathSync(mkdtempSync(path.join(tmpdir(), "lathe-warm-up-secrets-")));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const env = { DEPLOY_API_TOKEN: "warm-secret-7f3a9c2e1b" };
    const services = createAppServices({ dataDir, secrets: noSecretStore, host: "browser", version: "test", env, warmUp: "later" });
    cleanups.push(() => services.close());
    services.warmUp();
    const scanner = await services.secretsReady;
    expect(scanner.redact("deployed with warm-secret-7f3a9c2e1b").text).not.toContain("warm-secret-7f3a9c2e1b");
    // What the tools ask for (app-services' secrets(): the provider keys, none here, and the
    // secret-looking values of the env given and of the process's own).
    expect(scannerFor([...secretEnvValues(env), ...secretEnvValues(process.env)])).toBe(scanner);
  });

  it("closes without waiting for a warm-up that never ran, which then never runs", async () => {
    const dataDir = await folderWithServer();
    const services = createAppServices({ dataDir, secrets: noSecretStore, host: "browser", version: "test", env: {}, warmUp: "later" });
    await services.close();
    expect(() => services.warmUp()).not.toThrow();
  });

  it("the headless host warms up once its first page was sent", async () => {
    const dataDir = await folderWithServer();
    const rendererDir = mkdtempSync(path.join(tmpdir(), "lathe-warm-up-renderer-"));
    cleanups.push(() => rmSync(rendererDir, { recursive: true, force: true }));
    writeFileSync(path.join(rendererDir, "index.html"), "<!doctype html><title>Lathe</title>");
    const host = await startHost({ dataDir, rendererDir, env: {} });
    cleanups.push(() => host.close());
    expect(serverState(host.services)).toBe("idle");
    const page = await fetch(`${host.origin}/`);
    expect(page.status).toBe(200);
    await page.text();
    await vi.waitFor(() => expect(serverState(host.services)).not.toBe("idle"), { timeout: 5_000 });
    await host.services.checkpointsReady;
  }, 30_000);

  it("serves an upgraded schema-7 folder at once and fills the search word list only after warmUp", async () => {
    const dataDir = realpathSync(mkdtempSync(path.join(tmpdir(), "lathe-warm-up-v7-")));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    writeV7Database(
      dataDir,
      Array.from({ length: 400 }, (_, i) => `note ${i} on ${i % 2 ? "pangolins" : "platypuses"} and word${i}`),
    );
    const services = createAppServices({ dataDir, secrets: noSecretStore, host: "browser", version: "test", env: {}, warmUp: "later" });
    cleanups.push(() => services.close());
    // Open without the fill, which waits for the warm-up (here: the first request).
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(services.store.searchWordsComplete()).toBe(false);
    expect(services.store.db.prepare("SELECT count(*) FROM search_words").pluck().get()).toBe(0);
    const search = async (query: string) => {
      const found = await services.router.handle("sessions.search", { query, limit: 200 });
      if (!found.ok) throw new Error(found.error.message);
      return (found.data as { hits: unknown[] }).hits.length;
    };
    expect(await search("pango")).toBe(200); // the first request: right even if the fill has not begun
    // The first request warmed up: the fill runs in slices until complete, with the same results.
    await vi.waitFor(() => expect(services.store.searchWordsComplete()).toBe(true), { timeout: 20_000 });
    expect(await search("pango")).toBe(200);
    expect(await search("platyp")).toBe(200);
    expect(await search("word39")).toBe(1 + 10);
  }, 30_000);
});
