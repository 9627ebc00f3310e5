// The bash grammar: tree-sitter-bash through web-tree-sitter (both WebAssembly), loaded once per
// process, in the process that owns the agent loop. `loadShellParser()` starts (or joins) the load
// and resolves when `parseShell` can be called; `parseShell` is synchronous and returns the syntax
// tree as plain data, or throws if the parser was never loaded (a programming error, not a
// user's). Parsing never throws on any input: what the grammar cannot read comes back as ERROR
// or MISSING nodes (`broken`).
//
// Where the .wasm files are: beside the running bundle in `wasm/` (scripts/build.mjs copies them
// to out/main/wasm and out/host/wasm; electron-builder packs them inside app.asar, which Electron's
// fs reads transparently), else in node_modules (tests and benchmarks run from the sources).
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Language, Parser, type Tree } from "web-tree-sitter";

export const GRAMMAR_FILES = { runtime: "web-tree-sitter.wasm", bash: "tree-sitter-bash.wasm" } as const;

let loading: Promise<Parser> | undefined;
let parser: Parser | undefined;
/** Per node type id: its name and whether it is named; per field id: its name (read once). */
let typeNames: string[] = [];
let typeNamed: boolean[] = [];
let fieldNames: (string | null)[] = [];

/** The two .wasm files, found beside the bundle or in node_modules. */
export function grammarFilePaths(): { runtime: string; bash: string } {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const beside = { runtime: path.join(here, "wasm", GRAMMAR_FILES.runtime), bash: path.join(here, "wasm", GRAMMAR_FILES.bash) };
  if (existsSync(beside.runtime) && existsSync(beside.bash)) return beside;
  const require = createRequire(import.meta.url);
  return {
    runtime: require.resolve(`web-tree-sitter/${GRAMMAR_FILES.runtime}`),
    bash: require.resolve(`tree-sitter-bash/${GRAMMAR_FILES.bash}`),
  };
}

/** Loads the grammar once; later calls return the same promise. A failed load may be retried. */
export function loadShellParser(): Promise<void> {
  loading ??= (async () => {
    const files = grammarFilePaths();
    await Parser.init({ wasmBinary: readFileSync(files.runtime) } as object);
    const language = await Language.load(readFileSync(files.bash));
    const p = new Parser();
    p.setLanguage(language);
    typeNames = Array.from({ length: language.nodeTypeCount }, (_, id) => language.nodeTypeForId(id) ?? "ERROR");
    typeNamed = Array.from({ length: language.nodeTypeCount }, (_, id) => language.nodeTypeIsNamed(id));
    fieldNames = Array.from({ length: language.fieldCount + 1 }, (_, id) => language.fieldNameForId(id));
    parser = p;
    return p;
  })();
  loading.catch(() => (loading = undefined));
  return loading.then(() => undefined);
}

/** A syntax node copied out of the WebAssembly heap: plain data, safe to keep. */
export interface SyntaxNode {
  type: string;
  /** Named nodes are grammar rules (`command`, `word`); unnamed ones are tokens (`&&`, `>`). */
  named: boolean;
  /** True for ERROR nodes and for tokens the parser had to invent (MISSING). */
  broken: boolean;
  field: string | null;
  /** UTF-16 offsets into the command line. */
  start: number;
  end: number;
  children: SyntaxNode[];
}

/** Nesting beyond this is refused (reported as a broken node) rather than walked. */
const MAX_DEPTH = 200;

/**
 * Parses a command line into plain nodes, walked with one tree cursor (a node-by-node walk
 * through the binding costs microseconds per node); the tree itself is freed at once.
 */
export function parseShell(command: string): SyntaxNode {
  if (!parser) throw new Error("The shell parser is not loaded: await loadShellParser() first.");
  // Handing the text over through a callback, whole, is several times faster than passing the
  // string itself (which the binding feeds to the parser in small pieces).
  const tree: Tree | null = parser.parse((index) => (index < command.length ? command.slice(index) : ""));
  if (!tree) throw new Error("The shell parser returned no tree.");
  const cursor = tree.walk();
  try {
    // Each cursor getter is a call into WebAssembly: ask for ids and look the names up here.
    const copy = (depth: number): SyntaxNode => {
      const id = cursor.nodeTypeId;
      const type = typeNames[id] ?? "ERROR";
      const start = cursor.startIndex;
      const end = cursor.endIndex;
      const node: SyntaxNode = {
        type,
        named: typeNamed[id] ?? true,
        // Only a node the parser invented (MISSING) or an empty one can be zero-width.
        broken: type === "ERROR" || depth > MAX_DEPTH || (start === end && cursor.nodeIsMissing),
        field: fieldNames[cursor.currentFieldId] ?? null,
        start,
        end,
        children: [],
      };
      if (depth <= MAX_DEPTH && cursor.gotoFirstChild()) {
        do node.children.push(copy(depth + 1));
        while (cursor.gotoNextSibling());
        cursor.gotoParent();
      }
      return node;
    };
    return copy(0);
  } finally {
    cursor.delete();
    tree.delete();
  }
}
