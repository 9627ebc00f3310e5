// One OpenAI SDK client per attempt, pointed at the resolved endpoint, with the SDK's own retries
// off and the stall-watching fetch (the SDK is loaded on first use: sdk.ts). A keyless compatible server gets no Authorization header.
import { loadOpenAI, type OpenAI } from "./sdk.ts";
import type { ResolvedEndpoint } from "./resolve.ts";
import type { AttemptContext } from "./stream-runner.ts";

export async function openaiClient(endpoint: ResolvedEndpoint, ctx: Pick<AttemptContext, "fetch">, headers?: Record<string, string>): Promise<OpenAI> {
  const OpenAIClient = await loadOpenAI();
  return new OpenAIClient({
    apiKey: endpoint.apiKey ?? "no-key",
    baseURL: endpoint.baseUrl,
    organization: null,
    project: null,
    maxRetries: 0,
    timeout: 24 * 3600 * 1000,
    fetch: ctx.fetch,
    defaultHeaders: endpoint.apiKey ? headers : { ...headers, Authorization: null },
  });
}
