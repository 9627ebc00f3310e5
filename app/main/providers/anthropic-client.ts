// One Anthropic SDK client pointed at the resolved endpoint, with the SDK's own retries off and
// none of its ambient credentials (an auth token, a credentials file or profile it would otherwise
// look for): only the key Lathe resolved is sent. The SDK is loaded on first use (sdk.ts).
import type AnthropicClient from "@anthropic-ai/sdk";
import type { ResolvedEndpoint } from "./resolve.ts";
import { loadAnthropic } from "./sdk.ts";

type ClientOptions = ConstructorParameters<typeof AnthropicClient>[0];

/** `extra`: the per-use options (the stall-watching fetch and headers for a stream, a timeout for a listing). */
export async function anthropicClient(endpoint: ResolvedEndpoint, extra: Pick<NonNullable<ClientOptions>, "fetch" | "defaultHeaders" | "timeout">): Promise<AnthropicClient> {
  const Anthropic = await loadAnthropic();
  return new Anthropic({ apiKey: endpoint.apiKey ?? null, authToken: null, credentials: null, config: null, profile: null, baseURL: endpoint.baseUrl, maxRetries: 0, ...extra });
}
