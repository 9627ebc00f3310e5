// The headless host's server: the built renderer over HTTP and the IPC router over a WebSocket,
// bound to a loopback address only. Every request must carry the session token, in the URL
// (`?token=`) or in the cookie set when the page was opened with it; anything else gets 401, and
// connections from a non-loopback peer or with a foreign Host header (DNS rebinding) get 403.
// WebSocket protocol: client sends { id, method, params }; server answers { id, result } with the
// router's IpcResult, and pushes { event, payload }.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { createReadStream, statSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize, sep } from "node:path";
import { WebSocketServer, type WebSocket } from "ws";
import { CONTENT_SECURITY_POLICY } from "../../shared/csp.ts";
import type { EventName } from "../../shared/ipc/contract.ts";
import { EventBatcher } from "../ipc/event-batcher.ts";
import type { EventHub } from "../ipc/event-hub.ts";
import type { IpcRouter } from "../ipc/router.ts";

export interface HostServerOptions {
  router: IpcRouter;
  hub: EventHub;
  /** Folder of the built renderer (out/renderer). */
  rendererDir: string;
  port?: number;
  /** Must be a loopback address; default 127.0.0.1. */
  host?: string;
  token?: string;
}

export interface HostServer {
  url: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

const COOKIE = "lathe_token";
const MIME: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
  ".json": "application/json",
  ".map": "application/json",
};

export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const a = address.startsWith("::ffff:") ? address.slice(7) : address;
  return a === "::1" || a === "localhost" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(a);
}

function tokenMatches(expected: string, given: string | undefined | null): boolean {
  if (!given) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

function cookieToken(req: IncomingMessage): string | undefined {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const [k, v] = part.trim().split("=");
    if (k === COOKIE) return v;
  }
  return undefined;
}

export async function startHostServer(options: HostServerOptions): Promise<HostServer> {
  const host = options.host ?? "127.0.0.1";
  if (!isLoopback(host)) {
    throw new Error(`The headless host only listens on a loopback address (127.0.0.1 or ::1), not "${host}". Use an SSH tunnel to reach it from another machine.`);
  }
  const token = options.token ?? randomBytes(24).toString("base64url");

  const authorize = (req: IncomingMessage): 401 | 403 | null => {
    if (!isLoopback(req.socket.remoteAddress)) return 403;
    const hostHeader = (req.headers.host ?? "").replace(/:\d+$/, "").replace(/^\[|\]$/g, "");
    if (!isLoopback(hostHeader)) return 403;
    const url = new URL(req.url ?? "/", "http://localhost");
    return tokenMatches(token, url.searchParams.get("token")) || tokenMatches(token, cookieToken(req)) ? null : 401;
  };

  const server: Server = createServer((req, res) => {
    const denied = authorize(req);
    if (denied) {
      res.writeHead(denied, { "content-type": "text/plain" }).end(denied === 401 ? "A valid token is required: open the URL the host printed.\n" : "Forbidden\n");
      return;
    }
    serveStatic(options.rendererDir, req, res, token);
  });

  const wss = new WebSocketServer({ noServer: true, maxPayload: 32 * 1024 * 1024 });
  server.on("upgrade", (req, socket, head) => {
    const denied = authorize(req);
    if (denied) {
      socket.end(`HTTP/1.1 ${denied} ${denied === 401 ? "Unauthorized" : "Forbidden"}\r\nConnection: close\r\n\r\n`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => connect(ws, options));
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}/?token=${token}`,
    port,
    token,
    close: () =>
      new Promise<void>((resolve) => {
        for (const client of wss.clients) client.terminate();
        wss.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function connect(ws: WebSocket, options: HostServerOptions): void {
  const send = (message: unknown): void => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
  };
  const batcher = new EventBatcher((event: EventName, payload: unknown) => send({ event, payload }));
  const remove = options.hub.add(batcher);
  ws.on("message", async (raw) => {
    let message: { id?: unknown; method?: unknown; params?: unknown };
    try {
      message = JSON.parse(raw.toString()) as typeof message;
      if (message === null || typeof message !== "object" || Array.isArray(message)) throw new Error("not an object");
    } catch {
      send({ id: null, result: { ok: false, error: { code: "invalid-request", message: "Messages must be JSON objects { id, method, params }." } } });
      return;
    }
    const { id = null, method, params } = message;
    const result = await options.router.handle(method, params);
    send({ id: typeof id === "number" || typeof id === "string" ? id : null, result });
  });
  ws.on("close", () => {
    remove();
    batcher.dispose();
  });
  ws.on("error", () => ws.terminate());
}

function serveStatic(root: string, req: IncomingMessage, res: ServerResponse, token: string): void {
  const url = new URL(req.url ?? "/", "http://localhost");
  const relative = url.pathname === "/" ? "index.html" : decodeURIComponent(url.pathname.slice(1));
  const file = normalize(join(root, relative));
  if (!file.startsWith(normalize(root) + sep)) {
    res.writeHead(404).end();
    return;
  }
  let size: number;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) throw new Error("not a file");
    size = stat.size;
  } catch {
    res.writeHead(404, { "content-type": "text/plain" }).end(`Not found: ${url.pathname}\n`);
    return;
  }
  const headers: Record<string, string | number> = {
    "content-type": MIME[extname(file)] ?? "application/octet-stream",
    "content-length": size,
    "cache-control": "no-cache",
    "x-content-type-options": "nosniff",
  };
  if (relative === "index.html") {
    headers["set-cookie"] = `${COOKIE}=${token}; HttpOnly; SameSite=Strict; Path=/`;
    headers["content-security-policy"] = CONTENT_SECURITY_POLICY;
  }
  res.writeHead(200, headers);
  createReadStream(file).pipe(res);
}
