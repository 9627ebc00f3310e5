// Turns whatever an SDK or the network threw into one plain description: the user-facing text,
// whether a retry may help, the server's retry-after, and whether the context window overflowed.
// Duck-typed on purpose: both SDKs' APIError carry `status`, `headers` and the parsed `error` body.
import { parseRetryAfter } from "./retry.ts";

/** Who is being called, for messages that tell the user what to set. */
export interface ProviderLabel {
  /** "Anthropic", "OpenAI", or the custom server's name. */
  name: string;
  /** The environment variable holding its key, when there is one. */
  keyEnv?: string;
  baseUrl: string;
}

export interface FailureInfo {
  message: string;
  retryable: boolean;
  retryAfterMs?: number;
  contextOverflow: boolean;
  status?: number;
  /** The connection broke (reset, closed, ended early) after it was established. */
  connectionLost?: boolean;
}

const RETRYABLE_STATUS = new Set([408, 429, 500, 502, 503, 504, 529]);
const RETRYABLE_TYPES = /overloaded|rate_limit|server_error|api_error|internal_error|timeout/i;
const RESET_CODES = new Set(["ECONNRESET", "EPIPE", "ETIMEDOUT", "UND_ERR_SOCKET", "ECONNABORTED", "UND_ERR_CLOSED"]);

/**
 * Context-window errors of every server we talk to: Anthropic ("prompt is too long"), OpenAI and
 * OpenRouter ("maximum context length", code context_length_exceeded), vLLM ("This model's maximum
 * context length is"), llama.cpp ("exceeds the available context size", exceed_context_size_error),
 * LM Studio ("greater than the context length", "context overflows"), Ollama ("prompt too long").
 */
const OVERFLOW_PATTERNS = [
  /prompt is too long/i,
  /prompt too long/i,
  /context[_ ]length[_ ]exceeded/i,
  /maximum context length/i,
  /exceeds? (the )?(available |model'?s? )?context (size|window|length)/i,
  /exceed_context_size/i,
  /greater than the context length/i,
  /context (the )?overflows/i,
  /input length and `?max_tokens`? exceed context limit/i,
  /too many tokens.*context/i,
];

export function isContextOverflowText(text: string): boolean {
  return OVERFLOW_PATTERNS.some((pattern) => pattern.test(text));
}

interface ErrorShape {
  status?: unknown;
  headers?: unknown;
  error?: unknown;
  message?: unknown;
  code?: unknown;
  type?: unknown;
  cause?: unknown;
  name?: unknown;
}

function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
}

/** The server's own words: the body's error.message, else the exception's message. */
function serverDetail(err: ErrorShape): { text: string; code: string } {
  const body = err.error;
  const inner = field(body, "error") ?? body;
  const message = field(inner, "message") ?? err.message ?? String(err);
  const codes = [field(inner, "code"), field(inner, "type"), err.code, err.type].filter((value) => typeof value === "string" && value !== "" && value !== "error");
  return { text: String(message), code: [...new Set(codes)].join(" ") };
}

function connectionCode(err: unknown): string | undefined {
  for (let current: unknown = err, depth = 0; current && depth < 6; current = field(current, "cause"), depth++) {
    const code = field(current, "code");
    if (typeof code === "string" && /^E[A-Z_]+$|^UND_ERR/.test(code)) return code;
  }
  return undefined;
}

function isConnectionError(err: ErrorShape): boolean {
  return (
    err.name === "APIConnectionError" ||
    err.name === "APIConnectionTimeoutError" ||
    connectionCode(err) !== undefined ||
    /terminated|socket hang up|fetch failed|other side closed/i.test(String(err.message))
  );
}

export function describeFailure(error: unknown, provider: ProviderLabel): FailureInfo {
  const err = (error ?? {}) as ErrorShape;
  const status = typeof err.status === "number" ? err.status : undefined;
  const headers = err.headers instanceof Headers ? err.headers : undefined;
  const { text, code } = serverDetail(err);
  const overflow = isContextOverflowText(text) || isContextOverflowText(code);

  if (overflow) {
    return { message: `${provider.name}: the conversation is longer than the model's context window (${text})`, retryable: false, contextOverflow: true, status };
  }
  if (status === 401 || status === 403) {
    const where = provider.keyEnv ? `${provider.keyEnv} or Settings → Providers` : "the key in Settings → Providers";
    return { message: `The ${provider.name} API rejected the key (${status} ${text}). Check ${where}.`, retryable: false, contextOverflow: false, status };
  }
  if (status !== undefined) {
    const quota = /insufficient_quota/i.test(code);
    return {
      message: `${provider.name} API error ${status}: ${text}`,
      retryable: RETRYABLE_STATUS.has(status) && !quota,
      retryAfterMs: parseRetryAfter(headers),
      contextOverflow: false,
      status,
    };
  }
  if (err.name === "APIError" || (code && RETRYABLE_TYPES.test(code))) {
    // An error event inside the stream (Anthropic `event: error`, OpenAI `error`): no HTTP status.
    return { message: `${provider.name} API error: ${text}${code ? ` (${code})` : ""}`, retryable: RETRYABLE_TYPES.test(code) || /overloaded/i.test(text), contextOverflow: false };
  }
  if (isConnectionError(err)) {
    const netCode = connectionCode(err);
    const cause = field(err, "cause");
    const detail = netCode ?? (cause ? String(field(cause, "message") ?? cause) : text);
    const retryable = netCode === undefined ? !/refused|ENOTFOUND/i.test(detail) : RESET_CODES.has(netCode);
    const hint = netCode === "ECONNREFUSED" ? " Is the server running?" : "";
    return { message: `Could not reach ${provider.name} at ${provider.baseUrl} (${detail}).${hint}`, retryable, contextOverflow: false, connectionLost: retryable };
  }
  return { message: `${provider.name}: ${text}`, retryable: false, contextOverflow: false };
}

/** What the user reads when a connection breaks after part of the answer arrived. */
export function connectionLostMessage(provider: ProviderLabel): string {
  return `The connection to ${provider.name} was lost mid-answer; the part that had arrived is kept.`;
}

/** An error reported inside a stream (a failed response, an error chunk), shaped like an SDK APIError without status. */
export function streamErrorEvent(message: string, code?: string): Error {
  return Object.assign(new Error(message), { name: "APIError", error: { message, code } });
}
