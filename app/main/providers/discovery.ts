// Asking a server which models it has, and the Settings "Test" button. discoverModels reads an
// OpenAI-style GET {baseUrl}/models ({data:[{id}]}) and falls back to Ollama's GET /api/tags;
// testProvider makes the cheapest authenticated request a provider has (its model list).
// Neither throws: failures come back as { ok: false } with a message the user can act on. Every
// list, the SDKs' included, is read within the bounds of list-bounds.ts (its size, its pages, one
// deadline), and at most MAX_DISCOVERED_MODELS models are kept; a result that left models out
// carries a `notice` saying so, which Settings shows.
import type { Model } from "../../shared/agent-types.ts";
import { anthropicClient } from "./anthropic-client.ts";
import { describeFailure, type ProviderLabel } from "./errors.ts";
import { keptModels, LIST_DEADLINE_MS, listFetch, MAX_DISCOVERED_MODELS, MAX_LIST_PAGES, tooSlow } from "./list-bounds.ts";
import { missingKeyMessage, resolveEndpoint, type Env, type ResolvedEndpoint } from "./resolve.ts";
import { openaiClient } from "./openai-client.ts";
import type { CustomModelSettings, ProviderSettings } from "./types.ts";

/** `notice`: what was left out of the server's list (list-bounds.ts), for the user. */
export type DiscoveryResult = { ok: true; models: CustomModelSettings[]; source: "models" | "ollama"; notice?: string } | { ok: false; error: string };

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

async function getJson(url: string, apiKey: string | undefined, options: DiscoveryOptions): Promise<unknown> {
  const listing = listFetch({ deadlineMs: options.timeoutMs ?? 10_000 });
  const response = await listing.fetch(url, { headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {}, signal: options.signal });
  const text = await response.text();
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
      return { ok: true, ...keptModels(models), source: "models" };
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
      return { ok: true, ...keptModels(models), source: "ollama" };
    }
  } catch (error) {
    firstError ??= error;
  }
  if (firstError) return { ok: false, error: describeFailure(firstError, label).message };
  return { ok: false, error: `${label.name} did not answer with a model list at ${base}/models.` };
}

export type TestResult = { ok: true; message: string; models: string[]; notice?: string } | { ok: false; message: string };

/** Models the Anthropic API gives per page (its largest page). */
const ANTHROPIC_PAGE = 1_000;

/** The entries of a page with an id; a hostile server's page may hold anything. */
function withIds(data: unknown): { id: string }[] {
  return Array.isArray(data) ? data.flatMap((entry: unknown) => (typeof (entry as { id?: unknown })?.id === "string" ? [{ id: (entry as { id: string }).id }] : [])) : [];
}

/**
 * The ids of an SDK's model list: every page asked for through `fetch` (list-bounds.ts), at most
 * MAX_LIST_PAGES of them, none once MAX_DISCOVERED_MODELS usable ids are in.
 */
async function sdkModelIds(provider: "anthropic" | "openai", endpoint: ResolvedEndpoint, listing: { fetch: typeof fetch; deadlineMs: number; signal?: AbortSignal }) {
  const { fetch, deadlineMs: timeout, signal } = listing;
  // The SDKs' timeout is only the wait for the headers; the listing's deadline is in `fetch`.
  if (provider === "openai") {
    // The OpenAI API lists every model in one page (the SDK asks for no other).
    const client = await openaiClient(endpoint, { fetch });
    return keptModels(withIds((await client.models.list({ signal, timeout })).data));
  }
  const client = await anthropicClient(endpoint, { fetch, timeout });
  let page = await client.models.list({ limit: ANTHROPIC_PAGE }, { signal });
  let models = withIds(page.data);
  for (let pages = 1; page.hasNextPage(); pages++) {
    if (keptModels(models).models.length >= MAX_DISCOVERED_MODELS) return keptModels(models, "models");
    if (pages >= MAX_LIST_PAGES) return keptModels(models, "pages");
    page = await page.getNextPage();
    models = models.concat(withIds(page.data));
  }
  return keptModels(models);
}

/**
 * Checks that a provider's key and URL work, by listing its models. `provider`: "anthropic",
 * "openai", or a custom server id. `timeoutMs`: the whole listing's deadline (LIST_DEADLINE_MS).
 */
export async function testProvider(settings: ProviderSettings, provider: string, options: { env?: Env; signal?: AbortSignal; timeoutMs?: number } = {}): Promise<TestResult> {
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
  const deadlineMs = options.timeoutMs ?? LIST_DEADLINE_MS;
  const listing = listFetch({ deadlineMs });
  try {
    let found: { models: { id: string }[]; notice?: string };
    if (provider === "anthropic" || provider === "openai") {
      found = await sdkModelIds(provider, endpoint, { fetch: listing.fetch, deadlineMs, signal: options.signal });
    } else {
      const discovered = await discoverModels(endpoint.baseUrl, endpoint.apiKey, { signal: options.signal, name: endpoint.label.name, timeoutMs: options.timeoutMs });
      if (!discovered.ok) return { ok: false, message: discovered.error };
      found = discovered;
    }
    const ids = found.models.map((model) => model.id);
    const message = `Connected to ${endpoint.label.name}: ${ids.length.toLocaleString("en-US")} model${ids.length === 1 ? "" : "s"} available.`;
    return { ok: true, message, models: ids, ...(found.notice ? { notice: found.notice } : {}) };
  } catch (error) {
    // The deadline passed before the headers came: the SDK reports a bare time-out.
    if (listing.expired() && !options.signal?.aborted) return { ok: false, message: `${endpoint.label.name}: ${tooSlow(deadlineMs).message}` };
    return { ok: false, message: describeFailure(error, endpoint.label).message };
  }
}
