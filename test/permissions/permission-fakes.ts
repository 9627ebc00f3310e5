// Small stand-ins for the permissions service's collaborators, for the unit tests of
// permissions-service.ts and call-judge.ts: the store's three parts the service uses (rules,
// audit log, settings), kept in memory with the store's meaning (rules that apply to a call:
// global ones and those of its session and project, oldest first; settings as JSON text), an
// event hub that records, a sandbox port, tools and assistant messages, a compute pool and a file
// system that answer in this thread.
import { Type } from "@sinclair/typebox";
import type { AssistantMessage, ToolCall } from "../../app/shared/agent-types.ts";
import type { AnyAgentTool } from "../../app/main/loop/index.ts";
import type { SandboxPort } from "../../app/main/permissions/sandbox-mode.ts";
import type { Placed } from "../../app/main/sandbox/sandbox-service.ts";
import type { AsyncFileSystem } from "../../app/main/tools/fs-answers.ts";
import { smallFileTextSync } from "../../app/main/tools/small-files.ts";
import { hostRealpath } from "../../app/main/tools/real-path.ts";
import type { ToolAuditEntry } from "../../app/main/store/audit-log.ts";
import type { PermissionRule, SessionStore } from "../../app/main/store/index.ts";
import type { NewPermissionRule } from "../../app/main/store/permission-rules.ts";
import { runComputeJob, type ComputeJob } from "../../app/main/workers/compute-jobs.ts";
import type { ComputePool } from "../../app/main/workers/compute-pool.ts";

export interface AuditRow extends ToolAuditEntry {
  id: number;
  finished?: { durationMs: number; outcome: string };
}

export function fakeStore(initialRules: Omit<PermissionRule, "id" | "createdAt">[] = []) {
  let nextId = 1;
  const rules: PermissionRule[] = [];
  const audit: AuditRow[] = [];
  const settings = new Map<string, string>();
  const permissionRules = {
    add(rule: NewPermissionRule): PermissionRule {
      const saved: PermissionRule = { ...rule, pattern: rule.pattern ?? "*", id: nextId++, createdAt: 0 };
      rules.push(saved);
      return saved;
    },
    applicable(q: { sessionId?: number; projectId?: number } = {}): PermissionRule[] {
      return rules.filter((r) => r.scope === "global" || (r.scope === "session" && r.scopeId === q.sessionId) || (r.scope === "project" && r.scopeId === q.projectId));
    },
    all: (): PermissionRule[] => [...rules],
    remove(id: number): boolean {
      const i = rules.findIndex((r) => r.id === id);
      if (i >= 0) rules.splice(i, 1);
      return i >= 0;
    },
  };
  for (const r of initialRules) permissionRules.add(r);
  const store = {
    rules,
    auditRows: audit,
    settingsValues: settings,
    permissionRules,
    audit: {
      record(entry: ToolAuditEntry): number {
        const id = audit.length + 1;
        audit.push({ ...entry, id });
        return id;
      },
      finish(id: number, durationMs: number, outcome: string): void {
        audit[id - 1]!.finished = { durationMs, outcome };
      },
    },
    settings: {
      get<T>(key: string, fallback?: T): T | undefined {
        const v = settings.get(key);
        return v === undefined ? fallback : (JSON.parse(v) as T);
      },
      set(key: string, value: unknown): void {
        settings.set(key, JSON.stringify(value));
      },
    },
  };
  return store as typeof store & SessionStore;
}

export function recordingHub() {
  const events: { event: string; payload: unknown }[] = [];
  return {
    events,
    emit(event: string, payload: unknown) {
      events.push({ event, payload });
    },
  };
}

export function sandboxPort(o: { available?: boolean; network?: boolean } = {}) {
  const placed: { sessionId: number; toolCallId: string; placed: Placed }[] = [];
  const port: SandboxPort & { placed: typeof placed } = {
    home: "/home/me",
    placed,
    status: () => ({ kind: "bubblewrap", available: o.available ?? true, message: "Commands run in a bubblewrap sandbox." }),
    networkAllowed: () => o.network ?? false,
    realMachineCommands: () => [],
    takeOutsideRequest: () => false,
    place: (sessionId, toolCallId, p) => void placed.push({ sessionId, toolCallId, placed: p }),
  };
  return port;
}

const never = () => Promise.reject(new Error("not run in these tests"));

/** Tools with the app's names and parameters (enough for validation), which are never run. */
export const TOOLS: AnyAgentTool[] = [
  { name: "bash", label: "Run command", description: "", parameters: Type.Object({ command: Type.String() }), execute: never },
  { name: "read", label: "Read", description: "", parameters: Type.Object({ path: Type.String() }), execute: never },
  {
    name: "edit",
    label: "Edit",
    description: "",
    parameters: Type.Object({ path: Type.String(), edits: Type.Array(Type.Object({ oldText: Type.String(), newText: Type.String() })) }),
    execute: never,
  },
  { name: "write", label: "Write", description: "", parameters: Type.Object({ path: Type.String(), content: Type.String() }), execute: never },
];

export function toolCall(id: string, name: string, args: Record<string, unknown>, argumentsError?: string): ToolCall {
  return { type: "toolCall", id, name, arguments: args, ...(argumentsError !== undefined ? { argumentsError } : {}) };
}

export function assistant(calls: ToolCall[]): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text: "Doing it." }, ...calls],
    api: "test",
    provider: "test",
    model: "test",
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason: "toolUse",
    timestamp: 0,
  };
}

/** A compute pool that runs each job in this thread (no worker to start): the dialogs' diffs. */
export function inThreadPool() {
  const jobs: ComputeJob[] = [];
  const pool = {
    jobs,
    run: async (job: ComputeJob) => {
      jobs.push(job);
      return runComputeJob(job);
    },
  };
  return pool as typeof pool & ComputePool;
}

/**
 * The host's file system answered in this thread, at once (the next microtask): tests that count
 * turns of the event loop while a call is judged see no wait for libuv's threads.
 */
export const answeredAtOnce: AsyncFileSystem = {
  realpath: async (p) => hostRealpath(p),
  smallFileText: async (p, maxBytes) => smallFileTextSync(p, maxBytes),
};
