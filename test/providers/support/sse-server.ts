// A scripted HTTP server on 127.0.0.1 for provider tests: records every request (method, path,
// headers, parsed JSON body) and answers each with the next scripted reply: a status, headers,
// and body bytes sent in chunks of a chosen size with optional delays, then optionally a socket
// destroyed mid-body or a connection left open with no more bytes (a stall).
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface ScriptedReply {
  status?: number;
  headers?: Record<string, string>;
  /** The whole body; sent in `chunkSize`-byte pieces (default: one piece). */
  body?: string | Buffer;
  /** Or explicit pieces, sent as they are. */
  chunks?: (string | Buffer)[];
  chunkSize?: number;
  /** Wait before each piece. */
  delayMs?: number;
  /** Destroy the socket after sending this many pieces. */
  destroyAfter?: number;
  /** Stop sending after this many pieces and keep the connection open. */
  stallAfter?: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
  /** Set when the client closed the connection before the reply was complete. */
  closedByClient: boolean;
}

export interface TestServer {
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

type Script = ScriptedReply[] | ((request: RecordedRequest, index: number) => ScriptedReply);

const SSE_HEADERS = { "content-type": "text/event-stream", "cache-control": "no-cache" };

function pieces(reply: ScriptedReply): Buffer[] {
  if (reply.chunks) return reply.chunks.map((chunk) => Buffer.from(chunk));
  const body = Buffer.from(reply.body ?? "");
  if (!reply.chunkSize) return [body];
  const out: Buffer[] = [];
  for (let offset = 0; offset < body.length; offset += reply.chunkSize) out.push(body.subarray(offset, offset + reply.chunkSize));
  return out;
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startServer(script: Script, pathPrefix = ""): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer(async (req, res) => {
    const raw: Buffer[] = [];
    for await (const chunk of req) raw.push(chunk as Buffer);
    const text = Buffer.concat(raw).toString("utf8");
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // keep the raw text
    }
    const record: RecordedRequest = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body, closedByClient: false };
    const index = requests.length;
    requests.push(record);
    res.on("close", () => {
      if (!res.writableFinished) record.closedByClient = true;
    });
    const reply = typeof script === "function" ? script(record, index) : (script[index] ?? { status: 500, body: "no scripted reply left" });
    const status = reply.status ?? 200;
    res.writeHead(status, { ...(status === 200 ? SSE_HEADERS : { "content-type": "application/json" }), ...reply.headers });
    res.flushHeaders();
    const parts = pieces(reply);
    // Cutting the connection: flush what was written, then close the socket mid-body.
    const cut = () => void res.socket?.end();
    for (let i = 0; i < parts.length; i++) {
      if (reply.destroyAfter === i) return cut();
      if (reply.stallAfter === i) return;
      if (reply.delayMs) await wait(reply.delayMs);
      if (res.destroyed) return;
      await new Promise<void>((resolve) => res.write(parts[i]!, () => resolve()));
    }
    if (reply.destroyAfter === parts.length) return cut();
    if (reply.stallAfter === parts.length) return;
    res.end();
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}${pathPrefix}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** One server-sent event with a name, as Anthropic and the Responses API send them. */
export function sseEvent(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** One unnamed event, as Chat Completions sends them. */
export function sseData(data: unknown): string {
  return `data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
}
