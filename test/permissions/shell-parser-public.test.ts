// The shell parser when web-tree-sitter's module does not offer everything the direct walk calls
// (another version of the package): it parses and walks through the public API alone, with the
// same trees. Here Parser.init is given a module object of its own, and every function of it but
// one is copied onto the object the loader reads (shell-parser.ts, loadShellParser).
import { describe, expect, it, vi } from "vitest";
import type * as WebTreeSitter from "web-tree-sitter";
import { loadShellParser, parseShell, shellParserMemoryBytes, shellParserWalk } from "../../app/main/permissions/shell-parser.ts";

vi.mock("web-tree-sitter", async (importOriginal) => {
  const real = await importOriginal<typeof WebTreeSitter>();
  class Parser extends real.Parser {
    static override async init(moduleOptions?: Record<string, unknown>): Promise<void> {
      const own: Record<string, unknown> = { wasmBinary: moduleOptions?.wasmBinary };
      await real.Parser.init(own);
      for (const [key, value] of Object.entries(own)) if (key !== "_ts_tree_cursor_current_node_is_missing_wasm") moduleOptions![key] = value;
    }
  }
  return { ...real, Parser };
});

describe("parseShell without the module's functions", () => {
  // Loaded in the tests, not in beforeAll: per-test coverage then ties the load's code to the
  // first; each loads (or joins the load) itself, so that it passes when run alone.
  it("walks through the public API, and knows no memory size", async () => {
    await loadShellParser();
    expect(shellParserWalk()).toBe("public");
    expect(shellParserMemoryBytes()).toBeUndefined();
  });

  it("gives the same trees, kept or transient", async () => {
    await loadShellParser();
    const tree = parseShell("echo hi > out.txt && (ls");
    expect(parseShell("echo hi > out.txt && (ls", { publicApi: true })).toEqual(tree);
    const node = (type: string, start: number, end: number, children: unknown[] = [], more: object = {}) => ({
      type,
      named: true,
      broken: false,
      field: null,
      start,
      end,
      children,
      ...more,
    });
    const token = (type: string, start: number, end: number, more: object = {}) => node(type, start, end, [], { named: false, ...more });
    expect(tree).toEqual(
      node("program", 0, 24, [
        node("list", 0, 24, [
          node("redirected_statement", 0, 17, [
            node("command", 0, 7, [node("command_name", 0, 4, [node("word", 0, 4)], { field: "name" }), node("word", 5, 7, [], { field: "argument" })], {
              field: "body",
            }),
            node("file_redirect", 8, 17, [token(">", 8, 9), node("word", 10, 17, [], { field: "destination" })], { field: "redirect" }),
          ]),
          token("&&", 18, 20),
          node("subshell", 21, 24, [
            token("(", 21, 22),
            node("command", 22, 24, [node("command_name", 22, 24, [node("word", 22, 24)], { field: "name" })]),
            token(")", 24, 24, { broken: true }),
          ]),
        ]),
      ]),
    );
    const first = parseShell("cat a | wc -l", { transient: true });
    expect(parseShell("echo hi > out.txt && (ls", { transient: true })).toBe(first);
    expect(structuredClone(first)).toEqual(tree);
  });
});
