// The pty host (app/main/tools/pty-host.ts): commands' terminals in a worker thread, output in
// batches, flow control, and what happens when the worker fails.
import { afterEach, describe, expect, it } from "vitest";
import { type HostedPty, type PtyExit, PtyHost } from "../../app/main/tools/pty-host.ts";

const hosts: PtyHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});

function makeHost(limits?: ConstructorParameters<typeof PtyHost>[0]): PtyHost {
  const host = new PtyHost(limits);
  hosts.push(host);
  return host;
}

const options = { name: "xterm", cols: 80, rows: 24, cwd: "/", env: { PATH: process.env.PATH ?? "/usr/bin:/bin" } };

/** Runs `command` with sh; `onChunk` sees each batch as it arrives. */
async function run(host: PtyHost, command: string, onChunk: (bytes: Buffer) => void = () => {}): Promise<{ output: Buffer; exit: PtyExit; pty: HostedPty }> {
  const pty = await host.spawn("/bin/sh", ["-c", command], options);
  const chunks: Buffer[] = [];
  const exit = await new Promise<PtyExit>((resolve) => {
    pty.onData((bytes) => {
      chunks.push(Buffer.from(bytes)); // a copy: the batch's memory is reused after the listener
      onChunk(bytes);
    });
    pty.onExit(resolve);
  });
  return { output: Buffer.concat(chunks), exit, pty };
}

function blockFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe("pty host", () => {
  it("runs a command in a terminal and delivers its whole output in order, then its exit", async () => {
    const host = makeHost();
    // 3 MB of numbered lines: order and completeness are checked line by line.
    const { output, exit, pty } = await run(host, "stty -opost; seq 1 400000");
    expect(exit).toEqual({ exitCode: 0, signal: undefined });
    expect(pty.pid).toBeGreaterThan(0);
    const lines = output.toString("latin1").split("\n");
    expect(lines.at(-1)).toBe("");
    expect(lines.length - 1).toBe(400_000);
    expect(lines.every((line, i) => i === lines.length - 1 || line === String(i + 1))).toBe(true);
  });

  it("sends output in batches, not one message per read of the terminal", async () => {
    const host = makeHost();
    let batches = 0;
    const { output } = await run(host, "head -c 8000000 /dev/zero | tr '\\0' a", () => batches++);
    expect(output.length).toBe(8_000_000);
    // The kernel hands a pty's output over about 4 KB at a time (about 2,000 reads here); batches
    // hold up to 128 KB.
    expect(batches).toBeLessThan(800);
  });

  it("passes what is written to the command", async () => {
    const host = makeHost();
    const pty = await host.spawn("/bin/sh", ["-c", "read line; echo got:$line"], options);
    let output = "";
    pty.onData((bytes) => (output += bytes.toString("utf8")));
    const exit = new Promise<PtyExit>((resolve) => pty.onExit(resolve));
    pty.write("hello\r");
    expect((await exit).exitCode).toBe(0);
    expect(output).toContain("got:hello");
  });

  it("stops reading while the main thread is behind (flow control), and loses nothing", async () => {
    const limits = { highBytes: 64 * 1024, lowBytes: 16 * 1024, batchBytes: 16 * 1024, batchMs: 4 };
    const host = makeHost({ limits });
    // The main thread blocks for 600 ms on the first batch; everything the worker sent meanwhile
    // waits in the port and arrives in one burst, before any timer or I/O of this thread runs.
    let blocked = false;
    let burst = -1;
    let received = 0;
    const { output } = await run(host, "head -c 20000000 /dev/zero | tr '\\0' b", (bytes) => {
      received += bytes.length;
      if (blocked) return;
      blocked = true;
      blockFor(600);
      const mark = received;
      setImmediate(() => (burst = received - mark));
    });
    expect(output.length).toBe(20_000_000);
    expect(output.every((b) => b === 0x62)).toBe(true);
    // Without flow control the burst is what the command wrote in 600 ms (megabytes); with it, at
    // most the high-water mark plus one batch and one read of the terminal.
    expect(burst).toBeGreaterThanOrEqual(0);
    expect(burst).toBeLessThanOrEqual(limits.highBytes + limits.batchBytes + 64 * 1024);
  });

  it("reads a paused terminal to its end when its command exits (node-pty would drop it after 200 ms)", async () => {
    const limits = { highBytes: 1, lowBytes: 0, batchBytes: 1024, batchMs: 1 };
    const host = makeHost({ limits });
    // The first line pauses the terminal (the main thread then blocks 900 ms, acknowledging
    // nothing); the command writes 3,000 bytes, which fit in the kernel's buffer of the terminal,
    // and exits while nobody reads them.
    let first = true;
    const { output, exit } = await run(host, "echo first; sleep 0.3; head -c 3000 /dev/zero | tr '\\0' c", () => {
      if (!first) return;
      first = false;
      blockFor(900);
    });
    expect(exit.exitCode).toBe(0);
    expect(output.toString("latin1")).toMatch(/^first\r?\nc{3000}$/);
  });

  it("ends every running command with a clear error when the worker fails, and starts a new one for the next", async () => {
    const host = makeHost();
    const pty = await host.spawn("/bin/sh", ["-c", "sleep 30"], options);
    const exit = new Promise<PtyExit>((resolve) => pty.onExit(resolve));
    await host.close();
    const ended = await exit;
    expect(ended.hostError).toMatch(/terminal host/);
    const next = await run(host, "echo again");
    expect(next.exit.exitCode).toBe(0);
    expect(next.output.toString()).toContain("again");
  });

  it("rejects a spawn with the reason when the worker cannot start", async () => {
    const host = makeHost({ workerFile: "/nonexistent/lathe-pty-host-worker.cjs" });
    await expect(host.spawn("/bin/sh", ["-c", "true"], options)).rejects.toThrow(/terminal host/);
  });
});
