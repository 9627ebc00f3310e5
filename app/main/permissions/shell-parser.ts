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
import type { Parser, Tree, TreeCursor } from "web-tree-sitter";

export const GRAMMAR_FILES = { runtime: "web-tree-sitter.wasm", bash: "tree-sitter-bash.wasm" } as const;

let loading: Promise<Parser> | undefined;
let parser: Parser | undefined;
/** Per node type id: its name and whether it is named; per field id: its name (read once). */
let typeNames: string[] = [];
let typeNamed: boolean[] = [];
let fieldNames: (string | null)[] = [];
/** web-tree-sitter's own Emscripten module, when it has what the direct parse needs (see parseDirect). */
let binding: Binding | undefined;
let parserAddress = 0;
let inputBuffer = 0;

/** The functions of web-tree-sitter's module (0.27, pinned) the direct parse and walk call. */
interface Binding {
  _ts_parser_parse_wasm(parser: number, inputBuffer: number, oldTree: number, ranges: number, rangeCount: number): number;
  _ts_tree_root_node_wasm(tree: number): void;
  _ts_tree_cursor_new_wasm(tree: number): void;
  _ts_tree_cursor_delete_wasm(tree: number): void;
  _ts_tree_delete(tree: number): void;
  /** Set around a parse: what the module's input callback (tree_sitter_parse_callback) calls. */
  currentParseCallback: ((index: number) => string) | null;
  currentProgressCallback: unknown;
  currentLogCallback: unknown;
  /** The view of its memory (replaced when the memory grows). */
  HEAP8?: Int8Array;
  _ts_tree_cursor_goto_first_child_wasm(tree: number): number;
  _ts_tree_cursor_goto_next_sibling_wasm(tree: number): number;
  _ts_tree_cursor_goto_parent_wasm(tree: number): number;
  _ts_tree_cursor_current_node_type_id_wasm(tree: number): number;
  _ts_tree_cursor_start_index_wasm(tree: number): number;
  _ts_tree_cursor_end_index_wasm(tree: number): number;
  _ts_tree_cursor_current_field_id_wasm(tree: number): number;
  _ts_tree_cursor_current_node_is_missing_wasm(tree: number): number;
}
const BINDING_FUNCTIONS = [
  "_ts_parser_parse_wasm",
  "_ts_tree_root_node_wasm",
  "_ts_tree_cursor_new_wasm",
  "_ts_tree_cursor_delete_wasm",
  "_ts_tree_delete",
  "_ts_tree_cursor_goto_first_child_wasm",
  "_ts_tree_cursor_goto_next_sibling_wasm",
  "_ts_tree_cursor_goto_parent_wasm",
  "_ts_tree_cursor_current_node_type_id_wasm",
  "_ts_tree_cursor_start_index_wasm",
  "_ts_tree_cursor_end_index_wasm",
  "_ts_tree_cursor_current_field_id_wasm",
  "_ts_tree_cursor_current_node_is_missing_wasm",
] as const;

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
    // Imported here, not with the app: its module is part of the loading the first window skips.
    const { Language, Parser } = await import("web-tree-sitter");
    const files = grammarFilePaths();
    // Emscripten makes the options object the module itself: its exports land on it.
    const moduleObject: Record<string, unknown> = { wasmBinary: readFileSync(files.runtime) };
    await Parser.init(moduleObject);
    if (BINDING_FUNCTIONS.every((f) => typeof moduleObject[f] === "function")) {
      binding = moduleObject as unknown as Binding;
    }
    const language = await Language.load(readFileSync(files.bash));
    const p = new Parser();
    p.setLanguage(language);
    // The parser's address and its input buffer's, which its own parse() passes to the module.
    const addresses = p as unknown as Record<number, unknown>;
    if (typeof addresses[0] === "number" && addresses[0] !== 0 && typeof addresses[1] === "number" && addresses[1] !== 0) {
      parserAddress = addresses[0];
      inputBuffer = addresses[1];
    } else binding = undefined;
    typeNames = Array.from({ length: language.nodeTypeCount }, (_, id) => language.nodeTypeForId(id) ?? "ERROR");
    typeNamed = Array.from({ length: language.nodeTypeCount }, (_, id) => language.nodeTypeIsNamed(id));
    fieldNames = Array.from({ length: language.fieldCount + 1 }, (_, id) => language.fieldNameForId(id));
    parser = p;
    return p;
  })();
  loading.catch(() => (loading = undefined));
  return loading.then(() => undefined);
}

/** How parseShell parses and walks: "direct" when web-tree-sitter's module offered what it needs. */
export function shellParserWalk(): "direct" | "public" {
  return binding ? "direct" : "public";
}

