// Runs the `git` command for the checkpoint store, as a child process (never on the main thread's
// time; started without fork() where it can: tools/child-spawn.ts): stdout and stderr come back
// as Buffers, stdin is written from a Buffer.
// Isolation: no system or global configuration (GIT_CONFIG_NOSYSTEM, GIT_CONFIG_GLOBAL=/dev/null),
// no GIT_* variable of Lathe's own environment (a GIT_DIR or GIT_INDEX_FILE there would point git
// at another repository), no BASH_ENV or ENV (a script a shell started by a git alias would run), no prompts, no pager, no optional locks on repositories that are not ours.
// Every call adds `-c core.hooksPath=<empty folder> -c core.fsmonitor=false -c protocol.allow=never`,
// so no hook, no file-system monitor and no transport (a promisor remote's lazy fetch, its ssh
// command) of any repository ever runs.
// Contract: `git()` never throws synchronously; it resolves with the result or rejects with a
// GitError whose message says what failed in words a person can act on (git missing, disk full,
// a damaged store), with git's own stderr kept in `stderr`.
import { Buffer } from "node:buffer";
import { existsSync, mkdirSync } from "node:fs";
import { setPriority } from "node:os";
import { join } from "node:path";
import type { Writable } from "node:stream";
import { type Child, spawnChild } from "../tools/child-spawn.ts";

export type GitFailure = "missing" | "disk-full" | "damaged" | "timeout" | "failed";

export class GitError extends Error {
  readonly failure: GitFailure;
  readonly stderr: string;
  readonly exitCode: number | null;
  constructor(failure: GitFailure, message: string, stderr = "", exitCode: number | null = null) {
    super(message);
    this.name = "GitError";
    this.failure = failure;
    this.stderr = stderr;
    this.exitCode = exitCode;
  }
}

export interface GitOptions {
  /** Passed before the command, e.g. ["--git-dir=…", "--work-tree=…"]. */
  globalArgs?: string[];
  input?: Buffer | string;
  /** Extra environment (GIT_INDEX_FILE for a temporary index). */
  env?: Record<string, string>;
  timeoutMs?: number;
  /** Exit codes that are not failures (git diff --quiet's 1). */
  okCodes?: number[];
  cwd?: string;
  /** Runs at the lowest CPU priority (a background snapshot yields to everything else). */
  background?: boolean;
}

export interface GitResult {
  stdout: Buffer;
  stderr: string;
  code: number;
}

const DEFAULT_TIMEOUT_MS = 120_000;

/** The environment every git child gets: the parent's, minus anything that would redirect git. */
export function gitEnvironment(base: NodeJS.ProcessEnv = process.env, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) {
    // BASH_ENV / ENV: a script a non-interactive shell would run first (a turn's git alias runs in `sh -c`).
    if (value === undefined || key.startsWith("GIT_") || key === "EDITOR" || key === "VISUAL" || key === "PAGER" || key === "BASH_ENV" || key === "ENV") continue;
    env[key] = value;
  }
  return {
    ...env,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_PAGER: "cat",
    GIT_ASKPASS: "",
    LC_ALL: "C",
    ...extra,
  };
}

export class GitRunner {
  readonly #hooksDir: string;
  readonly #command: string;

  /** `emptyDir` is a folder Lathe owns that stays empty: core.hooksPath points there. */
  constructor(emptyDir: string, command = "git") {
    this.#hooksDir = emptyDir;
    this.#command = command;
    try {
      mkdirSync(emptyDir, { recursive: true, mode: 0o700 });
    } catch {
      // Reported by the first call that needs it (git then finds no hooks either way).
    }
  }

  get hooksDir(): string {
    return this.#hooksDir;
  }

  run(args: string[], options: GitOptions = {}): Promise<GitResult> {
    const call = this.#launch(args, options);
    if (options.input !== undefined) call.stdin?.end(options.input);
    else call.stdin?.end();
    return call.result;
  }

