// Children with pipes (app/main/tools/child-spawn.ts): the same behaviour from the native start
// (native/pipe-spawn.c, posix_spawn) and from child_process.spawn (LATHE_CHILD_SPAWN=node), each
// test run with both: exit codes and signals, 10 MB through cat both ways at once, stderr apart,
// a command that never reads its input, kill, an AbortSignal, 'close' only after the output has
// ended (a grandchild holding it), a missing program by name and by path, a bad folder; and git
// missing or a gone folder still reported by git-runner in its own words.
import { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { GitRunner } from "../../app/main/checkpoints/git-runner.ts";
import { type Child, childSpawnKind, type ChildOptions, spawnChild } from "../../app/main/tools/child-spawn.ts";
import { loadNativeReader } from "../../app/main/tools/pty-reader.ts";
import { describeWhen } from "../support/requirements.ts";
import { tempDir } from "./helpers.ts";

const scratch = tempDir("lathe-child-spawn-");
afterAll(() => scratch.cleanup());

const needsNative =
  process.platform !== "linux" ? `needs Linux (this is ${process.platform})` : loadNativeReader().module?.spawnPipes ? null : "the native module has no spawnPipes";

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
  events: string[];
  error?: NodeJS.ErrnoException;
}

/** Runs a child to its 'close', collecting its output and the order of its events. */
function run(file: string, args: string[], options: ChildOptions = {}, input?: Buffer | string, started?: (child: Child) => void): Promise<Ended> {
  const child = spawnChild(file, args, { cwd: scratch.dir, ...options });
  started?.(child);
  const out: Buffer[] = [];
  let stderr = "";
  const events: string[] = [];
  let error: NodeJS.ErrnoException | undefined;
  child.stdout?.on("data", (chunk: Buffer) => out.push(chunk));
  child.stdout?.on("end", () => events.push("stdout end"));
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stderr?.on("end", () => events.push("stderr end"));
  child.stdin?.on("error", () => events.push("stdin error"));
  child.on("error", (err) => {
    error = err;
    events.push("error");
  });
  child.on("exit", () => events.push("exit"));
  if (input !== undefined) child.stdin?.end(input);
  return new Promise((resolve) =>
    child.on("close", (code, signal) => {
      events.push("close");
      resolve({ code, signal, stdout: Buffer.concat(out), stderr, events, error });
    }),
  );
}

