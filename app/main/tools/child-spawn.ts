// Starts a program with pipes, as child_process.spawn does, but on Linux through the project's
// native module (native/pipe-spawn.c: posix_spawn, no fork()). libuv forks: the page tables of
// the whole process are copied on the main thread (9 ms at 52 MB of RSS, 18 at 253 MB, 34 at
// 554 MB on the project's 2-core machine) and every page written afterwards faults once; git for
// checkpoints and ripgrep start this way many times a turn. Elsewhere, without the module, or with
// LATHE_CHILD_SPAWN=node: child_process.spawn itself.
// Contract: the subset of ChildProcess its callers use (checkpoints/git-runner.ts, blob-reader.ts,
// tools/grep-search.ts), with child_process's semantics:
// - stdio "pipe" or "ignore" per descriptor (0, 1, 2; default all "pipe"): stdin a Writable with
//   backpressure (destroyed when the child exits, as Node does), stdout/stderr Readables, null
//   when ignored. pid (undefined when it could not start), exitCode, signalCode, killed.
// - A program named without "/" is searched in the PATH of the env given (process.env by
//   default), as libuv's execvp does: the first executable match, EACCES when only non-executable
//   ones exist, else ENOENT. Found paths are cached (a few, by PATH and name): a cached one that
//   has gone is looked up again once.
// - A start that fails emits 'error' on the next tick (code ENOENT, EACCES, E2BIG, EMFILE...,
//   message "spawn <file> <code>: <what failed>", syscall, path, spawnargs), no 'exit', and
//   'close' with (-errno, null) once its (empty) outputs have ended, as child_process does. Arguments
//   that are not strings or hold a NUL throw synchronously (a TypeError), as Node does.
// - 'exit' (code, signal name) once the child has ended and been reaped; 'close' (the same) after
//   that and after stdout and stderr have both closed. Once exited, kill() does nothing and
//   returns false (the pid may belong to another process by then); before, it returns whether
//   the signal was sent. An AbortSignal kills it (SIGTERM) and emits an AbortError, as Node does.
import { spawn as nodeSpawn } from "node:child_process";
import { EventEmitter } from "node:events";
import { accessSync, constants, statSync } from "node:fs";
import { Socket } from "node:net";
import { constants as osConstants } from "node:os";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { argumentTooLong } from "./argument-limit.ts";
import { loadNativeReader } from "./pty-reader.ts";

export type StdioMode = "pipe" | "ignore";

export interface ChildOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  stdio?: [StdioMode, StdioMode, StdioMode];
  signal?: AbortSignal;
}

/** What callers get: a ChildProcess (fallback) or a PipedChild; both have all of this. */
export interface Child {
  readonly pid?: number | undefined;
  readonly stdin: Writable | null;
  readonly stdout: Readable | null;
  readonly stderr: Readable | null;
  readonly exitCode: number | null;
  readonly signalCode: NodeJS.Signals | null;
  readonly killed: boolean;
  kill(signal?: NodeJS.Signals | number): boolean;
  on(event: "error", listener: (error: Error) => void): this;
  on(event: "exit" | "close", listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
  removeAllListeners(event?: string | symbol): this;
}

type NativeSpawnPipes = NonNullable<NonNullable<ReturnType<typeof loadNativeReader>["module"]>["spawnPipes"]>;

/** Which starts children here: "posix_spawn" (native) or "node" (child_process). */
export function childSpawnKind(): "posix_spawn" | "node" {
  return nativeSpawn() ? "posix_spawn" : "node";
}

function nativeSpawn(): NativeSpawnPipes | undefined {
  if (process.platform !== "linux" || process.env.LATHE_CHILD_SPAWN === "node") return undefined;
  return loadNativeReader().module?.spawnPipes;
}

/** Starts `file args` (see the header). */
export function spawnChild(file: string, args: readonly string[], options: ChildOptions = {}): Child {
  const native = nativeSpawn();
  if (!native) return nodeSpawn(file, args, { cwd: options.cwd, env: options.env, stdio: options.stdio ?? "pipe", signal: options.signal, windowsHide: true });
  return new PipedChild(native, file, args, options);
}

const SIGNAL_NAMES = new Map(Object.entries(osConstants.signals).map(([name, number]) => [number, name as NodeJS.Signals]));

/** A child started by native/pipe-spawn.c. */
class PipedChild extends EventEmitter implements Child {
  pid: number | undefined;
  stdin: Writable | null = null;
  stdout: Readable | null = null;
  stderr: Readable | null = null;
  exitCode: number | null = null;
  signalCode: NodeJS.Signals | null = null;
  killed = false;
  #exited = false;
  #closesNeeded = 1; // the exit, then each output stream's 'close'
  #closesGot = 0;
  #abort: (() => void) | undefined;
  readonly #signal: AbortSignal | undefined;

