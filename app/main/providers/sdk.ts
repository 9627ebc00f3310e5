// The provider SDKs, loaded on first use rather than at start (together they cost about 200 ms
// and 29 MB before the first window otherwise). In the shipped bundles each SDK is its own file
// (scripts/build.mjs: out/main/sdk-*.cjs beside the CommonJS main bundle, an ESM chunk for the
// host), so start-up neither runs nor parses them; a session that never talks to a provider never
// loads one. Loading is cached by the module system; a failure to load rejects the request that
// needed it, which reports it like any provider error.
import type AnthropicClient from "@anthropic-ai/sdk";
import type OpenAIClient from "openai";

export type OpenAI = OpenAIClient;

export async function loadAnthropic(): Promise<typeof AnthropicClient> {
  return (await import("@anthropic-ai/sdk")).default;
}

export async function loadOpenAI(): Promise<typeof OpenAIClient> {
  return (await import("openai")).default;
}
