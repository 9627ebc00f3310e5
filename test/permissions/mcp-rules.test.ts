// mcp-rules.ts driven directly: what a call to an MCP server's tool is judged as (the name
// "server/tool" of the pseudo-tool "mcp"), what its dialog says, the rule "always allow" proposes
// (the tool's name escaped so it matches only itself) and which patterns an answer may save for a
// server (no control character, only that server's tools). test/mcp/hostile-listing.test.ts checks
// the proposed rules against decide() for glob-laden names; this file checks the functions' exact
// answers, the escaping character by character and the refusals' bounds.
import { describe, expect, it } from "vitest";
import { escapeGlob, MCP_RULE_TOOL, mcpPatternError, mcpProposedRule, mcpSubjects, mcpSummary } from "../../app/main/permissions/mcp-rules.ts";
import { decide } from "../../app/main/permissions/policy.ts";
import type { PermissionRule } from "../../app/main/store/index.ts";

const call = (server: string, tool: string) => ({ server, tool, description: "Looks things up.", annotations: { readOnlyHint: true } });
const allow = (pattern: string): PermissionRule => ({ id: 7, tool: MCP_RULE_TOOL, pattern, action: "allow", scope: "project", scopeId: 1, createdAt: 0 });

describe("an MCP call's subjects and summary", () => {
  it("is judged as the one name server/tool of the pseudo-tool mcp, never as a path", () => {
    expect(MCP_RULE_TOOL).toBe("mcp");
    const s = mcpSubjects(call("github", "create_issue"));
    expect(s.subjects).toEqual(["github/create_issue"]);
    expect(s.parts).toEqual([{ kind: "name", name: "github/create_issue" }]);
    expect(s).toMatchObject({ outsideProject: false, opaque: false, reasons: [], warnings: [], denyForms: [], unknownCommand: false });
  });

  it("names the server and the tool in the dialog's title and carries the call as shown", () => {
    const c = call("github", "create_issue");
    expect(mcpSummary(c)).toEqual({ title: "Call github/create_issue (MCP server github)", outsideProject: false, mcp: c });
  });

  it("proposes a rule for mcp that names the server and the tool, escaped", () => {
    expect(mcpProposedRule(call("github", "create_issue"))).toEqual({ tool: "mcp", pattern: "github/create_issue" });
    expect(mcpProposedRule(call("evil", "a*b"))).toEqual({ tool: "mcp", pattern: "evil/a\\*b" });
  });

  it("a server's readOnlyHint allows nothing: without a rule the call asks, with a rule for another tool too", () => {
    const subjects = mcpSubjects(call("github", "search"));
    expect(decide({ toolName: "mcp", subjects, rules: [], mode: "ask" }).action).toBe("ask");
    expect(decide({ toolName: "mcp", subjects, rules: [allow("github/create_issue")], mode: "ask" }).action).toBe("ask");
    expect(decide({ toolName: "mcp", subjects, rules: [allow("github/*")], mode: "ask" }).action).toBe("allow");
    expect(decide({ toolName: "mcp", subjects, rules: [], mode: "full-auto" }).action).toBe("allow");
  });
});

describe("escapeGlob", () => {
  it("puts a backslash before each character picomatch treats as special, and before nothing else", () => {
    for (const c of "\\*?[]{}()!+@|") expect(escapeGlob(`a${c}b`), c).toBe(`a\\${c}b`);
    const plain = "abcXYZ019-_./:,;'\"#$%^&=~` <>é\u00a0";
    expect(escapeGlob(plain)).toBe(plain);
    expect(escapeGlob("")).toBe("");
    // Every occurrence, not the first only.
    expect(escapeGlob("**")).toBe("\\*\\*");
    expect(escapeGlob("a\\*")).toBe("a\\\\\\*");
    expect(escapeGlob("@(a|b)+(c)!(d)")).toBe("\\@\\(a\\|b\\)\\+\\(c\\)\\!\\(d\\)");
  });

  it("keeps a huge name whole, escaped in one pass", () => {
    const name = "*?".repeat(50_000);
    const escaped = escapeGlob(name);
    expect(escaped.length).toBe(200_000);
    expect(escaped.startsWith("\\*\\?\\*")).toBe(true);
    expect(escaped.endsWith("\\*\\?")).toBe(true);
  });
});

describe("mcpPatternError", () => {
  it("accepts the server's own tools, by name or by glob", () => {
    expect(mcpPatternError("github", "github/create_issue")).toBeUndefined();
    expect(mcpPatternError("github", "github/*")).toBeUndefined();
    expect(mcpPatternError("github", "github/")).toBeUndefined();
    expect(mcpPatternError("github", "github/a b\u00a0c~")).toBeUndefined();
  });

  it("refuses another server, a pattern without the slash, and any wider glob, naming the server", () => {
    const expected = (pattern: string) => `The rule ${JSON.stringify(pattern)} is not for the MCP server github: a rule saved from this question must start with "github/".`;
    for (const pattern of ["*", "**", "github", "githubx/*", "gitlab/*", "*/create_issue", " github/x", "GitHub/x", "", "/github/x"])
      expect(mcpPatternError("github", pattern), pattern).toBe(expected(pattern));
  });

  it("refuses every C0 and C1 control character, DEL and the line and paragraph separators, anywhere", () => {
    const controls = [0x00, 0x01, 0x09, 0x0a, 0x0d, 0x1b, 0x1f, 0x7f, 0x80, 0x85, 0x9f, 0x2028, 0x2029];
    for (const code of controls) {
      const pattern = `github/a${String.fromCharCode(code)}b`;
      expect(mcpPatternError("github", pattern), code.toString(16)).toBe(`The rule ${JSON.stringify(pattern)} contains a control character.`);
    }
    // The characters just outside those ranges are ordinary.
    for (const code of [0x20, 0x7e, 0xa0, 0x2027, 0x202a]) expect(mcpPatternError("github", `github/a${String.fromCharCode(code)}b`), code.toString(16)).toBeUndefined();
    // A control character is named before the wrong server: the first check wins.
    expect(mcpPatternError("github", "other/\n")).toBe(`The rule "other/\\n" contains a control character.`);
  });

  it("quotes at most 80 characters of a long pattern in its messages", () => {
    const long = `gitlab/${"x".repeat(500)}`;
    const message = mcpPatternError("github", long)!;
    expect(message).toBe(`The rule ${JSON.stringify(long).slice(0, 80)} is not for the MCP server github: a rule saved from this question must start with "github/".`);
    expect(message.length).toBeLessThan(200);
    const control = `github/${"y".repeat(500)}\u0007`;
    expect(mcpPatternError("github", control)).toBe(`The rule ${JSON.stringify(control).slice(0, 80)} contains a control character.`);
  });
});
