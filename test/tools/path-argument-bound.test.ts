// A tool's path argument is at most MAX_PATH_ARGUMENT_CHARS long (no system opens a longer one):
// the loop's validation refuses a longer one before the permission check or the tool sees it,
// which a hostile model's path of 20 MB reached, holding the main thread for seconds (the walk to
// its real path, the judge's and the tool's, 3 to 4 s of a blocked event loop measured).
import { expect, it } from "vitest";
import { validateToolArguments } from "../../app/main/loop/index.ts";
import { createCodingTools } from "../../app/main/tools/index.ts";
import { MAX_PATH_ARGUMENT_CHARS } from "../../app/main/tools/paths.ts";

it("refuses a path over the bound in every path tool, and takes one at the bound", () => {
  const tools = createCodingTools({ projectDir: "/tmp" }).tools.filter((t) => ["read", "write", "edit", "ls", "find", "grep"].includes(t.name));
  expect(tools).toHaveLength(6);
  const rest: Record<string, Record<string, unknown>> = {
    write: { content: "x" },
    edit: { edits: [{ oldText: "a", newText: "b" }] },
    find: { pattern: "*" },
    grep: { pattern: "x" },
  };
  const huge = `out/${"a/".repeat(10_000_000)}x.txt`; // 20 MB
  for (const tool of tools) {
    const refused = validateToolArguments(tool.name, tool.parameters, { path: huge, ...rest[tool.name] });
    expect(refused.ok, tool.name).toBe(false);
    expect(JSON.stringify(refused), tool.name).toContain("path");
    expect(validateToolArguments(tool.name, tool.parameters, { path: "p".repeat(MAX_PATH_ARGUMENT_CHARS), ...rest[tool.name] }).ok, tool.name).toBe(true);
    expect(validateToolArguments(tool.name, tool.parameters, { path: "p".repeat(MAX_PATH_ARGUMENT_CHARS + 1), ...rest[tool.name] }).ok, tool.name).toBe(false);
  }
});
