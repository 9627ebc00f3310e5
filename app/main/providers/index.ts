// The provider layer's entry point: `createStreamModel` makes the loop's StreamFn, which picks the
// adapter from `model.api` and hands it the user's provider settings; keys and endpoints are then
// resolved per request (options, settings, environment). Never throws, not even for an unknown api.
import type { Model } from "../../shared/agent-types.ts";
import type { AssistantMessageEventStream, LlmContext, StreamFn } from "../loop/index.ts";
import { streamAnthropic } from "./anthropic.ts";
import { convertMessages as anthropicMessages } from "./anthropic-request.ts";
import { convertMessages as completionsMessages } from "./openai-completions-request.ts";
import { convertInput as responsesInput } from "./openai-responses-request.ts";
import { jsonRequestBody } from "./request-body.ts";
import { streamOpenAICompletions } from "./openai-completions.ts";
import { streamOpenAIResponses } from "./openai-responses.ts";
import { runProviderStream } from "./stream-runner.ts";
import type { ProviderSettings, ProviderStreamOptions, RetryPolicy } from "./types.ts";

export interface StreamModelConfig {
  /** The current settings, read on every request so a changed key applies from the next turn. */
  settings?: ProviderSettings | (() => ProviderSettings);
  env?: Record<string, string | undefined>;
  retry?: Partial<RetryPolicy>;
  /** Stall limit: a number, or read per request (a setting the user can change). */
  idleTimeoutMs?: number | (() => number);
}

export function createStreamModel(config: StreamModelConfig = {}): StreamFn {
  return (model: Model, context: LlmContext, options: ProviderStreamOptions = {}): AssistantMessageEventStream => {
    try {
      const settings = typeof config.settings === "function" ? config.settings() : config.settings;
      const merged: ProviderStreamOptions = {
        settings,
        env: config.env,
        retry: config.retry,
        idleTimeoutMs: typeof config.idleTimeoutMs === "function" ? config.idleTimeoutMs() : config.idleTimeoutMs,
        ...withoutUndefined(options),
      };
      switch (model.api) {
        case "anthropic-messages":
          return streamAnthropic(model, context, merged);
        case "openai-responses":
          return streamOpenAIResponses(model, context, merged);
        case "openai-completions":
          return streamOpenAICompletions(model, context, merged);
        default:
          throw new Error(`Unknown model API "${String((model as { api: unknown }).api)}" for ${model.provider}/${model.id}.`);
      }
    } catch (error) {
      return runProviderStream(model, options, () => {
        throw error;
      });
    }
  };
}

/**
 * Converts and serializes the list a request for `context` would send (its messages or input
 * items), sending nothing: the builders keep that work (loop/incremental-conversion.ts,
 * request-body.ts), so the next request on the same messages converts only what came after.
 * The request itself is the same with or without this. Throws what the conversion throws (for an
 * unknown api: nothing, it does nothing).
 */
export function prepareRequest(model: Model, context: LlmContext): void {
  switch (model.api) {
    case "anthropic-messages":
      jsonRequestBody({ messages: anthropicMessages(context.messages, model) }, "messages");
      break;
    case "openai-responses":
      jsonRequestBody({ input: responsesInput(context.messages, model) }, "input");
      break;
    case "openai-completions":
      jsonRequestBody({ messages: completionsMessages(context, model) }, "messages");
      break;
  }
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export { BUILTIN_MODELS, customModel, findModel, listModels } from "./models.ts";
export { discoverModels, testProvider } from "./discovery.ts";
export type { ProviderSettings, RetryPolicy } from "./types.ts";
