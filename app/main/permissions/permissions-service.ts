// PermissionsService: the loop's beforeToolCall and afterToolCall for every session.
// beforeToolCall decides allow, deny or ask (call-judge.ts judges, policy.ts decides); an "ask"
// becomes a permission request event and waits until the user answers or the run is aborted.
// Requests live in Questions (questions.ts), not in a window, so they survive a renderer reload; an
// answer to an unknown or already answered request is refused. Stored rules from older versions are
// annotated once (rule-migration.ts).
// Batches: when a call of an assistant message asks, every later call of that message is judged at
// once (with the same argument preparation and validation the loop will apply), and all those that
// ask are asked together, so a person answers the batch up front. The loop's contract is unchanged:
// each call's beforeToolCall still decides for that call, in source order, when its turn comes: it
// judges again and uses the kept answer only when the call is judged exactly as when it was asked
// (same arguments, reasons, warnings and sandbox crossing); otherwise it asks again. Rules an answer
// saves are saved at once, and questions those rules now answer are closed as covered.
// afterToolCall redacts secrets from every tool's output before it reaches the model or the disk,
// and says so (output-redaction.ts).
// Every call that reaches a decision is written to the audit log. With a sandbox (options.sandbox),
// sandbox-mode.ts adjusts each decision (never a firm one), the dialog says where the call would
// run, and every allowed bash call's placement (in the sandbox, or outside) is recorded.
// A blocked call's result says why, and whether a decision denied it or the run was stopped.
import { randomUUID } from "node:crypto";
import type { AssistantMessage, ToolCall } from "../../shared/agent-types.ts";
import type { PermissionRequest } from "../../shared/ipc/contract.ts";
import type { McpCallSummary } from "../../shared/ipc/mcp-schemas.ts";
import { ServiceError } from "../../shared/errors.ts";
import { toolCallsOf, type AfterToolCallResult, type AgentLoopConfig, type AnyAgentTool, type BeforeToolCallContext, type BeforeToolCallResult } from "../loop/index.ts";
import type { PermissionRule, SessionStore } from "../store/index.ts";
import type { AsyncFileSystem } from "../tools/fs-answers.ts";
import type { ComputePool } from "../workers/compute-pool.ts";
import { CallJudge, questionKey, type JudgedCall, type PermissionScope } from "./call-judge.ts";
import { mcpPatternError, MCP_RULE_TOOL } from "./mcp-rules.ts";
import { redactToolOutput, type ToolOutput } from "./output-redaction.ts";
import { EDIT_TOOLS, describeRule, type PermissionMode } from "./policy.ts";
import { Questions, type Answer, type PermissionEventPort, type QuestionSpec, type UserDecision } from "./questions.ts";
import type { SecretScanner } from "./redaction.ts";
import { migrateRules, ruleNote } from "./rule-migration.ts";
import { placementFor, type SandboxPort } from "./sandbox-mode.ts";

export type { PermissionScope, UserDecision };

/** A blocked call's result, with what blocked it: a decision ("denied") or a stopped run ("stopped"). */
export interface PermissionBeforeResult extends BeforeToolCallResult {
  outcome?: "denied" | "stopped";
}

/** The hooks handed to a session (the sessions service's ToolHooks accepts them). */
export interface PermissionHooks {
  beforeToolCall: (ctx: BeforeToolCallContext, signal?: AbortSignal) => Promise<PermissionBeforeResult | undefined>;
  afterToolCall: NonNullable<AgentLoopConfig["afterToolCall"]>;
  /** The batch of an assistant message is over (its turn_end). Must not throw. */
  afterBatch: (message: AssistantMessage) => void;
}

