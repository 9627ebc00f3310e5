// The parser's direct walk (web-tree-sitter's module called without the public cursor's copying)
// against the public cursor: the same syntax trees for every command of the adversarial corpus and
// for deep, broken and non-ASCII input, and the cursor freed either way (many parses in a row).
// Then what both walks decide alike: broken nodes (invented tokens, nesting past MAX_DEPTH, which
// breaks the whole tree) and the reused objects of transient parses (which, how many, and that a
// kept tree is never one of them). shell-parser-load.test.ts: loading, and which calls are made.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { loadShellParser, MAX_DEPTH, parseShell, POOLED_NODES, shellParserMemoryBytes, shellParserWalk, type SyntaxNode } from "../../app/main/permissions/shell-parser.ts";

const corpusDir = path.join(import.meta.dirname, "corpus");
const corpusCommands = readdirSync(corpusDir)
  .filter((f) => f.endsWith(".json"))
  .flatMap((f) => (JSON.parse(readFileSync(path.join(corpusDir, f), "utf8")) as { cases: { command: string }[] }).cases.map((c) => c.command));
const extra = [
  "",
  "echo 'unterminated",
  "a && && b",
  "x=$(( 1 + (2 * 3) ))",
  "echo \u00e9\u4e00 \u{1f600} 'caf\u00e9' > f\u00e9.txt",
  "cat <<EOF\nbody $HOME\nEOF\necho done",
  `${"(".repeat(300)}echo deep${")".repeat(300)}`,
  Array.from({ length: 200 }, (_, i) => `cmd${i} --flag=${i} "arg ${i}" > out${i}.log`).join(" && "),
];

