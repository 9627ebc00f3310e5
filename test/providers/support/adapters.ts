// The three adapters under one table, each with its model, its wire scripts and its URL shape,
// so one test body can run against all of them.
import type { Model } from "../../../app/shared/agent-types.ts";
import type { AssistantMessageEventStream, LlmContext } from "../../../app/main/loop/index.ts";
import { streamAnthropic } from "../../../app/main/providers/anthropic.ts";
import { streamOpenAICompletions } from "../../../app/main/providers/openai-completions.ts";
import { streamOpenAIResponses } from "../../../app/main/providers/openai-responses.ts";
import type { ProviderStreamOptions } from "../../../app/main/providers/types.ts";
import {
  anthropicModel,
  anthropicText,
  anthropicTurn1,
  completionsModel,
  completionsText,
  completionsTurn1,
  responsesModel,
  responsesText,
  responsesTurn1,
} from "./conversation.ts";

export interface AdapterCase {
  name: string;
  model: Model;
  stream: (model: Model, context: LlmContext, options: ProviderStreamOptions) => AssistantMessageEventStream;
  turn1: () => string;
  text: (text: string) => string;
  /** Path the adapter requests, relative to the server root. */
  path: string;
  /** Suffix appended to the server URL to form the adapter's base URL. */
  basePath: string;
}

export const ADAPTERS: AdapterCase[] = [
  { name: "anthropic-messages", model: anthropicModel, stream: streamAnthropic, turn1: anthropicTurn1, text: (t) => anthropicText(t), path: "/v1/messages", basePath: "" },
  { name: "openai-responses", model: responsesModel, stream: streamOpenAIResponses, turn1: responsesTurn1, text: responsesText, path: "/v1/responses", basePath: "/v1" },
  {
    name: "openai-completions",
    model: completionsModel,
    stream: streamOpenAICompletions,
    turn1: completionsTurn1,
    text: (t) => completionsText(t),
    path: "/v1/chat/completions",
    basePath: "/v1",
  },
];

/** Options pointing an adapter at a test server, with fast retries and no environment keys. */
export function testOptions(baseUrl: string, extra: ProviderStreamOptions = {}): ProviderStreamOptions {
  return { apiKey: "test-key", baseUrl, env: {}, retry: { baseDelayMs: 10, maxDelayMs: 200, maxAttempts: 5 }, ...extra };
}