export interface PermissionsServiceOptions {
  store: SessionStore;
  /** Where requests and answers are announced (the IPC event hub, passed in by app-services.ts). */
  hub: PermissionEventPort;
  mode: () => PermissionMode;
  /** The redaction rules with the configured keys and secret-looking environment values. */
  secrets: () => SecretScanner;
  /** Called when a session's pending requests change (the sessions service re-sends its state). */
  onPendingChange?: (sessionId: number) => void;
  /** Rate limit: file writes and edits allowed per turn (one assistant message). Default 25. */
  maxFileWritesPerTurn?: number;
  /** The sandbox commands run in; without it, the policy alone decides and nothing is placed. */
  sandbox?: SandboxPort;
  /** What a tool is when it belongs to an MCP server (its calls are then decided under "mcp" rules). */
  describeMcpTool?: (toolName: string) => McpCallSummary | undefined;
  /** Where the dialogs' diff previews are computed; default the shared compute pool. */
  pool?: ComputePool;
  /** Where the judge's file system answers come from (call-judge.ts); default the host's, off the event loop. */
  fileSystem?: AsyncFileSystem;
  fileSystemTimeoutMs?: number;
}

interface Started {
  auditId: number;
  startedAt: number;
}

/** Times a call is judged again after a rule answered its question before asking anew. */
const MAX_REJUDGE = 3;

export class PermissionsService {
  private readonly o: PermissionsServiceOptions;
  private readonly questions: Questions;
  private readonly callJudge: CallJudge;
  private readonly started = new Map<string, Started>();
  private readonly writesPerTurn = new WeakMap<AssistantMessage, number>();
  /** Batches whose later calls were already judged together. */
  private readonly prejudged = new WeakSet<AssistantMessage>();

  constructor(options: PermissionsServiceOptions) {
    this.o = options;
    this.callJudge = new CallJudge(options);
    this.questions = new Questions(options.hub, (sessionId) => options.onPendingChange?.(sessionId));
    migrateRules(options.store);
  }

  hooks(scope: PermissionScope): PermissionHooks {
    return {
      beforeToolCall: (ctx, signal) => this.before(scope, ctx.assistantMessage, ctx.toolCall, ctx.args, ctx.context.tools, signal),
      afterToolCall: (ctx) => this.after(ctx.toolCall.id, ctx.result, ctx.isError),
      // Whatever is still open for the batch (a call that never reached its turn) goes with it.
      afterBatch: (message) => this.questions.dropPassed(message, Number.POSITIVE_INFINITY),
    };
  }

  pendingFor(sessionId: number): PermissionRequest[] {
    return this.questions.pendingFor(sessionId);
  }

  allPending(): PermissionRequest[] {
    return this.questions.all();
  }

  cancelSession(sessionId: number): void {
    this.questions.cancelSession(sessionId);
  }

