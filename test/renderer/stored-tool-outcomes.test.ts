// Each tool call's outcome and times are stored (tool_calls, migration version 7), so a reopened
// session shows what the live view showed: a denial as "denied" with its reason (not "failed"), a
// stop as "stopped", the wait for an answer apart from the run. A version-6 database, which kept
// the session's tool_call_phase events in its event log, is upgraded with them moved to the calls.
// (Here, beside the renderer's tests, because it folds the stored rows with the view's model.)
import Database from "better-sqlite3";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentMessage, SessionEvent } from "../../app/shared/agent-types.ts";
import { openStore } from "../../app/main/store/index.ts";
import { MIGRATIONS } from "../../app/main/store/migrations.ts";
import { prepareConnection } from "../../app/main/store/open-database.ts";
import { applyEvents, emptyModel } from "../../app/renderer/src/state/session-model.ts";
import { modelFromStored } from "../../app/renderer/src/state/stored-model.ts";
import { assistant, call, result, tempDir, user } from "../store/helpers.ts";

const denial = "Denied by the user: not now";
const calls = assistant("calling", [call("ok", "read"), call("no", "bash"), call("bad", "bash"), call("halt", "bash")]);
const failed = (id: string, text: string) => ({ ...result(id, id === "ok" ? "read" : "bash", text), isError: true });
const results = [result("ok", "read", "content"), failed("no", denial), failed("bad", "exit 4"), failed("halt", "aborted")];

/** The events of a turn: one call done, one denied, one failed, one stopped after its end (as the session reports a stop). */
function turnEvents(): SessionEvent[] {
  const end = (id: string, isError: boolean): SessionEvent => ({ type: "tool_execution_end", toolCallId: id, toolName: "bash", result: { content: [], details: {} }, isError });
  const start = (id: string): SessionEvent => ({ type: "tool_execution_start", toolCallId: id, toolName: "bash", args: {} });
  return [
    { type: "agent_start" },
    { type: "message_end", message: user("go") },
    { type: "message_end", message: calls },
    ...["ok", "no", "bad", "halt"].map(start),
    { type: "tool_call_phase", toolCallId: "no", phase: "denied", reason: denial },
    end("no", true),
    { type: "tool_call_phase", toolCallId: "ok", phase: "executing" },
    { type: "tool_call_phase", toolCallId: "bad", phase: "executing" },
    { type: "tool_call_phase", toolCallId: "halt", phase: "executing" },
    end("ok", false),
    end("bad", true),
    end("halt", true),
    { type: "tool_call_phase", toolCallId: "halt", phase: "stopped", reason: "Stopped with the run." },
    ...results.map((message): SessionEvent => ({ type: "message_end", message })),
    { type: "agent_end", messages: [] },
  ];
}

const view = (card: { status: string; outcomeReason?: string; startedAt: number | null } | undefined) =>
  card && { status: card.status, reason: card.outcomeReason ?? null, ran: card.startedAt !== null };

