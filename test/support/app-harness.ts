// The app's services with a scripted model, driven through the IPC router the way a renderer
// drives them. Every result is checked against its schema in the contract, and every event the
// services emit is recorded (and checked against the event schemas).
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "vitest";
import { createAppServices, type AppServices } from "../../app/main/app-services.ts";
import { toWireEvent } from "../../app/shared/streaming-message.ts";
import { checkerFor, schemaErrorLines } from "../../app/shared/schema-check.ts";
import { noSecretStore, type SecretStore } from "../../app/main/settings/settings-service.ts";
import type { SessionEvent } from "../../app/shared/agent-types.ts";
import { WireAgentEventSchema } from "../../app/shared/ipc/agent-schemas.ts";
import { events as eventSchemas, requests, type EventName, type RequestName, type RequestParams, type RequestResult } from "../../app/shared/ipc/contract.ts";
import { createScriptedModel, type ScriptStep } from "../../app/main/loop/test/scripted-model.ts";

export interface RecordedEvent {
  event: EventName;
  payload: unknown;
}

export interface AppHarness {
  services: AppServices;
  projectDir: string;
  dataDir: string;
  scripted: ReturnType<typeof createScriptedModel>;
  sessionEvents: Map<number, SessionEvent[]>;
  events: RecordedEvent[];
  /** Calls through the router; fails the test on an error result or a result off its schema. */
  call<N extends RequestName>(name: N, params: RequestParams<N>): Promise<RequestResult<N>>;
  /** Calls through the router and returns the raw IpcResult. */
  raw(name: string, params: unknown): Promise<{ ok: boolean; data?: unknown; error?: { code: string; message: string } }>;
  waitFor(predicate: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

function assertSchema(schema: Parameters<typeof checkerFor>[0], value: unknown, what: string): void {
  const check = checkerFor(schema);
  if (!check.Check(value)) throw new Error(`${what} does not match its schema:\n${schemaErrorLines(check, value).join("\n")}`);
}

export interface StartAppOptions {
  steps?: ScriptStep[];
  env?: Record<string, string>;
  maxFileWritesPerTurn?: number;
  /** Limits of the scripted model (default: a compatible server's defaults). */
  model?: { contextWindow?: number; maxTokens?: number };
  /** A data folder to use (default: a fresh temporary one). */
  dataDir?: string;
  purgeAfterMs?: number;
  /** The permission mode to start in (default: the app's, "sandboxed-auto" where bwrap works). */
  permissionMode?: "ask" | "auto-edit" | "full-auto" | "sandboxed-auto";
  detectSandbox?: Parameters<typeof createAppServices>[0]["detectSandbox"];
  /** The keyring (default: none). */
  secrets?: SecretStore;
}

export async function startApp(options: StartAppOptions = {}): Promise<AppHarness> {
  const dataDir = options.dataDir ?? realpathSync(mkdtempSync(path.join(tmpdir(), "lathe-app-data-")));
  const projectDir = realpathSync(mkdtempSync(path.join(tmpdir(), "lathe-project-")));
  const scripted = createScriptedModel(options.steps ?? []);
  const services = createAppServices({
    dataDir,
    secrets: options.secrets ?? noSecretStore,
    host: "browser",
    version: "test",
    env: options.env ?? {},
    streamFn: scripted.streamFn,
    maxFileWritesPerTurn: options.maxFileWritesPerTurn,
    purgeAfterMs: options.purgeAfterMs,
    detectSandbox: options.detectSandbox,
  });

  const sessionEvents = new Map<number, SessionEvent[]>();
  const events: RecordedEvent[] = [];
  services.hub.add({
    sessionEvent(sessionId, event) {
      assertSchema(WireAgentEventSchema, JSON.parse(JSON.stringify(toWireEvent(event))), `event ${event.type}`);
      let list = sessionEvents.get(sessionId);
      if (!list) sessionEvents.set(sessionId, (list = []));
      list.push(event);
    },
    emit(event, payload) {
      assertSchema(eventSchemas[event], JSON.parse(JSON.stringify(payload)), `event ${event}`);
      events.push({ event, payload });
    },
  });

  const harness: AppHarness = {
    services,
    projectDir,
    dataDir,
    scripted,
    sessionEvents,
    events,
    async call(name, params) {
      const result = await services.router.handle(name, params);
      if (!result.ok) throw new Error(`${name} failed: ${result.error.code}: ${result.error.message}`);
      assertSchema(requests[name].result, JSON.parse(JSON.stringify(result.data)), `result of ${name}`);
      return result.data as never;
    },
    raw: (name, params) => services.router.handle(name, params) as never,
    async waitFor(predicate, what, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 5));
      }
    },
    async close() {
      await services.close();
      // close() waits for the store's worker threads: none can create a file here any more.
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(projectDir, { recursive: true, force: true });
    },
  };
  // As the renderer does first: the settings, once the sandbox's detection answered.
  await harness.call("settings.get", {});
  // A local OpenAI-compatible server entry gives the scripted model a name in the registry.
  services.settings.setProvider({ id: "local", kind: "compatible", name: "Local", baseUrl: "http://127.0.0.1:9/v1", models: [{ id: "scripted", ...options.model }] });
  await harness.call("settings.update", { defaultModel: "local/scripted", ...(options.permissionMode ? { permissionMode: options.permissionMode } : {}) });
  expect(await harness.call("settings.get", {})).toMatchObject({ defaultModel: "local/scripted" });
  return harness;
}
