// Where a request goes and with which key: the call's options first, then the user's settings,
// then the standard environment variables, then the provider's public endpoint. Compatible
// servers (Ollama, LM Studio, llama.cpp, vLLM, OpenRouter) need no key. Pure: reads `env` only as given.
import type { Model } from "../../shared/agent-types.ts";
import type { ProviderLabel } from "./errors.ts";
import type { CustomProviderSettings, ProviderSettings, ProviderStreamOptions } from "./types.ts";

export const ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com";
export const OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1";

export type Env = Record<string, string | undefined>;

export interface ResolvedEndpoint {
  label: ProviderLabel;
  baseUrl: string;
  apiKey?: string;
  /** Whether a request without a key is pointless (hosted APIs). */
  keyRequired: boolean;
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

export function findCustomServer(settings: ProviderSettings, provider: string): CustomProviderSettings | undefined {
  return settings.custom?.find((server) => server.id === provider);
}

export function resolveEndpoint(model: Model, options: ProviderStreamOptions, settings: ProviderSettings, env: Env): ResolvedEndpoint {
  const explicitBase = nonEmpty(options.baseUrl) ?? nonEmpty(model.baseUrl);
  if (model.provider === "anthropic") {
    const baseUrl = explicitBase ?? nonEmpty(settings.anthropic?.baseUrl) ?? nonEmpty(env.ANTHROPIC_BASE_URL) ?? ANTHROPIC_DEFAULT_BASE_URL;
    const apiKey = nonEmpty(options.apiKey) ?? nonEmpty(settings.anthropic?.apiKey) ?? nonEmpty(env.ANTHROPIC_API_KEY);
    return { label: { name: "Anthropic", keyEnv: "ANTHROPIC_API_KEY", baseUrl }, baseUrl, apiKey, keyRequired: true };
  }
  if (model.provider === "openai") {
    const baseUrl = explicitBase ?? nonEmpty(settings.openai?.baseUrl) ?? nonEmpty(env.OPENAI_BASE_URL) ?? OPENAI_DEFAULT_BASE_URL;
    const apiKey = nonEmpty(options.apiKey) ?? nonEmpty(settings.openai?.apiKey) ?? nonEmpty(env.OPENAI_API_KEY);
    return { label: { name: "OpenAI", keyEnv: "OPENAI_API_KEY", baseUrl }, baseUrl, apiKey, keyRequired: true };
  }
  const server = findCustomServer(settings, model.provider);
  const baseUrl = explicitBase ?? nonEmpty(server?.baseUrl) ?? "";
  const apiKey = nonEmpty(options.apiKey) ?? nonEmpty(server?.apiKey);
  return { label: { name: server?.name ?? model.provider, baseUrl }, baseUrl, apiKey, keyRequired: false };
}

/** The text shown when a hosted provider has no key anywhere; null when the request may go. */
export function missingKeyMessage(endpoint: ResolvedEndpoint): string | null {
  if (endpoint.apiKey || !endpoint.keyRequired) return null;
  const env = endpoint.label.keyEnv ? `Set ${endpoint.label.keyEnv} or add` : "Add";
  return `No ${endpoint.label.name} API key. ${env} a key in Settings → Providers.`;
}
