// The renderer's WebSocket client (ws-client.ts) run in Node: Node's own WebSocket sends no Origin,
// and the host accepts an upgrade only with its own Origin. PageWebSocket (from the `ws` package,
// the same event-handler interface) sends the Origin a page loaded from that address sends.
import WebSocket from "ws";

export class PageWebSocket extends WebSocket {
  constructor(url: string | URL, protocols?: string | string[]) {
    const parsed = new URL(url);
    super(parsed, protocols ?? [], { origin: `http://${parsed.host}` });
    // A browser's WebSocket reports a failed connection through onerror/onclose, never by throwing;
    // an EventEmitter without an error listener would throw.
    this.on("error", () => {});
  }
}

/** Makes `new WebSocket(url)` in the renderer's code a PageWebSocket. */
export function usePageWebSocket(): void {
  (globalThis as { WebSocket: unknown }).WebSocket = PageWebSocket;
}
