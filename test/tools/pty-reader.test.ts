// The terminal reader (app/main/tools/pty-reader.ts and its native thread, native/pty-reader.c):
// built and loaded on Linux; every byte once and in order, from a pipe and from a terminal; the
// same bytes as node-pty's own events; node-pty's socket kept off the terminal; finish() ends even
// while a background process keeps writing, and past a throwing consumer; the thread and its
// descriptors gone at the end (a background writer then finds the terminal closed); no freed
// memory touched when the handle is collected first, stop() outlives it or a worker is torn down
// (also under AddressSanitizer); a binary older than its source is reported; wrong arguments
// refused with a clear error.
import { execFileSync, spawn, spawnSync, type SpawnSyncReturns } from "node:child_process";
import { closeSync, constants, existsSync, openSync, readdirSync, readFileSync, statSync, writeSync } from "node:fs";
import path from "node:path";
import * as pty from "node-pty";
import { afterAll, expect, it } from "vitest";
import { ptyCommandLine } from "../../app/main/tools/pty-command.ts";
import { loadNativeReader, nativeReaderPath, readTerminal, SLICE_BYTES, TURN_MS, type TerminalReader } from "../../app/main/tools/pty-reader.ts";
import { describeWhen } from "../support/requirements.ts";
import { tempDir } from "./helpers.ts";

const scratch = tempDir("lathe-pty-reader-");
afterAll(() => scratch.cleanup());

const native = loadNativeReader();
const needsReader = process.platform !== "linux" ? `needs Linux (this is ${process.platform})` : native.module ? null : `the native reader is missing: ${native.problem}`;

/** This process's native reader threads still running. */
function readerThreads(): number {
  return readdirSync("/proc/self/task").filter((task) => {
    try {
      return readFileSync(`/proc/self/task/${task}/comm`, "utf8").trim() === "lathe-pty-read";
    } catch {
      return false; // ended meanwhile
    }
  }).length;
}

/** Runs `command` in a terminal, read by `readTerminal` (or node-pty's events when LATHE_PTY_READER=node). */
async function readCommand(
  command: string,
  reader: "default" | "node" = "default",
): Promise<{ bytes: Buffer; kind: TerminalReader["kind"]; chunks: number[]; socketData: number }> {
  const [file, ...args] = ptyCommandLine("/bin/bash", command);
  const before = process.env.LATHE_PTY_READER;
  if (reader === "node") process.env.LATHE_PTY_READER = "node";
  const term = pty.spawn(file!, args, { name: "xterm-256color", cols: 80, rows: 24, cwd: scratch.dir, env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, encoding: null });
  const parts: Buffer[] = [];
  const chunks: number[] = [];
  let terminal: TerminalReader;
  try {
    terminal = readTerminal(term, (chunk) => {
      parts.push(Buffer.from(chunk));
      chunks.push(chunk.length);
    });
  } finally {
    if (before === undefined) delete process.env.LATHE_PTY_READER;
    else process.env.LATHE_PTY_READER = before;
  }
  // Whatever node-pty's own socket reads (it must read nothing while the native reader runs).
  let socketData = 0;
  if (terminal.kind === "native") term.onData((d) => (socketData += d.length));
  await new Promise<void>((resolve) => term.onExit(() => resolve()));
  await terminal.finish();
  return { bytes: Buffer.concat(parts), kind: terminal.kind, chunks, socketData };
}

/** `sh -c script` in a terminal, output as bytes. */
const spawnShell = (script: string) =>
  pty.spawn("/bin/sh", ["-c", script], { cols: 80, rows: 24, cwd: scratch.dir, env: { PATH: process.env.PATH ?? "/usr/bin:/bin" }, encoding: null });

