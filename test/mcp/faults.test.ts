// Faults of MCP servers, against a real stdio server that misbehaves on request
// (fixtures/fixture-server.ts): a server that cannot start, crashes mid-call, never answers, writes
// non-JSON or malformed results, sends more than Lathe reads, huge, deep or bad content, or tools
// whose schemas cannot be compiled. Each gives a clear error in the tool result and in settings;
// the other servers keep working; a crashed server starts again on the next call.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURE, startMcp, textOf, type McpHarness } from "./support/mcp-harness.ts";
import { RELIST_INTERVAL_MS } from "../../app/main/mcp/connection.ts";

let h: McpHarness;
let quick: McpHarness;
beforeAll(async () => {
  h = await startMcp();
  await h.add({
    fixture: FIXTURE,
    // The same server with the shortest call timeout, for the calls that never get an answer.
    impatient: { ...FIXTURE, timeoutMs: 1 },
    missing: { command: "lathe-no-such-command-xyz" },
    dies: { ...FIXTURE, env: { FIXTURE_MODE: "exit-on-start" } },
    many: { ...FIXTURE, env: { FIXTURE_MODE: "many-tools" } },
  });
  quick = await startMcp({ connectTimeoutMs: 2_000 });
  await quick.add({ mute: { ...FIXTURE, env: { FIXTURE_MODE: "no-init" } } });
});
afterAll(async () => {
  await h?.close();
  await quick?.close();
});

const server = (name: string) => h.service.list().servers.find((s) => s.name === name)!;
const call = (tool: string, args: Record<string, unknown> = {}) => h.call(`mcp__fixture__${tool}`, args);

describe("a server that cannot start", () => {
  it("reports a missing command, an early exit with its stderr, and a silent server, in settings", () => {
    expect(server("missing").status).toMatchObject({
      state: "failed",
      error: 'Cannot start "lathe-no-such-command-xyz": no such command (is it installed, and on Lathe\'s PATH?).',
    });
    const dies = server("dies").status;
    expect(dies.state).toBe("failed");
    expect(dies.error).toMatch(/The server exited with code 1 before it was ready\. Its last output on stderr:\n[\s\S]*fatal: cannot open the database: permission denied/);
    expect(dies.stderrTail).toMatch(/permission denied/);
    expect(quick.service.list().servers[0]!.status).toMatchObject({ state: "failed", error: expect.stringMatching(/^No answer within 2 s while starting\./) });
  });

  it("gives a clear error to a call of its tools, and the others keep working", async () => {
    const scope = { sessionId: 1, projectId: h.projectId, projectDir: h.dir };
    const standIn = h.service.externalTools(scope, ["mcp__dies__anything"]).find((t) => t.name === "mcp__dies__anything")!;
    await expect(standIn.execute("1", {}, undefined, undefined)).rejects.toThrow(/The MCP server dies is not available: The server exited with code 1 before it was ready/);
    expect(textOf(await call("echo", { text: "fine" }))).toBe("echo: fine");
  });

  it("lists at most 1,000 tools of a server that offers more", () => {
    expect(server("many").status).toMatchObject({ state: "connected", toolCount: 1000 });
  });
});

