// When the bash grammar cannot be loaded, no command can be judged: the judge says so and the
// service refuses every bash call (never guessing), with the reason, while other tools and an MCP
// server's tools (whatever their names) are judged as usual. The grammar's load is made to fail.
import { describe, expect, it, vi } from "vitest";
import { CallJudge } from "../../app/main/permissions/call-judge.ts";
import { PermissionsService } from "../../app/main/permissions/permissions-service.ts";
import type { SecretScanner } from "../../app/main/permissions/redaction.ts";
import type * as ShellParser from "../../app/main/permissions/shell-parser.ts";
import { assistant, fakeStore, recordingHub, toolCall, TOOLS } from "./permission-fakes.ts";

vi.mock("../../app/main/permissions/shell-parser.ts", async (original) => ({
  ...(await original<typeof ShellParser>()),
  loadShellParser: () => Promise.reject(new Error("tree-sitter-bash.wasm is missing")),
}));

const scope = { sessionId: 1, projectId: 2, projectDir: "/work/project" };
const describeMcpTool = (name: string) => (name === "bash" || name === "github__search" ? { server: "github", tool: name, description: "", annotations: {} } : undefined);

describe("without the bash grammar", () => {
  it("judges no command, and says why", async () => {
    const judge = new CallJudge({ store: fakeStore(), mode: () => "full-auto" });
    expect(await judge.judge(scope, "bash", { command: "ls" })).toEqual({
      kind: "no-parser",
      reason: "Lathe could not load its bash parser, so it cannot judge commands: tree-sitter-bash.wasm is missing",
    });
    // Other tools need no grammar.
    expect(await judge.judge(scope, "read", { path: "a.txt" })).toMatchObject({ kind: "judged", decision: { action: "allow" } });
    // An MCP server's tool named bash is judged under mcp rules, without the grammar.
    const withMcp = new CallJudge({ store: fakeStore(), mode: () => "ask", describeMcpTool });
    expect(await withMcp.judge(scope, "bash", { command: "ls" })).toMatchObject({ kind: "judged", ruleTool: "mcp", decision: { action: "ask" } });
  });

  it("asks no question ahead for a later bash call of a batch (its turn refuses it)", async () => {
    const judge = new CallJudge({ store: fakeStore(), mode: () => "ask" });
    const call = toolCall("c2", "bash", { command: "npm test" });
    const message = assistant([toolCall("c1", "read", { path: "/etc/hosts" }), call]);
    await expect(judge.prejudge(scope, message, 1, call, TOOLS, undefined)).resolves.toBeUndefined();
  });

  it("the service refuses every bash call with the reason, in any mode, and records it", async () => {
    const store = fakeStore();
    const service = new PermissionsService({ store, hub: recordingHub(), mode: () => "full-auto", secrets: () => ({}) as SecretScanner });
    const call = toolCall("c1", "bash", { command: "ls" });
    const message = assistant([call]);
    const result = await service
      .hooks(scope)
      .beforeToolCall({ assistantMessage: message, toolCall: call, args: call.arguments, context: { systemPrompt: "", messages: [], tools: TOOLS } });
    expect(result).toEqual({ block: true, reason: "Lathe could not load its bash parser, so it cannot judge commands: tree-sitter-bash.wasm is missing", outcome: "denied" });
    expect(store.auditRows).toEqual([
      {
        id: 1,
        sessionId: 1,
        toolCallId: "c1",
        toolName: "bash",
        args: { command: "ls" },
        decision: "deny",
        decidedBy: "policy: no shell parser",
        durationMs: null,
        outcome: "blocked",
      },
    ]);
  });
});
