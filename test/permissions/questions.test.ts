// questions.ts driven directly, with a recording event hub: a question is announced when asked
// (never when its run is already stopped), ends exactly once (answered, aborted, covered or
// dropped) with permission.resolved and a pending-change notice, and a person's answer is kept for
// its call until the call takes it, its turn passes, or the session's questions are cancelled.
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import type { AssistantMessage } from "../../app/shared/agent-types.ts";
import type { PermissionRequest } from "../../app/shared/ipc/contract.ts";
import { ServiceError } from "../../app/shared/errors.ts";
import { Questions, type Answer, type QuestionSpec } from "../../app/main/permissions/questions.ts";
import { assistant } from "./permission-fakes.ts";

// A message of its own each time: questions tell batches apart by their message.
const message = (): AssistantMessage => assistant([]);

function setup() {
  const events: { event: string; payload: unknown }[] = [];
  const pending: number[] = [];
  const questions = new Questions({ emit: (event, payload) => void events.push({ event, payload }) }, (sessionId) => void pending.push(sessionId));
  return { questions, events, pending, resolved: () => events.filter((e) => e.event === "permission.resolved").map((e) => e.payload) };
}

let ids = 0;
function spec(o: { sessionId?: number; call?: string; msg?: AssistantMessage; position?: number; key?: string; batch?: string; allowedNow?: () => boolean } = {}): QuestionSpec {
  const id = `r${++ids}`;
  const request: PermissionRequest = {
    id,
    sessionId: o.sessionId ?? 1,
    toolCallId: o.call ?? `call-${id}`,
    toolName: "bash",
    args: { command: "ls" },
    summary: { title: "Run a command", command: "ls", outsideProject: false },
    proposedRule: { tool: "bash", pattern: "ls" },
    ...(o.batch ? { batch: { id: o.batch, position: o.position ?? 0, asking: 2 } } : {}),
    createdAt: 0,
  };
  return { request, projectId: 3, message: o.msg ?? message(), position: o.position ?? 0, key: o.key ?? `key-${id}`, ruleTool: "bash", allowedNow: o.allowedNow ?? (() => false) };
}

const allowOnce: Answer = { decision: "allow-once", patterns: [], outsideSandbox: false };