describe("a running server", () => {
  it("crashes mid-call: the call says so with its stderr, and the next call starts it again", async () => {
    const before = textOf(await call("pid"));
    await expect(call("crash")).rejects.toThrow(
      /The MCP server fixture stopped during the call to fixture\/crash: The server exited with code 3\. Its last output on stderr:\n[\s\S]*crashing on purpose[\s\S]*Lathe starts it again on the next call\./,
    );
    expect(server("fixture").status.state).toBe("failed");
    expect(server("fixture").status.toolCount).toBeGreaterThan(0);
    const after = textOf(await call("pid"));
    expect(after).not.toBe(before);
    expect(server("fixture").status.state).toBe("connected");
  });

  it("never answers: the call times out (clamped to at least 1 s) and the server keeps serving", async () => {
    await expect(h.call("mcp__impatient__hang", {})).rejects.toThrow("No answer from the MCP server impatient within 1 s: the call to impatient/hang was cancelled.");
    expect(textOf(await h.call("mcp__impatient__echo", { text: "after" }))).toBe("echo: after");
  });

  it("writes a line that is not JSON: the timeout says so", async () => {
    await expect(h.call("mcp__impatient__garbage", {})).rejects.toThrow(
      /No answer from the MCP server impatient within 1 s: the call to impatient\/garbage was cancelled\. The server also wrote output that is not MCP: .*JSON/,
    );
  });

  it("answers with a malformed result: a clear error", async () => {
    await expect(call("malformed")).rejects.toThrow(/The MCP server fixture answered fixture\/malformed with something that is not a valid tool result/);
  });

  it("sends one message over 16 MB: the connection is closed, and the next call starts it again", async () => {
    await expect(call("oversized", { mb: 20 })).rejects.toThrow(
      /stopped during the call to fixture\/oversized: It sent a message larger than 16 MB, so Lathe closed the connection\./,
    );
    expect(textOf(await call("echo", { text: "back" }))).toBe("echo: back");
  });

  it("huge, deep and malformed content comes back bounded", async () => {
    const huge = textOf(await call("huge", { bytes: 8 * 1024 * 1024 }));
    expect(huge.length).toBeLessThan(60 * 1024);
    expect(huge).toMatch(/Lathe cut this output/);
    expect(textOf(await call("deep", { depth: 100_000 }))).toMatch(/Structured content not passed: it is nested deeper than 64 levels/);
    const images = await call("images");
    expect(images.content.filter((c) => c.type === "image")).toHaveLength(1);
    expect(textOf(images)).toMatch(/resource text[\s\S]*Resource link: other[\s\S]*not a PNG, JPEG, GIF or WebP[\s\S]*Binary resource <file:\/\/\/data\.bin>/);
    await expect(call("bad_base64")).rejects.toThrow(/answered fixture\/bad_base64 with something that is not a valid tool result: .*Invalid Base64/);
  });

  it("lists its tools again when it says they changed", async () => {
    expect(server("fixture").tools.some((t) => t.name === "grown")).toBe(false);
    await call("grow");
    await h.waitFor(() => server("fixture").tools.some((t) => t.name === "grown"), "the new listing");
    expect(server("fixture").tools.find((t) => t.name === "grown")!.summary).toBe("Appeared after a list_changed notice.");
  });

  it("a flood of tools/list_changed notices makes one listing at a time, at most one more after it", async () => {
    const before = Number(textOf(await call("list_count")));
    expect(textOf(await call("relist_flood", { count: 50 }))).toBe("sent");
    let listed = before;
    // Waits for the first listing the flood causes, then long enough for any further one to start.
    const deadline = Date.now() + 20_000;
    while (listed === before && Date.now() < deadline) listed = Number(textOf(await call("list_count")));
    await new Promise((resolve) => setTimeout(resolve, 3 * RELIST_INTERVAL_MS));
    listed = Number(textOf(await call("list_count")));
    expect(listed - before).toBeGreaterThanOrEqual(1);
    expect(listed - before).toBeLessThanOrEqual(2);
  });

  it("a flood of progress notices becomes at most one update per 100 ms", async () => {
    const updates: unknown[] = [];
    expect(textOf(await h.call("mcp__fixture__flood", {}, { onUpdate: (u) => updates.push(u) }))).toBe("flooded");
    expect(updates.length).toBeGreaterThan(0);
    expect(updates.length).toBeLessThan(20);
  });

  it("a result marked as an error is an error", async () => {
    await expect(call("fails")).rejects.toThrow("the database is locked");
  });

  it("tools whose schemas cannot be compiled are listed with the reason and cannot be loaded", async () => {
    const tools = server("fixture").tools;
    expect(tools.find((t) => t.name === "bad_schema")!.error).toMatch(/not valid JSON Schema: properties\.a/);
    expect(tools.find((t) => t.name === "bad_regex")!.error).toMatch(/not valid JSON Schema/);
    expect(tools.find((t) => t.name === "deep_schema")!.error).toMatch(/nested deeper than 32 levels/);
    expect(tools.find((t) => t.name === "evil_pattern")!.error).toBeUndefined();
    const scope = { sessionId: 1, projectId: h.projectId, projectDir: h.dir };
    const search = h.service.builtinTools(scope)[0]!;
    const result = await search.execute("s", { load: ["mcp__fixture__bad_schema", "mcp__fixture__echo"] }, undefined, undefined);
    expect(textOf(result)).toMatch(/Cannot load mcp__fixture__bad_schema: Its input schema is not valid JSON Schema/);
    expect(result.addedToolNames).toEqual(["mcp__fixture__echo"]);
    expect(h.service.externalTools(scope, []).some((t) => t.name === "mcp__fixture__bad_schema")).toBe(false);
  });
});
