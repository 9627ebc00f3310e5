// One WebSocket connection of the headless host, after the upgrade passed the request policy.
// Protocol:
//   1. The connection starts unauthenticated. The client's first message must be
//      { "token": "<the host's token>" } and must come within `authDeadlineMs`. A wrong token or
//      any other first message closes with 4401; no message in time closes with 4408. Nothing
//      else is read, and no event is sent, before that. A client that gave the token in the
//      upgrade (`offeredToken`, the subprotocol lathe.token.<token>) skips this step: the right
//      one is authenticated at once, a wrong one closed with 4401.
//   2. Then the host answers { "authenticated": true }, the client sends { id, method, params },
//      the host answers { id, result } with the router's IpcResult and pushes { event, payload }.
// A connection that does not answer a ping within `heartbeatMs` is terminated. A client that
// does not read what it is sent is not read either: at most MAX_REQUESTS_IN_FLIGHT requests are
// handled at once, and none is started while more than `maxBufferedBytes` wait to be sent to it;
// meanwhile its messages are left unread (TCP pushes back on it), so the answers it asks for never
// pile up in the host's memory. (Before, a client that sent small requests for large answers and
// read nothing grew the host without bound until it ran out of memory, 2 GB of heap from one
// write of 1,000 requests; its requests also counted as signs of life, so the heartbeat never
// ended it.) A client paused because it does not read answers no ping until it reads again, so
// one that stops reading for good is terminated by the heartbeat; one paused only because its
// requests wait for a free slot is not (its pongs are merely unread). Events are not held back
// that way (they are the app's, not the client's asking): past MAX_UNSENT_FACTOR times
// `maxBufferedBytes` waiting to be sent, the connection is ended at once rather than at the next
// heartbeat (a tab that stopped reading held 510 MB of events for a minute; the answers it asked
// for are bounded by the requests in flight); the page reconnects and reloads what it shows.
// Requests that give the user control back (CONTROL_METHODS: Stop, answering a permission
// question, interrupting or typing into a command) never queue behind slow ones: with every slot
// taken (16 requests waiting on, say, an MCP server that never answers), up to
// MAX_CONTROL_IN_FLIGHT of them start in slots of their own, and the client is read on until
// MAX_WAITING requests (or MAX_WAITING_CHARS) wait, so a Stop sent after them is seen; a tab whose
// slots are all held once could not stop anything until it was reloaded. A Stop that goes ahead so
// also ends the requests of its session that were waiting to start work before it (a prompt, a
// follow-up, a retry...): they are answered "Stopped before it started" rather than run after it.
// A request's text is measured before it is parsed: one nested deeper
// than the request bounds or made of more values is refused without the parse (32 MB of `{}`
// held the host for 5 to 8 s). Must not throw and must not leave a rejected promise behind,
// whatever arrives.
import { timingSafeEqual } from "node:crypto";
import type { WebSocket } from "ws";
import type { EventName } from "../../shared/ipc/contract.ts";
import { EventBatcher } from "../ipc/event-batcher.ts";
import type { EventHub } from "../ipc/event-hub.ts";
import type { IpcRouter } from "../ipc/router.ts";
import { MAX_REQUEST_DEPTH, MAX_REQUEST_VALUES } from "../../shared/ipc/limits.ts";
import { jsonTextExceeds } from "../../shared/json-bounds.ts";

export const CLOSE_UNAUTHORIZED = 4401;
export const CLOSE_AUTH_TIMEOUT = 4408;

export interface ConnectionOptions {
  router: IpcRouter;
  hub: EventHub;
  token: string;
  authDeadlineMs: number;
  heartbeatMs: number;
  /** Something the host could not do for this connection (never a client's mistake). */
  report: (what: string, error: unknown) => void;
  /** Bytes waiting to be sent past which the client's requests are left unread (default 16 MiB). */
  maxBufferedBytes?: number;
  /** The client sent the right token (the server stops counting it among those waiting). */
  onAuthenticated?: () => void;
  /** The token the client gave in the upgrade (its subprotocol), if it did. */
  offeredToken?: string;
}

export const DEFAULT_MAX_BUFFERED_BYTES = 16 * 1024 * 1024;
/** Requests of one connection handled at once; later ones wait, unread past those already read. */
export const MAX_REQUESTS_IN_FLIGHT = 16;
/** Control requests (CONTROL_METHODS) handled at once beyond MAX_REQUESTS_IN_FLIGHT. */
export const MAX_CONTROL_IN_FLIGHT = 4;
/** Requests read but not started past which the client is left unread, and their total characters. */
export const MAX_WAITING = 64;
const MAX_WAITING_CHARS = 1024 * 1024;
/** Requests that give the user control back: quick, they wait on nothing outside the app. */
export const CONTROL_METHODS: ReadonlySet<string> = new Set(["sessions.abort", "permissions.respond", "permissions.respondBatch", "tools.interrupt", "tools.input"]);
/** Longest text of a control request looked at (an answer with edited rules, a line of input). */
const MAX_CONTROL_CHARS = 64 * 1024;
/** Times maxBufferedBytes waiting to be sent past which the connection is ended. */
export const MAX_UNSENT_FACTOR = 4;

