// Terminals started without fork() (app/main/tools/pty-spawn.ts, native/pty-spawn.c): the command
// leads a session whose controlling terminal is the new pty, sized, with node-pty's modes, PWD
// and TERM, and no signal ignored; its exit code or signal is reported once, also to a listener
// added after the end; input reaches it; the master side is closed once the reader has read the
// end; a missing program or folder is a clear error; a program named without a path, or
// LATHE_PTY_SPAWN=node, goes through node-pty; starting one copies nothing of Lathe's memory
// (after a fork, every page Lathe writes faults once: copy-on-write); and input a command does not
// read waits up to a bound, beyond which it is refused (both kinds of terminal), losing nothing
// taken before.
import { execFileSync, spawnSync } from "node:child_process";
import { closeSync, constants, fstatSync, mkdtempSync, openSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, expect, it } from "vitest";
import { CommandInputFull, MAX_PENDING_INPUT_BYTES, nodePtyPendingBytes } from "../../app/main/tools/pty-input-bound.ts";
import { loadNativeReader, nativeReaderPath, readTerminal } from "../../app/main/tools/pty-reader.ts";
import { spawnTerminal, SpawnedTerminal, type Terminal, type TerminalExit } from "../../app/main/tools/pty-spawn.ts";
import { describeWhen, needsLinux } from "../support/requirements.ts";
import { tempDir } from "./helpers.ts";

const scratch = tempDir("lathe-pty-spawn-");
afterAll(() => scratch.cleanup());

const native = loadNativeReader().module;
const needsSpawn =
  process.platform !== "linux" ? `needs Linux (this is ${process.platform})` : native?.spawn ? null : "the native module has no spawn (not built, or glibc older than 2.29)";
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C.UTF-8" };

/** Runs `script` with bash in a new terminal; its output (read as the bash tool reads it) and exit. */
async function run(script: string, input?: string): Promise<{ term: Terminal; output: string; exit: TerminalExit }> {
  const term = spawnTerminal("/bin/bash", ["--norc", "--noprofile", "-c", script], { cols: 91, rows: 37, cwd: scratch.dir, env });
  const parts: Buffer[] = [];
  const reader = readTerminal(term, (chunk) => parts.push(Buffer.from(chunk)));
  if (input !== undefined) term.write(input);
  const exit = await new Promise<TerminalExit>((resolve) => term.onExit(resolve));
  await reader.finish();
  return { term, output: Buffer.concat(parts).toString("utf8").replace(/\r\n/g, "\n"), exit };
}

/**
 * Types 64 KiB at a time into a command that reads nothing until told to, until a write is
 * refused; then lets it read exactly what was taken, which it counts. Returns what was taken, the
 * refusal, what waited, and the count the command printed.
 */
async function fillThenRead(viaNodePty: boolean, chunkBytes = 64 * 1024, attempts = 64) {
  const dir = mkdtempSync(path.join(scratch.dir, "input-"));
  const script = 'stty -icanon -echo; echo ready; while [ ! -s go ]; do sleep 0.05; done; head -c "$(cat go)" | wc -c';
  if (viaNodePty) process.env.LATHE_PTY_SPAWN = "node";
  let term: Terminal;
  try {
    term = spawnTerminal("/bin/bash", ["--norc", "--noprofile", "-c", script], { cols: 80, rows: 24, cwd: dir, env });
  } finally {
    delete process.env.LATHE_PTY_SPAWN;
  }
  const waiting = () => (term instanceof SpawnedTerminal ? term.pendingInputBytes : nodePtyPendingBytes(term));
  let output = "";
  const reader = readTerminal(term, (chunk) => (output += Buffer.from(chunk).toString("utf8")));
  let ended = false;
  const exited = new Promise((resolve) => term.onExit(resolve)).then(() => (ended = true));
  try {
    await expect.poll(() => output).toContain("ready");
    const chunk = "y".repeat(chunkBytes);
    let taken = 0;
    let refusal: unknown;
    for (let i = 0; i < attempts && refusal === undefined; i++) {
      try {
        term.write(chunk);
        taken += chunk.length;
      } catch (error) {
        refusal = error;
      }
    }
    const waitingAtRefusal = waiting();
    // Refused again and again: nothing more waits.
    const refusedAgain = Array.from({ length: 50 }, () => {
      try {
        term.write(chunk);
        return false;
      } catch (error) {
        return error instanceof CommandInputFull;
      }
    });
    const waitingAfter = waiting();
    // A key (an answer's Enter, the interrupt's Ctrl-C) still fits.
    term.write("k");
    taken += 1;
    writeFileSync(path.join(dir, "go.tmp"), String(taken));
    renameSync(path.join(dir, "go.tmp"), path.join(dir, "go"));
    await exited;
    await reader.finish();
    return { term, taken, refusal, waitingAtRefusal, refusedAgain, waitingAfter, counted: output.trim().split(/\r?\n/).at(-1) };
  } finally {
    // The command, when a failure came before its input.
    if (!ended) process.kill(-term.pid, "SIGKILL");
  }
}

