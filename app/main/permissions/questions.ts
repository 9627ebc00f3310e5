// Questions: the permission requests waiting for a person's answer, for every session. A request
// lives here, not in a window, so it survives a renderer reload. Each one belongs to a tool call of
// an assistant message (a batch) and knows its call's place among the message's calls; several
// calls of one batch may be asked at once (permissions-service.ts pre-judges the batch), and each
// answer is kept until its call's beforeToolCall takes it.
// A question ends exactly once, with the person's answer, or as:
// - "aborted": the run was stopped (its signal) or the session cancelled;
// - "covered": a rule saved by another answer now allows the call (its beforeToolCall judges again);
// - "dropped": its call will not use it (judged differently when its turn came, or passed by).
// Every end emits permission.resolved and tells the sessions service the pending list changed.
// A person's answer is kept for the call (`kept`) until the call takes it, its batch ends, or the
// session's questions are cancelled.
// Never throws, except `take` for an unknown request (a ServiceError the renderer shows).
import type { AssistantMessage } from "../../shared/agent-types.ts";
import type { EventName, EventPayload, PermissionRequest } from "../../shared/ipc/contract.ts";
import { ServiceError } from "../../shared/errors.ts";

/** Where requests and answers are announced (a port: the IPC event hub, passed in by app-services.ts). */
export interface PermissionEventPort {
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void;
}

export type UserDecision = "allow-once" | "allow-session" | "allow-project" | "deny";

export type Answer = { decision: UserDecision; patterns: string[]; reason?: string; outsideSandbox: boolean } | { decision: "aborted" | "covered" | "dropped" };

export interface QuestionSpec {
  request: PermissionRequest;
  projectId: number;
  message: AssistantMessage;
  /** The call's index among the message's tool calls (source order). */
  position: number;
  /** What was judged: an answer applies only to a call judged the same way when its turn comes. */
  key: string;
  /** The tool the rules of an "always allow" answer are saved for. */
  ruleTool: string;
  /** Whether the saved rules now allow the call without a question. Must not throw. */
  allowedNow: () => boolean;
}

export interface Question extends QuestionSpec {
  answer: Promise<Answer>;
}

interface Entry extends Question {
  settle: (answer: Answer) => void;
}

/** What a call finds asked about it: an open question, or an answer kept for it. */
export interface Kept {
  key: string;
  answer: Promise<Answer>;
}

interface KeptAnswer {
  spec: QuestionSpec;
  answer: Answer;
}

export class Questions {
  private readonly open = new Map<string, Entry>();
  /** Answers given before their call's turn, by tool call id. */
  private readonly answered = new Map<string, KeptAnswer>();
  private readonly hub: PermissionEventPort;
  private readonly onPendingChange: (sessionId: number) => void;

  constructor(hub: PermissionEventPort, onPendingChange: (sessionId: number) => void) {
    this.hub = hub;
    this.onPendingChange = onPendingChange;
  }

  /** Opens questions (in the order given, which is source order) and emits their requests. */
  ask(specs: readonly QuestionSpec[], signal: AbortSignal | undefined): Question[] {
    const asked = specs.map((spec) => this.register(spec, signal));
    for (const q of asked) if (this.open.has(q.request.id)) this.hub.emit("permission.request", q.request);
    const sessions = new Set(specs.map((s) => s.request.sessionId));
    for (const id of sessions) this.onPendingChange(id);
    return asked;
  }

  private register(spec: QuestionSpec, signal: AbortSignal | undefined): Entry {
    let settle!: (answer: Answer) => void;
    const answer = new Promise<Answer>((resolve) => {
      const onAbort = () => this.end(spec.request.id, { decision: "aborted" });
      settle = (a) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(a);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
    });
    const entry: Entry = { ...spec, answer, settle };
    // A run already stopped asks nothing: the question ends before anyone sees it.
    if (signal?.aborted) entry.settle({ decision: "aborted" });
    else this.open.set(spec.request.id, entry);
    return entry;
  }

  /** The open question of a tool call, if any. */
  forCall(toolCallId: string): Question | undefined {
    for (const q of this.open.values()) if (q.request.toolCallId === toolCallId) return q;
    return undefined;
  }

  /** The question asked about a call, open or answered, taken away (the call uses it or not at all). */
  takeKept(toolCallId: string): Kept | undefined {
    const kept = this.answered.get(toolCallId);
    if (kept) {
      this.answered.delete(toolCallId);
      return { key: kept.spec.key, answer: Promise.resolve(kept.answer) };
    }
    const open = this.forCall(toolCallId);
    return open && { key: open.key, answer: open.answer.then((answer) => (this.answered.delete(toolCallId), answer)) };
  }

  /** Ends whatever was asked about a call: its open question (as dropped), or its kept answer. */
  forget(toolCallId: string): void {
    this.answered.delete(toolCallId);
    const open = this.forCall(toolCallId);
    if (open) this.end(open.request.id, { decision: "dropped" });
  }

  get(requestId: string): Question | undefined {
    return this.open.get(requestId);
  }

  /** Open questions of a batch (an assistant message), in source order. */
  ofBatch(batchId: string): Question[] {
    return [...this.open.values()].filter((q) => q.request.batch?.id === batchId).sort((a, b) => a.position - b.position);
  }

  pendingFor(sessionId: number): PermissionRequest[] {
    return [...this.open.values()].filter((q) => q.request.sessionId === sessionId).map((q) => q.request);
  }

  all(): PermissionRequest[] {
    return [...this.open.values()].map((q) => q.request);
  }

  /** Ends a question; false when it had already ended. */
  end(requestId: string, answer: Answer, notify = true): boolean {
    const entry = this.open.get(requestId);
    if (!entry) return false;
    this.open.delete(requestId);
    if ("patterns" in answer) this.answered.set(entry.request.toolCallId, { spec: entry, answer });
    entry.settle(answer);
    this.hub.emit("permission.resolved", { requestId, sessionId: entry.request.sessionId, decision: answer.decision });
    if (notify) this.onPendingChange(entry.request.sessionId);
    return true;
  }

  /** Ends the open questions of a message's calls placed before `position` (their turn has passed). */
  dropPassed(message: AssistantMessage, position: number): void {
    for (const q of [...this.open.values()]) if (q.message === message && q.position < position) this.end(q.request.id, { decision: "dropped" });
    for (const [id, kept] of [...this.answered]) if (kept.spec.message === message && kept.spec.position < position) this.answered.delete(id);
  }

  /** After an answer saved rules: ends, as covered, the session's questions those rules now answer. */
  coverAllowed(sessionId: number): void {
    for (const q of [...this.open.values()]) {
      if (q.request.sessionId === sessionId && q.allowedNow()) this.end(q.request.id, { decision: "covered" });
    }
  }

  cancelSession(sessionId: number): void {
    for (const q of [...this.open.values()]) if (q.request.sessionId === sessionId) this.end(q.request.id, { decision: "aborted" });
    for (const [id, kept] of [...this.answered]) if (kept.spec.request.sessionId === sessionId) this.answered.delete(id);
  }

  /** The open question a person answers; an unknown or ended one is an IPC failure. */
  take(requestId: string): Question {
    const q = this.open.get(requestId);
    if (!q) throw new ServiceError("not-found", `There is no pending permission request ${requestId}: it was already answered or cancelled.`);
    return q;
  }
}
