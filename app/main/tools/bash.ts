// The bash tool: runs `bash -c` in a real pseudo-terminal in the project folder, as its own session
// and process group, with a sanitized environment. Streams throttled updates (raw terminal bytes
// plus ANSI-free text), reports a command blocked on terminal input (checked in a worker: it scans
// /proc), and kills the whole process family on timeout or abort (interrupt, terminate, kill,
// within about one second). The model gets
// the exit code and the head and tail of the output; the full output goes to a file. With a
// redactor, secrets are removed as the output streams, before it is shown, sent or saved (see
// OutputCollector). Memory stays bounded whatever the output size. Throws ToolExecutionError on
// non-zero exit, timeout or abort, with the output in the message. With a sandbox
// (options.sandbox) the command starts wrapped in it, is stopped the sandbox's way, and a failure
// the sandbox caused is explained to the model after the output. Commands run at a lower CPU
// priority than Lathe while others run, unless the user turned that off (command-priority.ts).
import { mkdtempSync, readlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Type } from "@sinclair/typebox";
import type { AgentTool } from "../loop/index.ts";
import { OutputCollector, type OutputRedactor } from "./bash-output.ts";
import { shareCommandPriority } from "./command-priority.ts";
import { statOffThread } from "./fs-answers.ts";
import { resolveToolPath } from "./paths.ts";
import { killFamilyOffThread, waitingForInput as checkWaitingForInput } from "./process-tree-off-thread.ts";
import { sessionFormed } from "./process-tree.ts";
import { ptyCommandLine } from "./pty-command.ts";
import { readTerminal } from "./pty-reader.ts";
import { spawnTerminal, type Terminal } from "./pty-spawn.ts";
import { nextStartTurn } from "./spawn-turns.ts";
import type { RunningCommands } from "./running-commands.ts";
import type { CommandSandbox, SandboxLaunch } from "../sandbox/session-sandbox.ts";
import { ServiceError } from "../../shared/errors.ts";
import { refusalNote } from "../sandbox/refusal.ts";
import { sanitizedShellEnv } from "./shell-env.ts";
import { ToolExecutionError } from "./tool-error.ts";
import { MAX_OUTPUT_BYTES, MAX_OUTPUT_LINES } from "./truncate.ts";
import type { BashProgressDetails, BashResultDetails, BashDetails } from "../../shared/tool-details.ts";
export type { BashProgressDetails, BashDetails };

export const DEFAULT_BASH_TIMEOUT_MS = 120_000;
/** The longest timeout a call (or the session's default) may set: 24 hours. Longer ones are clamped. */
export const MAX_BASH_TIMEOUT_MS = 24 * 60 * 60 * 1000;
const UPDATE_INTERVAL_MS = 100;
const INPUT_POLL_MS = 250;
const INPUT_SILENCE_MS = 500;
const IDLE_FLUSH_MS = 150;

const bashParameters = Type.Object({
  command: Type.String({ description: "The command line, run with `bash -c` in the project folder." }),
  timeout: Type.Optional(
    Type.Number({
      exclusiveMinimum: 0,
      description: `Timeout in seconds for this call (default: the session's; at most ${MAX_BASH_TIMEOUT_MS / 1000}, longer values are clamped).`,
    }),
  ),
});

export interface BashOptions {
  projectDir: string;
  /** Default timeout of a call; a call's own `timeout` overrides it. */
  timeoutMs?: number;
  /** Where full outputs are saved; default: a temporary folder created on first use. */
  outputDir?: string;
  shell?: string;
  /** Variables added to the sanitized environment. */
  env?: Record<string, string>;
  /** Registry through which the UI types into or interrupts a running call. */
  running?: RunningCommands;
  /** Runs commands in the session's sandbox (and saves outputs in its output folder). */
  sandbox?: CommandSandbox;
  /** Redacts secrets from the output as it streams (read at each call: keys may change). */
  secrets?: () => OutputRedactor;
  /** Whether running commands share the CPU like one program (command-priority.ts; read at each call; default yes). */
  lowerPriority?: () => boolean;
}

