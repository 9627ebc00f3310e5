// Malformed IPC payloads for fuzzing the router and the host: random names and params that no
// request accepts (valid names always get params their schema rejects).
import { requestNames, requests } from "../../app/shared/ipc/contract.ts";

/** A small deterministic PRNG, so a failure can be reproduced. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

export function malformedPayloads(count: number, seed = 42): { name: unknown; params: unknown }[] {
  const rand = prng(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const junk = (): unknown =>
    pick<() => unknown>([
      () => null,
      () => undefined,
      () => Math.floor(rand() * 1e9) - 5e8,
      () => NaN,
      () => "x".repeat(Math.floor(rand() * 50)),
      () => [1, "two", { three: 3 }],
      () => ({ sessionId: "1' OR 1=1 --" }),
      () => ({ __proto__: { polluted: true }, constructor: { prototype: { x: 1 } } }),
      () => ({ sessionId: -1, text: 5 }),
      () => ({ sessionId: 1.5 }),
      () => ({ unexpected: true }),
      () => ({ sessionId: 1, text: "ok", extra: "field" }),
      () => ({ folder: "" }),
      () => ({ query: "" }),
      () => ({ requestId: "r", decision: "maybe" }),
      () => true,
    ])();
  const out: { name: unknown; params: unknown }[] = [];
  for (let i = 0; i < count; i++) {
    const r = rand();
    const name =
      r < 0.2 ? pick([undefined, null, 42, {}, [], "", "sessions", "sessions.", ".prompt", "__proto__", "constructor", "toString", "sessions.prompt\u0000"]) : pick(requestNames);
    let params = junk();
    // A valid name with params that happen to be valid would not be a malformed payload.
    if (typeof name === "string" && name in requests && params !== null && typeof params === "object" && !Array.isArray(params)) {
      params = { ...(params as object), definitelyNotAField: i };
    }
    out.push({ name, params });
  }
  return out;
}
