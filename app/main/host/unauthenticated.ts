// The WebSocket connections that have not sent the token yet. Anyone on the machine can open one
// (only browsers are held to the Origin check), so each costs the host next to nothing: it may
// send at most MAX_UNAUTHENTICATED_BYTES before its token is accepted (the token message is under
// 100 bytes; without this, ws buffered a first message of up to the request bound, 32 MiB, and 40
// such connections took 1.3 GB), and at most MAX_UNAUTHENTICATED wait at once: one more closes the
// oldest, so the page's own connection, which sends its token at once, always gets in. Never throws.
import type { Duplex } from "node:stream";

export const MAX_UNAUTHENTICATED_BYTES = 64 * 1024;
export const MAX_UNAUTHENTICATED = 16;

export class UnauthenticatedConnections {
  /** In the order they came (a Set keeps it). */
  readonly #waiting = new Set<Duplex>();
  readonly #maxBytes: number;
  readonly #maxCount: number;

  constructor(limits: { maxBytes?: number; maxCount?: number } = {}) {
    this.#maxBytes = limits.maxBytes ?? MAX_UNAUTHENTICATED_BYTES;
    this.#maxCount = limits.maxCount ?? MAX_UNAUTHENTICATED;
  }

  get size(): number {
    return this.#waiting.size;
  }

  /**
   * Counts `socket` (just upgraded: ws hands the bytes that came with the upgrade back to it, so
   * they are counted here too) among those waiting for a token; returns what to call once its
   * token is accepted. It is destroyed once it has sent more than the bytes allowed, or when it is
   * the oldest of too many.
   */
  admit(socket: Duplex): () => void {
    let received = 0;
    const count = (chunk: Buffer | string): void => {
      received += chunk.length;
      if (received > this.#maxBytes) socket.destroy();
    };
    const release = (): void => {
      socket.off("data", count);
      this.#waiting.delete(socket);
    };
    socket.on("data", count);
    socket.once("close", release);
    this.#waiting.add(socket);
    if (this.#waiting.size > this.#maxCount) {
      const oldest = this.#waiting.values().next().value!;
      this.#waiting.delete(oldest);
      oldest.destroy();
    }
    return release;
  }
}
