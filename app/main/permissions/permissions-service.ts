// PermissionsService: the loop's beforeToolCall and afterToolCall for every session.
// beforeToolCall decides allow, deny or ask (policy.ts); an "ask" becomes a permission request
// event and waits until the user answers or the run is aborted. Requests live here, not in a
// window, so they survive a renderer reload; an answer to an unknown or already answered request
// is refused. The bash grammar is loaded on the first bash call (once per process). Stored rules
// from older versions are annotated once (rule-migration.ts). afterToolCall redacts secrets from
// every tool's output before it reaches the model or the disk, and says so (bash output is
// already redacted as it streams: the tool reports what it removed). Every call that reaches a
// decision is written to the audit log. With a sandbox (options.sandbox), sandbox-mode.ts adjusts
// each decision (never a firm one), the dialog says where the call would run, and every allowed
// bash call's placement (in the sandbox, or outside) is recorded. A call to an MCP server's tool
// is decided under rules for "mcp" (mcp-rules.ts), without the sandbox.
import { randomUUID } from "node:crypto";
import type { AssistantMessage } from "../../shared/agent-types.ts";
import type { EventName, EventPayload, PermissionRequest } from "../../shared/ipc/contract.ts";
import type { McpCallSummary } from "../../shared/ipc/mcp-schemas.ts";
import { ServiceError } from "../../shared/errors.ts";
import type { AfterToolCallResult, AgentLoopConfig, BeforeToolCallResult } from "../loop/index.ts";
import type { PermissionRule, SessionStore } from "../store/index.ts";
import { summarizeCall } from "./call-summary.ts";
import { mcpProposedRule, mcpSubjects, mcpSummary, MCP_RULE_TOOL } from "./mcp-rules.ts";
import { EDIT_TOOLS, callSubjects, decide, describeRule, proposeRule, type Decision, type PermissionMode } from "./policy.ts";
import { describeRedactions, type SecretScanner } from "./redaction.ts";
import { migrateRules, ruleNote } from "./rule-migration.ts";
import { loadShellParser } from "./shell-parser.ts";
import { placementFor, planSandbox, requestInfo, sandboxDecision, type SandboxPlan, type SandboxPort } from "./sandbox-mode.ts";

/** The session whose tool calls the hooks judge (the sessions service's SessionScope satisfies it). */
export interface PermissionScope {
  sessionId: number;
  projectId: number;
  projectDir: string;
}

/** The loop hooks handed to a session (AgentLoopConfig's beforeToolCall and afterToolCall). */
export type PermissionHooks = Pick<AgentLoopConfig, "beforeToolCall" | "afterToolCall">;

export type UserDecision = "allow-once" | "allow-session" | "allow-project" | "deny";

export interface PermissionsServiceOptions {
  store: SessionStore;
  /** Where requests and answers are announced (the IPC event hub, passed in by app-services.ts). */
  hub: { emit<E extends EventName>(event: E, payload: EventPayload<E>): void };
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
}

interface Pending {
  request: PermissionRequest;
  projectId: number;
  settle: (answer: { decision: UserDecision | "aborted"; patterns?: string[]; reason?: string; outsideSandbox?: boolean }) => void;
}

interface Started {
  auditId: number;
  startedAt: number;
}

export class PermissionsService {
  private readonly o: PermissionsServiceOptions;
  private readonly pending = new Map<string, Pending>();
  private readonly started = new Map<string, Started>();
  private readonly writesPerTurn = new WeakMap<AssistantMessage, number>();

  constructor(options: PermissionsServiceOptions) {
    this.o = options;
    migrateRules(options.store);
  }

  hooks(scope: PermissionScope): PermissionHooks {
    return {
      beforeToolCall: (ctx, signal) => this.before(scope, ctx.assistantMessage, ctx.toolCall.id, ctx.toolCall.name, ctx.args, signal),
      afterToolCall: (ctx) => this.after(ctx.toolCall.id, ctx.result, ctx.isError),
    };
  }

  pendingFor(sessionId: number): PermissionRequest[] {
    return [...this.pending.values()].filter((p) => p.request.sessionId === sessionId).map((p) => p.request);
  }

  allPending(): PermissionRequest[] {
    return [...this.pending.values()].map((p) => p.request);
  }

  cancelSession(sessionId: number): void {
    for (const p of [...this.pending.values()]) if (p.request.sessionId === sessionId) p.settle({ decision: "aborted" });
  }

