// Settings → Providers and the model picker through the app's services: a provider is tested with
// what the person typed before anything is saved; only models that can be reached are listed; a
// model id the registry does not know can be typed for a known provider.
import { afterEach, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../providers/support/sse-server.ts";
import { startApp, type AppHarness } from "../support/app-harness.ts";

let app: AppHarness | undefined;
let server: TestServer | undefined;
afterEach(async () => {
  await app?.close();
  await server?.close();
  app = undefined;
  server = undefined;
});

async function modelServer(): Promise<TestServer> {
  return startServer(
    (request) =>
      request.path.endsWith("/models")
        ? { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify({ object: "list", data: [{ id: "m1" }, { id: "m2" }] }) }
        : { status: 404, headers: { "content-type": "application/json" }, body: "{}" },
    "/v1",
  );
}

describe("providers and models", () => {
  it("tests a provider as typed without saving it", async () => {
    server = await modelServer();
    app = await startApp();
    const tested = await app.call("providers.test", { id: "newbox", candidate: { kind: "compatible", baseUrl: server.baseUrl } });
    expect(tested).toEqual({ ok: true, message: expect.stringContaining("2 models available") });
    expect((await app.call("settings.get", {})).providers.some((p) => p.id === "newbox")).toBe(false);
    const failed = await app.call("providers.test", { id: "newbox", candidate: { baseUrl: "http://127.0.0.1:9/v1" } });
    expect(failed.ok).toBe(false);
    // A key typed for a hosted provider is tested, not stored.
    const hosted = await app.call("providers.test", { id: "anthropic", candidate: { apiKey: "sk-ant-typed", baseUrl: "http://127.0.0.1:9" } });
    expect(hosted.ok).toBe(false);
    expect((await app.call("settings.get", {})).providers.find((p) => p.id === "anthropic")!.keySource).toBe("none");
    expect(await app.raw("providers.test", { id: "Bad Id", candidate: { baseUrl: server.baseUrl } })).toMatchObject({ ok: false, error: { code: "invalid-request" } });
  });

  it("a model list cut at 5,000 models says so, through the test and a refresh", async () => {
    const data = [{ id: "" }, ...Array.from({ length: 6_000 }, (_, i) => ({ id: `m${i}` }))];
    server = await startServer(
      (request) =>
        request.path.endsWith("/models")
          ? { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify({ object: "list", data }) }
          : { status: 404, headers: { "content-type": "application/json" }, body: "{}" },
      "/v1",
    );
    app = await startApp();
    const notice = "The server listed 6,000 models; only the first 5,000 are shown. 1 model was left out: an empty id or one longer than 199 characters cannot be chosen.";
    const tested = await app.call("providers.test", { id: "big", candidate: { kind: "compatible", baseUrl: server.baseUrl } });
    expect(tested).toEqual({ ok: true, message: expect.stringContaining("5,000 models available"), notice });
    await app.call("settings.setProvider", { id: "big", name: "Big", kind: "compatible", baseUrl: server.baseUrl });
    const refreshed = await app.call("models.refresh", { provider: "big" });
    expect(refreshed.models).toHaveLength(5_000);
    expect(refreshed.notice).toBe(notice);
    // A hosted provider's models are the shipped table's: no list, no notice.
    expect(await app.call("models.refresh", { provider: "anthropic" })).toEqual({ models: expect.any(Array) });
  });

  it("lists only reachable models: hosted ones with a key, and what servers listed", async () => {
    app = await startApp();
    const without = await app.call("models.list", {});
    expect(without.map((m) => m.provider)).toEqual(["local"]);
    await app.close();
    app = await startApp({ env: { ANTHROPIC_API_KEY: "sk-ant-from-env" } });
    const withKey = await app.call("models.list", {});
    expect(new Set(withKey.map((m) => m.provider))).toEqual(new Set(["anthropic", "local"]));
  });

  it("a typed model id of a known provider is used as is", async () => {
    app = await startApp();
    const project = await app.call("projects.open", { folder: app.projectDir });
    const session = await app.call("sessions.create", { projectId: project.id });
    expect((await app.call("sessions.setModel", { sessionId: session.id, model: "local/qwen3-coder-next" })).model).toBe("local/qwen3-coder-next");
    expect(await app.raw("sessions.setModel", { sessionId: session.id, model: "nowhere/x" })).toMatchObject({ ok: false });
  });
});