const DESCRIPTION = `Run a shell command with bash in the project folder, in a terminal. Returns the exit code and the output (stdout and stderr together). Output beyond ${MAX_OUTPUT_LINES} lines or ${MAX_OUTPUT_BYTES / 1024} KB is cut to its first and last lines, and the full output is saved to a file named in the result, which you can read or grep. A non-zero exit code is reported as an error with the output. Commands time out (default per session; set "timeout" in seconds for long runs). Prefer the read, edit, write, ls, find and grep tools over cat, sed, echo > file, ls, find and grep. Avoid interactive commands; if one waits for input, the user is shown the prompt and may answer it.`;

const SANDBOX_NOTE = `Commands usually run in Lathe's sandbox: they can write only in the project folder and $TMPDIR, cannot read credentials such as ~/.ssh, and have no network unless the user allowed it; a result says when the sandbox blocked something.`;

export function createBashTool(options: BashOptions): AgentTool<typeof bashParameters, BashDetails> {
  let outputDir = options.outputDir ?? options.sandbox?.outputDir;
  const spillPathFor = (toolCallId: string) => () => {
    outputDir ??= mkdtempSync(path.join(tmpdir(), "lathe-bash-"));
    const safeId = toolCallId.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
    return path.join(outputDir, `bash-${Date.now()}-${safeId}.log`);
  };
  return {
    name: "bash",
    label: "Run command",
    description: options.sandbox ? `${DESCRIPTION} ${SANDBOX_NOTE}` : DESCRIPTION,
    parameters: bashParameters,
    async execute(toolCallId, params, signal, onUpdate) {
      // Interruptible from its first moment: before its terminal starts (the folder and the
      // sandbox are asked off the event loop first), an interrupt keeps it from starting.
      let interruptedEarly = false;
      options.running?.register(toolCallId, {
        write: () => {
          throw new ServiceError("unavailable", "The command has not started yet: type once it runs.");
        },
        interrupt: () => void (interruptedEarly = true),
      });
      let launch: SandboxLaunch | undefined;
      const cwd = resolveToolPath(".", options.projectDir);
      const shell = options.shell ?? "/bin/bash";
      const env = sanitizedShellEnv(process.env, options.env);
      try {
        // Asked off the event loop: the terminal's start waits for the folder (a hung mount would hold it).
        if (!(await statOffThread(cwd))?.isDirectory()) throw new Error(`Project folder ${cwd} does not exist.`);
        // The loop validates arguments first; a caller that did not must not hand node-pty a non-string
        // (it crashes the process instead of throwing).
        if (typeof params.command !== "string" || params.command.includes("\0")) throw new Error("The command must be a string without NUL characters.");
        // Before the start's turn: the sandbox asks about the project's top off the event loop.
        launch = await options.sandbox?.launch({ toolCallId, command: params.command, shell, cwd, env });
        // Parallel calls start one per turn (where node-pty starts the terminal, its fork blocks the main thread: spawn-turns.ts).
        await nextStartTurn();
        if (signal?.aborted) throw new Error("Command aborted before it started.");
        if (interruptedEarly) throw new Error("Interrupted before it started: the command did not run.");
      } catch (error) {
        options.running?.unregister(toolCallId);
        throw error;
      }
      // setTimeout fires at once for delays over 2^31-1 ms (24.8 days): clamp to a documented maximum.
      const timeoutMs = clampDurationMs(params.timeout !== undefined ? params.timeout * 1000 : (options.timeoutMs ?? DEFAULT_BASH_TIMEOUT_MS), MAX_BASH_TIMEOUT_MS);
      return runCommand({
        toolCallId,
        command: params.command,
        cwd,
        timeoutMs,
        shell,
        env,
        launch,
        spillPath: spillPathFor(toolCallId),
        redactor: options.secrets?.(),
        lowerPriority: options.lowerPriority?.() ?? true,
        running: options.running,
        signal,
        onUpdate,
      });
    },
  };
}

interface RunRequest {
  toolCallId: string;
  command: string;
  cwd: string;
  timeoutMs: number;
  shell: string;
  env: Record<string, string>;
  /** How the sandbox starts the command; without it, `shell -c command` directly. */
  launch: SandboxLaunch | undefined;
  spillPath: () => string;
  redactor: OutputRedactor | undefined;
  lowerPriority: boolean;
  running: RunningCommands | undefined;
  signal: AbortSignal | undefined;
  onUpdate: ((update: { content: { type: "text"; text: string }[]; details: BashDetails }) => void) | undefined;
}

