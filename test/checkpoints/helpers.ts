// Fixtures for the checkpoint tests: a real project folder and data folder, a CheckpointService
// over them, and a scripted transcript (user messages and turns with tool calls) that stands for
// a session, so turns can be checkpointed around real commands.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { AgentMessage, AssistantMessage, ToolCall } from "../../app/shared/agent-types.ts";
import { emptyUsage } from "../../app/shared/agent-types.ts";
import { CheckpointService, type SessionSource } from "../../app/main/checkpoints/checkpoint-service.ts";
import { Rewinder } from "../../app/main/checkpoints/rewinder.ts";
import { turnKey } from "../../app/main/checkpoints/turns.ts";
import { GitRunner, type GitOptions } from "../../app/main/checkpoints/git-runner.ts";

export function tempDir(prefix: string): string {
  return realpathSync(mkdtempSync(path.join(tmpdir(), prefix)));
}

export function bash(cwd: string, script: string): string {
  return execFileSync("bash", ["-c", script], { cwd, encoding: "utf8", env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" } });
}

/** Every file under `dir` (not .git, not node_modules) → content, for exact comparisons. */
export function snapshot(dir: string, skip: readonly string[] = [".git", "node_modules"]): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(dir, rel))) {
      if (skip.includes(name)) continue;
      const relPath = rel ? `${rel}/${name}` : name;
      const full = path.join(dir, relPath);
      if (statSync(full).isDirectory()) walk(relPath);
      else out[relPath] = readFileSync(full, "latin1");
    }
  };
  walk("");
  return out;
}

export function write(dir: string, rel: string, content: string): void {
  mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  writeFileSync(path.join(dir, rel), content);
}

function assistant(calls: { id: string; name: string; arguments: Record<string, unknown> }[]): AssistantMessage {
  return {
    role: "assistant",
    content: calls.map((c): ToolCall => ({ type: "toolCall", id: c.id, name: c.name, arguments: c.arguments })),
    api: "anthropic-messages",
    provider: "test",
    model: "test",
    usage: emptyUsage(),
    stopReason: "toolUse",
    timestamp: Date.now(),
  };
}

/** A session of scripted messages; `turn` runs a real change between its before and after checkpoints. */
export class FakeSession implements SessionSource {
  readonly messages: AgentMessage[] = [];
  readonly sessionId: number;
  readonly projectId: number;
  readonly projectDir: string;
  readonly cp: CheckpointService;
  parents: { sessionId: number; forkPosition: number }[] = [];
  #calls = 0;

  constructor(cp: CheckpointService, projectDir: string, sessionId = 1, projectId = 1) {
    this.cp = cp;
    this.projectDir = projectDir;
    this.sessionId = sessionId;
    this.projectId = projectId;
  }

  /** How many times the whole transcript was read. */
  transcriptReads = 0;

  place(sessionId: number) {
    if (sessionId !== this.sessionId) throw new Error(`no session ${sessionId}`);
    return { projectId: this.projectId, projectDir: this.projectDir, lineage: { sessionId: this.sessionId, parents: this.parents } };
  }

  transcript(sessionId: number) {
    const place = this.place(sessionId);
    this.transcriptReads++;
    return { messages: this.messages, ...place };
  }

  /** How many single messages were read (messageAt). */
  messageReads = 0;

  messageAt(sessionId: number, position: number) {
    this.place(sessionId);
    this.messageReads++;
    return this.messages[position];
  }

  /** Turns record where their message is (as live sessions do); false: as an older Lathe, without. */
  recordPlaces = true;

  /** Adds a user message; returns its position. */
  user(text: string): number {
    this.messages.push({ role: "user", content: text, timestamp: Date.now() });
    return this.messages.length - 1;
  }

  /** A turn with one call per entry: checkpoint before, `change()`, checkpoint after. */
  async turn(calls: { name: string; arguments?: Record<string, unknown> }[], change: () => void | Promise<void>): Promise<string> {
    const withIds = calls.map((c) => ({ id: `call-${this.sessionId}-${++this.#calls}`, name: c.name, arguments: c.arguments ?? {} }));
    this.messages.push(assistant(withIds));
    const scope = { sessionId: this.sessionId, projectId: this.projectId, projectDir: this.projectDir };
    const key = turnKey(this.sessionId, withIds[0]!.id);
    const position = this.messages.length - 1;
    const userPosition = this.messages.findLastIndex((m) => m.role === "user");
    await this.cp.beforeTurn(scope, key, this.recordPlaces ? { position, userPosition } : undefined);
    await change();
    await this.cp.afterTurn(scope, key);
    for (const c of withIds)
      this.messages.push({ role: "toolResult", toolCallId: c.id, toolName: c.name, content: [{ type: "text", text: "ok" }], isError: false, timestamp: Date.now() });
    return key;
  }
}

export function makeService(dataDir: string, notices: string[] = [], maxFileBytes?: number): { cp: CheckpointService; rewinder: Rewinder } {
  const cp = new CheckpointService({ dataDir, onNotice: (_l, m) => notices.push(m), maxFileBytes: maxFileBytes === undefined ? undefined : () => maxFileBytes });
  return { cp, rewinder: new Rewinder(cp) };
}

export function cleanup(...dirs: string[]): void {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}

/** A GitRunner that records each call's git command (its words that are not options, e.g. "update-index"). */
export class RecordingGitRunner extends GitRunner {
  readonly calls: string[] = [];
  override run(args: string[], options: GitOptions = {}) {
    this.calls.push(args.filter((a) => !a.startsWith("-") && !a.includes("=")).join(" "));
    return super.run(args, options);
  }
  override start(args: string[], marker: string, options: Omit<GitOptions, "input"> = {}) {
    this.calls.push(args.filter((a) => !a.startsWith("-") && !a.includes("=")).join(" "));
    return super.start(args, marker, options);
  }
}
