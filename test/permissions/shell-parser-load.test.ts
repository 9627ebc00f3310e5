// The shell parser's loading and the calls its walks make, in a fresh module (test files are
// isolated): parseShell before the load, a load that fails and is retried, where the .wasm files
// are taken from, the names read at load (node types, fields), and which of web-tree-sitter's
// calls each walk makes: the direct walk frees its tree and cursor through the module, the public
// one through Tree and TreeCursor. The load runs inside the tests, not in beforeAll, so that
// per-test coverage (mutation testing) ties the load's code to the test that loads first; every
// test that parses loads (or joins the load) itself, so that each passes when run alone (as
// Stryker runs the tests that cover a mutant).
import type * as Fs from "node:fs";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type * as WebTreeSitter from "web-tree-sitter";
import { Parser, Tree, TreeCursor } from "web-tree-sitter";
import { grammarFilePaths, loadShellParser, parseShell, shellParserMemoryBytes, shellParserWalk } from "../../app/main/permissions/shell-parser.ts";

const realFs = vi.hoisted(() => ({ existsSync: undefined as unknown as (p: unknown) => boolean }));
vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof Fs>();
  realFs.existsSync = fs.existsSync as (p: unknown) => boolean;
  return { ...fs, existsSync: vi.fn(fs.existsSync) };
});

/** The module object the loader hands to Parser.init (the functions of web-tree-sitter's module land on it). */
const loaded = vi.hoisted(() => ({ module: undefined as Record<string, unknown> | undefined }));
vi.mock("web-tree-sitter", async (importOriginal) => {
  const real = await importOriginal<typeof WebTreeSitter>();
  class Parser extends real.Parser {
    static override init(moduleOptions?: Record<string, unknown>): Promise<void> {
      loaded.module = moduleOptions;
      return real.Parser.init(moduleOptions);
    }
  }
  return { ...real, Parser };
});
async function load(): Promise<Record<string, unknown>> {
  await loadShellParser();
  return loaded.module!;
}

const here = path.join(import.meta.dirname, "../../app/main/permissions/wasm");
const require = createRequire(import.meta.url);
const installed = { runtime: require.resolve("web-tree-sitter/web-tree-sitter.wasm"), bash: require.resolve("tree-sitter-bash/tree-sitter-bash.wasm") };

afterEach(() => {
  vi.mocked(existsSync).mockImplementation(realFs.existsSync as typeof existsSync);
  vi.restoreAllMocks();
});

describe("grammarFilePaths", () => {
  it("takes both files from the wasm folder beside the bundle when both are there", () => {
    vi.mocked(existsSync).mockImplementation(() => true);
    expect(grammarFilePaths()).toEqual({ runtime: path.join(here, "web-tree-sitter.wasm"), bash: path.join(here, "tree-sitter-bash.wasm") });
  });

  it("takes both from node_modules when either is missing beside the bundle (never one from each)", () => {
    for (const present of ["web-tree-sitter.wasm", "tree-sitter-bash.wasm", "none"]) {
      vi.mocked(existsSync).mockImplementation((p) => path.basename(String(p)) === present);
      expect(grammarFilePaths(), present).toEqual(installed);
    }
  });
});

describe("loadShellParser", () => {
  // One module for the whole file: the first test runs before anything is loaded.

  it("parseShell before the load is a programming error, said so", () => {
    expect(() => parseShell("ls")).toThrow("The shell parser is not loaded: await loadShellParser() first.");
  });

  // Everything the load sets up is checked in this one test: per-test coverage ties the load's
  // code to it alone, so a mutant of the load is judged by it alone.
  it("a failed load is reported and may be retried; the load reads the runtime grammarFilePaths names, every node type and field", async () => {
    const init = vi.spyOn(Parser, "init").mockRejectedValueOnce(new Error("no memory"));
    await expect(loadShellParser()).rejects.toThrow("no memory");
    await loadShellParser();
    await loadShellParser();
    expect(init).toHaveBeenCalledTimes(2);
    expect((init.mock.calls[1]![0] as Record<string, unknown>).wasmBinary).toEqual(readFileSync(installed.runtime));
    expect(shellParserWalk()).toBe("direct");
    // `variable` and `value`: the last two of the grammar's 19 fields. Unnamed tokens, named rules.
    const loop = parseShell("for x in a; do ls; done").children[0]!;
    expect(loop.type).toBe("for_statement");
    expect(loop.children.map((c) => [c.type, c.named, c.broken, c.field])).toEqual([
      ["for", false, false, null],
      ["variable_name", true, false, "variable"],
      ["in", false, false, null],
      ["word", true, false, "value"],
      [";", false, false, null],
      ["do_group", true, false, "body"],
    ]);
    const list = parseShell("a && b").children[0]!;
    expect(list.children.map((c) => [c.type, c.named, c.broken])).toEqual([
      ["command", true, false],
      ["&&", false, false],
      ["command", true, false],
    ]);
    expect(parseShell("a && && b", { publicApi: true })).toEqual(parseShell("a && && b"));
  });

  it("the direct walk frees each tree and its cursor through the module, and leaves no input callback set", async () => {
    const m = await load();
    const treeDelete = vi.spyOn(m as unknown as { _ts_tree_delete(t: number): void }, "_ts_tree_delete");
    const cursorDelete = vi.spyOn(m as unknown as { _ts_tree_cursor_delete_wasm(t: number): void }, "_ts_tree_cursor_delete_wasm");
    const publicParse = vi.spyOn(Parser.prototype, "parse");
    for (const command of ["ls -la", "a && && b", "echo $(cat x) > y"]) parseShell(command);
    parseShell("ls", { transient: true });
    expect(treeDelete).toHaveBeenCalledTimes(4);
    expect(cursorDelete).toHaveBeenCalledTimes(4);
    expect(cursorDelete.mock.calls.map(([t]) => t)).toEqual(treeDelete.mock.calls.map(([t]) => t));
    expect(publicParse).not.toHaveBeenCalled();
    expect(m.currentParseCallback).toBeNull();
  });

  it("the public walk parses through Parser.parse and deletes each tree and cursor it made", async () => {
    await load();
    const publicParse = vi.spyOn(Parser.prototype, "parse");
    const treeDelete = vi.spyOn(Tree.prototype, "delete");
    const cursorDelete = vi.spyOn(TreeCursor.prototype, "delete");
    for (const command of ["ls -la", "a && && b", "echo $(cat x) > y"]) parseShell(command, { publicApi: true });
    parseShell("ls", { publicApi: true, transient: true });
    expect(publicParse).toHaveBeenCalledTimes(4);
    expect(treeDelete).toHaveBeenCalledTimes(4);
    expect(cursorDelete).toHaveBeenCalledTimes(4);
  });

  it("reports the module's memory size, and none when the module does not show its memory", async () => {
    const m = await load();
    const heap = m.HEAP8 as Int8Array;
    expect(shellParserMemoryBytes()).toBe(heap.length);
    delete m.HEAP8;
    try {
      expect(shellParserMemoryBytes()).toBeUndefined();
    } finally {
      m.HEAP8 = heap;
    }
  });
});
