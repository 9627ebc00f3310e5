// The coding tools of one session: bash, read, write, edit, ls, find and grep, bound to the
// session's project folder. `createCodingTools` returns them with the handle through which the
// sessions service types into or interrupts a running bash call. Writes and edits of one file are
// serialized process-wide (file-lock.ts). `toolPathOf` (paths.ts) tells the permission layer
// which path a call touches.
import type { AnyAgentTool } from "../loop/index.ts";
import type { ComputePool } from "../workers/compute-pool.ts";
import type { OutputRedactor } from "./bash-output.ts";
import { createBashTool } from "./bash.ts";
import { createEditTool } from "./edit.ts";
import { FileLockAdmission } from "./file-lock.ts";
import { createFindTool } from "./find.ts";
import { createGrepTool } from "./grep.ts";
import { createLsTool } from "./ls.ts";
import { createReadTool } from "./read.ts";
import { RunningCommands } from "./running-commands.ts";
import { createWriteTool } from "./write.ts";
import type { CommandSandbox } from "../sandbox/session-sandbox.ts";

export type { OutputRedactor } from "./bash-output.ts";

export interface CodingToolsOptions {
  projectDir: string;
  /** Default bash timeout (a call's own `timeout` overrides it). Default 120 s. */
  bashTimeoutMs?: number;
  /** Where full bash outputs are saved. Default: a temporary folder per session, made on first use. */
  outputDir?: string;
  /** Variables added to the commands' sanitized environment. */
  env?: Record<string, string>;
  /** "javascript" forces grep's built-in search even when ripgrep is installed. */
  grepEngine?: "auto" | "javascript";
  /** Worker pool for edit, write and grep's JavaScript engine (default: the process-wide one). */
  pool?: ComputePool;
  /** Where bash commands run (the session's sandbox); without it they run directly. */
  sandbox?: CommandSandbox;
  /** Redacts secrets from bash output as it streams. */
  secrets?: () => OutputRedactor;
  /** Whether bash commands running at once share the CPU like one program (read at each call; default yes). */
  lowerPriority?: () => boolean;
}

export interface CodingTools {
  tools: AnyAgentTool[];
  /** Types into a running bash call's terminal ("\r" is Enter). False when it is not running; throws CommandInputFull when too much input waits for it. */
  writeInput(toolCallId: string, data: string): boolean;
  /** Interrupts a running bash call (like Ctrl-C). False when it is not running. */
  interrupt(toolCallId: string): boolean;
  /** Whether a bash call with this id is running. */
  isRunning(toolCallId: string): boolean;
}

export function createCodingTools(options: CodingToolsOptions): CodingTools {
  const running = new RunningCommands();
  const { projectDir } = options;
  // The session's writes and edits are admitted to the file locks in call order (file-lock.ts).
  const admission = new FileLockAdmission();
  const tools: AnyAgentTool[] = [
    createReadTool({ projectDir }),
    createBashTool({
      projectDir,
      timeoutMs: options.bashTimeoutMs,
      outputDir: options.outputDir,
      env: options.env,
      running,
      sandbox: options.sandbox,
      secrets: options.secrets,
      lowerPriority: options.lowerPriority,
    }),
    createEditTool({ projectDir, pool: options.pool, admission }),
    createWriteTool({ projectDir, pool: options.pool, admission }),
    createGrepTool({ projectDir, engine: options.grepEngine, pool: options.pool }),
    createFindTool({ projectDir }),
    createLsTool({ projectDir }),
  ];
  return {
    tools,
    writeInput: (id, data) => running.writeInput(id, data),
    interrupt: (id) => running.interrupt(id),
    isRunning: (id) => running.isRunning(id),
  };
}