/** The size of the module's memory (WebAssembly memory only grows): for tests that look for leaks. */
export function shellParserMemoryBytes(): number | undefined {
  return binding?.HEAP8?.length;
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

/** The children of every leaf: one frozen array rather than one each. */
const NO_CHILDREN: SyntaxNode[] = Object.freeze([]) as unknown as SyntaxNode[];

/**
 * Nesting beyond this is refused rather than walked: a node deeper than this is broken and has no
 * children, and so is the root of its tree (see walk).
 */
export const MAX_DEPTH = 200;

/** Reads the cursor's node; `nextChild` goes down, `nextSibling` across, `up` back (see walk). */
interface CursorReader {
  typeId(): number;
  start(): number;
  end(): number;
  fieldId(): number;
  missing(): boolean;
  firstChild(): boolean;
  nextSibling(): boolean;
  parent(): void;
}

/**
 * Parses a command line into plain nodes, walked with one tree cursor; the tree itself is freed
 * at once. `publicApi` forces the parse and walk through web-tree-sitter's public API (for tests).
 * `transient`: the nodes are reused objects, valid only until the next transient parse (for a
 * caller that reads the tree and keeps nothing of it, as shell analysis does: no garbage made).
 */
export function parseShell(command: string, options: { publicApi?: boolean; transient?: boolean } = {}): SyntaxNode {
  if (!parser) throw new Error("The shell parser is not loaded: await loadShellParser() first.");
  if (binding && !options.publicApi) return parseDirect(binding, command, options.transient === true);
  // Handing the text over through a callback, whole, is several times faster than passing the
  // string itself (which the binding feeds to the parser in small pieces).
  const tree: Tree | null = parser.parse((index) => (index < command.length ? command.slice(index) : ""));
  if (!tree) throw new Error("The shell parser returned no tree.");
  const cursor = tree.walk();
  try {
    publicCursor = cursor;
    return walk(publicReader, options.transient === true);
  } finally {
    publicCursor = undefined;
    cursor.delete();
    tree.delete();
  }
}

/** The text being parsed by parseDirect, and the input callback that hands it to the module. */
let parseInput = "";
const feedInput = (index: number): string => (index === 0 ? parseInput : index < parseInput.length ? parseInput.slice(index) : "");

/**
 * The parse and walk calling web-tree-sitter's module directly, as its Parser.parse, Tree.walk and
 * their delete() do, without the Tree, Node and TreeCursor objects (and their finalizer
 * registrations) they make each time, which are garbage at once. The cursor's functions read the
 * cursor from the module's transfer buffer, where `_ts_tree_cursor_new_wasm` left it and where
 * each move writes it back; the public cursor copies it in and out around every call (four
 * values each way), which made the walk cost as much as half the parse. Nothing else runs between
 * these calls (they are synchronous), so the buffer stays the cursor's, and at the end it holds
 * the cursor as it now is (a move may have grown its stack) for `_ts_tree_cursor_delete_wasm`.
 */
function parseDirect(b: Binding, command: string, transient: boolean): SyntaxNode {
  parseInput = command;
  b.currentParseCallback = feedInput;
  b.currentProgressCallback = null;
  b.currentLogCallback = null;
  let tree: number;
  try {
    tree = b._ts_parser_parse_wasm(parserAddress, inputBuffer, 0, 0, 0);
  } finally {
    b.currentParseCallback = null;
    parseInput = "";
  }
  if (!tree) throw new Error("The shell parser returned no tree.");
  try {
    // The root node into the transfer buffer, then a cursor on it in its place.
    b._ts_tree_root_node_wasm(tree);
    b._ts_tree_cursor_new_wasm(tree);
    direct = b;
    directTree = tree;
    try {
      return walk(directReader, transient);
    } finally {
      direct = undefined;
      b._ts_tree_cursor_delete_wasm(tree);
    }
  } finally {
    b._ts_tree_delete(tree);
  }
}

/** The cursor `publicReader` reads: set by parseShell for the one walk it makes. */
let publicCursor: TreeCursor | undefined;
const publicReader: CursorReader = {
  typeId: () => publicCursor!.nodeTypeId,
  start: () => publicCursor!.startIndex,
  end: () => publicCursor!.endIndex,
  fieldId: () => publicCursor!.currentFieldId,
  missing: () => publicCursor!.nodeIsMissing,
  firstChild: () => publicCursor!.gotoFirstChild(),
  nextSibling: () => publicCursor!.gotoNextSibling(),
  parent: () => void publicCursor!.gotoParent(),
};

/** The module and tree `directReader` reads: set by parseDirect for the one walk it makes. */
let direct: Binding | undefined;
let directTree = 0;
const directReader: CursorReader = {
  typeId: () => direct!._ts_tree_cursor_current_node_type_id_wasm(directTree),
  start: () => direct!._ts_tree_cursor_start_index_wasm(directTree),
  end: () => direct!._ts_tree_cursor_end_index_wasm(directTree),
  fieldId: () => direct!._ts_tree_cursor_current_field_id_wasm(directTree),
  missing: () => direct!._ts_tree_cursor_current_node_is_missing_wasm(directTree) === 1,
  firstChild: () => direct!._ts_tree_cursor_goto_first_child_wasm(directTree) === 1,
  nextSibling: () => direct!._ts_tree_cursor_goto_next_sibling_wasm(directTree) === 1,
  parent: () => void direct!._ts_tree_cursor_goto_parent_wasm(directTree),
};

/**
 * The children being collected, of every node on the walk's path (`pending[0, pendingTop)`): each
 * node's are copied out into an array of their exact length when its last child is done (no
 * array grown push by push). Only ever grows: cutting its length would free its storage.
 */
const pending: SyntaxNode[] = [];
let pendingTop = 0;

/**
 * The nodes and children arrays of transient parses, reused from one to the next (up to
 * POOLED_NODES of each; a larger tree gets fresh objects for the rest). Children arrays are kept
 * by their length, so a reused one is overwritten in place, never resized.
 */
const nodePool: SyntaxNode[] = [];
const childrenPools: SyntaxNode[][][] = [];
/** Per length: how many of childrenPools[length] this parse took. */
const childrenTaken: number[] = [];
export const POOLED_NODES = 4096;

/** The state of the walk under way (one at a time: it is synchronous). */
let reader: CursorReader = publicReader;
let pooled = false;
let nodesUsed = 0;
let arraysUsed = 0;
/** Whether the walk refused a node nested deeper than MAX_DEPTH. */
let cut = false;

function walk(c: CursorReader, transient: boolean): SyntaxNode {
  reader = c;
  pooled = transient;
  nodesUsed = 0;
  arraysUsed = 0;
  pendingTop = 0;
  cut = false;
  if (transient) childrenTaken.fill(0);
  const root = copy(0);
  // A tree cut at MAX_DEPTH is broken as a whole: what lies below the cut was never read, and a
  // reader that looks for broken nodes only where a syntax error shows (statements) would take
  // the rest for the whole line. Read that way, a command name or a `$(...)` inside a word at
  // the cut was lost unseen: `rm -rf ~ && true && ...` (199 times) was judged as `-rf ~`, and
  // `echo "$(rm -rf ~)" && true ...` as an echo of plain text, past a `rm *` deny rule.
  if (cut) root.broken = true;
  return root;
}

// Each getter is a call into WebAssembly: ask for ids and look the names up here.
function copy(depth: number): SyntaxNode {
  const c = reader;
  const id = c.typeId();
  const type = typeNames[id] ?? "ERROR";
  const start = c.start();
  const end = c.end();
  // Only a node the parser invented (MISSING) or an empty one can be zero-width.
  const tooDeep = depth > MAX_DEPTH;
  if (tooDeep) cut = true;
  const broken = type === "ERROR" || tooDeep || (start === end && c.missing());
  const field = fieldNames[c.fieldId()] ?? null;
  let node: SyntaxNode;
  if (pooled && nodesUsed < POOLED_NODES) {
    node = nodePool[nodesUsed] ??= { type, named: true, broken: false, field: null, start: 0, end: 0, children: NO_CHILDREN };
    nodesUsed++;
    node.type = type;
    node.named = typeNamed[id] ?? true;
    node.broken = broken;
    node.field = field;
    node.start = start;
    node.end = end;
    node.children = NO_CHILDREN;
  } else {
    node = { type, named: typeNamed[id] ?? true, broken, field, start, end, children: NO_CHILDREN };
  }
  if (depth <= MAX_DEPTH && c.firstChild()) {
    const mark = pendingTop;
    do pending[pendingTop++] = copy(depth + 1);
    while (c.nextSibling());
    c.parent();
    const count = pendingTop - mark;
    if (pooled && arraysUsed < POOLED_NODES) {
      arraysUsed++;
      const pool = (childrenPools[count] ??= []);
      const taken = (childrenTaken[count] ?? 0) + 1;
      childrenTaken[count] = taken;
      let children = pool[taken - 1];
      if (children) for (let i = 0; i < count; i++) children[i] = pending[mark + i]!;
      else pool.push((children = pending.slice(mark, pendingTop)));
      node.children = children;
    } else node.children = pending.slice(mark, pendingTop);
    pendingTop = mark;
  }
  return node;
}
