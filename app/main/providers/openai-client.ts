// One OpenAI SDK client per attempt, pointed at the resolved endpoint, with the SDK's own retries
// off and the stall-watching fetch. A keyless compatible server gets no Authorization header.
import OpenAI from "openai";
import type { ResolvedEndpoint } from "./resolve.ts";
import type { AttemptContext } from "./stream-runner.ts";

export function openaiClient(endpoint: ResolvedEndpoint, ctx: Pick<AttemptContext, "fetch">, headers?: Record<string, string>): OpenAI {
  return new OpenAI({
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
