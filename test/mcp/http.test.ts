// The MCP client over Streamable HTTP, against the SDK's own server side on 127.0.0.1: a bearer
// header (from a ${VAR} in the configuration), progress over SSE, a server that wants a token it
// was not given, an answer over 16 MB, and a server that goes away and comes back.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentToolResult } from "../../app/shared/agent-types.ts";
import { startHttpMcp, type TestHttpMcp } from "./support/http-server.ts";
import { startMcp, textOf, type McpHarness } from "./support/mcp-harness.ts";

let server: TestHttpMcp;
let h: McpHarness;
beforeAll(async () => {
  server = await startHttpMcp("s3cret-token");
  h = await startMcp({ env: { REMOTE_TOKEN: "s3cret-token" } });
  await h.add({
    remote: { type: "http", url: server.url, headers: { Authorization: "Bearer ${REMOTE_TOKEN}" } },
    anonymous: { type: "http", url: server.url },
  });
});
afterAll(async () => {
  await h?.close();
  await server?.stop();
});

const status = (name: string) => h.service.list().servers.find((s) => s.name === name)!.status;

describe("Streamable HTTP", () => {
  it("connects with the bearer header and calls tools", async () => {
    expect(status("remote")).toMatchObject({ state: "connected", toolCount: 3 });
    expect(server.requests.some((r) => r.authorization === "Bearer s3cret-token")).toBe(true);
    expect(textOf(await h.call("mcp__remote__echo", { text: "over http" }))).toBe("http echo: over http");
  });

  it("says what is wrong when the server wants authorization", () => {
    const anonymous = status("anonymous");
    expect(anonymous.state).toBe("failed");
    expect(anonymous.error).toMatch(/401[\s\S]*set an "Authorization" header; OAuth sign-in is not supported yet/);
  });

  it("delivers progress notices sent over SSE as updates", async () => {
    const updates: AgentToolResult[] = [];
    const result = await h.call("mcp__remote__count", { to: 3 }, { onUpdate: (u) => updates.push(u) });
    expect(textOf(result)).toBe("counted to 3");
    expect(updates.map(textOf)).toEqual(["Progress 1 of 3", "Progress 2 of 3", "Progress 3 of 3"]);
  });

  it("stops reading an answer over 16 MB, and the next call works", async () => {
    await expect(h.call("mcp__remote__huge", {})).rejects.toThrow(
      "The MCP server remote stopped during the call to remote/huge: It sent a message larger than 16 MB, so Lathe closed the connection. Lathe connects again on the next call.",
    );
    expect(textOf(await h.call("mcp__remote__echo", { text: "again" }))).toBe("http echo: again");
  });

  it("a server that goes away: a clear error; when it is back, the next call connects again", async () => {
    await server.stop();
    await expect(h.call("mcp__remote__echo", { text: "x" })).rejects.toThrow(/Cannot reach the MCP server remote for remote\/echo: .*Lathe connects again on the next call\./);
    expect(status("remote").state).toBe("failed");
    await expect(h.call("mcp__remote__echo", { text: "x" })).rejects.toThrow(/The MCP server remote is not available: .*fetch failed|ECONNREFUSED/);
    await server.start();
    expect(textOf(await h.call("mcp__remote__echo", { text: "back" }))).toBe("http echo: back");
    expect(status("remote").state).toBe("connected");
  });
});