  respond(answer: { requestId: string; decision: UserDecision; rule?: { tool: string; pattern: string }; reason?: string; outsideSandbox?: boolean }): void {
    const q = this.questions.take(answer.requestId);
    const pattern = answer.rule?.pattern ?? q.request.proposedRule.pattern;
    if (answer.rule && answer.rule.tool !== q.request.proposedRule.tool) {
      throw new ServiceError("invalid", `The rule is for ${answer.rule.tool}, but the request is for ${q.request.proposedRule.tool}.`);
    }
    const patterns = pattern
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean);
    if (answer.decision === "allow-project" && patterns.length === 0) throw new ServiceError("invalid", "The rule's pattern is empty.");
    const mcpServer = q.ruleTool === MCP_RULE_TOOL ? q.request.summary.mcp?.server : undefined;
    if (q.ruleTool === MCP_RULE_TOOL && (answer.decision === "allow-session" || answer.decision === "allow-project")) {
      // An answer about one server's tool saves rules for that server only (never `*`, never another server's tools).
      const refused = patterns.map((p) => (mcpServer === undefined ? "The question names no MCP server." : mcpPatternError(mcpServer, p))).find(Boolean);
      if (refused) throw new ServiceError("invalid", refused);
    }
    // Rules are saved when the person answers, even if the call's turn never comes (a stopped run).
    if (answer.decision === "allow-session" || answer.decision === "allow-project") {
      const ruleScope = answer.decision === "allow-session" ? "session" : "project";
      for (const p of patterns) {
        this.o.store.permissionRules.add({ tool: q.ruleTool, pattern: p, action: "allow", scope: ruleScope, scopeId: ruleScope === "session" ? q.request.sessionId : q.projectId });
      }
    }
    this.questions.end(q.request.id, { decision: answer.decision, patterns, reason: answer.reason, outsideSandbox: answer.outsideSandbox === true });
    if (answer.decision === "allow-session" || answer.decision === "allow-project") this.questions.coverAllowed(q.request.sessionId);
  }

  /** Answers every open question of a batch: allow each once, or deny all with one reason. */
  respondBatch(answer: { batchId: string; decision: "allow-once" | "deny"; reason?: string }): { answered: number } {
    const open = this.questions.ofBatch(answer.batchId);
    if (open.length === 0) throw new ServiceError("not-found", `There is no pending permission request in batch ${answer.batchId}: they were already answered or cancelled.`);
    let answered = 0;
    for (const q of open) if (this.questions.end(q.request.id, { decision: answer.decision, patterns: [], reason: answer.reason, outsideSandbox: false })) answered++;
    return { answered };
  }

  // Rules, for the settings screen

  rules(query: { projectId?: number; sessionId?: number }): (PermissionRule & { meaning: string; note?: string })[] {
    const rules = query.projectId === undefined && query.sessionId === undefined ? this.o.store.permissionRules.all() : this.o.store.permissionRules.applicable(query);
    return rules.map((rule) => this.explained(rule));
  }

  /** A rule with what it means now, and what changed if it was saved by an older version. */
  explained(rule: PermissionRule): PermissionRule & { meaning: string; note?: string } {
    const note = ruleNote(this.o.store, rule);
    return { ...rule, meaning: describeRule(rule), ...(note ? { note } : {}) };
  }

  private async before(
    scope: PermissionScope,
    assistantMessage: AssistantMessage,
    toolCall: ToolCall,
    args: unknown,
    tools: readonly AnyAgentTool[],
    signal: AbortSignal | undefined,
  ): Promise<PermissionBeforeResult | undefined> {
    const toolCallId = toolCall.id;
    const toolName = toolCall.name;
    const calls = toolCallsOf(assistantMessage);
    const position = calls.includes(toolCall) ? calls.indexOf(toolCall) : calls.findIndex((c) => c.id === toolCall.id);
    // Questions of earlier calls still open were never taken: their turn has passed.
    this.questions.dropPassed(assistantMessage, position);
    const audit = (allowed: boolean, decidedBy: string, outcome: string | null) => {
      const auditId = this.o.store.audit.record({
        sessionId: scope.sessionId,
        toolCallId,
        toolName,
        args,
        decision: allowed ? "allow" : "deny",
        decidedBy,
        durationMs: null,
        outcome,
      });
      if (allowed) this.started.set(toolCallId, { auditId, startedAt: performance.now() });
    };

    let countedWrite = false;
    for (let attempt = 0; ; attempt++) {
      const judged = await this.callJudge.judge(scope, toolName, args);
      if (judged.kind !== "judged") {
        audit(false, judged.kind === "no-parser" ? "policy: no shell parser" : "policy: the file system did not answer", "blocked");
        return { block: true, reason: judged.reason, outcome: "denied" };
      }
      const { decision, plan } = judged;
      const place = (outside: boolean) => {
        if (this.o.sandbox && plan && toolName === "bash") this.o.sandbox.place(scope.sessionId, toolCallId, placementFor(plan, outside));
      };
      if (decision.action === "deny") {
        this.dropQuestionOf(toolCallId);
        audit(false, `rule #${decision.rule?.id}`, "blocked");
        return { block: true, reason: decision.reason, outcome: "denied" };
      }
      if (EDIT_TOOLS.has(toolName) && !countedWrite) {
        countedWrite = true;
        const writes = (this.writesPerTurn.get(assistantMessage) ?? 0) + 1;
        this.writesPerTurn.set(assistantMessage, writes);
        const limit = this.o.maxFileWritesPerTurn ?? 25;
        if (writes > limit) {
          this.dropQuestionOf(toolCallId);
          audit(false, "policy: rate limit", "blocked");
          return { block: true, reason: `Rate limit: at most ${limit} file writes and edits per turn. Check the work so far, then continue in the next turn.`, outcome: "denied" };
        }
      }
      if (decision.action === "allow") {
        this.dropQuestionOf(toolCallId);
        audit(true, decision.by === "rule" ? `rule #${decision.rule?.id}` : decision.by === "mode" ? `mode: ${this.o.mode()}` : "default", null);
        place(false);
        return undefined;
      }

      const answer = await this.answerFor(scope, assistantMessage, toolCall, position, judged, tools, signal);
      if (answer.decision === "covered" && attempt < MAX_REJUDGE) continue;
      if (!("patterns" in answer)) {
        if (answer.decision === "aborted") {
          audit(false, "aborted", "blocked");
          return { block: true, reason: "The run was aborted before the user answered this permission request.", outcome: "stopped" };
        }
        // Rules kept changing under it: its question closed without an answer.
        audit(false, "question closed", "blocked");
        return { block: true, reason: "Its permission request was closed before the user answered it; ask again if it is still needed.", outcome: "denied" };
      }
      if (answer.decision === "deny") {
        audit(false, "user", "blocked");
        return { block: true, reason: `The user denied this call${answer.reason?.trim() ? `: ${answer.reason.trim()}` : "."}`, outcome: "denied" };
      }
      audit(true, `user: ${answer.decision}${answer.outsideSandbox ? " (outside the sandbox)" : ""}`, null);
      place(answer.outsideSandbox);
      return undefined;
    }
  }

  private dropQuestionOf(toolCallId: string): void {
    this.questions.forget(toolCallId);
  }

  /**
   * The answer for a call that asks: the one kept for it when it was asked with its batch and is
   * judged the same way now, else a new question (asked together with the batch's later calls
   * that ask, the first time a call of the batch asks).
   */
  private async answerFor(
    scope: PermissionScope,
    message: AssistantMessage,
    toolCall: ToolCall,
    position: number,
    judged: JudgedCall,
    tools: readonly AnyAgentTool[],
    signal: AbortSignal | undefined,
  ): Promise<Answer> {
    const kept = this.questions.takeKept(toolCall.id);
    if (kept && kept.key === questionKey(judged)) return kept.answer;
    // Judged differently now (the files, the rules or the sandbox changed): that answer was for something else.
    if (kept) this.questions.forget(toolCall.id);

    const specs: Promise<QuestionSpec | undefined>[] = [this.callJudge.questionSpec(scope, message, toolCall.id, position, judged, signal)];
    if (position >= 0 && !this.prejudged.has(message)) {
      this.prejudged.add(message);
      toolCallsOf(message).forEach((later, i) => {
        if (i <= position) return;
        specs.push(this.callJudge.prejudge(scope, message, i, later, tools, signal));
      });
    }
    const asking = (await Promise.all(specs)).filter((s): s is QuestionSpec => s !== undefined);
    if (signal?.aborted) return { decision: "aborted" };
    if (asking.length > 1) {
      const batchId = randomUUID();
      for (const spec of asking) spec.request.batch = { id: batchId, position: spec.position, asking: asking.length };
    }
    const [own] = this.questions.ask(asking, signal);
    return own ? own.answer : { decision: "aborted" };
  }

  private async after(toolCallId: string, result: ToolOutput, isError: boolean): Promise<AfterToolCallResult | undefined> {
    const started = this.started.get(toolCallId);
    this.started.delete(toolCallId);
    if (started) this.o.store.audit.finish(started.auditId, Math.round(performance.now() - started.startedAt), isError ? "error" : "ok");
    return redactToolOutput(result, this.o.secrets());
  }
}
