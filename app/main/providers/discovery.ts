// Asking a server which models it has, and the Settings "Test" button. discoverModels reads an
// OpenAI-style GET {baseUrl}/models ({data:[{id}]}) and falls back to Ollama's GET /api/tags;
// testProvider makes the cheapest authenticated request a provider has (its model list).
// Neither throws: failures come back as { ok: false } with a message the user can act on. A
// server's list is read up to MAX_LIST_BYTES, and at most MAX_DISCOVERED_MODELS models are kept.
import type { Model } from "../../shared/agent-types.ts";
import { anthropicClient } from "./anthropic-client.ts";
import { describeFailure, type ProviderLabel } from "./errors.ts";
import { missingKeyMessage, resolveEndpoint, type Env } from "./resolve.ts";
import { openaiClient } from "./openai-client.ts";
import type { CustomModelSettings, ProviderSettings } from "./types.ts";

export type DiscoveryResult = { ok: true; models: CustomModelSettings[]; source: "models" | "ollama" } | { ok: false; error: string };

export interface DiscoveryOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  name?: string;
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, "");
}

function positive(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : undefined;
}

/**
 * Bounds on what a server's model list may hold: its body as read (after any decompression; a
 * list of hundreds of models with descriptions is a few MB), how many models are kept, and the
 * length of a kept id (a model is chosen as "provider/id" of at most 300 characters, the
 * provider's id at most 100). A server that answered without end filled the memory (4 GB in the
 * 10 s of its deadline over loopback, far more from a compressed body), and a list of a million
 * models was saved in the settings and sent whole with every model list (244 MB).
 */
export const MAX_LIST_BYTES = 16 * 1024 * 1024;
export const MAX_DISCOVERED_MODELS = 5_000;
export const MAX_MODEL_ID_CHARS = 199;

async function boundedText(response: Response, url: string): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > MAX_LIST_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new Error(`Its answer to ${new URL(url).pathname} passed ${MAX_LIST_BYTES / 1024 / 1024} MB, far more than a model list; it was not read further.`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The first MAX_DISCOVERED_MODELS models whose id is short enough to be chosen. */
function kept(models: CustomModelSettings[]): CustomModelSettings[] {
  return models.filter((m) => m.id.length > 0 && m.id.length <= MAX_MODEL_ID_CHARS).slice(0, MAX_DISCOVERED_MODELS);
}

async function getJson(url: string, apiKey: string | undefined, options: DiscoveryOptions): Promise<unknown> {
  const signals = [AbortSignal.timeout(options.timeoutMs ?? 10_000), ...(options.signal ? [options.signal] : [])];
  const response = await fetch(url, { headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {}, signal: AbortSignal.any(signals) });
  const text = await boundedText(response, url);
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // keep the text for the error
  }
  if (!response.ok) throw Object.assign(new Error(text.slice(0, 300)), { status: response.status, headers: response.headers, error: body });
  return body;
}

/** Models of an OpenAI-compatible server (OpenRouter's context_length and vLLM's max_model_len are kept). */
export async function discoverModels(baseUrl: string, apiKey?: string, options: DiscoveryOptions = {}): Promise<DiscoveryResult> {
  const base = trimSlash(baseUrl);
  const label: ProviderLabel = { name: options.name ?? base, baseUrl: base };
  let firstError: unknown;
  try {
    const body = (await getJson(`${base}/models`, apiKey, options)) as { data?: unknown };
    if (Array.isArray(body?.data)) {
      const models = body.data.flatMap((entry: Record<string, unknown>): CustomModelSettings[] => {
        if (typeof entry?.id !== "string") return [];
        const contextWindow = positive(entry.context_length) ?? positive(entry.max_model_len) ?? positive(entry.context_window);
        return [{ id: entry.id, ...(typeof entry.name === "string" ? { name: entry.name.slice(0, 200) } : {}), ...(contextWindow ? { contextWindow } : {}) }];
      });
      return { ok: true, models: kept(models), source: "models" };
    }
  } catch (error) {
    if (options.signal?.aborted) return { ok: false, error: "Cancelled." };
    firstError = error;
  }
  try {
    const root = base.replace(/\/v1$/, "");
    const body = (await getJson(`${root}/api/tags`, apiKey, options)) as { models?: unknown };
    if (Array.isArray(body?.models)) {
      const models = body.models.flatMap((entry: Record<string, unknown>): CustomModelSettings[] => {
        const id = typeof entry?.model === "string" ? entry.model : entry?.name;
        return typeof id === "string" ? [{ id }] : [];
      });
      return { ok: true, models: kept(models), source: "ollama" };
    }
  } catch (error) {
    firstError ??= error;
  }
  if (firstError) return { ok: false, error: describeFailure(firstError, label).message };
  return { ok: false, error: `${label.name} did not answer with a model list at ${base}/models.` };
}

export type TestResult = { ok: true; message: string; models: string[] } | { ok: false; message: string };

/** Checks that a provider's key and URL work, by listing its models. `provider`: "anthropic", "openai", or a custom server id. */
export async function testProvider(settings: ProviderSettings, provider: string, options: { env?: Env; signal?: AbortSignal } = {}): Promise<TestResult> {
  const env = options.env ?? process.env;
  const probe: Model = {
    id: "",
    name: "",
    api: provider === "anthropic" ? "anthropic-messages" : "openai-completions",
    provider,
    contextWindow: 0,
    maxTokens: 0,
    input: ["text"],
    reasoning: false,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  };
  const endpoint = resolveEndpoint(probe, {}, settings, env);
  const missing = missingKeyMessage(endpoint);
  if (missing) return { ok: false, message: missing };
  if (!endpoint.baseUrl) return { ok: false, message: `No base URL for ${endpoint.label.name}.` };
  try {
    let ids: string[];
    if (provider === "anthropic") {
      const client = await anthropicClient(endpoint, { timeout: 15_000 });
      ids = (await client.models.list({}, { signal: options.signal })).data.map((model) => model.id);
    } else if (provider === "openai") {
      const client = await openaiClient(endpoint, { fetch });
      ids = (await client.models.list({ signal: options.signal, timeout: 15_000 })).data.map((model) => model.id);
    } else {
      const found = await discoverModels(endpoint.baseUrl, endpoint.apiKey, { signal: options.signal, name: endpoint.label.name });
      if (!found.ok) return { ok: false, message: found.error };
      ids = found.models.map((model) => model.id);
    }
    return { ok: true, message: `Connected to ${endpoint.label.name}: ${ids.length} model${ids.length === 1 ? "" : "s"} available.`, models: ids };
  } catch (error) {
    return { ok: false, message: describeFailure(error, endpoint.label).message };
  }
}
