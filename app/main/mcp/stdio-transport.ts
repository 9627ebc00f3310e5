// The stdio transport of Lathe's MCP client (the SDK's Transport interface). It replaces the
// SDK's StdioClientTransport, whose line buffer copies everything received so far on every chunk
// (a 16 MB line costs seconds of main-process time): here a line is joined once, and a line over
// `maxMessageBytes` closes the connection at once. The server is started with cross-spawn (npx
// and other .cmd shims on Windows, without a shell) with the SDK's safe variables (PATH, HOME…)
// plus its own `env`; stderr goes to `onStderr`. `close` ends stdin, then SIGTERM after 2 s, then
// SIGKILL. `exitDescription` says how the process ended. Never throws from a stream callback.
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { ChildProcess } from "node:child_process";
import spawn from "cross-spawn";

export interface StdioTransportOptions {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  maxMessageBytes: number;
  onStderr: (text: string) => void;
}

const GRACE_MS = 2_000;

export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly o: StdioTransportOptions;
  private child: ChildProcess | undefined;
  private exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(options: StdioTransportOptions) {
    this.o = options;
  }

  /** "exited with code 3", "was killed by SIGKILL"; undefined while it runs. */
  exitDescription(): string | undefined {
    if (!this.exited) return undefined;
    return this.exited.signal ? `was stopped by ${this.exited.signal}` : `exited with code ${this.exited.code}`;
  }

  start(): Promise<void> {
    if (this.child) return Promise.reject(new Error("The transport is already started."));
    return new Promise((resolve, reject) => {
      const child = spawn(this.o.command, this.o.args, {
        env: { ...getDefaultEnvironment(), ...this.o.env },
        cwd: this.o.cwd,
        stdio: ["pipe", "pipe", "pipe"],
        shell: false,
        windowsHide: true,
      });
      this.child = child;
      child.on("error", (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on("spawn", () => resolve());
      child.on("close", (code, signal) => {
        this.exited = { code, signal };
        this.child = undefined;
        this.onclose?.();
      });
      child.stdin?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("data", (chunk: Buffer) => this.read(chunk));
      child.stderr?.on("data", (chunk: Buffer) => this.o.onStderr(chunk.toString("utf8")));
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || stdin.destroyed) return Promise.reject(new Error("Not connected"));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    this.chunks = [];
    this.size = 0;
    if (!child) return;
    const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
    const wait = () => Promise.race([closed, new Promise<void>((resolve) => setTimeout(resolve, GRACE_MS).unref())]);
    try {
      child.stdin?.end();
    } catch {
      // already closed
    }
    await wait();
    for (const signal of ["SIGTERM", "SIGKILL"] as const) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      try {
        child.kill(signal);
      } catch {
        // gone
      }
      await wait();
    }
  }

  /** Splits stdout into lines, joining the pieces of a line once. */
  private read(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      if (newline === -1) break;
      const piece = chunk.subarray(start, newline);
      const line = this.size === 0 ? piece : Buffer.concat([...this.chunks, piece], this.size + piece.length);
      this.chunks = [];
      this.size = 0;
      start = newline + 1;
      if (line.length > this.o.maxMessageBytes) return this.tooLarge();
      this.emit(line);
      if (!this.child) return;
    }
    if (start < chunk.length) {
      this.chunks.push(chunk.subarray(start));
      this.size += chunk.length - start;
      if (this.size > this.o.maxMessageBytes) this.tooLarge();
    }
  }

  private emit(line: Buffer): void {
    const text = line.toString("utf8").replace(/\r$/, "");
    if (!text.trim()) return;
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(text);
    } catch (error) {
      const shown = text.length > 120 ? `${text.slice(0, 120)}…` : text;
      this.onerror?.(new Error(`A line that is not a JSON-RPC message (${(error as Error).name}): ${JSON.stringify(shown)}`));
      return;
    }
    this.onmessage?.(message);
  }

  private tooLarge(): void {
    this.chunks = [];
    this.size = 0;
    this.onerror?.(new Error(`A message exceeded maximum size of ${this.o.maxMessageBytes} bytes`));
    void this.close();
  }
}