function tokenMatches(expected: string, given: unknown): boolean {
  if (typeof given !== "string") return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Requests that start work in a session: a Stop taken ahead of them ends them too. */
const SESSION_WORK_METHODS: ReadonlySet<string> = new Set([
  "sessions.prompt",
  "sessions.followUp",
  "sessions.steer",
  "sessions.retry",
  "sessions.compact",
  "tools.rerunOutsideSandbox",
]);

interface WaitingRequest {
  raw: string;
  control: boolean;
  /** A Stop: the session it stops. */
  stops?: number;
}

function waitingRequest(raw: string): WaitingRequest {
  if (raw.length > MAX_CONTROL_CHARS || !raw.includes('"method"')) return { raw, control: false };
  const message = parseObject(raw);
  const method = message?.method;
  if (typeof method !== "string" || !CONTROL_METHODS.has(method)) return { raw, control: false };
  const sessionId = (message?.params as { sessionId?: unknown } | undefined)?.sessionId;
  return { raw, control: true, ...(method === "sessions.abort" && typeof sessionId === "number" ? { stops: sessionId } : {}) };
}

/** The id and session of a request waiting before a Stop that would start work, read within bounds (a prompt may hold megabytes of images). */
function sessionWork(raw: string): { id: unknown; sessionId: unknown } | undefined {
  if (raw.length <= MAX_WAITING_CHARS && !jsonTextExceeds(raw, { maxDepth: MAX_REQUEST_DEPTH, maxValues: MAX_REQUEST_VALUES })) {
    const message = parseObject(raw);
    if (typeof message?.method !== "string" || !SESSION_WORK_METHODS.has(message.method)) return undefined;
    return { id: message.id, sessionId: (message.params as { sessionId?: unknown } | undefined)?.sessionId };
  }
  // Larger: as the page writes it, { id, method, params: { sessionId, ... } } comes first.
  const head = raw.slice(0, 4096);
  const method = /"method"\s*:\s*"([\w.]+)"/.exec(head)?.[1];
  if (!method || !SESSION_WORK_METHODS.has(method)) return undefined;
  return { id: Number(/^\s*\{\s*"id"\s*:\s*(\d{1,15})\s*,/.exec(head)?.[1] ?? Number.NaN), sessionId: Number(/"sessionId"\s*:\s*(\d{1,15})/.exec(head)?.[1] ?? Number.NaN) };
}

function parseObject(raw: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(raw);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export function serveConnection(ws: WebSocket, options: ConnectionOptions): void {
  let remove: (() => void) | undefined;
  let batcher: EventBatcher | undefined;
  let alive = true;
  const maxBuffered = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;

  /** Requests read but not started, in order, and those running (control ones in slots of their own). */
  const waiting: WaitingRequest[] = [];
  let waitingChars = 0;
  let inFlight = 0;
  let controlInFlight = 0;

  /** Answers and drops the requests before `index` that would start work in session `sessionId`; how many. */
  const endWorkWaitingBefore = (index: number, sessionId: number): number => {
    let ended = 0;
    for (let i = index - 1; i >= 0; i--) {
      const request = waiting[i]!;
      if (request.control) continue;
      const work = sessionWork(request.raw);
      if (!work || work.sessionId !== sessionId) continue;
      waiting.splice(i, 1);
      waitingChars -= request.raw.length;
      ended++;
      const id = typeof work.id === "number" || typeof work.id === "string" ? work.id : null;
      send({ id, result: { ok: false, error: { code: "failed", message: "Stopped before it started: Stop was pressed while it waited." } } }, () => ({}));
    }
    return ended;
  };

  const start = (index: number, reserved: boolean): void => {
    const [request] = waiting.splice(index, 1);
    waitingChars -= request!.raw.length;
    if (reserved) controlInFlight++;
    else inFlight++;
    handle(request!.raw)
      .catch((error: unknown) => options.report("answering a request", error))
      .finally(() => {
        if (reserved) controlInFlight--;
        else inFlight--;
        pump();
      });
  };

  /** Starts waiting requests while there is room; reads the client while few wait and half of what waited for it was sent. */
  const pump = (): void => {
    if (ws.readyState !== ws.OPEN) return;
    while (waiting.length > 0 && ws.bufferedAmount <= maxBuffered) {
      if (inFlight < MAX_REQUESTS_IN_FLIGHT) start(0, false);
      else {
        let control = controlInFlight < MAX_CONTROL_IN_FLIGHT ? waiting.findIndex((r) => r.control) : -1;
        if (control === -1) break;
        const stops = waiting[control]!.stops;
        if (stops !== undefined) control -= endWorkWaitingBefore(control, stops);
        start(control, true);
      }
    }
    if (waiting.length >= MAX_WAITING || waitingChars > MAX_WAITING_CHARS || ws.bufferedAmount > maxBuffered) ws.pause();
    else if (ws.isPaused && ws.bufferedAmount <= maxBuffered / 2) {
      // Its pongs were left unread with the rest: the heartbeat counts from now.
      alive = true;
      ws.resume();
    }
  };
  const sent = (): void => pump();

  /** Sends one message; a value that cannot be serialized is replaced by `fallback`, never thrown. */
  const send = (message: unknown, fallback: () => unknown): void => {
    if (ws.readyState !== ws.OPEN) return;
    let text: string;
    try {
      text = JSON.stringify(message);
    } catch (error) {
      options.report("serializing a message to a browser", error);
      text = JSON.stringify(fallback());
    }
    ws.send(text, sent);
    if (ws.bufferedAmount > maxBuffered) ws.pause();
  };

  /** Sends an event, unless the client has left so much unread that it is disconnected instead. */
  const sendEvent = (event: EventName, payload: unknown): void => {
    if (ws.readyState !== ws.OPEN) return;
    if (ws.bufferedAmount > maxBuffered * MAX_UNSENT_FACTOR) {
      const mb = Math.round(ws.bufferedAmount / (1024 * 1024));
      options.report("sending to a window", new Error(`it stopped reading (${mb} MB waited to be sent to it): it was disconnected, and reloads once it reconnects`));
      ws.terminate();
      return;
    }
    send({ event, payload }, () => ({
      event: "app.notice",
      payload: { level: "error", message: `An update (${event}) could not be sent to this window; reopen the session to see it.` },
    }));
  };

  const deadline = setTimeout(() => ws.close(CLOSE_AUTH_TIMEOUT, "No token was sent in time."), options.authDeadlineMs);
  const heartbeat = setInterval(() => {
    // Paused only for the host's own work (requests waiting for a free slot while what it sent is
    // read): the client's pongs are unread, not missing. A client that stops reading lets its
    // answers pile up past maxBuffered, and is judged by its pongs again.
    if (ws.isPaused && ws.bufferedAmount <= maxBuffered) return;
    if (!alive) {
      ws.terminate();
      return;
    }
    alive = false;
    ws.ping();
  }, options.heartbeatMs);
  ws.on("pong", () => (alive = true));

  const authenticate = (raw: string): void => {
    const hello = raw.length <= 1024 ? parseObject(raw) : null;
    authenticateWith(hello?.token);
  };

  const authenticateWith = (token: unknown): void => {
    clearTimeout(deadline);
    if (!tokenMatches(options.token, token)) {
      ws.close(CLOSE_UNAUTHORIZED, "A valid token is required: open the address the host printed.");
      return;
    }
    batcher = new EventBatcher(sendEvent);
    remove = options.hub.add(batcher);
    options.onAuthenticated?.();
    send({ authenticated: true }, () => ({}));
  };

  const handle = async (raw: string): Promise<void> => {
    const outOfBounds = jsonTextExceeds(raw, { maxDepth: MAX_REQUEST_DEPTH, maxValues: MAX_REQUEST_VALUES });
    if (outOfBounds) {
      // The id as the client writes it, first ({ id, method, params }), to pair the answer.
      const id = /^\s*\{\s*"id"\s*:\s*(\d{1,15})\s*,/.exec(raw.slice(0, 64))?.[1];
      const message = `The request is ${outOfBounds}: it was not read.`;
      send({ id: id === undefined ? null : Number(id), result: { ok: false, error: { code: "invalid-request", message } } }, () => ({}));
      return;
    }
    const message = parseObject(raw);
    if (!message) {
      send({ id: null, result: { ok: false, error: { code: "invalid-request", message: "Messages must be JSON objects { id, method, params }." } } }, () => ({}));
      return;
    }
    const id = typeof message.id === "number" || typeof message.id === "string" ? message.id : null;
    const result = await options.router.handle(message.method, message.params);
    send({ id, result }, () => ({ id, result: { ok: false, error: { code: "failed", message: "The answer could not be sent: it is not plain JSON." } } }));
  };

  ws.on("message", (data, isBinary) => {
    alive = true;
    const raw = isBinary ? "" : data.toString();
    if (!remove) {
      if (ws.readyState === ws.OPEN) authenticate(raw);
      return;
    }
    waiting.push(waitingRequest(raw));
    waitingChars += raw.length;
    pump();
  });
  ws.on("close", () => {
    waiting.length = 0;
    waitingChars = 0;
    clearTimeout(deadline);
    clearInterval(heartbeat);
    remove?.();
    remove = undefined;
    batcher?.dispose();
  });
  ws.on("error", () => ws.terminate());
  if (options.offeredToken !== undefined) authenticateWith(options.offeredToken);
}