for (const kind of ["posix_spawn", "node"] as const) {
  describeWhen(kind === "posix_spawn" ? needsNative : null, `children with pipes (${kind})`, () => {
    beforeEach(() => {
      if (kind === "node") process.env.LATHE_CHILD_SPAWN = "node";
    });
    afterEach(() => {
      delete process.env.LATHE_CHILD_SPAWN;
    });

    it("starts with the expected starter", () => {
      expect(childSpawnKind()).toBe(kind);
      const child = spawnChild("/bin/true", [], { cwd: scratch.dir });
      expect(child instanceof ChildProcess).toBe(kind === "node");
    });

    it("reports exit codes and signals, 'close' after 'exit' and both outputs' ends", async () => {
      const exited = await run("/bin/sh", ["-c", "echo out; echo err >&2; exit 3"]);
      expect(exited).toMatchObject({ code: 3, signal: null, stderr: "err\n" });
      expect(exited.stdout.toString()).toBe("out\n");
      expect(exited.events.at(-1)).toBe("close");
      expect(exited.events.slice(0, -1).sort()).toEqual(["exit", "stderr end", "stdout end"]);
      const signalled = await run("/bin/sh", ["-c", "kill -TERM $$"]);
      expect({ code: signalled.code, signal: signalled.signal }).toEqual({ code: null, signal: "SIGTERM" });
    });

    it("'close' waits for a grandchild that still holds the output after the child's exit", async () => {
      const ended = await run("/bin/sh", ["-c", "(sleep 0.3; echo late) & echo early"]);
      expect(ended.stdout.toString()).toBe("early\nlate\n");
      expect(ended.events.indexOf("exit")).toBeLessThan(ended.events.indexOf("stdout end"));
    });

    it("10 MB through cat, written and read at once, with backpressure and without deadlock", async () => {
      const data = randomBytes(10 * 1024 * 1024);
      let refused = false;
      const ended = await run("cat", [], {}, undefined, (child) => {
        // write() says "wait" once the pipe is full: cat's output must be read meanwhile.
        for (let at = 0; at < data.length; at += 1024 * 1024) refused = !child.stdin!.write(data.subarray(at, at + 1024 * 1024)) || refused;
        child.stdin!.end();
      });
      expect(refused).toBe(true);
      expect(ended.code).toBe(0);
      expect(ended.stdout.equals(data)).toBe(true);
    });

    it("keeps stderr apart from stdout", async () => {
      const ended = await run("/bin/sh", ["-c", "for i in 1 2 3; do echo o$i; echo e$i >&2; done"]);
      expect(ended.stdout.toString()).toBe("o1\no2\no3\n");
      expect(ended.stderr).toBe("e1\ne2\ne3\n");
    });

    it("a command that never reads its input ends, its pending input dropped", async () => {
      const ended = await run("/bin/sh", ["-c", "sleep 0.1; echo done"], {}, Buffer.alloc(4 * 1024 * 1024, 120));
      expect(ended.code).toBe(0);
      expect(ended.stdout.toString()).toBe("done\n");
    });

    it("kill() stops it (a timeout), then does nothing once it has exited", async () => {
      let child!: Child;
      const started = performance.now();
      const ended = await run("/bin/sleep", ["10"], { stdio: ["ignore", "pipe", "ignore"] }, undefined, (c) => {
        child = c;
        expect(c.stdin).toBeNull();
        expect(c.stderr).toBeNull();
        setTimeout(() => expect(c.kill("SIGKILL")).toBe(true), 100);
      });
      expect({ code: ended.code, signal: ended.signal, killed: child.killed }).toEqual({ code: null, signal: "SIGKILL", killed: true });
      expect(performance.now() - started).toBeLessThan(5000);
      expect(child.kill()).toBe(false);
    });

    it("an AbortSignal stops it with SIGTERM and an AbortError", async () => {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 50);
      const ended = await run("/bin/sleep", ["10"], { signal: controller.signal });
      expect(ended.signal).toBe("SIGTERM");
      expect(ended.error).toMatchObject({ name: "AbortError", code: "ABORT_ERR" });
    });

    it("a missing program (by name and by path) or folder: 'error' with ENOENT, then 'close'", async () => {
      for (const [file, cwd] of [
        ["lathe-no-such-program", scratch.dir],
        [path.join(scratch.dir, "no-such-program"), scratch.dir],
        ["/bin/true", path.join(scratch.dir, "no-such-folder")],
      ] as const) {
        const ended = await run(file, ["x"], { cwd });
        expect(ended.error?.code, file).toBe("ENOENT");
        expect(ended.error?.message).toContain(`spawn ${file} ENOENT`);
        // As child_process: no 'exit', 'close' last (after the empty outputs' ends).
        expect(ended.events[0]).toBe("error");
        expect(ended.events.at(-1)).toBe("close");
        expect(ended.events).not.toContain("exit");
        expect(ended.code).toBe(-2);
      }
    });

    it("a program that is not executable: EACCES", async () => {
      const script = path.join(scratch.dir, "not-executable");
      writeFileSync(script, "#!/bin/sh\necho hi\n");
      chmodSync(script, 0o644);
      expect((await run(script, [])).error?.code).toBe("EACCES");
      expect((await run("not-executable", [], { env: { PATH: scratch.dir } })).error?.code).toBe("EACCES");
    });

    it("git-runner still says git is missing, or that the folder is gone, in its own words", async () => {
      const missing = new GitRunner(path.join(scratch.dir, "hooks"), "lathe-no-such-git");
      await expect(missing.run(["status"])).rejects.toMatchObject({ failure: "missing" });
      const git = new GitRunner(path.join(scratch.dir, "hooks"));
      await expect(git.run(["status"], { cwd: path.join(scratch.dir, "gone") })).rejects.toThrow(/does not exist/);
      await expect(git.run(["--version"])).resolves.toMatchObject({ code: 0 });
    });
  });
}

describe("the fallback", () => {
  it("LATHE_CHILD_SPAWN=node starts children with child_process", () => {
    process.env.LATHE_CHILD_SPAWN = "node";
    try {
      expect(childSpawnKind()).toBe("node");
      expect(spawnChild("/bin/true", [])).toBeInstanceOf(ChildProcess);
    } finally {
      delete process.env.LATHE_CHILD_SPAWN;
    }
  });
});
