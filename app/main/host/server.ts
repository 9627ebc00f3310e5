// The headless host's server: the built renderer over HTTP and the IPC router over a WebSocket,
// bound to a loopback address only. Nothing a request sends can crash it: every parse of a target,
// path, header or frame is guarded (see request-policy.ts, static-files.ts, ws-connection.ts).
//
// Who gets in, and why it is built this way:
// - The token is the only credential, and it never travels in a cookie. A cookie is shared by every
//   port of 127.0.0.1 and sent by the browser with a WebSocket any local page opens (cross-site
//   WebSocket hijacking). Instead the page keeps the token itself and sends it as the first
//   WebSocket message, or in the upgrade as the subprotocol `lathe.token.<token>` (what the page
//   does: such a connection never waits among those without a token) (ws-connection.ts); until
//   then the connection is unauthenticated, reads
//   nothing else, is closed after a short deadline, may send 64 KiB at most, and is one of at most
//   16 waiting (unauthenticated.ts).
// - The printed address carries the token in its fragment (`/#token=…`), which the browser never
//   sends to any server. The page reads it, keeps it in sessionStorage (per tab and per origin,
//   port included; it survives a reload) and takes it out of the address with
//   history.replaceState, keeping `?session=`. A new tab needs the printed address again.
// - So the HTML and its assets hold no token and no data: they are the public renderer build,
//   served to any loopback request that passes the policy. A foreign origin cannot get the token
//   from them, and cannot read them either (Cross-Origin-Resource-Policy, Sec-Fetch-Site).
// - The WebSocket upgrade must carry an Origin that is exactly this host's origin as the browser
//   addressed it (`http://` + Host: scheme, host and port, so an SSH tunnel on another local port
//   works), and any request with another Origin is refused 403: a page served from another port
//   of 127.0.0.1 fails at the upgrade, before it could even try a token. The Host header must name
//   a loopback host (DNS rebinding), and the peer must be a loopback address.
// - Only GET and HEAD exist over HTTP (everything that changes state goes through the WebSocket);
//   anything else is 405. Answers carry Referrer-Policy: no-referrer and X-Frame-Options: DENY,
//   pages their Content-Security-Policy (frame-ancestors 'none'), and a path is served only in its
//   plain spelling (static-files.ts).
// - Silent connections are closed: HTTP sockets that do not send a whole request in time (408),
//   WebSockets that do not answer pings. A WebSocket client that does not read what it is sent
//   is not read either, so the answers it asks for cannot fill the host's memory.
import { randomBytes } from "node:crypto";
import type * as Http from "node:http";
import type { IncomingMessage, Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import type { WebSocketServer } from "ws";
import { MAX_REQUEST_BYTES, TOKEN_PROTOCOL_PREFIX } from "../../shared/ipc/limits.ts";
import type { EventHub } from "../ipc/event-hub.ts";
import type { IpcRouter } from "../ipc/router.ts";
import { isLoopback, refuseRequest } from "./request-policy.ts";
import { answer, COMMON_HEADERS, requestedFile, serveStatic } from "./static-files.ts";
import { UnauthenticatedConnections } from "./unauthenticated.ts";
import { serveConnection } from "./ws-connection.ts";

export { isLoopback } from "./request-policy.ts";

// node:http through require, not an ES import: the ES module view of a built-in reads every one of
// its exports, and node:http's include getters that load Node's fetch implementation (undici,
// with zlib), about 50 ms of start-up the host never uses.
const { createServer } = createRequire(import.meta.url)("node:http") as typeof Http;

export interface HostTimeouts {
  /** Whole request headers must arrive within this (default 10 s). */
  headersMs: number;
  /** A whole request must arrive within this (default 30 s). */
  requestMs: number;
  /** The token must be the first WebSocket message within this (default 10 s). */
  authMs: number;
  /** Ping interval; a WebSocket silent for a whole interval is closed (default 30 s). */
  heartbeatMs: number;
}

export interface HostServerOptions {
  router: IpcRouter;
  hub: EventHub;
  /** Folder of the built renderer (out/renderer). */
  rendererDir: string;
  port?: number;
  /** Must be a loopback address; default 127.0.0.1. */
  host?: string;
  token?: string;
  timeouts?: Partial<HostTimeouts>;
  /** Largest WebSocket message accepted (default MAX_REQUEST_BYTES); larger ones close with 1009. */
  maxFrameBytes?: number;
  /** Bytes waiting for a client past which its requests are left unread (ws-connection.ts; default 16 MiB). */
  maxBufferedBytes?: number;
  /** Limits on connections that have not sent the token (unauthenticated.ts; tests). */
  unauthenticated?: { maxBytes?: number; maxCount?: number };
  /** A failure of the host itself (not of a client); default console.error. */
  report?: (what: string, error: unknown) => void;
  /** Called once, after the first answer to an HTTP request was sent (for work the first page need not wait for). */
  onFirstPage?: () => void;
}

export interface HostServer {
  /** The address to open: the origin, with the token in the fragment. */
  url: string;
  /** `http://host:port`, no token. */
  origin: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

const DEFAULT_TIMEOUTS: HostTimeouts = { headersMs: 10_000, requestMs: 30_000, authMs: 10_000, heartbeatMs: 30_000 };

export async function startHostServer(options: HostServerOptions): Promise<HostServer> {
  const host = options.host ?? "127.0.0.1";
  if (!isLoopback(host)) {
    throw new Error(`The headless host only listens on a loopback address (127.0.0.1 or ::1), not "${host}". Use an SSH tunnel to reach it from another machine.`);
  }
  const token = options.token ?? randomBytes(24).toString("base64url");
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const report = options.report ?? ((what: string, error: unknown) => console.error(`[host] ${what} failed:`, error));

  const server: Server = createServer(
    {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      connectionsCheckingInterval: Math.min(1_000, timeouts.headersMs),
    },
    (req, res) => {
      res.on("error", () => res.destroy());
      // The WebSocket server is loaded once the first page is on its way (see below), then the
      // services' deferred work starts.
      if (!wssLoading) res.once("finish", () => setImmediate(firstPageSent));
      const stateChanging = req.method !== "GET" && req.method !== "HEAD";
      const refusal = refuseRequest(req.socket.remoteAddress, req.headers, stateChanging);
      if (refusal) return answer(res, refusal.status, refusal.reason);
      if (stateChanging) return answer(res, 405, "Only GET and HEAD are served here; the app talks over its WebSocket.", { allow: "GET, HEAD" });
      serveStatic(options.rendererDir, req, res);
    },
  );

  // `ws` brings Node's https and tls with it (its client side), which cost more at start than the
  // rest of the host's modules: it is loaded after the first page was sent (while the browser
  // fetches the page's scripts), or by the first upgrade, which waits for it.
  let wss: WebSocketServer | null = null;
  const unauthenticated = new UnauthenticatedConnections(options.unauthenticated);
  let wssLoading: Promise<WebSocketServer> | null = null;
  let closing = false;
  const loadWebSocketServer = (): Promise<WebSocketServer> =>
    (wssLoading ??= import("ws").then(({ WebSocketServer: Server }) => {
      // A page offers its token as a subprotocol (lathe.token.<token>): echoed, as browsers require
      // of an offered one; whether it is the right token is serveConnection's to say.
      const handleProtocols = (protocols: Set<string>) => [...protocols].find((p) => p.startsWith(TOKEN_PROTOCOL_PREFIX)) ?? false;
      const created = new Server({ noServer: true, maxPayload: options.maxFrameBytes ?? MAX_REQUEST_BYTES, handleProtocols });
      created.on("error", (error) => report("the WebSocket server", error));
      if (closing) created.close();
      wss = created;
      return created;
    }));
  let firstPage = true;
  const firstPageSent = () => {
    void loadWebSocketServer().catch(() => undefined);
    if (!firstPage) return;
    firstPage = false;
    options.onFirstPage?.();
  };
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    const refusal = refuseRequest(req.socket.remoteAddress, req.headers, true);
    const wanted = requestedFile(req.url);
    if (refusal) return refuseUpgrade(socket, refusal.status, refusal.reason);
    if (!wanted.ok) return refuseUpgrade(socket, 400, wanted.reason);
    if (wanted.relative !== "ws") return refuseUpgrade(socket, 404, "The WebSocket is at /ws.");
    const upgrade = (target: WebSocketServer) => {
      try {
        if (closing) return socket.destroy();
        target.handleUpgrade(req, socket, head, (ws) => {
          const offered = ws.protocol.startsWith(TOKEN_PROTOCOL_PREFIX) ? ws.protocol.slice(TOKEN_PROTOCOL_PREFIX.length) : undefined;
          // One that gave its token in the upgrade never waits among those without one (a flood of
          // them could otherwise push the page out). ws puts `head` back into the socket, so the
          // counter sees it with the rest.
          const authenticated = offered === undefined ? unauthenticated.admit(socket) : undefined;
          serveConnection(ws, {
            offeredToken: offered,
            router: options.router,
            hub: options.hub,
            token,
            authDeadlineMs: timeouts.authMs,
            heartbeatMs: timeouts.heartbeatMs,
            report,
            maxBufferedBytes: options.maxBufferedBytes,
            onAuthenticated: authenticated,
          });
        });
      } catch (error) {
        report("a WebSocket upgrade", error);
        socket.destroy();
      }
    };
    if (wss) upgrade(wss);
    else
      loadWebSocketServer().then(upgrade, (error: unknown) => {
        report("loading the WebSocket server", error);
        socket.destroy();
      });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      server.on("error", (error) => report("the HTTP server", error));
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const origin = `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
  return {
    url: `${origin}/#token=${token}`,
    origin,
    port,
    token,
    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        if (wss) {
          for (const client of wss.clients) client.terminate();
          wss.close();
        }
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const STATUS_TEXT: Record<number, string> = { 400: "Bad Request", 403: "Forbidden", 404: "Not Found" };

function refuseUpgrade(socket: Duplex, status: number, reason: string): void {
  const body = `${reason}\n`;
  const headers = Object.entries(COMMON_HEADERS)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("");
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nConnection: close\r\ncontent-type: text/plain; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\n${headers}\r\n${body}`,
  );
}