/** Why a command's terminal did not start, said once (the native spawner names the program and folder itself). */
export function startFailure(file: string, err: Error): string {
  const reason = err.message.startsWith("could not start ") ? err.message.slice("could not start ".length) : `${file}: ${err.message}`;
  // The kernel's limits on a program's arguments: 128 KB for one, and all of them with the environment in about 2 MB.
  const tooLong =
    (err as NodeJS.ErrnoException).code === "E2BIG"
      ? " (Linux takes at most 128 KB in one argument, and about 2 MB for all of them with the environment: write a long script to a file and run the file)"
      : "";
  return `Could not start ${reason}${tooLong}`;
}

function runCommand(req: RunRequest): Promise<{ content: { type: "text"; text: string }[]; details: BashDetails }> {
  const started = Date.now();
  const { launch } = req;
  const [file, ...args] = launch ? [launch.file, ...launch.args] : ptyCommandLine(req.shell, req.command);
  let term: Terminal;
  try {
    term = spawnTerminal(file!, args, { cols: 120, rows: 30, cwd: req.cwd, env: launch?.env ?? req.env });
  } catch (err) {
    throw new Error(startFailure(file!, err as Error), { cause: err });
  }
  const pid = term.pid;
  const ptsPath = (term as { ptsName?: string }).ptsName ?? safeReadlink(`/proc/${pid}/fd/0`);
  const collector = new OutputCollector(req.spillPath, undefined, req.redactor);

  let lastDataAt = Date.now();
  let lastUpdateAt = 0;
  let updateTimer: NodeJS.Timeout | undefined;
  let waitingForInput = false;
  let timedOut = false;
  let aborted = false;
  let killing: Promise<void> | undefined;
  let exited = false;
  /** The check for a prompt in flight (see inputPoll). */
  let inputCheck: Promise<void> | undefined;

  const emitUpdate = () => {
    updateTimer = undefined;
    lastUpdateAt = Date.now();
    const raw = collector.takeRaw();
    req.onUpdate?.({
      content: [{ type: "text", text: waitingForInput ? `${collector.textTail()}\n[waiting for input]` : collector.textTail() }],
      details: {
        phase: "running",
        command: req.command,
        pid,
        chunk: raw.chunk,
        skippedBytes: raw.skippedBytes,
        waitingForInput,
        elapsedMs: Date.now() - started,
      },
    });
  };
  // A timer's delay counts from the event loop's cached time, which lags the clock by however
  // long the loop's current turn has run: it can fire that much early (78 ms apart seen under
  // load). The interval is checked again against the clock when it fires.
  const onUpdateTimer = () => {
    const wait = lastUpdateAt + UPDATE_INTERVAL_MS - Date.now();
    if (wait > 0) updateTimer = setTimeout(onUpdateTimer, wait);
    else emitUpdate();
  };
  const scheduleUpdate = () => {
    if (updateTimer) return;
    updateTimer = setTimeout(onUpdateTimer, Math.max(0, lastUpdateAt + UPDATE_INTERVAL_MS - Date.now()));
  };
  const kill = () => {
    killing ??= launch?.kill ? launch.kill(pid) : killFamilyOffThread(pid);
  };

  // Chunks arrive in batches of up to 256 KB from the native reader (pty-reader.ts), else about
  // 4 KB at a time (node-pty's events): each is only queued here; OutputCollector processes them
  // once a batch is large or when the next update (at most UPDATE_INTERVAL_MS later) or idle check
  // reads the output. Started before anything awaits: the native reader must take the pty first.
  const reader = readTerminal(term, (chunk) => {
    lastDataAt = Date.now();
    waitingForInput = false;
    collector.push(chunk);
    scheduleUpdate();
  });
  // Running commands share the CPU like one program (ended as the command exits, before anything awaits).
  const shared = req.lowerPriority ? shareCommandPriority(pid) : undefined;
  const inputPoll = setInterval(() => {
    // A pause: what redaction held back (a prompt, a last line) is shown.
    if (Date.now() - lastDataAt >= IDLE_FLUSH_MS && collector.flushIdle()) scheduleUpdate();
    if (killing || inputCheck || Date.now() - lastDataAt < INPUT_SILENCE_MS) return;
    // Scanning /proc happens in a worker (process-tree-off-thread.ts); one check at a time.
    const askedAt = Date.now();
    inputCheck = checkWaitingForInput(pid, ptsPath).then((waiting) => {
      inputCheck = undefined;
      // Output since the question, or the end: the answer is stale.
      if (waiting === undefined || exited || killing || lastDataAt >= askedAt) return;
      if (waiting !== waitingForInput) {
        waitingForInput = waiting;
        scheduleUpdate();
      }
    });
  }, INPUT_POLL_MS);
  const timeoutTimer = setTimeout(() => {
    timedOut = true;
    kill();
  }, req.timeoutMs);
  const onAbort = () => {
    aborted = true;
    kill();
  };
  req.signal?.addEventListener("abort", onAbort, { once: true });
  req.running?.register(req.toolCallId, {
    write: (data) => term.write(data),
    // Sent once the command's process group exists: an interrupt in the first milliseconds
    // after the spawn would otherwise be lost (no group to signal, no terminal session for ^C).
    interrupt: () =>
      void sessionFormed(pid).then(() => {
        if (exited) return;
        const fallback = () => term.write("\x03");
        if (launch?.interrupt) return launch.interrupt(pid, fallback);
        try {
          process.kill(-pid, "SIGINT");
        } catch {
          fallback();
        }
      }),
  });

  return new Promise((resolve, reject) => {
    term.onExit(({ exitCode, signal: exitSignal }) => {
      exited = true;
      shared?.end();
      void (async () => {
        clearInterval(inputPoll);
        clearTimeout(timeoutTimer);
        req.signal?.removeEventListener("abort", onAbort);
        req.running?.unregister(req.toolCallId);
        // Background children may outlive the shell; on timeout or abort none may survive.
        if (killing) await killing;
        // What the terminal still holds is read (the native reader); then no more output is taken.
        await reader.finish();
        if (updateTimer) clearTimeout(updateTimer);
        waitingForInput = false;
        // The last raw bytes go to the terminal view at once (with what redaction held back): the
        // interval paces updates while output streams; waiting it out here delayed every
        // command's result by up to 100 ms.
        collector.endRedaction();
        if (collector.hasPendingRaw) emitUpdate();
        const output = await collector.finish();
        const details: BashResultDetails = {
          phase: "done",
          command: req.command,
          exitCode: timedOut || aborted ? null : exitCode,
          signal: exitSignal ? exitSignal : null,
          timedOut,
          aborted,
          truncated: output.truncated,
          totalLines: output.totalLines,
          totalBytes: output.totalBytes,
          outputFile: output.outputFile,
          durationMs: Date.now() - started,
          ...(launch ? { sandbox: { ...launch.details } } : {}),
          ...(Object.keys(output.redactions).length > 0 ? { redactions: output.redactions } : {}),
        };
        const body = output.text.trim() === "" ? "(no output)" : output.text.replace(/\n+$/, "");
        // A failure the sandbox caused is explained after the exit status.
        const blocked = !timedOut && !aborted && (exitSignal || exitCode !== 0) ? launch?.explain?.(output.text) : undefined;
        if (blocked && details.sandbox) details.sandbox.blocked = blocked;
        const created = await launch?.after?.();
        if (created && details.sandbox) details.sandbox.createdRepository = created;
        const note = (blocked ? `\n\n${refusalNote(blocked)}` : "") + (created ? `\n\n[Sandbox: ${created.message}]` : "");
        if (timedOut) {
          reject(new ToolExecutionError(`${body}\n\nCommand timed out after ${formatSeconds(req.timeoutMs)} and was killed.${note}`, details));
        } else if (aborted) {
          reject(new ToolExecutionError(`${body}\n\nCommand aborted.${note}`, details));
        } else if (exitSignal) {
          reject(new ToolExecutionError(`${body}\n\nCommand was killed by signal ${exitSignal}.${note}`, details));
        } else if (exitCode !== 0) {
          reject(new ToolExecutionError(`${body}\n\nCommand exited with code ${exitCode}.${note}`, details));
        } else {
          resolve({ content: [{ type: "text", text: `${body}\n\nExit code: 0${note}` }], details });
        }
      })().catch(reject);
    });
  });
}

/** `ms` within [1, maxMs]; NaN and negative values become 1 ms. */
export function clampDurationMs(ms: number, maxMs: number): number {
  if (!(ms >= 1)) return 1;
  return Math.min(ms, maxMs);
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

function safeReadlink(p: string): string {
  try {
    return readlinkSync(p);
  } catch {
    return "";
  }
}