describe("tool call outcomes in the store", () => {
  it("a reopened session shows each call as the live view did: done, denied with its reason, failed, stopped", () => {
    const dataDir = tempDir();
    const { store } = openStore({ dataDir });
    try {
      const project = store.openProject("/repo");
      const session = store.createSession({ projectId: project.id });
      const recorder = store.recorder(session.id);
      const events = turnEvents();
      events.forEach((e) => recorder.handle(e));
      recorder.close();

      const stored = store.readPage(session.id, { before: 6 }).toolCalls;
      const byId = new Map(stored.map((t) => [t.toolCallId, t]));
      expect(byId.get("no")).toMatchObject({ outcome: "denied", reason: denial, executingAt: null, isError: true });
      expect(byId.get("ok")).toMatchObject({ outcome: "done", reason: null, isError: false });
      expect(byId.get("bad")).toMatchObject({ outcome: "failed", reason: null });
      expect(byId.get("halt")).toMatchObject({ outcome: "stopped", reason: "Stopped with the run." });
      for (const id of ["ok", "bad", "halt"]) expect(byId.get(id)!.executingAt).toBeGreaterThanOrEqual(byId.get(id)!.startedAt!);
      // The phases are kept with the calls, not repeated in the event log.
      expect(store.openSession(session.id)!.events).toEqual([]);

      const live = applyEvents(emptyModel(), events as never, 1000);
      const reopened = modelFromStored({ first: 0, messages: store.openSession(session.id)!.messages, toolCalls: stored, outputs: [] });
      for (const id of ["ok", "no", "bad", "halt"]) expect(view(reopened.tools.get(id))).toEqual(view(live.tools.get(id)));
      expect(view(reopened.tools.get("no"))).toEqual({ status: "denied", reason: denial, ran: false });
      // Forks keep them.
      const fork = store.forkSession(session.id, 5);
      expect(store.openSession(fork.id)!.toolCalls.find((t) => t.toolCallId === "no")).toMatchObject({ outcome: "denied", reason: denial });
    } finally {
      store.close();
    }
  });

  it("upgrades a version-6 database: logged phases become outcomes and execute times, older calls keep their start", () => {
    const dataDir = tempDir();
    const v6 = new Database(path.join(dataDir, "lathe.db"));
    prepareConnection(v6);
    for (const migration of MIGRATIONS.filter((m) => m.version <= 6)) migration.up(v6);
    v6.pragma("user_version = 6");
    const messages: AgentMessage[] = [user("go"), calls, ...results];
    v6.prepare("INSERT INTO projects VALUES (1, '/p', 'p', 1, 1)").run();
    for (const id of [1, 2]) {
      v6.prepare("INSERT INTO sessions (id, project_id, created_at, updated_at, message_count) VALUES (?, 1, 1, 1, ?)").run(id, messages.length);
      messages.forEach((m, p) => v6.prepare("INSERT INTO messages (id, role, data, created_at) VALUES (?, ?, ?, 1)").run(id * 2 ** 24 + p, m.role, JSON.stringify(m)));
      v6.prepare("INSERT INTO runs (id, session_id, started_at, ended_at, status) VALUES (?, ?, 1, 9, 'completed')").run(id, id);
      const row = v6.prepare("INSERT INTO tool_calls (session_id, tool_call_id, started_at, ended_at, is_error) VALUES (?, ?, ?, ?, ?)");
      row.run(id, "ok", 100, 150, 0);
      row.run(id, "no", 100, 120, 1);
      row.run(id, "bad", 100, 160, 1);
      row.run(id, "halt", 100, 170, 1);
    }
    // Session 1 was recorded with phases (logged as events then); session 2 before they existed.
    const phases: [string, string, string?][] = [
      ["no", "denied", denial],
      ["ok", "executing"],
      ["bad", "executing"],
      ["halt", "executing"],
      ["halt", "stopped", "Stopped with the run."],
    ];
    const log = v6.prepare("INSERT INTO events (run_id, seq, at, type, data) VALUES (1, ?, ?, ?, ?)");
    phases.forEach(([toolCallId, phase, reason], seq) => log.run(seq, 110 + seq, "tool_call_phase", JSON.stringify({ toolCallId, phase, ...(reason ? { reason } : {}) })));
    log.run(phases.length, 200, "provider_retry", JSON.stringify({ retry: { attempt: 1, maxAttempts: 5, delayMs: 10, error: "overloaded" } }));
    v6.close();

    const { store, notices } = openStore({ dataDir });
    try {
      expect(notices.map((n) => n.kind)).toContain("database-migrated");
      const withPhases = new Map(store.openSession(1)!.toolCalls.map((t) => [t.toolCallId, t]));
      expect(withPhases.get("no")).toEqual({ toolCallId: "no", startedAt: 100, executingAt: null, endedAt: 120, isError: true, outcome: "denied", reason: denial });
      expect(withPhases.get("ok")).toEqual({ toolCallId: "ok", startedAt: 100, executingAt: 111, endedAt: 150, isError: false, outcome: "done", reason: null });
      expect(withPhases.get("bad")).toMatchObject({ executingAt: 112, outcome: "failed", reason: null });
      expect(withPhases.get("halt")).toMatchObject({ executingAt: 113, outcome: "stopped", reason: "Stopped with the run." });
      expect(store.openSession(1)!.events.map((e) => e.event.type)).toEqual(["provider_retry"]);
      const reopened = modelFromStored({ first: 0, messages: store.openSession(1)!.messages, toolCalls: [...withPhases.values()], outputs: [] });
      expect(reopened.tools.get("no")).toMatchObject({ status: "denied", outcomeReason: denial, queuedAt: 100, startedAt: null });
      expect(reopened.tools.get("halt")).toMatchObject({ status: "stopped", startedAt: 113, endedAt: 170 });
      // Without logged phases a call is known only to have ended: done or failed, run from its start.
      const older = new Map(store.openSession(2)!.toolCalls.map((t) => [t.toolCallId, t]));
      expect(older.get("no")).toMatchObject({ executingAt: 100, outcome: "failed", reason: null });
      expect(older.get("ok")).toMatchObject({ executingAt: 100, outcome: "done" });
    } finally {
      store.close();
    }
  });
});
