// The WebSocket client for the headless host: the same LatheApi as the preload's, over
// { id, method, params } messages. Reconnects with backoff when the connection drops; requests
// made while disconnected wait for the connection (and fail after a timeout) rather than vanish.
import { buildApi, type EventName, type IpcResult, type LatheApi, type RequestName } from "../../../shared/ipc/contract";

interface Pending {
  resolve: (r: IpcResult<unknown>) => void;
  timer: ReturnType<typeof setTimeout>;
}

export interface WsClientOptions {
  url: string;
  /** Called when the connection state changes, for a status indicator. */
  onStatus?: (status: "connecting" | "open" | "closed") => void;
  requestTimeoutMs?: number;
}

export function createWsApi(options: WsClientOptions): LatheApi {
  const pending = new Map<number, Pending>();
  const listeners = new Map<EventName, Set<(p: unknown) => void>>();
  const outbox: string[] = [];
  let nextId = 1;
  let socket: WebSocket | undefined;
  let retryMs = 250;

  const open = (): void => {
    options.onStatus?.("connecting");
    const ws = new WebSocket(options.url);
    socket = ws;
    ws.onopen = () => {
      retryMs = 250;
      options.onStatus?.("open");
      for (const message of outbox.splice(0)) ws.send(message);
    };
    ws.onmessage = (e: MessageEvent<string>) => {
      const message = JSON.parse(e.data) as { id?: number; result?: IpcResult<unknown>; event?: EventName; payload?: unknown };
      if (message.event) {
        for (const listener of listeners.get(message.event) ?? []) listener(message.payload);
      } else if (typeof message.id === "number" && message.result) {
        const waiter = pending.get(message.id);
        pending.delete(message.id);
        if (waiter) {
          clearTimeout(waiter.timer);
          waiter.resolve(message.result);
        }
      }
    };
    ws.onclose = () => {
      options.onStatus?.("closed");
      socket = undefined;
      setTimeout(open, retryMs);
      retryMs = Math.min(retryMs * 2, 5_000);
    };
  };
  open();

  const invoke = (name: RequestName, params: unknown): Promise<IpcResult<unknown>> =>
    new Promise((resolve) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        resolve({ ok: false, error: { code: "unavailable", message: `No answer from the Lathe host for ${name}.` } });
      }, options.requestTimeoutMs ?? 60_000);
      pending.set(id, { resolve, timer });
      const message = JSON.stringify({ id, method: name, params });
      if (socket?.readyState === WebSocket.OPEN) socket.send(message);
      else outbox.push(message);
    });

  return buildApi(invoke, (event, listener) => {
    let set = listeners.get(event);
    if (!set) listeners.set(event, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  });
}
