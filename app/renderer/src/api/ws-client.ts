// The WebSocket client for the headless host: the same LatheApi as the preload's, over
// { id, method, params } messages. Reconnects with backoff when the connection drops; requests
// made while disconnected wait for the connection (and fail after a timeout) rather than vanish.
// The token goes in every connection's upgrade, as the subprotocol lathe.token.<token> (the host
// also takes it as the first message); a host that refuses it (close 4401)
// ends the retries and fails what is waiting. A request over MAX_REQUEST_BYTES fails at once.
import { buildApi, type EventName, type IpcResult, type LatheApi, type RequestName } from "../../../shared/ipc/contract";
import { MAX_REQUEST_BYTES, TOKEN_PROTOCOL_PREFIX } from "../../../shared/ipc/limits";

/** "refused": the host does not accept this page's token (open the printed address again). */
export type ConnectionStatus = "connecting" | "open" | "closed" | "refused";
/** The host's close code for a missing or wrong token. */
const CLOSE_UNAUTHORIZED = 4401;
/** What every request answers once the host refused the page (the connection banner explains it; views need not repeat it). */
export const REFUSED_MESSAGE = "The Lathe host refused this page: open the address it printed.";
const REFUSED: IpcResult<never> = { ok: false, error: { code: "unavailable", message: REFUSED_MESSAGE } };

interface Pending {
  resolve: (r: IpcResult<unknown>) => void;
  timer: ReturnType<typeof setTimeout>;
}

export interface WsClientOptions {
  url: string;
  /** Sent as { token } before anything else on every connection. */
  token?: string;
  /** Called when the connection state changes, for a status indicator. */
  onStatus?: (status: ConnectionStatus) => void;
  requestTimeoutMs?: number;
}

export function createWsApi(options: WsClientOptions): LatheApi {
  const pending = new Map<number, Pending>();
  const listeners = new Map<EventName, Set<(p: unknown) => void>>();
  const outbox: string[] = [];
  let nextId = 1;
  let socket: WebSocket | undefined;
  let retryMs = 250;
  let refused = false;

  const open = (): void => {
    options.onStatus?.("connecting");
    // The token goes in the upgrade itself (as a subprotocol): the host then never counts this
    // connection among those that have not given one, which others could crowd out.
    // A token that cannot be a subprotocol (one pasted by hand) goes as the first message instead.
    const inUpgrade = options.token !== undefined && /^[A-Za-z0-9._~-]*$/.test(options.token);
    const ws = inUpgrade ? new WebSocket(options.url, [`${TOKEN_PROTOCOL_PREFIX}${options.token}`]) : new WebSocket(options.url);
    socket = ws;
    ws.onopen = () => {
      retryMs = 250;
      if (options.token !== undefined && !inUpgrade) ws.send(JSON.stringify({ token: options.token }));
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
    ws.onclose = (e: CloseEvent) => {
      socket = undefined;
      if (e.code === CLOSE_UNAUTHORIZED) {
        refused = true;
        options.onStatus?.("refused");
        outbox.length = 0;
        for (const [id, waiter] of pending) {
          pending.delete(id);
          clearTimeout(waiter.timer);
          waiter.resolve(REFUSED);
        }
        return;
      }
      options.onStatus?.("closed");
      setTimeout(open, retryMs);
      retryMs = Math.min(retryMs * 2, 5_000);
    };
  };
  open();

  const invoke = (name: RequestName, params: unknown): Promise<IpcResult<unknown>> =>
    new Promise((resolve) => {
      if (refused) return resolve(REFUSED);
      const id = nextId++;
      const message = JSON.stringify({ id, method: name, params });
      if (message.length > MAX_REQUEST_BYTES / 3 && new TextEncoder().encode(message).length > MAX_REQUEST_BYTES) {
        const mb = (n: number) => `${Math.round(n / 1024 / 1024)} MB`;
        return resolve({
          ok: false,
          error: { code: "invalid-request", message: `${name} is too large to send (${mb(message.length)}; the host accepts ${mb(MAX_REQUEST_BYTES)}).` },
        });
      }
      const timer = setTimeout(() => {
        pending.delete(id);
        resolve({ ok: false, error: { code: "unavailable", message: `No answer from the Lathe host for ${name}.` } });
      }, options.requestTimeoutMs ?? 60_000);
      pending.set(id, { resolve, timer });
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
