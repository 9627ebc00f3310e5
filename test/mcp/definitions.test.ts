// Tool definitions read from hostile listings (schemas checked against the meta-schema and
// compiled by TypeBox 1.x, regular expressions never run, names made provider-safe and stable),
// and call results turned into bounded content.
import { describe, expect, it } from "vitest";
import { readToolDefinition, readToolList, modelToolName } from "../../app/main/mcp/tool-definitions.ts";
import { convertCallResult } from "../../app/main/mcp/tool-results.ts";
import { createMcpAgentTool } from "../../app/main/mcp/mcp-tool.ts";
import { validateToolArguments } from "../../app/main/loop/index.ts";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const def = (inputSchema: unknown, extra: Record<string, unknown> = {}) => readToolDefinition("srv", "tool", { name: "tool", inputSchema, ...extra });

describe("tool definitions", () => {
  it("checks arguments against the server's JSON Schema, naming each field", () => {
    const d = def({
      type: "object",
      properties: { title: { type: "string", minLength: 2 }, count: { type: "integer", minimum: 1 }, labels: { type: "array", items: { type: "string" } } },
      required: ["title"],
      additionalProperties: false,
    });
    expect(d.error).toBeUndefined();
    expect(d.checkArguments({ title: "ok", count: 2, labels: ["a"] })).toBeNull();
    const problems = d.checkArguments({ count: 0.5, labels: ["a", 3], extra: true })!;
    expect(problems.join("\n")).toMatch(/\(the arguments object\): must have required properties title/);
    expect(problems.join("\n")).toMatch(/count: must be integer; received number 0\.5/);
    expect(problems.join("\n")).toMatch(/labels\.1: must be string; received number 3/);
    expect(problems.join("\n")).toMatch(/must not have additional properties: extra/);
  });

  it("follows $ref to $defs (2020-12) and definitions (draft-07)", () => {
    const modern = def({ type: "object", properties: { n: { $ref: "#/$defs/n" } }, $defs: { n: { type: "number" } } });
    expect(modern.checkArguments({ n: 1 })).toBeNull();
    expect(modern.checkArguments({ n: "x" })).not.toBeNull();
    const draft7 = def({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { n: { $ref: "#/definitions/n" } },
      definitions: { n: { type: "number" } },
    });
    expect(draft7.error).toBeUndefined();
    expect(draft7.checkArguments({ n: "x" })).not.toBeNull();
  });

  it("marks a schema that is not JSON Schema, or does not compile, as unusable with a clear error", () => {
    expect(def({ type: "object", properties: { a: 5 } }).error).toMatch(/not valid JSON Schema: properties\.a: must be either object or boolean/);
    expect(def({ type: "object", properties: { a: { type: "string", pattern: "([a-z" } } }).error).toMatch(/not valid JSON Schema/);
    expect(def({ type: "array" }).error).toMatch(/must describe an object/);
    expect(def(undefined).error).toMatch(/missing or not an object/);
    expect(def("string").error).toMatch(/missing or not an object/);
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 200; i++) deep = { type: "object", properties: { x: deep } };
    expect(def(deep).error).toMatch(/nested deeper than 32 levels/);
    let deeper: unknown = {};
    for (let i = 0; i < 100_000; i++) deeper = { properties: { x: deeper } };
    expect(def({ type: "object", properties: { a: deeper } }).error).toMatch(/nested deeper/);
    expect(def({ type: "object", description: "x".repeat(300_000) }).error).toMatch(/larger than/);
  });

  it("never runs the schema's regular expressions on arguments (a catastrophic one cannot hang Lathe)", () => {
    const d = def({ type: "object", properties: { s: { type: "string", pattern: "^(a+)+$" } }, patternProperties: { "^(b+)+$": { type: "number" } }, additionalProperties: false });
    expect(d.error).toBeUndefined();
    const started = performance.now();
    expect(d.checkArguments({ s: `${"a".repeat(40)}!`, bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb: "x" })).toBeNull();
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(d.inputSchema).toMatchObject({ properties: { s: { pattern: "^(a+)+$" } } });
  });

  it("gives provider-safe, stable model names", () => {
    expect(modelToolName("github", "create_issue")).toBe("mcp__github__create_issue");
    const dotted = modelToolName("github", "issues.create");
    expect(dotted).toMatch(/^mcp__github__issues_create_[0-9a-f]{8}$/);
    expect(modelToolName("github", "issues.create")).toBe(dotted);
    expect(modelToolName("github", "issues_create")).not.toBe(dotted);
    const long = modelToolName("server", "x".repeat(120));
    expect(long.length).toBeLessThanOrEqual(64);
    expect(long).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it("reads at most 1,000 tools, skips nameless and repeated ones, bounds descriptions", () => {
    const raw = [...Array.from({ length: 1500 }, (_, i) => ({ name: `t${i % 1200}`, inputSchema: { type: "object" } })), { inputSchema: { type: "object" } }, { name: 42 }, null];
    const list = readToolList("srv", raw);
    expect(list).toHaveLength(1000);
    expect(new Set(list.map((t) => t.name)).size).toBe(1000);
    const described = readToolDefinition("srv", "t", { name: "t", description: `First line.\n\n${"long ".repeat(5000)}`, inputSchema: { type: "object" } });
    expect(described.summary).toBe("First line.");
    expect(described.description.length).toBeLessThan(8_100);
  });

  it("as an AgentTool: the loop shows the model the server's schema; invalid arguments stop in prepareArguments", async () => {
    const d = def({ type: "object", properties: { text: { type: "string" } }, required: ["text"] });
    let ran = 0;
    const tool = createMcpAgentTool(d, async () => {
      ran++;
      return { content: [{ type: "text", text: "ok" }] };
    });
    expect(JSON.parse(JSON.stringify(tool.parameters))).toEqual({ type: "object", properties: { text: { type: "string" } }, required: ["text"] });
    expect(() => tool.prepareArguments!({ text: 5 })).toThrow(/Invalid arguments for tool "mcp__srv__tool":\n- text: must be string; received number 5/);
    expect(validateToolArguments(tool.name, tool.parameters, { text: "x" })).toEqual({ ok: true, value: { text: "x" } });
    expect(await tool.execute("1", { text: "x" }, undefined, undefined)).toMatchObject({ content: [{ type: "text", text: "ok" }] });
    expect(ran).toBe(1);
  });
});

describe("call results", () => {
  it("keeps text, valid images and text resources; lists what it does not pass", () => {
    const r = convertCallResult("srv", "tool", {
      content: [
        { type: "text", text: "hello" },
        { type: "image", data: PNG, mimeType: "image/png" },
        { type: "image", data: "not base64!", mimeType: "image/png" },
        { type: "image", data: Buffer.from("plain text").toString("base64"), mimeType: "image/jpeg" },
        { type: "audio", data: "AAAA", mimeType: "audio/wav" },
        { type: "resource", resource: { uri: "file:///a.txt", mimeType: "text/plain", text: "resource body" } },
        { type: "resource", resource: { uri: "file:///b.bin", blob: "AQID", mimeType: "application/octet-stream" } },
        { type: "resource_link", uri: "https://example.com/x", name: "x", description: "a link" },
      ],
    });
    expect(r.content.filter((c) => c.type === "image")).toEqual([{ type: "image", data: PNG, mimeType: "image/png" }]);
    const text = (r.content[0] as { text: string }).text;
    expect(text).toContain("hello");
    expect(text).toContain("Resource <file:///a.txt> (text/plain):\nresource body");
    expect(text).toContain("Resource link: x <https://example.com/x>: a link");
    expect(text).toMatch(/An image not passed: its data is not base64/);
    expect(text).toMatch(/its bytes are not a PNG, JPEG, GIF or WebP image \(declared image\/jpeg\)/);
    expect(text).toMatch(/Audio \(audio\/wav\) not passed/);
    expect(text).toMatch(/Binary resource <file:\/\/\/b.bin> \(application\/octet-stream, 3 B\) not passed/);
    expect(r.details.omitted).toHaveLength(4);
  });

  it("bounds text like every tool's output, and says so", () => {
    const r = convertCallResult("srv", "tool", { content: [{ type: "text", text: "line\n".repeat(100_000) }] });
    const text = (r.content[0] as { text: string }).text;
    expect(Buffer.byteLength(text)).toBeLessThan(52 * 1024);
    expect(text).toMatch(/Lathe cut this output: 100000 lines/);
    expect(r.details.truncated).toBe(true);
  });

  it("passes structured content as JSON only without text, and never walks a deep one", () => {
    expect((convertCallResult("s", "t", { content: [], structuredContent: { a: 1 } }).content[0] as { text: string }).text).toBe('{\n  "a": 1\n}');
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = { d: deep };
    const r = convertCallResult("s", "t", { content: [], structuredContent: { deep } as Record<string, unknown> });
    expect((r.content[0] as { text: string }).text).toMatch(/Structured content not passed: it is nested deeper than 64 levels/);
    expect((convertCallResult("s", "t", { content: [] }).content[0] as { text: string }).text).toBe("(The tool returned no content.)");
  });

  it("a result the server marks as an error becomes an error result with its text", async () => {
    const tool = createMcpAgentTool(def({ type: "object" }), async () => ({ content: [{ type: "text", text: "the database is locked" }], isError: true }));
    await expect(tool.execute("1", {}, undefined, undefined)).rejects.toThrow("the database is locked");
  });
});