  /**
   * Starts a git command that answers in two steps (one spawn for two calls, see GitSession):
   * its stdout up to the record `marker` (records end with NUL) is the first answer; what Lathe
   * then writes to its stdin decides the rest.
   */
  start(args: string[], marker: string, options: Omit<GitOptions, "input"> = {}): GitSession {
    const call = this.#launch(args, options);
    const end = Buffer.from(`${marker}\0`, "latin1");
    let head: Buffer | null = null;
    let finished = false;
    const first = new Promise<Buffer>((resolve, reject) => {
      // The command prints the marker last and then waits for its answer: the marker, if there,
      // ends what was read so far. Only a whole record equal to it counts (it starts the output or
      // follows a NUL; a path may hold any bytes but NUL). Only the tail is looked at: a status of
      // many megabytes is never copied chunk after chunk.
      call.onStdout = (chunks, total) => {
        if (head || total < end.length) return false;
        const tail = lastBytes(chunks, Math.min(total, end.length + 1));
        const whole = total === end.length || tail[0] === 0;
        if (!whole || !tail.subarray(tail.length - end.length).equals(end)) return false;
        head = Buffer.concat(chunks, total).subarray(0, total - end.length);
        resolve(head);
        return true;
      };
      call.result.then(
        () => reject(new GitError("failed", `git ${commandName(args)} ended before its first answer.`)),
        (error: unknown) => reject(error),
      );
    });
    first.catch(() => undefined);
    return {
      head: first,
      finish: (input?: Buffer) => {
        if (!finished) {
          finished = true;
          if (input !== undefined) call.stdin?.end(input);
          else call.stdin?.end();
        }
        return call.result;
      },
    };
  }