  constructor(native: NativeSpawnPipes, file: string, args: readonly string[], options: ChildOptions) {
    super();
    const env = options.env ?? process.env;
    const cwd = options.cwd ?? process.cwd();
    const stdio = options.stdio ?? ["pipe", "pipe", "pipe"];
    const entries = Object.entries(env).flatMap(([name, value]) => (value === undefined ? [] : [`${name}=${value}`]));
    let started: ReturnType<NativeSpawnPipes>;
    try {
      const start = (program: string) =>
        native(program, [file, ...args], entries, cwd, [stdio[0] === "pipe", stdio[1] === "pipe", stdio[2] === "pipe"], (code, signal) => this.#exit(code, signal));
      const found = findProgram(file, env.PATH, cwd);
      const tooLong = argumentTooLong(found.path, args, cwd);
      if (tooLong) throw tooLong;
      try {
        started = start(found.path);
      } catch (error) {
        // A cached program that has gone (moved by an update): looked up once more.
        if (!found.cached || (error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
        forget(file, env.PATH, cwd);
        started = start(findProgram(file, env.PATH, cwd).path);
      }
    } catch (error) {
      if (error instanceof TypeError) throw error;
      this.#failed(error as NodeJS.ErrnoException, file, args, stdio);
      return;
    }
    this.pid = started.pid;
    if (started.stdin >= 0) this.stdin = new Socket({ fd: started.stdin, readable: false, writable: true });
    this.stdout = started.stdout >= 0 ? this.#output(started.stdout) : null;
    this.stderr = started.stderr >= 0 ? this.#output(started.stderr) : null;
    this.#signal = options.signal;
    if (options.signal) {
      const signal = options.signal;
      this.#abort = () => {
        if (this.kill("SIGTERM")) this.emit("error", Object.assign(new Error("The operation was aborted", { cause: signal.reason }), { name: "AbortError", code: "ABORT_ERR" }));
      };
      if (signal.aborted) process.nextTick(this.#abort);
      else signal.addEventListener("abort", this.#abort, { once: true });
    }
    process.nextTick(() => this.emit("spawn"));
  }

  kill(signal: NodeJS.Signals | number = "SIGTERM"): boolean {
    if (this.#exited || this.pid === undefined) return false;
    try {
      process.kill(this.pid, signal);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ESRCH") this.emit("error", error);
      return false;
    }
    this.killed = true;
    return true;
  }

  #output(fd: number): Readable {
    const stream = new Socket({ fd, readable: true, writable: false });
    this.#closesNeeded++;
    stream.on("close", () => this.#maybeClose());
    return stream;
  }

  #exit(code: number, signal: number): void {
    this.exitCode = signal ? null : code;
    this.signalCode = signal ? (SIGNAL_NAMES.get(signal) ?? null) : null;
    this.#ended(true);
  }

  /** The child has exited (or never started: no 'exit' then, as with child_process). */
  #ended(exited: boolean): void {
    this.#exited = true;
    if (this.#abort) this.#signal?.removeEventListener("abort", this.#abort);
    this.stdin?.destroy();
    if (exited) this.emit("exit", this.exitCode, this.signalCode);
    // As Node's flushStdio: an output nobody consumes is read to its end, so 'close' can come.
    process.nextTick(() => {
      for (const stream of [this.stdout, this.stderr]) if (stream?.readableFlowing === null) stream.resume();
    });
    this.#maybeClose();
  }

  #maybeClose(): void {
    if (++this.#closesGot === this.#closesNeeded) this.emit("close", this.exitCode, this.signalCode);
  }

  /** As child_process: streams that take nothing and end, then 'error' and 'close' (-errno, null). */
  #failed(cause: NodeJS.ErrnoException, file: string, args: readonly string[], stdio: readonly StdioMode[]): void {
    const code = typeof cause.code === "string" ? cause.code : "EIO";
    const error = Object.assign(new Error(`spawn ${file} ${code}: ${cause.message}`), {
      code,
      errno: -(osConstants.errno[code as keyof typeof osConstants.errno] ?? 5),
      syscall: `spawn ${file}`,
      path: file,
      spawnargs: [...args],
    });
    if (stdio[0] === "pipe") this.stdin = new Writable({ write: (_chunk, _encoding, done) => done() });
    for (const fd of [1, 2] as const) {
      if (stdio[fd] !== "pipe") continue;
      const stream = Readable.from([]);
      this.#closesNeeded++;
      stream.on("close", () => this.#maybeClose());
      if (fd === 1) this.stdout = stream;
      else this.stderr = stream;
    }
    this.#exited = true; // kill() does nothing
    this.exitCode = error.errno;
    process.nextTick(() => {
      this.emit("error", error);
      this.#ended(false);
    });
  }
}

/** Programs found by name: key PATH, cwd and name (a few: git and rg, by one or two PATHs). */
const found = new Map<string, string>();
const FOUND_MAX = 16;
/** glibc's execvp when PATH is not set. */
const DEFAULT_PATH = "/bin:/usr/bin";

const cacheKey = (file: string, pathValue: string | undefined, cwd: string) => `${pathValue ?? DEFAULT_PATH}\0${cwd}\0${file}`;

function forget(file: string, pathValue: string | undefined, cwd: string): void {
  found.delete(cacheKey(file, pathValue, cwd));
}

/** `file` as execvp would run it, in folder `cwd` with this PATH; throws ENOENT or EACCES as it would fail. */
export function findProgram(file: string, pathValue: string | undefined, cwd: string): { path: string; cached: boolean } {
  if (file === "") throw errnoError("ENOENT", "an empty program name");
  if (file.includes("/")) return { path: path.resolve(cwd, file), cached: false };
  const key = cacheKey(file, pathValue, cwd);
  const known = found.get(key);
  if (known) return { path: known, cached: true };
  let denied = false;
  for (const dir of (pathValue ?? DEFAULT_PATH).split(":")) {
    // An empty entry is the current folder, as for execvp (the child's: it runs after the chdir).
    const candidate = path.resolve(cwd, dir, file);
    try {
      if (!statSync(candidate).isFile()) {
        denied = true; // execve refuses a folder with EACCES; execvp goes on
        continue;
      }
      accessSync(candidate, constants.X_OK);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EACCES") denied = true;
      continue;
    }
    if (found.size >= FOUND_MAX) found.delete(found.keys().next().value!);
    found.set(key, candidate);
    return { path: candidate, cached: false };
  }
  throw denied ? errnoError("EACCES", `${file} was found on PATH but is not executable`) : errnoError("ENOENT", `${file} was not found on PATH`);
}

function errnoError(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code });
}
