// A project on a file system that stops answering (a network mount whose server went away): the
// judge asks it off the event loop (tools/fs-answers.ts), so a call is refused with a clear reason
// after the time limit, in every mode, while the app's event loop keeps running; an MCP server's
// tool, which names no path, is judged as usual; once the file system answers again, calls are
// judged again. The file system is a stand-in that holds its answers about /hung until released.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { CallJudge } from "../../app/main/permissions/call-judge.ts";
import { PermissionsService } from "../../app/main/permissions/permissions-service.ts";
import type { SecretScanner } from "../../app/main/permissions/redaction.ts";
import { loadShellParser } from "../../app/main/permissions/shell-parser.ts";
import type { AsyncFileSystem } from "../../app/main/tools/fs-answers.ts";
import { assistant, fakeStore, inThreadPool, recordingHub, toolCall, TOOLS } from "./permission-fakes.ts";

beforeAll(() => loadShellParser());

const scope = { sessionId: 1, projectId: 2, projectDir: "/hung/project" };
const held: (() => void)[] = [];
let hung = true;
const hangingFileSystem: AsyncFileSystem = {
  realpath: (p) => (hung && p.startsWith("/hung") ? new Promise((resolve) => held.push(() => resolve(p))) : Promise.resolve(p.startsWith("/hung") ? p : undefined)),
  smallFileText: (p) => (hung && p.startsWith("/hung") ? new Promise((resolve) => held.push(() => resolve(null))) : Promise.resolve(null)),
};
afterEach(async () => {
  hung = true;
  held.splice(0).forEach((answer) => answer());
  await new Promise((r) => setImmediate(r));
});

const REASON =
  "Lathe could not judge this call: The file system did not answer about /hung/project within 0.1 s (a network or FUSE mount that stopped responding?), so Lathe stopped waiting.";

describe("a project whose file system stops answering", () => {
  it("is not judged: the judgement says why, after the time limit, and the event loop runs meanwhile", async () => {
    const judge = new CallJudge({ store: fakeStore(), mode: () => "full-auto", fileSystem: hangingFileSystem, fileSystemTimeoutMs: 100, pool: inThreadPool() });
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    const judged = await judge.judge(scope, "read", { path: "src/a.ts" });
    clearInterval(ticker);
    expect(judged).toEqual({ kind: "unanswered", reason: REASON });
    expect(ticks).toBeGreaterThan(3);
    // The slots its questions hold are freed once the file system answers.
    held.splice(0).forEach((answer) => answer());
    await new Promise((r) => setImmediate(r));
    expect(await judge.judge(scope, "bash", { command: "npm test > out.txt" })).toEqual({ kind: "unanswered", reason: REASON });
  });

  it("judges an MCP server's tool as usual (it names no path), and the project's calls once it answers again", async () => {
    const describeMcpTool = (name: string) => (name === "github__search" ? { server: "github", tool: "search", description: "", annotations: {} } : undefined);
    const judge = new CallJudge({ store: fakeStore(), mode: () => "ask", describeMcpTool, fileSystem: hangingFileSystem, fileSystemTimeoutMs: 100 });
    expect(await judge.judge(scope, "github__search", { q: "x" })).toMatchObject({ kind: "judged", ruleTool: "mcp", decision: { action: "ask" } });
    hung = false;
    held.splice(0).forEach((answer) => answer());
    await new Promise((r) => setImmediate(r));
    expect(await judge.judge(scope, "write", { path: "src/a.ts", content: "x" })).toMatchObject({
      kind: "judged",
      subjects: { subjects: ["src/a.ts"], outsideProject: false },
      decision: { action: "ask" },
    });
  });

  it("the service refuses the call with the reason, in any mode, and records why", async () => {
    const store = fakeStore();
    const service = new PermissionsService({
      store,
      hub: recordingHub(),
      mode: () => "full-auto",
      secrets: () => ({}) as SecretScanner,
      fileSystem: hangingFileSystem,
      fileSystemTimeoutMs: 100,
    });
    const call = toolCall("c1", "bash", { command: "ls" });
    const result = await service
      .hooks(scope)
      .beforeToolCall({ assistantMessage: assistant([call]), toolCall: call, args: call.arguments, context: { systemPrompt: "", messages: [], tools: TOOLS } });
    expect(result).toEqual({ block: true, reason: REASON, outcome: "denied" });
    expect(store.auditRows).toMatchObject([{ toolCallId: "c1", decision: "deny", decidedBy: "policy: the file system did not answer", outcome: "blocked" }]);
  });
});
