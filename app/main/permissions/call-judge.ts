// CallJudge: how the permissions service judges one tool call, and the question it asks when the
// call asks. A judgement is made against the rules, the mode and the sandbox as they are at that
// moment (nothing is cached: a rule saved by one answer changes the next judgement). A call to an
// MCP server's tool is judged under the rules for "mcp" (mcp-rules.ts), without the sandbox. The
// bash grammar is loaded on the first bash call; without it, the judgement is "no-parser" (the
// service refuses the call rather than guess). `prejudge` judges a later call of a batch with the
// argument preparation and validation the loop will apply. `questionKey` says what a question was
// about: a kept answer applies only to a call judged exactly the same way (permissions-service.ts).
// What the call touches (real paths, a package.json's scripts) is read off the event loop
// (tools/fs-answers.ts); a file system that does not answer in time makes the judgement
// "unanswered" (the service refuses the call, saying why) rather than holding the app. A question
// that waits is settled again against the same facts and the rules of that moment (`allowedNow`).
// judge, decideNow and prejudge never throw; questionSpec throws only if the diff preview does.
import { randomUUID } from "node:crypto";
import type { AssistantMessage, ToolCall } from "../../shared/agent-types.ts";
import type { PermissionRequest } from "../../shared/ipc/contract.ts";
import type { McpCallSummary } from "../../shared/ipc/mcp-schemas.ts";
import { validateToolArguments, type AnyAgentTool } from "../loop/index.ts";
import type { SessionStore } from "../store/index.ts";
import { answeredOffThread, type AsyncFileSystem } from "../tools/fs-answers.ts";
import type { ComputePool } from "../workers/compute-pool.ts";
import { summarizeCall } from "./call-summary.ts";
import { mcpProposedRule, mcpSubjects, mcpSummary, MCP_RULE_TOOL } from "./mcp-rules.ts";
import { hostPlatform, resolved } from "./path-facts.ts";
import { callSubjects, decide, proposeRule, type CallSubjects, type Decision, type PermissionMode } from "./policy.ts";
import type { QuestionSpec } from "./questions.ts";
import { loadShellParser } from "./shell-parser.ts";
import { planSandbox, requestInfo, sandboxDecision, type SandboxPlan, type SandboxPort } from "./sandbox-mode.ts";

/** The session whose tool calls the hooks judge (the sessions service's SessionScope satisfies it). */
export interface PermissionScope {
  sessionId: number;
  projectId: number;
  projectDir: string;
}

/** What a judgement reads: the permissions service's options. */
export interface CallJudgeOptions {
  store: SessionStore;
  mode: () => PermissionMode;
  sandbox?: SandboxPort;
  describeMcpTool?: (toolName: string) => McpCallSummary | undefined;
  /** Where the dialog's diff previews are computed (call-summary.ts); default the shared compute pool. */
  pool?: ComputePool;
  /** Where the file system's answers come from (tests: a file system that hangs); default the host's. */
  fileSystem?: AsyncFileSystem;
  /** How long a judgement waits for the file system's answers (fs-answers.ts's default). */
  fileSystemTimeoutMs?: number;
}

/** A call judged now. */
export interface JudgedCall {
  kind: "judged";
  toolName: string;
  args: unknown;
  mcp: McpCallSummary | undefined;
  ruleTool: string;
  subjects: CallSubjects;
  plan: SandboxPlan | undefined;
  decision: Decision;
}

/** How one call is judged now: not at all without the bash grammar, or without the file system's answers. */
export type Judgement = { kind: "no-parser"; reason: string } | { kind: "unanswered"; reason: string } | JudgedCall;

export class CallJudge {
  private readonly o: CallJudgeOptions;

  constructor(options: CallJudgeOptions) {
    this.o = options;
  }

  /** Judges one call against the rules and the mode as they are now. Never throws. */
  async judge(scope: PermissionScope, toolName: string, args: unknown): Promise<Judgement> {
    const mcp = this.o.describeMcpTool?.(toolName);
    if (toolName === "bash" && !mcp) {
      try {
        await loadShellParser();
      } catch (error) {
        // Without the grammar no command can be judged: refuse rather than guess.
        return { kind: "no-parser", reason: `Lathe could not load its bash parser, so it cannot judge commands: ${(error as Error).message}` };
      }
    }
    // The mode's default and the call's place depend on the sandbox: its detection is awaited,
    // never run on this thread (a hung bwrap would hold the whole app for its 10 s time limit).
    await this.o.sandbox?.detectInBackground?.();
    let subjects: CallSubjects;
    try {
      subjects = mcp ? mcpSubjects(mcp) : await this.subjectsOf(scope, toolName, args);
    } catch (error) {
      return { kind: "unanswered", reason: `Lathe could not judge this call: ${(error as Error).message}` };
    }
    return this.decideNow(scope, toolName, args, mcp, subjects);
  }

