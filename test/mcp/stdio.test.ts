// The MCP client against the reference server from npm (@modelcontextprotocol/server-everything)
// over stdio: listing with annotations, calls, images, embedded resources, progress as updates,
// cancellation on abort, the server's own environment, and stopping with the app.
import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentToolResult } from "../../app/shared/agent-types.ts";
import { EVERYTHING, startMcp, textOf, type McpHarness } from "./support/mcp-harness.ts";

let h: McpHarness;
beforeAll(async () => {
  process.env.LATHE_PARENT_SECRET = "must-not-reach-servers";
  h = await startMcp({ env: { SERVER_TOKEN: "from-lathe-env" } });
  await h.add({ everything: { ...EVERYTHING, env: { FOO: "bar", TOKEN_REF: "${SERVER_TOKEN}" } } });
});
afterAll(async () => {
  delete process.env.LATHE_PARENT_SECRET;
  await h?.close();
});

const everything = () => h.service.list().servers.find((s) => s.name === "everything")!;

describe("stdio: the reference server", () => {
  it("connects and lists its tools with their annotations", () => {
    const server = everything();
    expect(server.status.state).toBe("connected");
    expect(server.status.toolCount).toBeGreaterThanOrEqual(10);
    expect(server.status.stderrTail).toMatch(/Starting default \(STDIO\) server/);
    const echo = server.tools.find((t) => t.name === "echo")!;
    expect(echo).toMatchObject({ modelName: "mcp__everything__echo", annotations: { readOnlyHint: true, destructiveHint: false } });
    expect(server.env).toEqual([
      { name: "FOO", value: "bar", encrypted: false },
      { name: "TOKEN_REF", value: "${SERVER_TOKEN}", encrypted: false },
    ]);
  });

  it("calls a tool and returns its text", async () => {
    const result = await h.call("mcp__everything__echo", { message: "hello MCP" });
    expect(textOf(result)).toBe("Echo: hello MCP");
    expect(result.details).toMatchObject({ server: "everything", tool: "echo", isError: false });
  });

  it("refuses invalid arguments before the server sees them", async () => {
    await expect(h.call("mcp__everything__echo", { message: 42 })).rejects.toThrow(
      /Invalid arguments for tool "mcp__everything__echo":\n- message: must be string; received number 42/,
    );
    await expect(h.call("mcp__everything__get-sum", { a: 1 })).rejects.toThrow(/must have required properties b/);
  });

  it("passes images as images and embedded resources as text with their URI", async () => {
    const image = await h.call("mcp__everything__get-tiny-image", {});
    expect(image.content.some((c) => c.type === "image" && c.mimeType === "image/png" && c.data.length > 100)).toBe(true);
    const resource = await h.call("mcp__everything__get-resource-reference", { resourceType: "Text", resourceId: 2 });
    expect(textOf(resource)).toMatch(/Resource <demo:\/\/resource\/dynamic\/text\/2> \(text\/plain\):\nResource 2: This is a plaintext resource/);
    const links = await h.call("mcp__everything__get-resource-links", { count: 2 });
    expect(textOf(links)).toMatch(/Resource link: .*<demo:\/\/resource\/dynamic\/(text|blob)\/1>/);
  });

  it("starts the server with its own environment: its env and ${VAR}s, not Lathe's", async () => {
    const text = textOf(await h.call("mcp__everything__get-env", {}));
    expect(text).toContain('"FOO": "bar"');
    expect(text).toContain('"TOKEN_REF": "from-lathe-env"');
    expect(text).not.toContain("must-not-reach-servers");
  });

  it("turns progress notifications into updates", async () => {
    const updates: AgentToolResult[] = [];
    const result = await h.call("mcp__everything__trigger-long-running-operation", { duration: 0.6, steps: 3 }, { onUpdate: (u) => updates.push(u) });
    expect(textOf(result)).toMatch(/Long running operation completed/);
    // The last notice comes right before the answer; the SDK may handle the answer first and drop it.
    expect(updates.map((u) => textOf(u)).slice(0, 2)).toEqual(["Progress 1 of 3", "Progress 2 of 3"]);
    expect(updates[0]!.details).toMatchObject({ phase: "progress", server: "everything", progress: 1, total: 3 });
  });

  it("cancels a call on abort, and the server keeps serving", async () => {
    const controller = new AbortController();
    const call = h.call("mcp__everything__trigger-long-running-operation", { duration: 30, steps: 30 }, { signal: controller.signal, onUpdate: () => controller.abort() });
    await expect(call).rejects.toThrow(/Cancelled: the run was stopped before everything\/trigger-long-running-operation answered/);
    expect(textOf(await h.call("mcp__everything__echo", { message: "still here" }))).toBe("Echo: still here");
  });

  it("stops the server process with the app", async () => {
    const children = () =>
      execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(process.pid)], { encoding: "utf8" })
        .split("\n")
        .filter((l) => l.includes("server-everything")).length;
    const other = await startMcp();
    await other.add({ everything: EVERYTHING });
    expect(children()).toBe(2);
    await other.close();
    expect(children()).toBe(1);
  });
});
