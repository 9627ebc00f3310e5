// Raw HTTP and WebSocket bytes for hostile-request tests: requests the fetch API or the ws client
// would refuse to send (bad targets, missing Host, forged headers), and the headless host as a
// child process (`node app/main/host/cli.ts`), so a crash shows as the process exiting.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

const root = path.join(import.meta.dirname, "..", "..", "..");

export interface RawAnswer {
  /** The first line, e.g. "HTTP/1.1 400 Bad Request"; "" when the host closed without a word. */
  statusLine: string;
  status: number;
  /** Every byte the host sent. */
  bytes: Buffer;
  /** A WebSocket close frame's code, when the host sent one. */
  closeCode?: number;
  /** Whether a WebSocket text frame { "authenticated": true } came. */
  authenticated: boolean;
}

/** One client frame (text unless opcode given), masked as a client must. */
export function clientFrame(payload: string | Buffer, opcode = 0x1): Buffer {
  const data = Buffer.isBuffer(payload) ? payload : Buffer.from(payload);
  const mask = randomBytes(4);
  const head =
    data.length < 126
      ? Buffer.from([0x80 | opcode, 0x80 | data.length])
      : data.length < 65536
        ? Buffer.from([0x80 | opcode, 0x80 | 126, data.length >> 8, data.length & 0xff])
        : Buffer.concat([
            Buffer.from([0x80 | opcode, 0x80 | 127]),
            (() => {
              const b = Buffer.alloc(8);
              b.writeBigUInt64BE(BigInt(data.length));
              return b;
            })(),
          ]);
  const body = Buffer.from(data.map((byte, i) => byte ^ mask[i % 4]!));
  return Buffer.concat([head, mask, body]);
}

/** Server frames after the 101 answer: text payloads and the close code, if any. */
function serverFrames(bytes: Buffer): { texts: string[]; closeCode?: number } {
  const texts: string[] = [];
  let i = 0;
  let closeCode: number | undefined;
  while (i + 2 <= bytes.length) {
    const opcode = bytes[i]! & 0x0f;
    let len = bytes[i + 1]! & 0x7f;
    let at = i + 2;
    if (len === 126) {
      len = bytes.readUInt16BE(at);
      at += 2;
    } else if (len === 127) {
      len = Number(bytes.readBigUInt64BE(at));
      at += 8;
    }
    const payload = bytes.subarray(at, at + len);
    if (opcode === 0x1) texts.push(payload.toString());
    if (opcode === 0x8 && payload.length >= 2) closeCode = payload.readUInt16BE(0);
    i = at + len;
  }
  return { texts, closeCode };
}

/**
 * Sends `request` (and then `frames`, once the host answered 101) and collects the answer until the
 * host closes or `timeoutMs` passes (then the socket is closed by us).
 */
export function rawExchange(port: number, request: string | Buffer, frames: Buffer[] = [], timeoutMs = 15_000): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(request));
    const chunks: Buffer[] = [];
    let sentFrames = false;
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.on("data", (chunk) => {
      chunks.push(chunk);
      const sofar = Buffer.concat(chunks);
      const headerEnd = sofar.indexOf("\r\n\r\n");
      if (headerEnd < 0 || sofar.subarray(0, 12).toString() !== "HTTP/1.1 101") return;
      if (!sentFrames) {
        sentFrames = true;
        for (const frame of frames) socket.write(frame);
      }
      // The host said goodbye: do not wait for its closing handshake to time out.
      if (serverFrames(sofar.subarray(headerEnd + 4)).closeCode !== undefined) socket.destroy();
    });
    socket.on("error", () => undefined);
    socket.on("close", () => {
      clearTimeout(timer);
      const bytes = Buffer.concat(chunks);
      const headerEnd = bytes.indexOf("\r\n\r\n");
      const statusLine = bytes.subarray(0, Math.max(0, bytes.indexOf("\r\n"))).toString();
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1] ?? 0);
      const ws = status === 101 && headerEnd >= 0 ? serverFrames(bytes.subarray(headerEnd + 4)) : { texts: [] as string[] };
      resolve({
        statusLine,
        status,
        bytes,
        closeCode: ws.closeCode,
        authenticated: ws.texts.some((t) => t.includes('"authenticated":true')),
      });
    });
  });
}

/** A WebSocket upgrade request with exactly these headers (null leaves one out). */
export function upgradeRequest(target: string, headers: Record<string, string | null>): string {
  const all: Record<string, string | null> = {
    Upgrade: "websocket",
    Connection: "Upgrade",
    "Sec-WebSocket-Key": randomBytes(16).toString("base64"),
    "Sec-WebSocket-Version": "13",
    ...headers,
  };
  const lines = Object.entries(all)
    .filter((e): e is [string, string] => e[1] !== null)
    .map(([k, v]) => `${k}: ${v}\r\n`);
  return `GET ${target} HTTP/1.1\r\n${lines.join("")}\r\n`;
}

export interface HostProcess {
  child: ChildProcess;
  port: number;
  origin: string;
  token: string;
  dataDir: string;
  stderr(): string;
  /** Stops the host (SIGTERM) and removes its folders; resolves with its exit code. */
  stop(): Promise<number | null>;
}

/** Runs `node app/main/host/cli.ts` on a fresh data folder with a one-page renderer. */
export async function startHostProcess(): Promise<HostProcess> {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), "lathe-host-proc-")));
  const rendererDir = path.join(dir, "renderer");
  mkdirSync(rendererDir);
  writeFileSync(path.join(rendererDir, "index.html"), "<!doctype html><title>Lathe</title>");
  const dataDir = path.join(dir, "data");
  const child = spawn(process.execPath, [path.join(root, "app/main/host/cli.ts"), "--port", "0", "--data-dir", dataDir, "--renderer-dir", rendererDir], {
    env: { PATH: process.env.PATH, HOME: dir },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr!.on("data", (d) => (stderr += d));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (d) => {
      stdout += d;
      const match = /Open (\S+)/.exec(stdout);
      if (match) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`the host exited (${code}) before it printed its address: ${stderr}`)));
  });
  const parsed = new URL(url);
  return {
    child,
    port: Number(parsed.port),
    origin: parsed.origin,
    token: new URLSearchParams(parsed.hash.slice(1)).get("token")!,
    dataDir,
    stderr: () => stderr,
    stop: async () => {
      const exited = child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise<number | null>((r) => child.once("exit", (code) => r(code)));
      child.kill("SIGTERM");
      const code = await exited;
      rmSync(dir, { recursive: true, force: true });
      return code;
    },
  };
}