  /** What the call touches, with the file system's answers fetched off the event loop. */
  private subjectsOf(scope: PermissionScope, toolName: string, args: unknown): Promise<CallSubjects> {
    const { platform, home } = hostPlatform;
    return answeredOffThread((fs) => callSubjects(toolName, args, scope.projectDir, { platform, home, realpath: fs.realpath, smallFileText: fs.smallFileText }), {
      system: this.o.fileSystem,
      timeoutMs: this.o.fileSystemTimeoutMs,
      // Every judgement asks about the project's folder: asked first, a plain command needs one pass.
      seed: [resolved(scope.projectDir)],
    });
  }

  /** The decision on what the call touches, under the rules and the mode as they are now. */
  decideNow(scope: PermissionScope, toolName: string, args: unknown, mcp: McpCallSummary | undefined, subjects: CallSubjects): JudgedCall {
    const ruleTool = mcp ? MCP_RULE_TOOL : toolName;
    const rules = this.o.store.permissionRules.applicable({ sessionId: scope.sessionId, projectId: scope.projectId });
    const mode = this.o.mode();
    const port = this.o.sandbox;
    // An MCP server's tool runs in the server's process, not in the sandbox.
    const plan = port && !mcp ? planSandbox({ toolName, subjects, mode, scope, port }) : undefined;
    const policy = decide({ toolName: ruleTool, subjects, rules, mode });
    const decision = plan ? sandboxDecision(policy, plan, { toolName, subjects, mode }) : policy;
    return { kind: "judged", toolName, args, mcp, ruleTool, subjects, plan, decision };
  }

  /** Judges a later call of the batch now, with the loop's preparation; a spec when it would ask. */
  async prejudge(
    scope: PermissionScope,
    message: AssistantMessage,
    position: number,
    call: ToolCall,
    tools: readonly AnyAgentTool[],
    signal: AbortSignal | undefined,
  ): Promise<QuestionSpec | undefined> {
    if (call.argumentsError !== undefined) return undefined;
    const tool = tools.find((t) => t.name === call.name);
    if (!tool) return undefined;
    let args: unknown;
    try {
      const raw = tool.prepareArguments ? tool.prepareArguments(call.arguments) : call.arguments;
      const validation = validateToolArguments(tool.name, tool.parameters, raw);
      if (!validation.ok) return undefined;
      args = validation.value;
    } catch {
      return undefined;
    }
    const judged = await this.judge(scope, call.name, args);
    if (judged.kind !== "judged" || judged.decision.action !== "ask") return undefined;
    return this.questionSpec(scope, message, call.id, position, judged, signal);
  }

  /** The question for a call that asks: its request (summary, reasons, proposed rule, sandbox) and key. */
  async questionSpec(
    scope: PermissionScope,
    message: AssistantMessage,
    toolCallId: string,
    position: number,
    judged: JudgedCall,
    signal: AbortSignal | undefined,
  ): Promise<QuestionSpec> {
    const { toolName, args, subjects, decision, plan, mcp } = judged;
    // The diff preview runs in a worker, bounded in time (call-summary.ts): never on this thread.
    const summary = mcp ? mcpSummary(mcp) : await summarizeCall(toolName, args, subjects, { signal, pool: this.o.pool });
    const proposed: { tool: string; pattern: string; meaning?: string[]; warning?: string } = mcp ? mcpProposedRule(mcp) : proposeRule(toolName, subjects);
    const request: PermissionRequest = {
      id: randomUUID(),
      sessionId: scope.sessionId,
      toolCallId,
      toolName,
      args,
      summary,
      ...(decision.reasons && decision.reasons.length > 0 ? { reasons: decision.reasons } : {}),
      ...(decision.warnings && decision.warnings.length > 0 ? { warnings: decision.warnings } : {}),
      proposedRule: {
        tool: proposed.tool,
        pattern: proposed.pattern,
        ...(proposed.meaning ? { meaning: proposed.meaning } : {}),
        ...(proposed.warning ? { warning: proposed.warning } : {}),
      },
      ...(plan ? { sandbox: requestInfo(plan) } : {}),
      createdAt: Date.now(),
    };
    return {
      request,
      projectId: scope.projectId,
      message,
      position,
      key: questionKey(judged),
      ruleTool: judged.ruleTool,
      allowedNow: () => {
        try {
          return this.decideNow(scope, toolName, args, mcp, subjects).decision.action === "allow";
        } catch {
          return false;
        }
      },
    };
  }
}

/** What a question was about: an answer applies only to a call judged exactly the same way. */
export function questionKey(j: JudgedCall): string {
  return JSON.stringify([j.toolName, j.args, j.decision.reasons ?? [], j.decision.warnings ?? [], j.plan ? requestInfo(j.plan) : null]);
}
