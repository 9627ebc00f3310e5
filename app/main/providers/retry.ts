// Backoff arithmetic and the abortable wait between attempts. Pure helpers: the decision whether
// an error is retryable lives in errors.ts, the loop over attempts in stream-runner.ts.
import type { RetryPolicy } from "./types.ts";

/** Reads `retry-after-ms` (milliseconds) or `retry-after` (seconds or an HTTP date); undefined if absent or unusable. */
export function parseRetryAfter(headers: Headers | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "") {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const after = headers.get("retry-after");
  if (after === null || after.trim() === "") return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(after);
  if (Number.isFinite(date)) return Math.max(0, date - now);
  return undefined;
}

/**
 * The wait before attempt `attempt + 1` (attempt counts from 1): the server's retry-after when it
 * gave one, else base·2^(attempt-1) with up to 20 % jitter; never more than maxDelayMs.
 */
export function retryDelay(attempt: number, policy: RetryPolicy, retryAfterMs?: number, random = Math.random): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, policy.maxDelayMs);
  const exponential = policy.baseDelayMs * 2 ** (attempt - 1);
  const jitter = exponential * 0.2 * random();
  return Math.round(Math.min(exponential + jitter, policy.maxDelayMs));
}

/** Resolves after `ms`, or early with false when the signal aborts. Never rejects. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