  respond(answer: { requestId: string; decision: UserDecision; rule?: { tool: string; pattern: string }; reason?: string; outsideSandbox?: boolean }): void {
    const p = this.pending.get(answer.requestId);
    if (!p) throw new ServiceError("not-found", `There is no pending permission request ${answer.requestId}: it was already answered or cancelled.`);
    const pattern = answer.rule?.pattern ?? p.request.proposedRule.pattern;
    if (answer.rule && answer.rule.tool !== p.request.proposedRule.tool) {
      throw new ServiceError("invalid", `The rule is for ${answer.rule.tool}, but the request is for ${p.request.proposedRule.tool}.`);
    }
    const patterns = pattern.split("\n").map((l) => l.trim()).filter(Boolean);
    if (answer.decision === "allow-project" && patterns.length === 0) throw new ServiceError("invalid", "The rule's pattern is empty.");
    p.settle({ decision: answer.decision, patterns, reason: answer.reason, outsideSandbox: answer.outsideSandbox === true });
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
    toolCallId: string,
    toolName: string,
    args: unknown,
    signal: AbortSignal | undefined,
  ): Promise<BeforeToolCallResult | undefined> {
    const mcp = this.o.describeMcpTool?.(toolName);
    const ruleTool = mcp ? MCP_RULE_TOOL : toolName;
    if (toolName === "bash" && !mcp) {
      try {
        await loadShellParser();
      } catch (error) {
        // Without the grammar no command can be judged: refuse rather than guess.
        this.o.store.audit.record({ sessionId: scope.sessionId, toolCallId, toolName, args, decision: "deny", decidedBy: "policy: no shell parser", durationMs: null, outcome: "blocked" });
        return { block: true, reason: `Lathe could not load its bash parser, so it cannot judge commands: ${(error as Error).message}` };
      }
    }
    const subjects = mcp ? mcpSubjects(mcp) : callSubjects(toolName, args, scope.projectDir);
    const rules = this.o.store.permissionRules.applicable({ sessionId: scope.sessionId, projectId: scope.projectId });
    const mode = this.o.mode();
    const port = this.o.sandbox;
    // An MCP server's tool runs in the server's process, not in the sandbox.
    const plan = port && !mcp ? planSandbox({ toolName, subjects, mode, scope, port }) : undefined;
    const policy = decide({ toolName: ruleTool, subjects, rules, mode });
    const decision = plan ? sandboxDecision(policy, plan, { toolName, subjects, mode }) : policy;
    const place = (outside: boolean) => {
      if (port && plan && toolName === "bash") port.place(scope.sessionId, toolCallId, placementFor(plan, outside));
    };
    const audit = (allowed: boolean, decidedBy: string, outcome: string | null) => {
      const auditId = this.o.store.audit.record({ sessionId: scope.sessionId, toolCallId, toolName, args, decision: allowed ? "allow" : "deny", decidedBy, durationMs: null, outcome });
      if (allowed) this.started.set(toolCallId, { auditId, startedAt: performance.now() });
    };

    if (decision.action === "deny") {
      audit(false, `rule #${decision.rule?.id}`, "blocked");
      return { block: true, reason: decision.reason };
    }
    if (EDIT_TOOLS.has(toolName)) {
      const writes = (this.writesPerTurn.get(assistantMessage) ?? 0) + 1;
      this.writesPerTurn.set(assistantMessage, writes);
      const limit = this.o.maxFileWritesPerTurn ?? 25;
      if (writes > limit) {
        audit(false, "policy: rate limit", "blocked");
        return { block: true, reason: `Rate limit: at most ${limit} file writes and edits per turn. Check the work so far, then continue in the next turn.` };
      }
    }
    if (decision.action === "allow") {
      audit(true, decision.by === "rule" ? `rule #${decision.rule?.id}` : decision.by === "mode" ? `mode: ${mode}` : "default", null);
      place(false);
      return undefined;
    }

    const answer = await this.ask(scope, toolCallId, toolName, args, subjects, decision, signal, plan, mcp);
    if (answer.decision === "aborted") {
      audit(false, "aborted", "blocked");
      return { block: true, reason: "The run was aborted before the user answered this permission request." };
    }
    if (answer.decision === "deny") {
      audit(false, "user", "blocked");
      return { block: true, reason: `The user denied this call${answer.reason?.trim() ? `: ${answer.reason.trim()}` : "."}` };
    }
    if (answer.decision !== "allow-once") {
      const ruleScope = answer.decision === "allow-session" ? "session" : "project";
      for (const pattern of answer.patterns ?? []) {
        this.o.store.permissionRules.add({
          tool: ruleTool,
          pattern,
          action: "allow",
          scope: ruleScope,
          scopeId: ruleScope === "session" ? scope.sessionId : scope.projectId,
        });
      }
    }
    audit(true, `user: ${answer.decision}${answer.outsideSandbox ? " (outside the sandbox)" : ""}`, null);
    place(answer.outsideSandbox === true);
    return undefined;
  }

