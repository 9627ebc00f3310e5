// Runs the real headless host (`app/main/host/cli.ts`, as `npm run serve` does, from source) as a
// child process, and talks to it over its WebSocket like a browser tab: requests, and the events it
// pushes. For tests of what happens between processes: the data folder's lock, kill -9, restarts.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import readline from "node:readline";
import WebSocket from "ws";

const CLI = path.join(import.meta.dirname, "..", "..", "app", "main", "host", "cli.ts");

export interface HostProcess {
  child: ChildProcess;
  /** Everything printed so far. */
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the printed URL once serving, or rejects with the output if it exits first. */
  url: Promise<string>;
  /** Resolves with the exit code (or signal name) when it exits. */
  exited: Promise<number | string>;
}

let rendererDir: string | undefined;

export function startHostProcess(dataDir: string, extraArgs: string[] = [], options: { cli?: string; env?: Record<string, string> } = {}): HostProcess {
  rendererDir ??= (() => {
    const dir = mkdtempSync(path.join(tmpdir(), "lathe-renderer-stub-"));
    writeFileSync(path.join(dir, "index.html"), "<!doctype html><title>Lathe</title>");
    return dir;
  })();
  const child = spawn(process.execPath, [options.cli ?? CLI, "--port", "0", "--data-dir", dataDir, "--renderer-dir", rendererDir, ...extraArgs], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LATHE_DISABLE_UPDATES: "1", ...options.env },
  });
  let out = "";
  let err = "";
  child.stderr!.on("data", (chunk) => (err += chunk));
  const exited = new Promise<number | string>((resolve) => child.on("exit", (code, signal) => resolve(code ?? signal ?? -1)));
  const url = new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).on("line", (line) => {
      out += `${line}\n`;
      const match = /^Open (http:\/\/\S+)$/.exec(line);
      if (match) resolve(match[1]!);
    });
    void exited.then((code) => reject(new Error(`the host exited (${code}) before serving:\n${out}${err}`)));
  });
  url.catch(() => undefined);
  return { child, stdout: () => out, stderr: () => err, url, exited };
}

export interface HostConnection {
  call<T = unknown>(method: string, params?: unknown): Promise<{ ok: boolean; data?: T; error?: { code: string; message: string } }>;
  /** Every pushed event so far, in order. */
  events: { event: string; payload: unknown }[];
  waitFor(predicate: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  close(): void;
}

/** Connects to a host's WebSocket as its page does: its own Origin, the token from the printed address first. */
export function connectHost(url: string): Promise<HostConnection> {
  const parsed = new URL(url);
  const token = new URLSearchParams(parsed.hash.slice(1)).get("token") ?? parsed.searchParams.get("token") ?? "";
  const ws = new WebSocket(`ws://${parsed.host}/ws`, { origin: parsed.origin });
  const waiting = new Map<number, (result: never) => void>();
  const events: HostConnection["events"] = [];
  let id = 0;
  let authenticated: () => void = () => {};
  ws.on("message", (data) => {
    const message = JSON.parse(String(data)) as { id?: number; result?: never; event?: string; payload?: unknown; authenticated?: boolean };
    if (message.authenticated === true) authenticated();
    else if (message.event) events.push({ event: message.event, payload: message.payload });
    else if (typeof message.id === "number") {
      waiting.get(message.id)?.(message.result!);
      waiting.delete(message.id);
    }
  });
  return new Promise((resolve, reject) => {
    ws.on("error", reject);
    ws.on("close", (code) => reject(new Error(`the host closed the connection (${code})`)));
    ws.on("open", () => ws.send(JSON.stringify({ token })));
    authenticated = () =>
      resolve({
        events,
        call: (method, params = {}) =>
          new Promise((done) => {
            const myId = ++id;
            waiting.set(myId, done as never);
            ws.send(JSON.stringify({ id: myId, method, params }));
          }),
        async waitFor(predicate, what, timeoutMs = 20_000) {
          const deadline = Date.now() + timeoutMs;
          while (!predicate()) {
            if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
            await new Promise((r) => setTimeout(r, 10));
          }
        },
        close: () => ws.close(),
      });
  });
}

/** The agent events pushed for a session, flattened from their batches. */
export function sessionEventsOf(connection: HostConnection, sessionId: number): { type: string; [key: string]: unknown }[] {
  return connection.events
    .filter((e) => e.event === "session.events" && (e.payload as { sessionId: number }).sessionId === sessionId)
    .flatMap((e) => (e.payload as { events: { type: string }[] }).events);
}