function expectBoundedInput(result: Awaited<ReturnType<typeof fillThenRead>>): void {
  expect(result.refusal).toBeInstanceOf(CommandInputFull);
  expect(result.refusal).toMatchObject({ failure: "unavailable", message: expect.stringMatching(/^The command is not reading its input: [\d,]+ KiB are waiting\./) });
  expect(result.waitingAtRefusal).toBeLessThanOrEqual(MAX_PENDING_INPUT_BYTES);
  expect(result.waitingAtRefusal).toBeGreaterThan(MAX_PENDING_INPUT_BYTES - 64 * 1024);
  expect(result.refusedAgain.every(Boolean)).toBe(true);
  expect(result.waitingAfter).toBe(result.waitingAtRefusal);
  // Everything taken reached the command, once it read.
  expect(result.counted).toBe(String(result.taken));
}

describeWhen(needsLinux(), "input a command does not read, through node-pty", () => {
  it("waits up to the bound (node-pty's own queue is read); beyond, a write is refused and what was taken still arrives", async () => {
    const result = await fillThenRead(true);
    expect(result.term).not.toBeInstanceOf(SpawnedTerminal);
    expectBoundedInput(result);
  }, 60_000);

  it("a flood of small writes is refused past node-pty's 4,096 queued writes (each write would walk them all), and what was taken arrives", async () => {
    // 16 bytes each, longer than a key: 20,000 of them are 320 KB, far under the byte bound.
    const result = await fillThenRead(true, 16, 20_000);
    expect(result.refusal).toBeInstanceOf(CommandInputFull);
    // The pty itself takes some before node-pty queues any.
    expect(result.taken).toBeLessThan(16 * 20_000);
    expect(result.refusedAgain.every(Boolean)).toBe(true);
    expect(result.waitingAfter).toBe(result.waitingAtRefusal);
    expect(result.counted).toBe(String(result.taken));
  }, 60_000);
});