describe("parseShell", () => {
  beforeAll(() => loadShellParser());

  it("walks the tree directly (not through the public cursor) and gets the same nodes", () => {
    expect(shellParserWalk()).toBe("direct");
    expect(corpusCommands.length).toBeGreaterThan(300);
    for (const command of [...corpusCommands, ...extra]) {
      expect(parseShell(command), command).toEqual(parseShell(command, { publicApi: true }));
    }
  });

  it("finds errors, missing tokens and fields as before", () => {
    const broken = parseShell("a && && b");
    const anyBroken = (n: ReturnType<typeof parseShell>): boolean => n.broken || n.children.some(anyBroken);
    expect(anyBroken(broken)).toBe(true);
    const redirected = parseShell("echo hi > out.txt");
    expect(redirected.children[0]!.type).toBe("redirected_statement");
    expect(redirected.children[0]!.children.find((c) => c.type === "file_redirect")!.field).toBe("redirect");
  });

  it("keeps parsing correctly through many parses in a row (the cursor is freed as it ended)", () => {
    const long = extra.at(-1)!;
    const expected = parseShell(long, { publicApi: true });
    for (let i = 0; i < 300; i++) expect(parseShell(i % 2 ? long : "ls -la").type).toBe("program");
    expect(parseShell(long)).toEqual(expected);
  });

  it("frees every tree it makes: the module's memory does not grow over many parses", () => {
    // Each tree of this line takes ~4 KB of the module's memory: 2,000 of them kept would make it
    // grow past the free part of its first 32 MB.
    const line = Array.from({ length: 20 }, (_, i) => `cmd${i} --flag=${i} "arg ${i}" > out${i}.log`).join(" && ");
    for (let i = 0; i < 50; i++) parseShell(line, { transient: true });
    const before = shellParserMemoryBytes();
    expect(before).toBeGreaterThan(0);
    for (let i = 0; i < 3000; i++) parseShell(i % 3 ? line : "a && && b", { transient: i % 2 === 0 });
    expect(shellParserMemoryBytes()).toBe(before);
  }, 120_000);

  it("gives the same nodes when parsing into reused objects (transient), whatever the previous tree's shape", () => {
    // Every corpus command, then the same ones from the largest tree down: the reused nodes and
    // children arrays grow, shrink and change kind from one parse to the next.
    const commands = [...corpusCommands, ...extra];
    for (const command of [...commands, ...[...commands].reverse()]) {
      const transient = structuredClone(parseShell(command, { transient: true }));
      expect(transient, command).toEqual(parseShell(command));
    }
  });

  it("reuses the nodes of the previous transient parse and leaves other trees alone", () => {
    const kept = parseShell("echo kept > out.txt");
    const keptCopy = structuredClone(kept);
    const first = parseShell("ls -la", { transient: true });
    const second = parseShell("cat a | wc -l", { transient: true });
    expect(second).toBe(first);
    expect(second.children[0]!.type).toBe("pipeline");
    expect(kept).toEqual(keptCopy);
  });

  it("marks only invented tokens broken among zero-width nodes", () => {
    // `ls &&`: the parser invents the second command's word; the command and its name around it
    // are zero-width too but were not invented.
    const second = parseShell("ls &&").children[0]!.children[2]!;
    expect(second).toMatchObject({ type: "command", start: 5, end: 5, broken: false });
    expect(second.children[0]).toMatchObject({ type: "command_name", start: 5, end: 5, broken: false });
    expect(second.children[0]!.children[0]).toMatchObject({ type: "word", start: 5, end: 5, broken: true });
    // An unclosed subshell: its `)` is invented, and nothing else is broken.
    const subshell = parseShell("(rm -rf ~").children[0]!;
    expect(subshell.children.map((c) => [c.type, c.broken])).toEqual([
      ["(", false],
      ["command", false],
      [")", true],
    ]);
    expect(subshell.children[2]).toMatchObject({ start: 9, end: 9 });
  });

  const nodesOf = (n: SyntaxNode, into: SyntaxNode[] = []): SyntaxNode[] => {
    into.push(n);
    for (const c of n.children) nodesOf(c, into);
    return into;
  };
  const deepest = (n: SyntaxNode, depth = 0): number => n.children.reduce((d, c) => Math.max(d, deepest(c, depth + 1)), depth);
  const atDepth = (n: SyntaxNode, depth: number): SyntaxNode[] => (depth === 0 ? [n] : n.children.flatMap((c) => atDepth(c, depth - 1)));
  // Each `&&` nests the list before it one level deeper: the first command's word of a chain of
  // k commands after it lies at depth k + 3 (program, k lists, command, command_name, word).
  const chain = (k: number) => ["rm -rf ~", ...Array<string>(k).fill("true")].join(" && ");

  it("walks nesting down to MAX_DEPTH whole, and a tree nested deeper is broken at its root", () => {
    for (const transient of [false, true]) {
      const within = parseShell(chain(MAX_DEPTH - 3), { transient });
      expect(deepest(within)).toBe(MAX_DEPTH);
      expect(nodesOf(within).some((n) => n.broken)).toBe(false);
      // One level more: the nodes past the limit are broken and not walked, and the root is
      // broken, so a reader that looks for syntax errors at statements alone still sees it.
      const cut = parseShell(chain(MAX_DEPTH - 1), { transient });
      expect(deepest(cut)).toBe(MAX_DEPTH + 1);
      expect(cut.broken).toBe(true);
      const past = atDepth(cut, MAX_DEPTH + 1);
      // rm's name and arguments, the first true's name, the second true's name's word.
      expect(past.map((n) => [n.type, n.broken, n.children.length])).toEqual([
        ["command_name", true, 0],
        ["word", true, 0],
        ["word", true, 0],
        ["command_name", true, 0],
        ["word", true, 0],
      ]);
      expect(atDepth(cut, MAX_DEPTH).every((n) => !n.broken)).toBe(true);
      expect(nodesOf(cut).filter((n) => n.broken)).toEqual([cut, ...past]);
    }
  });

  it("reuses every node and children array of the previous transient parse of the same shape", () => {
    // The second line: three commands of 78 parts, a children length no earlier parse had.
    for (const line of [
      'cat a b | grep -v x > out.txt && echo "$(ls)"',
      Array<string>(3)
        .fill(`cmd ${"a ".repeat(77)}`)
        .join("; "),
    ])
      reusesAll(line);
  });
  const reusesAll = (line: string) => {
    const first = parseShell(line, { transient: true });
    const firstNodes = nodesOf(first);
    const firstArrays = firstNodes.map((n) => n.children);
    const firstCopy = structuredClone(first);
    parseShell("ls", { transient: true });
    const second = parseShell(line, { transient: true });
    expect(second).toEqual(firstCopy);
    const secondNodes = nodesOf(second);
    expect(secondNodes.length).toBe(firstNodes.length);
    for (let i = 0; i < secondNodes.length; i++) {
      expect(secondNodes[i]).toBe(firstNodes[i]);
      expect(secondNodes[i]!.children).toBe(firstArrays[i]);
    }
  };

  it("reuses at most POOLED_NODES nodes and children arrays, then makes new ones", () => {
    // Flat (commands after `;` are siblings): about 8 nodes and 4 children arrays per command.
    const line = Array.from({ length: 1500 }, (_, i) => `cmd${i} --flag=${i} "arg ${i}" > out${i}.log`).join("; ");
    const firstNodes = new Set(nodesOf(parseShell(line, { transient: true })));
    const firstArrays = new Set([...firstNodes].map((n) => n.children).filter((c) => c.length > 0));
    const second = nodesOf(parseShell(line, { transient: true }));
    const secondArrays = second.map((n) => n.children).filter((c) => c.length > 0);
    expect(second.length).toBeGreaterThan(POOLED_NODES * 2);
    expect(secondArrays.length).toBeGreaterThan(POOLED_NODES + 1000);
    expect(second.filter((n) => firstNodes.has(n)).length).toBe(POOLED_NODES);
    expect(secondArrays.filter((c) => firstArrays.has(c)).length).toBe(POOLED_NODES);
  });

  it("never hands out the nodes or arrays of a kept (not transient) tree to a later transient parse", () => {
    parseShell("ls -la", { transient: true });
    const kept = parseShell('cat a b | grep -v x > out.txt && echo "$(ls)"');
    const keptPublic = parseShell("echo one two > three", { publicApi: true });
    const copies = [structuredClone(kept), structuredClone(keptPublic)];
    for (const command of [...corpusCommands, ...extra]) {
      parseShell(command, { transient: true });
      parseShell(command, { transient: true, publicApi: true });
    }
    expect([kept, keptPublic]).toEqual(copies);
  });

  it("parses transiently through the public API too: reused objects, the same nodes", () => {
    const kept = parseShell("ls -la", { publicApi: true });
    expect(parseShell("ls -la", { publicApi: true })).not.toBe(kept);
    const first = parseShell("cat a | wc -l", { publicApi: true, transient: true });
    const second = parseShell("cat b | wc -c", { publicApi: true, transient: true });
    expect(second).toBe(first);
    expect(structuredClone(second)).toEqual(parseShell("cat b | wc -c"));
  });
});
