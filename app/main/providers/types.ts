// Configuration types of the provider layer: where keys and endpoints come from (settings, then
// environment), the retry policy, and the extra per-call options an adapter accepts on top of the
// loop's StreamOptions. Plain data only, so settings can be stored and sent over IPC as they are.
import type { Model } from "../../shared/agent-types.ts";
import type { StreamOptions } from "../loop/index.ts";

/** Key and endpoint of one hosted provider, as the user set them in Settings → Providers. */
export interface ProviderEndpointSettings {
  apiKey?: string;
  baseUrl?: string;
}

/** An OpenAI-compatible server the user added: Ollama, LM Studio, llama.cpp, vLLM, OpenRouter... */
export interface CustomProviderSettings {
  /** Used as `Model.provider` for its models; must not be "anthropic" or "openai". */
  id: string;
  name: string;
  baseUrl: string;
  /** Local servers need none. */
  apiKey?: string;
  /** Models the user declared; discovered ones can be added with `discoverModels`. */
  models?: CustomModelSettings[];
}

/** A user-declared model of a compatible server; unknown limits fall back to safe defaults. */
export interface CustomModelSettings {
  id: string;
  name?: string;
  contextWindow?: number;
  maxTokens?: number;
  images?: boolean;
  reasoning?: boolean;
  /** US dollars per million tokens; local models cost nothing. */
  cost?: Partial<Model["cost"]>;
}

export interface ProviderSettings {
  anthropic?: ProviderEndpointSettings;
  openai?: ProviderEndpointSettings;
  custom?: CustomProviderSettings[];
}

/**
 * How failed requests are retried. Only failures before the first streamed content are retried
 * (429, 500, 502, 503, 504, 529/overloaded, connection resets); a `retry-after` header replaces
 * the computed backoff. Defaults: 5 attempts in all, 1 s doubling, each wait capped at 60 s.
 */
export interface RetryPolicy {
  /** Total attempts, the first included. 1 disables retries. */
  maxAttempts: number;
  baseDelayMs: number;
  /** Upper bound of any single wait, retry-after included. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 1000, maxDelayMs: 60_000 };

/** No bytes for this long ends the stream as an error, and keep-alives alone (no part of the answer) for 5 times this (stream-runner.ts). Reasoning models may think silently. */
export const DEFAULT_IDLE_TIMEOUT_MS = 120_000;

/** What an adapter accepts: the loop's options plus endpoint, retry and stall settings. */
export interface ProviderStreamOptions extends StreamOptions {
  /** Overrides `model.baseUrl` and the provider default. */
  baseUrl?: string;
  retry?: Partial<RetryPolicy>;
  idleTimeoutMs?: number;
  headers?: Record<string, string>;
  /** Keys and endpoints from Settings → Providers; consulted after apiKey/baseUrl above. */
  settings?: ProviderSettings;
  /** Environment for the standard key variables; default `process.env`. */
  env?: Record<string, string | undefined>;
}