describeWhen(needsSpawn, "terminals started without fork()", () => {
  it("input a command does not read waits up to the bound; beyond, a write is refused and what was taken still arrives", async () => {
    const result = await fillThenRead(false);
    expect(result.term).toBeInstanceOf(SpawnedTerminal);
    expectBoundedInput(result);
    expect((result.term as SpawnedTerminal).pendingInputBytes).toBe(0);
  }, 60_000);

  it("the command leads a session whose controlling terminal is the new pty, as node-pty's do", async () => {
    const { term, output, exit } = await run(
      'tty; ps -o sid= -o pgid= -o tpgid= -p $$; stty size; stty -a | grep -o "\\-\\?iutf8\\|\\-\\?icanon\\|\\-\\?echo \\|\\-\\?isig"; echo "$PWD|$TERM"; trap -p; exit 3',
    );
    expect(term).toBeInstanceOf(SpawnedTerminal);
    const [tty, ids, size, ...rest] = output.trim().split("\n");
    expect(tty).toBe((term as SpawnedTerminal).ptsName);
    // Its session, its process group and the terminal's foreground group are all its pid.
    expect(ids!.trim().split(/\s+/).map(Number)).toEqual([term.pid, term.pid, term.pid]);
    expect(size).toBe("37 91");
    expect(
      rest
        .slice(0, 4)
        .map((s) => s.trim())
        .sort(),
    ).toEqual(["echo", "icanon", "isig", "iutf8"]);
    // No signal ignored (Node ignores SIGPIPE: `trap -p` would list it), PWD and TERM as node-pty sets them.
    expect(rest.slice(4)).toEqual([`${scratch.dir}|xterm-256color`]);
    expect(exit).toEqual({ exitCode: 3, signal: 0 });
  });

  it("reports a signal, once, also to a listener added after the end", async () => {
    const { term, exit } = await run("kill -TERM $$");
    expect(exit).toEqual({ exitCode: 0, signal: 15 });
    const late = await new Promise<TerminalExit>((resolve) => term.onExit(resolve));
    expect(late).toEqual(exit);
  });

  it("takes input, and closes the master side once the reader has read the end", async () => {
    const { term, output } = await run('read -r line; echo "got:$line"', "hello é\n");
    expect(output).toContain("got:hello é");
    expect(term).toBeInstanceOf(SpawnedTerminal);
    expect((term as SpawnedTerminal).fd).toBeUndefined();
  });

  it("input the terminal cannot take yet waits for the command to read it; input after the end is dropped", async () => {
    // 20,000 bytes: the terminal takes 4 KB while nothing reads (the rest gets EAGAIN and waits).
    const term = spawnTerminal("/bin/bash", ["--norc", "--noprofile", "-c", "stty -icanon -echo; echo ready; sleep 0.3; head -c 20000 | wc -c"], {
      cols: 80,
      rows: 24,
      cwd: scratch.dir,
      env,
    });
    let output = "";
    let sent = false;
    const reader = readTerminal(term, (chunk) => {
      output += Buffer.from(chunk).toString("utf8");
      if (output.includes("ready") && !sent) {
        sent = true;
        term.write("y".repeat(20_000));
      }
    });
    await new Promise((resolve) => term.onExit(resolve));
    await reader.finish();
    expect(output.trim().split(/\r?\n/).at(-1)).toBe("20000");
    expect(() => term.write("late\n")).not.toThrow();
  });

  it("input goes to the terminal at once, not through libuv's threadpool: a queued write could land in whatever file reused the descriptor", async () => {
    // Every thread of the pool waits to open a FIFO that has no writer yet.
    const size = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
    const fifos = Array.from({ length: size }, (_, i) => path.join(scratch.dir, `pool-${i}`));
    for (const fifo of fifos) execFileSync("mkfifo", [fifo]);
    const blocked = fifos.map((fifo) => readFile(fifo));
    let pid: number | undefined;
    try {
      const term = spawnTerminal("/bin/bash", ["--norc", "--noprofile", "-c", 'read -r line; echo "got:$line"'], { cols: 80, rows: 24, cwd: scratch.dir, env });
      pid = term.pid;
      const master = (term as SpawnedTerminal).fd;
      const parts: Buffer[] = [];
      const reader = readTerminal(term, (chunk) => parts.push(Buffer.from(chunk)));
      term.write("typed\r");
      const exit = await Promise.race([
        new Promise<TerminalExit>((resolve) => term.onExit(resolve)),
        new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 3000)),
      ]);
      expect(exit).toEqual({ exitCode: 0, signal: 0 });
      await reader.finish();
      expect(Buffer.concat(parts).toString()).toContain("got:typed");
      // The master side is closed; a file opened now may take its number: nothing may write to it.
      const victim = path.join(scratch.dir, "victim");
      const fd = openSync(victim, "w");
      expect(master).toBeDefined();
      term.write("late\r");
      for (const fifo of fifos) closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      await Promise.all(blocked);
      closeSync(fd);
      expect(readFileSync(victim, "utf8")).toBe("");
    } finally {
      try {
        if (pid !== undefined) process.kill(-pid, "SIGKILL"); // the command, when its input never came
      } catch {
        // Ended already.
      }
      for (const fifo of fifos) {
        try {
          closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
        } catch {
          // Its reader is gone already.
        }
      }
      await Promise.allSettled(blocked);
    }
  });

  it("a worker that ends while its commands run does not crash the process (the threads outlive its environment)", () => {
    // Each worker starts commands that end about when it is torn down; before the library was
    // pinned, Node unloaded it with the worker and a waiter returned into unmapped code (SIGSEGV).
    const script = `
      const { Worker } = require("node:worker_threads");
      const code = \`
        const m = require(\${JSON.stringify(${JSON.stringify(nativeReaderPath(new URL("../../app/main/tools/pty-reader.ts", import.meta.url).href))})});
        for (let i = 0; i < 20; i++) {
          const r = m.spawn("/bin/sleep", ["/bin/sleep", "0.0" + (5 + (i % 5))], ["PATH=/bin"], "/tmp", 80, 24, () => {});
          m.start(r.fd, () => {});
        }\`;
      (async () => {
        for (let round = 0; round < 12; round++) {
          const w = new Worker(code, { eval: true });
          await new Promise((r) => w.once("online", r));
          await new Promise((r) => setTimeout(r, 40 + (round % 4) * 15));
          await w.terminate();
        }
        await new Promise((r) => setTimeout(r, 300));
        console.log("alive");
      })();`;
    const result = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 60_000 });
    expect({ signal: result.signal, status: result.status, out: result.stdout.trim() }).toEqual({ signal: null, status: 0, out: "alive" });
  });

  it("a missing program or folder is a clear error, and leaves no descriptor open", () => {
    const count = () => {
      let open = 0;
      for (let fd = 0; fd < 1024; fd++) {
        try {
          fstatSync(fd);
          open++;
        } catch {
          // not open
        }
      }
      return open;
    };
    const before = count();
    expect(() => spawnTerminal("/no/such/program", [], { cols: 80, rows: 24, cwd: scratch.dir, env })).toThrow("could not start /no/such/program in");
    expect(() => spawnTerminal("/bin/true", [], { cols: 80, rows: 24, cwd: "/no/such/folder", env })).toThrow("No such file or directory");
    expect(count()).toBe(before);
  });

  it("a program named without a path, and LATHE_PTY_SPAWN=node, go through node-pty", async () => {
    const ends = async (term: Terminal) => {
      const reader = readTerminal(term, () => undefined); // node-pty reports the exit once its output is read
      await new Promise((resolve) => term.onExit(resolve));
      await reader.finish();
    };
    const byName = spawnTerminal("true", [], { cols: 80, rows: 24, cwd: scratch.dir, env });
    expect(byName).not.toBeInstanceOf(SpawnedTerminal);
    await ends(byName);
    process.env.LATHE_PTY_SPAWN = "node";
    try {
      const forced = spawnTerminal("/bin/true", [], { cols: 80, rows: 24, cwd: scratch.dir, env });
      expect(forced).not.toBeInstanceOf(SpawnedTerminal);
      await ends(forced);
    } finally {
      delete process.env.LATHE_PTY_SPAWN;
    }
  });

  it("starting a command copies none of Lathe's memory: no copy-on-write fault afterwards (node-pty's fork: one per page)", async () => {
    // 256 buffers of 64 KB, written once each after the start: after a fork() every first write
    // to a page faults (the page is shared with the child until then), without one none does.
    const pages = Array.from({ length: 256 }, () => Buffer.alloc(64 * 1024, 1));
    const faultsAfterStart = async (viaNodePty: boolean) => {
      if (viaNodePty) process.env.LATHE_PTY_SPAWN = "node";
      try {
        const before = process.resourceUsage().minorPageFault;
        const term = spawnTerminal("/bin/sleep", ["0.2"], { cols: 80, rows: 24, cwd: scratch.dir, env });
        for (const page of pages) page[0] = 2;
        const faults = process.resourceUsage().minorPageFault - before;
        const reader = readTerminal(term, () => undefined);
        await new Promise((resolve) => term.onExit(resolve));
        await reader.finish();
        return faults;
      } finally {
        delete process.env.LATHE_PTY_SPAWN;
      }
    };
    expect(await faultsAfterStart(true)).toBeGreaterThanOrEqual(256);
    expect(await faultsAfterStart(false)).toBeLessThan(64);
  });
});
