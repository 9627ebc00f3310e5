// A real kill -9 of a child process that is recording a run: every message whose message_end was
// reported must be there, positions dense, no half message, dangling tool calls completed.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { afterEach, describe, expect, it } from "vitest";
import type { AssistantMessage, ToolResultMessage } from "../../app/shared/agent-types.ts";
import { ABORTED_RESULT_TEXT, openStore } from "../../app/main/store/index.ts";
import { tempDir } from "./helpers.ts";

const WRITER = path.join(import.meta.dirname, "fixtures", "crash-writer.ts");
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

interface Reported {
  sessionId: number;
  ends: { position: number; role: string }[];
}

/** Runs the writer until `killAfter` messages were reported (plus a random pause), then SIGKILLs it. */
function runAndKill(dataDir: string, killAfter: number, slowTools = false): Promise<Reported> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env, CRASH_PAUSE_AFTER_TOOL_CALLS: slowTools ? "1" : "0" };
    const child = spawn(process.execPath, [WRITER, dataDir], { stdio: ["ignore", "pipe", "pipe"], env });
    const reported: Reported = { sessionId: -1, ends: [] };
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    let killing = false;
    readline.createInterface({ input: child.stdout }).on("line", (line) => {
      const [kind, a, b] = line.split(" ");
      if (kind === "SESSION") reported.sessionId = Number(a);
      if (kind === "END") reported.ends.push({ position: Number(a), role: b! });
      if (!killing && reported.ends.length >= killAfter) {
        killing = true;
        setTimeout(() => child.kill("SIGKILL"), Math.floor(Math.random() * 4));
      }
    });
    child.on("error", reject);
    child.on("exit", (_code, signal) => {
      if (signal !== "SIGKILL") reject(new Error(`writer exited without being killed: ${stderr}`));
      else resolve(reported);
    });
  });
}

describe("crash consistency", () => {
  it("keeps every reported message after kill -9 at random moments, and completes dangling tool calls", async () => {
    for (const killAfter of [3, 20 + Math.floor(Math.random() * 40), 100 + Math.floor(Math.random() * 100)]) {
      const dataDir = tempDir();
      dirs.push(dataDir);
      const reported = await runAndKill(dataDir, killAfter);
      expect(reported.ends.length).toBeGreaterThanOrEqual(killAfter);

      const { store, notices, checked } = openStore({ dataDir });
      try {
        // The writer was killed holding the folder: this start checked the database's integrity.
        expect(checked).toBe(true);
        expect(notices.map((n) => n.kind)).toContain("runs-interrupted");
        const opened = store.openSession(reported.sessionId)!;
        const messages = opened.messages;
        expect(opened.session.messageCount).toBe(messages.length);
        // Dense positions 0..n-1, each a complete row.
        const positions = store.db.prepare("SELECT position FROM messages WHERE session_id = ? ORDER BY id").pluck().all(reported.sessionId) as number[];
        expect(positions).toEqual(messages.map((_, i) => i));
        // Everything reported is there, in place.
        for (const end of reported.ends) expect(messages[end.position]?.role).toBe(end.role);
        // At most one message beyond what was reported (committed, killed before it could say so),
        // apart from the aborted results the repair appended.
        const repaired = messages.filter((m) => m.role === "toolResult" && m.content.some((b) => b.type === "text" && b.text === ABORTED_RESULT_TEXT));
        expect(messages.length - repaired.length - reported.ends.length).toBeGreaterThanOrEqual(0);
        expect(messages.length - repaired.length - reported.ends.length).toBeLessThanOrEqual(1);
        // Valid for a provider: every tool call has exactly one result, after it.
        messages.forEach((m, i) => {
          if (m.role !== "assistant") return;
          for (const c of (m as AssistantMessage).content.filter((b) => b.type === "toolCall")) {
            const results = messages.slice(i + 1).filter((r): r is ToolResultMessage => r.role === "toolResult" && r.toolCallId === c.id);
            expect(results).toHaveLength(1);
          }
        });
        expect(opened.runs.map((r) => r.status)).toEqual(["interrupted"]);
        // A call's end time is written with (or before) its result message, never after it.
        const ended = new Set(opened.toolCalls.filter((t) => t.endedAt !== null).map((t) => t.toolCallId));
        for (const m of messages) if (m.role === "toolResult" && !repaired.includes(m)) expect(ended.has(m.toolCallId), m.toolCallId).toBe(true);
      } finally {
        store.close();
      }
      // A second open finds nothing left to repair.
      const again = openStore({ dataDir });
      expect(again.notices).toEqual([]);
      expect(again.checked).toBe(false);
      again.store.close();
    }
  }, 60_000);

  it("completes the tool calls of an assistant message killed while its tools ran", async () => {
    const dataDir = tempDir();
    dirs.push(dataDir);
    // Positions: 0 user, 1 assistant with two tool calls; the tools then take 10 s.
    const reported = await runAndKill(dataDir, 2, true);
    expect(reported.ends.map((e) => e.role)).toEqual(["user", "assistant"]);
    const { store, notices } = openStore({ dataDir });
    try {
      expect(notices).toContainEqual(expect.objectContaining({ kind: "runs-interrupted", abortedToolResults: 2, sessionIds: [reported.sessionId] }));
      const messages = store.readMessages(reported.sessionId);
      expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "toolResult", "toolResult"]);
      expect(messages.slice(2)).toMatchObject([
        { toolCallId: "call_0_0", toolName: "read", isError: true, content: [{ type: "text", text: ABORTED_RESULT_TEXT }] },
        { toolCallId: "call_0_1", toolName: "bash", isError: true },
      ]);
    } finally {
      store.close();
    }
  }, 30_000);
});