  private async ask(
    scope: PermissionScope,
    toolCallId: string,
    toolName: string,
    args: unknown,
    subjects: ReturnType<typeof callSubjects>,
    decision: Decision,
    signal: AbortSignal | undefined,
    plan: SandboxPlan | undefined,
    mcp: McpCallSummary | undefined,
  ): Promise<Parameters<Pending["settle"]>[0]> {
    // The diff preview runs in a worker, bounded in time (call-summary.ts): never on this thread.
    const summary = mcp ? mcpSummary(mcp) : await summarizeCall(toolName, args, subjects, { signal });
    if (signal?.aborted) return { decision: "aborted" };
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
      proposedRule: { tool: proposed.tool, pattern: proposed.pattern, ...(proposed.meaning ? { meaning: proposed.meaning } : {}), ...(proposed.warning ? { warning: proposed.warning } : {}) },
      ...(plan ? { sandbox: requestInfo(plan) } : {}),
      createdAt: Date.now(),
    };
    return new Promise((resolve) => {
      const onAbort = () => settle({ decision: "aborted" });
      const settle: Pending["settle"] = (answer) => {
        if (!this.pending.delete(request.id)) return;
        signal?.removeEventListener("abort", onAbort);
        this.o.hub.emit("permission.resolved", { requestId: request.id, sessionId: scope.sessionId, decision: answer.decision });
        this.o.onPendingChange?.(scope.sessionId);
        resolve(answer);
      };
      this.pending.set(request.id, { request, projectId: scope.projectId, settle });
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      this.o.hub.emit("permission.request", request);
      this.o.onPendingChange?.(scope.sessionId);
    });
  }

  private async after(
    toolCallId: string,
    result: { content: { type: string; text?: string }[]; details: unknown },
    isError: boolean,
  ): Promise<AfterToolCallResult | undefined> {
    const started = this.started.get(toolCallId);
    this.started.delete(toolCallId);
    if (started) this.o.store.audit.finish(started.auditId, Math.round(performance.now() - started.startedAt), isError ? "error" : "ok");

    const scanner = this.o.secrets();
    // Details often repeat the output the content shows: count each kind where it was seen most.
    const inContent: Record<string, number> = {};
    const inDetails: Record<string, number> = {};
    const adder = (into: Record<string, number>) => (more: Record<string, number>) => {
      for (const [k, n] of Object.entries(more)) into[k] = (into[k] ?? 0) + n;
    };
    const content = result.content.map((block) => {
      if (block.type !== "text" || typeof block.text !== "string") return block;
      const r = scanner.redact(block.text);
      adder(inContent)(r.found);
      return { ...block, text: r.text };
    });
    const details = redactDeep(result.details, scanner, adder(inDetails));
    const found: Record<string, number> = { ...inDetails };
    for (const [k, n] of Object.entries(inContent)) found[k] = Math.max(n, found[k] ?? 0);
    // What a tool redacted itself as its output streamed (bash).
    const atSource = (result.details as { redactions?: unknown } | null | undefined)?.redactions;
    if (atSource && typeof atSource === "object") {
      for (const [k, n] of Object.entries(atSource)) if (typeof n === "number") found[k] = Math.max(n, found[k] ?? 0);
    }
    if (Object.keys(found).length === 0) return undefined;
    const note = `\n[Lathe redacted ${describeRedactions(found)} from this output.]`;
    return {
      content: [...(content as AfterToolCallResult["content"] & object), { type: "text", text: note }],
      details: details && typeof details === "object" ? { ...details, redactions: found } : details,
    };
  }
}

function redactDeep(value: unknown, scanner: SecretScanner, add: (found: Record<string, number>) => void, depth = 0): unknown {
  if (typeof value === "string") {
    const r = scanner.redact(value);
    add(r.found);
    return r.text;
  }
  if (depth > 6 || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, scanner, add, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === "redactions" ? v : redactDeep(v, scanner, add, depth + 1)]));
}
