// The model registry: the shipped table of hosted models, the user's compatible-server models,
// and cost arithmetic. Prices are list prices in US dollars per million tokens at the time of
// writing (late November 2026, from the providers' model and pricing pages); long-prompt tiers
// (OpenAI above 272K input tokens, Claude Haiku 5.5 above 100K) are not modelled, so costs of
// such requests are underestimates. Update the table when the providers change their lists.
import type { Cost, Model, Usage } from "../../shared/agent-types.ts";
import type { CustomModelSettings, CustomProviderSettings, ProviderSettings } from "./types.ts";

type Row = [id: string, name: string, contextWindow: number, maxTokens: number, input: number, output: number, cacheRead: number, cacheWrite: number];

const ANTHROPIC_ROWS: Row[] = [
  ["claude-opus-5-5", "Claude Opus 5.5", 1_000_000, 128_000, 4, 20, 0.2, 5],
  ["claude-sonnet-5-5", "Claude Sonnet 5.5", 1_000_000, 128_000, 2, 10, 0.1, 2.5],
  ["claude-haiku-5-5", "Claude Haiku 5.5", 1_000_000, 128_000, 0.1, 0.5, 0.01, 0.125],
  ["claude-fable-5-2", "Claude Fable 5.2", 1_000_000, 128_000, 8, 40, 0.2, 10],
  ["claude-opus-5", "Claude Opus 5", 1_000_000, 128_000, 5, 25, 0.5, 6.25],
  ["claude-sonnet-5", "Claude Sonnet 5", 1_000_000, 128_000, 2, 10, 0.2, 2.5],
  ["claude-haiku-4-5", "Claude Haiku 4.5", 200_000, 64_000, 1, 5, 0.1, 1.25],
];

const OPENAI_ROWS: Row[] = [
  ["gpt-6.2-astra", "GPT-6.2 Astra", 1_050_000, 128_000, 8, 40, 0.4, 0],
  ["gpt-6.2-sol", "GPT-6.2 Sol", 1_050_000, 128_000, 2, 10, 0.1, 0],
  ["gpt-6.1-terra", "GPT-6.1 Terra", 1_050_000, 128_000, 1, 5, 0.1, 0],
  ["gpt-6-luna", "GPT-6 Luna", 1_050_000, 128_000, 0.1, 0.5, 0.01, 0],
  ["gpt-6-astra", "GPT-6 Astra", 1_050_000, 128_000, 10, 50, 1, 0],
  ["gpt-6.1-sol", "GPT-6.1 Sol", 1_050_000, 128_000, 2, 10, 0.1, 0],
];

function fromRow(row: Row, api: Model["api"], provider: string): Model {
  const [id, name, contextWindow, maxTokens, input, output, cacheRead, cacheWrite] = row;
  return { id, name, api, provider, contextWindow, maxTokens, input: ["text", "image"], reasoning: true, cost: { input, output, cacheRead, cacheWrite } };
}

/** Every hosted model Lathe ships with. OpenAI's own models go through the Responses API. */
export const BUILTIN_MODELS: readonly Model[] = [
  ...ANTHROPIC_ROWS.map((row) => fromRow(row, "anthropic-messages", "anthropic")),
  ...OPENAI_ROWS.map((row) => fromRow(row, "openai-responses", "openai")),
];

/** Claude models before the 5 family take a thinking token budget; later ones think adaptively. */
export function anthropicThinkingStyle(modelId: string): "adaptive" | "budget" {
  return /claude-(3|(opus|sonnet|haiku)-4-[0-5]\b|(opus|sonnet|haiku)-4(-\d{8})?$)/.test(modelId) ? "budget" : "adaptive";
}

/** OpenAI models that reject reasoning effort "none" and "minimal". */
export function openaiMinimumEffort(modelId: string): "none" | "low" {
  return /^gpt-6(\.\d+)?-(astra|sol)/.test(modelId) ? "low" : "none";
}

/** Conservative limits for a local or unknown model whose server does not say. */
export const CUSTOM_MODEL_DEFAULTS = { contextWindow: 32_768, maxTokens: 8_192 };

export function customModel(server: Pick<CustomProviderSettings, "id" | "baseUrl">, spec: CustomModelSettings): Model {
  return {
    id: spec.id,
    name: spec.name ?? spec.id,
    api: "openai-completions",
    provider: server.id,
    baseUrl: server.baseUrl,
    contextWindow: spec.contextWindow ?? CUSTOM_MODEL_DEFAULTS.contextWindow,
    maxTokens: spec.maxTokens ?? CUSTOM_MODEL_DEFAULTS.maxTokens,
    input: spec.images ? ["text", "image"] : ["text"],
    reasoning: spec.reasoning ?? false,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, ...spec.cost },
  };
}

/** The shipped models plus those of every compatible server in the settings. */
export function listModels(settings: ProviderSettings = {}): Model[] {
  const custom = (settings.custom ?? []).flatMap((server) => (server.models ?? []).map((spec) => customModel(server, spec)));
  return [...BUILTIN_MODELS, ...custom];
}

export function findModel(provider: string, id: string, settings: ProviderSettings = {}): Model | undefined {
  return listModels(settings).find((model) => model.provider === provider && model.id === id);
}

/** Dollar cost of a usage at the model's prices. */
export function calculateCost(model: Pick<Model, "cost">, usage: Pick<Usage, "input" | "output" | "cacheRead" | "cacheWrite">): Cost {
  const perToken = (price: number, tokens: number) => (price * tokens) / 1_000_000;
  const cost = {
    input: perToken(model.cost.input, usage.input),
    output: perToken(model.cost.output, usage.output),
    cacheRead: perToken(model.cost.cacheRead, usage.cacheRead),
    cacheWrite: perToken(model.cost.cacheWrite, usage.cacheWrite),
    total: 0,
  };
  cost.total = cost.input + cost.output + cost.cacheRead + cost.cacheWrite;
  return cost;
}