  #launch(args: string[], options: Omit<GitOptions, "input">): Launched {
    // The data folder may have been cleared under a running Lathe: the empty folder comes back.
    if (!existsSync(this.#hooksDir)) {
      try {
        mkdirSync(this.#hooksDir, { recursive: true, mode: 0o700 });
      } catch {
        // Reported by the spawn below.
      }
    }
    const argv = ["-c", `core.hooksPath=${this.#hooksDir}`, "-c", "core.fsmonitor=false", "-c", "protocol.allow=never", ...(options.globalArgs ?? []), ...args];
    const launched: Launched = { stdin: null, result: Promise.resolve({ stdout: Buffer.alloc(0), stderr: "", code: 0 }), onStdout: null };
    launched.result = new Promise<GitResult>((resolve, reject) => {
      let child: Child;
      try {
        // Not child_process.spawn: its fork() holds the main thread 10 to 30 ms (child-spawn.ts).
        child = spawnChild(this.#command, argv, {
          cwd: options.cwd ?? this.#hooksDir,
          env: gitEnvironment(process.env, options.env),
          stdio: ["pipe", "pipe", "pipe"],
        });
      } catch (error) {
        reject(spawnError(error, options.cwd ?? this.#hooksDir));
        return;
      }
      if (options.background && child.pid !== undefined) {
        try {
          setPriority(child.pid, 19);
        } catch {
          // Not allowed here: it runs at normal priority.
        }
      }
      const out: Buffer[] = [];
      let outBytes = 0;
      const err: Buffer[] = [];
      let errBytes = 0;
      let settled = false;
      const finish = (outcome: GitResult | GitError) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (outcome instanceof GitError) reject(outcome);
        else resolve(outcome);
      };
      const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        // A two-step call's shell may outlive git: its stdin closed, it stops waiting for input.
        child.stdin?.destroy();
        finish(new GitError("timeout", `git ${commandName(args)} took longer than ${Math.round(timeoutMs / 1000)} s and was stopped.`));
      }, timeoutMs);
      child.stdout!.on("data", (chunk: Buffer) => {
        out.push(chunk);
        outBytes += chunk.length;
        // A two-step call (start()) looks for its marker at the end of what was read so far.
        // What it took (the first answer) is not kept for the result.
        if (launched.onStdout?.(out, outBytes)) {
          out.length = 0;
          outBytes = 0;
        }
      });
      child.stderr!.on("data", (chunk: Buffer) => {
        if (errBytes < 64 * 1024) err.push(chunk);
        errBytes += chunk.length;
      });
      child.on("error", (error) => finish(spawnError(error, options.cwd ?? this.#hooksDir)));
      child.on("close", (code, signal) => {
        const stderr = Buffer.concat(err).toString("utf8");
        const exit = code ?? -1;
        if (exit === 0 || options.okCodes?.includes(exit)) return finish({ stdout: Buffer.concat(out, outBytes), stderr, code: exit });
        finish(classify(commandName(args), stderr, code, signal));
      });
      // A child that exits before reading all its input makes stdin fail with EPIPE: the exit code says why.
      child.stdin!.on("error", () => undefined);
      launched.stdin = child.stdin;
    });
    return launched;
  }
}

/**
 * A git command started by GitRunner.start(). `head`: its stdout up to the marker (rejects if git
 * ends or fails first). `finish(input)`: writes `input` (if any) and closes stdin; resolves with
 * the whole call's result, its stdout being what followed the marker. Call finish() exactly once
 * whatever happens (it is what lets the command end); a second call returns the same result.
 */
export interface GitSession {
  readonly head: Promise<Buffer>;
  finish(input?: Buffer): Promise<GitResult>;
}

interface Launched {
  stdin: Writable | null;
  result: Promise<GitResult>;
  /** A two-step call's reader of its output so far; true when it took all of it (the first answer). */
  onStdout: ((chunks: readonly Buffer[], total: number) => boolean) | null;
}

/** The command's name for messages: the first word that is not an option ("-c name=value" skipped). */
function commandName(args: readonly string[]): string {
  return args.find((a, i) => !a.startsWith("-") && args[i - 1] !== "-c") ?? "";
}

function spawnError(error: unknown, cwd: string): GitError {
  const err = error as NodeJS.ErrnoException;
  if (err.code === "ENOENT" && !existsSync(cwd)) return new GitError("failed", `The folder ${cwd} does not exist (any more).`);
  if (err.code === "ENOENT") return new GitError("missing", "Checkpoints need git, which is not installed (or not on PATH). Install git to use checkpoints and rewind.");
  if (err.code === "ENOSPC") return new GitError("disk-full", "The disk is full: the checkpoint could not be taken.");
  return new GitError("failed", `git could not start: ${err.message}`);
}

/** git's stderr in a sentence a person can act on. */
function classify(command: string, stderr: string, code: number | null, signal: NodeJS.Signals | null): GitError {
  const text = stderr.trim();
  const first = text.split("\n").find((l) => l.trim()) ?? "";
  if (/No space left on device|ENOSPC|Disk quota exceeded/i.test(text)) {
    return new GitError("disk-full", "The disk is full: the checkpoint store could not be written. Free some space and try again.", text, code);
  }
  if (
    /not a git repository|bad object|corrupt|invalid object|loose object .* is corrupt|unable to read|fatal: bad (tree|revision)|does not point to a valid object|broken link|index file corrupt|bad signature|cannot read|missing (tree|blob)/i.test(
      text,
    )
  ) {
    return new GitError("damaged", `The checkpoint store is damaged (git ${command}: ${first.replace(/^fatal:\s*/, "")}).`, text, code);
  }
  if (signal) return new GitError("failed", `git ${command} was stopped by ${signal}.`, text, code);
  return new GitError("failed", `git ${command} failed${first ? `: ${first.replace(/^(fatal|error):\s*/, "")}` : ` with code ${code}`}.`, text, code);
}

/** The folder under the data folder where everything of the checkpoint store lives. */
export function checkpointsDir(dataDir: string): string {
  return join(dataDir, "checkpoints");
}

/** The last `count` bytes of `chunks` (count at most their total length). */
function lastBytes(chunks: readonly Buffer[], count: number): Buffer {
  const last = chunks[chunks.length - 1]!;
  if (last.length >= count) return last.subarray(last.length - count);
  const parts: Buffer[] = [];
  let have = 0;
  for (let i = chunks.length - 1; i >= 0 && have < count; i--) {
    const chunk = chunks[i]!;
    const take = Math.min(chunk.length, count - have);
    parts.unshift(chunk.subarray(chunk.length - take));
    have += take;
  }
  return Buffer.concat(parts, have);
}