describeWhen(needsReader, "the native terminal reader", () => {
  it("reads a pipe on its own thread: every byte in order, in large batches, then the end", async () => {
    const fifo = path.join(scratch.dir, "pipe");
    execFileSync("mkfifo", [fifo]);
    const fd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const size = 5 * 1024 * 1024;
    // Bytes that differ from one position to the next, so a lost or repeated chunk shows.
    const expected = Buffer.alloc(size);
    for (let i = 0; i < size; i++) expected[i] = (i * 7 + (i >> 12)) & 0xff;
    // The writer makes the same bytes and writes them 4 KB at a time, as a program would.
    const writerScript = `const fs = require("fs"); const b = Buffer.alloc(${size}); for (let i = 0; i < b.length; i++) b[i] = (i * 7 + (i >> 12)) & 0xff;
      const fd = fs.openSync(${JSON.stringify(fifo)}, "w"); for (let at = 0; at < b.length; ) at += fs.writeSync(fd, b, at, Math.min(4096, b.length - at));`;
    // A FIFO without a writer reads as ended: this process holds a write end until the writer is done.
    const keeper = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    const parts: Buffer[] = [];
    let ends = 0;
    const ended = new Promise<void>((resolve) => {
      const reader = native.module!.start(fd, (chunk, end) => {
        if (chunk) parts.push(Buffer.from(chunk)); // a copy: the chunk's memory takes the next batch
        if (!end) return void setImmediate(() => reader.ack());
        ends++;
        resolve();
      });
    });
    const writer = spawn(process.execPath, ["-e", writerScript], { stdio: "ignore" });
    await new Promise((resolve) => writer.on("close", resolve));
    closeSync(keeper);
    await ended;
    closeSync(fd);
    expect(ends).toBe(1);
    expect(Buffer.concat(parts).equals(expected)).toBe(true);
    // 4 KB writes arrive in batches: far fewer calls than writes.
    expect(parts.length).toBeLessThan(size / 4096 / 4);
  });

  it("gives the same bytes as node-pty's events, and node-pty's socket reads none of them", async () => {
    // Lines, a UTF-8 character and colours, and a long run without a line end.
    const command = `seq 1 200000; printf '\\303\\251 \\033[31mred\\033[0m\\n'; head -c 300000 /dev/zero | tr '\\0' y; echo`;
    const viaNative = await readCommand(command);
    const viaNodePty = await readCommand(command, "node");
    expect(viaNative.kind).toBe("native");
    expect(viaNodePty.kind).toBe("node-pty");
    expect(viaNative.socketData).toBe(0);
    expect(viaNative.bytes.length).toBeGreaterThan(1_500_000);
    expect(viaNative.bytes.equals(viaNodePty.bytes)).toBe(true);
    expect(Math.max(...viaNative.chunks)).toBeGreaterThan(4096);
  });

  it("lets the event loop turn between batches, and within one once its slices have taken TURN_MS", async () => {
    // Each chunk takes the main thread a while (as redaction of a large batch does); an immediate
    // queued in one chunk's call must run before more than TURN_MS of chunks have been handed
    // over. Node runs a threadsafe function's queued calls back to back, so a reader that handed
    // over its next batch as soon as the last call returned kept the loop from turning for the
    // whole output; and a 256 KB batch given at once held it for 30 to 55 ms under the scanner.
    const term = spawnShell("head -c 20000000 /dev/zero");
    const sizes: number[] = [];
    let calls = 0;
    let mostCallsInOneTurn = 0;
    let immediatePending = false;
    const reader = readTerminal(term, (chunk) => {
      sizes.push(chunk.length);
      calls = immediatePending ? calls + 1 : 1;
      mostCallsInOneTurn = Math.max(mostCallsInOneTurn, calls);
      if (!immediatePending) setImmediate(() => (immediatePending = false));
      immediatePending = true;
      const until = performance.now() + 1;
      while (performance.now() < until);
    });
    expect(reader.kind).toBe("native");
    await new Promise<void>((resolve) => term.onExit(() => resolve()));
    await reader.finish();
    expect(sizes.length).toBeGreaterThan(20);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(SLICE_BYTES);
    // Each call takes at least 1 ms: after TURN_MS of them the rest of the batch waits for a turn.
    expect(mostCallsInOneTurn).toBeLessThanOrEqual(TURN_MS);
    // Slow calls make large batches (the thread reads on while one waits): they were sliced.
    expect(sizes.filter((n) => n === SLICE_BYTES).length).toBeGreaterThan(0);
  });

  it("a prompt's few bytes arrive without waiting for more", async () => {
    const term = spawnShell("printf 'Name? '; read x; echo got $x");
    let seen = "";
    const reader = readTerminal(term, (chunk) => {
      seen += Buffer.from(chunk).toString();
      if (seen.includes("Name? ") && !seen.includes("bob")) term.write("bob\r");
    });
    expect(reader.kind).toBe("native");
    await new Promise<void>((resolve) => term.onExit(() => resolve()));
    await reader.finish();
    expect(seen).toContain("got bob");
  });

  it("finish() ends reading while a background process keeps writing to the terminal", async () => {
    // `yes` ignores the hang-up that the shell's exit sends, and holds the terminal open.
    const term = spawnShell("(trap '' HUP; exec yes) & sleep 0.3");
    let bytes = 0;
    const reader = readTerminal(term, (chunk) => (bytes += chunk.length));
    expect(reader.kind).toBe("native");
    try {
      await new Promise<void>((resolve) => term.onExit(() => resolve()));
      const before = bytes;
      await reader.finish();
      // After finish() no more output is taken, however long `yes` runs.
      const after = bytes;
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(bytes).toBe(after);
      expect(after).toBeGreaterThanOrEqual(before);
      // and its thread has ended (it names itself)
      await expect.poll(readerThreads).toBe(0);
    } finally {
      try {
        process.kill(-term.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  });

  it("closes its copy of the descriptor when it ends, not when its handle is collected", async () => {
    const fifo = path.join(scratch.dir, "pipe-fds");
    execFileSync("mkfifo", [fifo]);
    const fd = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const keeper = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    const open = () => readdirSync("/proc/self/fd").length;
    const before = open();
    let ended!: () => void;
    const end = new Promise<void>((resolve) => (ended = resolve));
    // The handle stays reachable: the collector cannot be what closes the descriptors.
    const handle = native.module!.start(fd, (_chunk, last) => (last ? ended() : setImmediate(() => handle.ack())));
    expect(open()).toBe(before + 3); // the duplicate and the stop pipe
    await expect.poll(readerThreads).toBe(1);
    writeSync(keeper, "x");
    closeSync(keeper);
    await end;
    await new Promise((resolve) => setTimeout(resolve, 20)); // the thread closes them as it ends
    expect(open()).toBe(before - 1); // only `keeper` less
    expect(readerThreads()).toBe(0);
    handle.stop(); // after the end: nothing to do, no descriptor touched
    handle.stop();
    closeSync(fd);
  });

  it("after finish(), a background writer left on the terminal finds it closed, as with node-pty", async () => {
    // `yes` ignores the hang-up; once nothing reads the pty any more it must get EIO and exit,
    // not block forever on a full terminal held open by the reader's copy of the descriptor.
    for (const kind of ["default", "node"] as const) {
      const before = process.env.LATHE_PTY_READER;
      if (kind === "node") process.env.LATHE_PTY_READER = "node";
      const term = spawnShell("(trap '' HUP; exec yes) & sleep 0.2");
      let reader: TerminalReader;
      try {
        reader = readTerminal(term, () => undefined);
      } finally {
        if (before === undefined) delete process.env.LATHE_PTY_READER;
        else process.env.LATHE_PTY_READER = before;
      }
      expect(reader.kind).toBe(kind === "node" ? "node-pty" : "native");
      const group = term.pid;
      const alive = () => {
        try {
          process.kill(-group, 0);
          return true;
        } catch {
          return false;
        }
      };
      try {
        await new Promise<void>((resolve) => term.onExit(() => resolve()));
        await reader.finish();
        for (let waited = 0; alive() && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
        expect(alive(), `${kind}: yes still runs after finish()`).toBe(false);
      } finally {
        if (alive()) process.kill(-group, "SIGKILL");
      }
    }
  });

  it("finish() resolves even when onChunk throws, at the end too", async () => {
    const term = spawnShell("echo one; sleep 0.05; echo two");
    let calls = 0;
    const reader = readTerminal(term, () => {
      calls++;
      throw new Error("a consumer's bug");
    });
    expect(reader.kind).toBe("native");
    await new Promise<void>((resolve) => term.onExit(() => resolve()));
    await reader.finish();
    expect(calls).toBeGreaterThan(0);
  });

  /**
   * A collected handle before the end, stop() kept past its handle, a worker torn down while its
   * reader waits, in a process of its own with `binary`: prints what was read when nothing broke.
   */
  function lifetimeScenes(binary: string, env: NodeJS.ProcessEnv): SpawnSyncReturns<string> {
    const script = `
      const fs = require("fs"), path = require("path"), { execFileSync } = require("child_process"), { Worker } = require("worker_threads");
      const binary = ${JSON.stringify(binary)}, dir = ${JSON.stringify(scratch.dir)};
      const reader = require(binary);
      let n = 0;
      const fifo = () => { const p = path.join(dir, "child-" + process.pid + "-" + n++); execFileSync("mkfifo", [p]);
        return { rd: fs.openSync(p, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK), wr: fs.openSync(p, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK) }; };
      const tick = (ms) => new Promise((r) => setTimeout(r, ms));
      (async () => {
        // 1. The handle is dropped and collected while the thread reads; the end comes later.
        const a = fifo(); let got = 0, endA = false;
        // ack() is kept (the next batch waits for it), the handle and stop() are not.
        let ackA; (() => { ackA = reader.start(a.rd, (c, e) => { if (c) got += c.length; if (e) endA = true; else setImmediate(ackA); }).ack; })();
        for (let i = 0; i < 3; i++) { global.gc(); await tick(10); }
        fs.writeSync(a.wr, Buffer.alloc(1000, 1)); await tick(20); fs.closeSync(a.wr);
        for (let i = 0; i < 200 && !endA; i++) await tick(10);
        // 2. stop() kept, its handle dropped and collected after the end.
        const b = fifo(); let endB = false;
        const { stop, ack } = reader.start(b.rd, (c, e) => { if (e) endB = true; else setImmediate(ack); });
        fs.closeSync(b.wr);
        for (let i = 0; i < 200 && !endB; i++) await tick(10);
        for (let i = 0; i < 3; i++) { global.gc(); await tick(10); }
        stop(); stop();
        // 3. A worker's reader waits on a quiet pipe; the worker is terminated; then bytes come.
        const c = fifo();
        const w = new Worker("const r = require(" + JSON.stringify(binary) + "); globalThis.h = r.start(" + c.rd + ", () => {}); require('worker_threads').parentPort.postMessage(1);", { eval: true });
        await new Promise((r) => w.once("message", r));
        await w.terminate();
        for (let i = 0; i < 5; i++) { fs.writeSync(c.wr, Buffer.alloc(2000, 65)); await tick(10); }
        fs.closeSync(c.wr); await tick(100);
        // 4. spawn (pty-spawn.c): refused arguments, a command that ends, and a worker torn down
        // while its command runs (the thread that waits for it then has nobody to tell).
        let refused = 0;
        for (const args of [["/nope", ["x"], [], dir], ["/bin/true", ["x"], [], "/nope"], ["/bin/true", ["x\\0"], [], dir], ["/bin/true", "x", [], dir]]) {
          try { reader.spawn(...args, 80, 24, () => {}); } catch { refused++; }
        }
        const exit = await new Promise((r) => { const t = reader.spawn("/bin/sh", ["sh", "-c", "exit 7"], [], dir, 80, 24, (code, signal) => { fs.closeSync(t.fd); r([code, signal]); }); });
        const v = new Worker("const r = require(" + JSON.stringify(binary) + "); r.spawn('/bin/sleep', ['sleep', '0.3'], [], '/', 80, 24, () => {}); require('worker_threads').parentPort.postMessage(1);", { eval: true });
        await new Promise((r) => v.once("message", r));
        await v.terminate(); await tick(500);
        // 5. spawnPipes (pipe-spawn.c): the same, with pipes; the output read once it has ended.
        for (const args of [["/nope", ["x"], [], dir], ["/bin/true", ["x"], [], "/nope"], ["/bin/true", ["x\\0"], [], dir], ["/bin/true", "x", [], dir], ["true", ["x"], [], dir]]) {
          try { reader.spawnPipes(...args, [true, true, true], () => {}); } catch { refused++; }
        }
        const piped = await new Promise((r) => { const p = reader.spawnPipes("/bin/sh", ["sh", "-c", "echo hi; exit 5"], [], dir, [false, true, false], (code, signal) => {
          const b = Buffer.alloc(16); const n = fs.readSync(p.stdout, b); fs.closeSync(p.stdout); r([code, signal, b.toString("utf8", 0, n), p.stdin, p.stderr]); }); });
        const u = new Worker("const r = require(" + JSON.stringify(binary) + "); r.spawnPipes('/bin/sleep', ['sleep', '0.3'], [], '/', [false, false, false], () => {}); require('worker_threads').parentPort.postMessage(1);", { eval: true });
        await new Promise((r) => u.once("message", r));
        await u.terminate(); await tick(500);
        console.log(JSON.stringify({ got, endA, endB, refused, exit, piped }));
      })();`;
    return spawnSync(process.execPath, ["--expose-gc", "-e", script], { encoding: "utf8", timeout: 60_000, env: { ...process.env, ...env } });
  }

  it("a handle collected before the end, stop() kept past it, a worker torn down while its reader runs: no freed memory touched", () => {
    // Freed memory filled with 0xa5 (glibc's MALLOC_PERTURB_), so a use after free crashes: before
    // the fix the end after a collected handle read the freed reader (SIGSEGV), and a worker's
    // reader called Node's freed threadsafe function (SIGABRT).
    const child = lifetimeScenes(nativeReaderPath(), { MALLOC_PERTURB_: "165" });
    expect(child.signal, child.stderr).toBeNull();
    expect(child.status, child.stderr).toBe(0);
    expect(JSON.parse(child.stdout)).toEqual({ got: 1000, endA: true, endB: true, refused: 9, exit: [7, 0], piped: [5, 0, "hi\n", -1, -1] });
  });

  it("the same scenes with the reader built with AddressSanitizer and UBSan (where gcc has them)", ({ skip }) => {
    // ASan also sees what MALLOC_PERTURB_ cannot: stop() on a freed reader (a lock and a write to a
    // descriptor number that may belong to another file by then). A sanitized Node is slow on a
    // loaded machine (7 s idle, 43 s seen at load 13): its own timeout.
    const include = path.join(path.dirname(process.execPath), "..", "include", "node");
    const lib = (name: string) => spawnSync("gcc", [`-print-file-name=${name}`], { encoding: "utf8" }).stdout?.trim() ?? "";
    const [asan, ubsan] = [lib("libasan.so"), lib("libubsan.so")];
    if (!existsSync(path.join(include, "node_api.h")) || !path.isAbsolute(asan) || !path.isAbsolute(ubsan)) return skip("needs gcc with libasan and libubsan, and Node's headers");
    const binary = path.join(scratch.dir, "pty_reader_asan.node");
    const sources = ["pty-reader.c", "pty-spawn.c", "pipe-spawn.c", "spawn-common.c"].map((file) => path.join(path.dirname(nativeReaderPath()), "../..", file));
    const flags = ["-shared", "-fPIC", "-g", "-O1", "-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", "-fno-omit-frame-pointer"];
    const built = spawnSync("gcc", [...flags, `-I${include}`, ...sources, "-o", binary], { encoding: "utf8" });
    expect(built.status, built.stderr).toBe(0);
    const child = lifetimeScenes(binary, { LD_PRELOAD: `${asan}:${ubsan}`, ASAN_OPTIONS: "detect_leaks=0" });
    expect(child.stderr).not.toMatch(/AddressSanitizer|runtime error/);
    expect(child.status, child.stderr).toBe(0);
    expect(JSON.parse(child.stdout)).toEqual({ got: 1000, endA: true, endB: true, refused: 9, exit: [7, 0], piped: [5, 0, "hi\n", -1, -1] });
  }, 120_000);

  it("the binary is built from the current source, and a build leaves a current one alone", () => {
    // After a pull that changed the C file, `npm run build` (and bench) rebuild it: scripts/build-native.mjs --if-stale.
    const binary = nativeReaderPath();
    const sources = ["pty-reader.c", "pty-spawn.c", "pipe-spawn.c", "spawn-common.c", "spawn-common.h", "binding.gyp"].map((file) =>
      path.join(path.dirname(binary), "../..", file),
    );
    for (const file of sources) expect(statSync(file).mtimeMs, `${file} is newer than ${binary}: run node scripts/build-native.mjs`).toBeLessThanOrEqual(statSync(binary).mtimeMs);
    const before = statSync(binary).mtimeMs;
    const run = spawnSync(process.execPath, [path.join(import.meta.dirname, "../../scripts/build-native.mjs"), "--if-stale"], { encoding: "utf8", timeout: 60_000 });
    expect(run.status).toBe(0);
    expect(statSync(binary).mtimeMs).toBe(before);
  });

  it("refuses wrong arguments with a clear error", () => {
    const start = native.module!.start as unknown as (...args: unknown[]) => unknown;
    expect(() => start("three", () => undefined)).toThrow("fd must be a file descriptor");
    expect(() => start(-1, () => undefined)).toThrow("fd must be a file descriptor");
    expect(() => start(0, "not a function")).toThrow("onData must be a function");
    expect(() => start(987_654, () => undefined)).toThrow("could not duplicate");
  });
});

it("finds the binary beside a bundle, unpacked beside app.asar when packaged, and in node-gyp's output from source", () => {
  expect(nativeReaderPath("file:///opt/lathe/out/main/index.cjs")).toBe("/opt/lathe/out/main/native/pty_reader.node");
  expect(nativeReaderPath("file:///opt/Lathe/resources/app.asar/out/main/index.cjs")).toBe("/opt/Lathe/resources/app.asar.unpacked/out/main/native/pty_reader.node");
  expect(nativeReaderPath("file:///src/lathe/app/main/tools/pty-reader.ts")).toBe("/src/lathe/app/main/tools/native/build/Release/pty_reader.node");
});