describe("asking", () => {
  it("announces each question in the order given and tells each session once that its pending list changed", () => {
    const { questions, events, pending } = setup();
    const specs = [spec({ sessionId: 1 }), spec({ sessionId: 2 }), spec({ sessionId: 1 })];
    const asked = questions.ask(specs, undefined);
    expect(asked.map((q) => q.request)).toEqual(specs.map((s) => s.request));
    expect(events).toEqual(specs.map((s) => ({ event: "permission.request", payload: s.request })));
    expect(pending).toEqual([1, 2]);
    expect(questions.all()).toEqual(specs.map((s) => s.request));
    expect(questions.pendingFor(1)).toEqual([specs[0]!.request, specs[2]!.request]);
    expect(questions.pendingFor(2)).toEqual([specs[1]!.request]);
    expect(questions.pendingFor(3)).toEqual([]);
    expect(questions.get(specs[1]!.request.id)).toBe(asked[1]);
    expect(questions.forCall(specs[2]!.request.toolCallId)).toBe(asked[2]);
    expect(questions.forCall("nothing")).toBeUndefined();
    expect(questions.get("nothing")).toBeUndefined();
  });

  it("asks nothing for a run already stopped: the question ends as aborted before anyone sees it", async () => {
    const { questions, events } = setup();
    const controller = new AbortController();
    controller.abort();
    const [q] = questions.ask([spec()], controller.signal);
    expect(await q!.answer).toEqual({ decision: "aborted" });
    expect(events).toEqual([]);
    expect(questions.all()).toEqual([]);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("ends an open question as aborted when its run stops, once, and stops listening to the run when it ends", async () => {
    const { questions, resolved, pending } = setup();
    const controller = new AbortController();
    const s = spec({ sessionId: 4 });
    const [q] = questions.ask([s], controller.signal);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
    controller.abort();
    expect(await q!.answer).toEqual({ decision: "aborted" });
    expect(resolved()).toEqual([{ requestId: s.request.id, sessionId: 4, decision: "aborted" }]);
    expect(pending).toEqual([4, 4]);
    expect(questions.all()).toEqual([]);

    // Answered before the run stops: the run's signal loses its listener at once.
    const second = new AbortController();
    const [r] = questions.ask([spec(), spec()], second.signal);
    expect(getEventListeners(second.signal, "abort")).toHaveLength(2);
    questions.end(r!.request.id, allowOnce);
    expect(getEventListeners(second.signal, "abort")).toHaveLength(1);
    expect(await r!.answer).toEqual(allowOnce);
  });
});

describe("ending", () => {
  it("ends a question exactly once, with its answer, announced with the session and the decision", async () => {
    const { questions, resolved, pending } = setup();
    const s = spec({ sessionId: 6 });
    const [q] = questions.ask([s], undefined);
    expect(questions.end(s.request.id, { decision: "deny", patterns: [], reason: "no", outsideSandbox: false })).toBe(true);
    expect(questions.end(s.request.id, allowOnce)).toBe(false);
    expect(await q!.answer).toEqual({ decision: "deny", patterns: [], reason: "no", outsideSandbox: false });
    expect(resolved()).toEqual([{ requestId: s.request.id, sessionId: 6, decision: "deny" }]);
    expect(pending).toEqual([6, 6]);
    expect(questions.get(s.request.id)).toBeUndefined();
    expect(questions.end("unknown", allowOnce)).toBe(false);
  });

  it("can end without the pending notice (the caller sends one for many)", () => {
    const { questions, resolved, pending } = setup();
    const s = spec({ sessionId: 2 });
    questions.ask([s], undefined);
    questions.end(s.request.id, { decision: "covered" }, false);
    expect(resolved()).toHaveLength(1);
    expect(pending).toEqual([2]);
  });

  it("take gives the open question a person answers, and refuses an unknown or ended one", () => {
    const { questions } = setup();
    const s = spec();
    const [q] = questions.ask([s], undefined);
    expect(questions.take(s.request.id)).toBe(q);
    questions.end(s.request.id, allowOnce);
    for (const id of [s.request.id, "nope", ""]) {
      let error: unknown;
      try {
        questions.take(id);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ServiceError);
      expect(error).toMatchObject({ failure: "not-found", message: `There is no pending permission request ${id}: it was already answered or cancelled.` });
    }
  });
});

describe("answers kept for their call", () => {
  it("keeps an answer given before the call's turn, and hands it over once with the key it was asked under", async () => {
    const { questions } = setup();
    const s = spec({ call: "c1", key: "k1" });
    questions.ask([s], undefined);
    questions.end(s.request.id, { decision: "allow-session", patterns: ["ls"], outsideSandbox: true });
    const kept = questions.takeKept("c1")!;
    expect(kept.key).toBe("k1");
    expect(await kept.answer).toEqual({ decision: "allow-session", patterns: ["ls"], outsideSandbox: true });
    expect(questions.takeKept("c1")).toBeUndefined();
  });

  it("keeps no answer for a question that ended without one (aborted, covered, dropped)", () => {
    const { questions } = setup();
    for (const decision of ["aborted", "covered", "dropped"] as const) {
      const s = spec({ call: `c-${decision}` });
      questions.ask([s], undefined);
      questions.end(s.request.id, { decision });
      expect(questions.takeKept(`c-${decision}`), decision).toBeUndefined();
    }
  });

  it("hands an open question to its call, whose answer is then not kept again", async () => {
    const { questions } = setup();
    const s = spec({ call: "c2", key: "k2" });
    questions.ask([s], undefined);
    const kept = questions.takeKept("c2")!;
    expect(kept.key).toBe("k2");
    questions.end(s.request.id, allowOnce);
    expect(await kept.answer).toEqual(allowOnce);
    expect(questions.takeKept("c2")).toBeUndefined();
  });

  it("forget drops an open question of the call, or its kept answer", async () => {
    const { questions, resolved } = setup();
    const open = spec({ call: "c3" });
    const [q] = questions.ask([open], undefined);
    questions.forget("c3");
    expect(await q!.answer).toEqual({ decision: "dropped" });
    expect(resolved()).toEqual([{ requestId: open.request.id, sessionId: 1, decision: "dropped" }]);
    const answered = spec({ call: "c4" });
    questions.ask([answered], undefined);
    questions.end(answered.request.id, allowOnce);
    questions.forget("c4");
    expect(questions.takeKept("c4")).toBeUndefined();
    questions.forget("never-asked");
    expect(resolved()).toHaveLength(2);
  });
});

describe("batches and sessions", () => {
  it("lists a batch's open questions in source order, and only that batch's", () => {
    const { questions } = setup();
    const msg = message();
    const [late, early, other] = [spec({ msg, position: 5, batch: "b" }), spec({ msg, position: 1, batch: "b" }), spec({ position: 0, batch: "x" })];
    questions.ask([late, early, other, spec()], undefined);
    expect(questions.ofBatch("b").map((q) => q.request.id)).toEqual([early.request.id, late.request.id]);
    expect(questions.ofBatch("x").map((q) => q.request.id)).toEqual([other.request.id]);
    expect(questions.ofBatch("none")).toEqual([]);
  });

  it("drops the questions and kept answers of a message's calls before a position, and nothing of other messages", async () => {
    const { questions } = setup();
    const msg = message();
    const otherMsg = message();
    const s0 = spec({ msg, position: 0, call: "a0" });
    const s1 = spec({ msg, position: 1, call: "a1" });
    const s2 = spec({ msg, position: 2, call: "a2" });
    const k0 = spec({ msg, position: 0, call: "k0" });
    const k2 = spec({ msg, position: 2, call: "k2" });
    const o0 = spec({ msg: otherMsg, position: 0, call: "o0" });
    const ko = spec({ msg: otherMsg, position: 0, call: "ko" });
    const asked = questions.ask([s0, s1, s2, k0, k2, o0, ko], undefined);
    for (const s of [k0, k2, ko]) questions.end(s.request.id, allowOnce);
    questions.dropPassed(msg, 2);
    expect(await asked[0]!.answer).toEqual({ decision: "dropped" });
    expect(await asked[1]!.answer).toEqual({ decision: "dropped" });
    expect(questions.all().map((r) => r.toolCallId)).toEqual(["a2", "o0"]);
    expect(questions.takeKept("k0")).toBeUndefined();
    expect(questions.takeKept("k2")).toBeDefined();
    expect(questions.takeKept("ko")).toBeDefined();
    // The batch is over: everything of it goes.
    questions.dropPassed(msg, Number.POSITIVE_INFINITY);
    expect(questions.all().map((r) => r.toolCallId)).toEqual(["o0"]);
  });

  it("after rules were saved, ends as covered the session's questions they now answer, and no other", async () => {
    const { questions, resolved } = setup();
    const yes = spec({ sessionId: 1, allowedNow: () => true });
    const no = spec({ sessionId: 1, allowedNow: () => false });
    const elsewhere = spec({ sessionId: 2, allowedNow: () => true });
    const asked = questions.ask([yes, no, elsewhere], undefined);
    questions.coverAllowed(1);
    expect(await asked[0]!.answer).toEqual({ decision: "covered" });
    expect(questions.all().map((r) => r.id)).toEqual([no.request.id, elsewhere.request.id]);
    expect(resolved()).toEqual([{ requestId: yes.request.id, sessionId: 1, decision: "covered" }]);
  });

  it("cancelling a session aborts its open questions and forgets its kept answers, leaving other sessions'", async () => {
    const { questions, resolved } = setup();
    const open = spec({ sessionId: 1, call: "x1" });
    const kept = spec({ sessionId: 1, call: "x2" });
    const other = spec({ sessionId: 2, call: "y1" });
    const otherKept = spec({ sessionId: 2, call: "y2" });
    const asked = questions.ask([open, kept, other, otherKept], undefined);
    questions.end(kept.request.id, allowOnce);
    questions.end(otherKept.request.id, allowOnce);
    questions.cancelSession(1);
    expect(await asked[0]!.answer).toEqual({ decision: "aborted" });
    expect(questions.takeKept("x2")).toBeUndefined();
    expect(questions.takeKept("y2")).toBeDefined();
    expect(questions.all().map((r) => r.toolCallId)).toEqual(["y1"]);
    expect(resolved().at(-1)).toEqual({ requestId: open.request.id, sessionId: 1, decision: "aborted" });
  });
});
