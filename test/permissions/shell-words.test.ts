// What one shell word means before it runs (shell-words.ts), read from its syntax node directly:
// its value after quote removal, or null with the reason when bash computes it; wildcards and a
// leading `~` flagged; plain words interned as one frozen object.
import { beforeAll, describe, expect, it } from "vitest";
import { parseShell, loadShellParser, type SyntaxNode } from "../../app/main/permissions/shell-parser.ts";
import { describeNode, wordOf } from "../../app/main/permissions/shell-words.ts";

beforeAll(() => loadShellParser());

/** The syntax nodes of the arguments of `echo ARGS`, with the source. */
function argsOf(args: string): { source: string; nodes: SyntaxNode[] } {
  const source = `echo ${args}`;
  const command = parseShell(source).children[0]!;
  expect(command.type).toBe("command");
  return { source, nodes: command.children.slice(1) };
}

/** wordOf over the one argument `arg`, with the reasons it gave. */
function read(arg: string): { value: string | null; glob: boolean; tilde: boolean; reasons: string[] } {
  const { source, nodes } = argsOf(arg);
  expect(nodes).toHaveLength(1);
  const reasons = new Set<string>();
  const word = wordOf(nodes[0]!, source, reasons);
  return { ...word, reasons: [...reasons] };
}

const literal = (value: string) => ({ value, glob: false, tilde: false, reasons: [] });

describe("quote removal", () => {
  it("reads plain, single-quoted, double-quoted and concatenated words", () => {
    expect(read("abc")).toEqual(literal("abc"));
    expect(read("12")).toEqual(literal("12"));
    expect(read("'a b'")).toEqual(literal("a b"));
    expect(read("''")).toEqual(literal(""));
    expect(read('""')).toEqual(literal(""));
    expect(read(`a'b'"c"d`)).toEqual(literal("abcd"));
    expect(read("'$x'")).toEqual(literal("$x"));
    // Inside single quotes a backslash is itself.
    expect(read("'a\\\\b'")).toEqual(literal("a\\\\b"));
    expect(read("'a\\$b'")).toEqual(literal("a\\$b"));
  });

  it("removes backslashes outside quotes, a line continuation inside a word included", () => {
    expect(read("a\\ b")).toEqual(literal("a b"));
    expect(read("a\\$b")).toEqual(literal("a$b"));
    expect(read("\\*")).toEqual(literal("*"));
    expect(read("a\\\\b")).toEqual(literal("a\\b"));
  });

  it('keeps only \\$, \\`, \\", \\\\ and \\newline as escapes inside double quotes', () => {
    expect(read('"x\\y"')).toEqual(literal("x\\y"));
    expect(read('"a\\\\b"')).toEqual(literal("a\\b"));
    expect(read('"a\\"b"')).toEqual(literal('a"b'));
    expect(read('"a\\$b"')).toEqual(literal("a$b"));
    expect(read('"a\\`b"')).toEqual(literal("a`b"));
    expect(read('"a\\\nb"')).toEqual(literal("ab"));
    expect(read('"a b"')).toEqual(literal("a b"));
  });

  it("reads a `$` that starts nothing as itself", () => {
    expect(read('"a$"')).toEqual(literal("a$"));
    expect(read('a"$"')).toEqual(literal("a$"));
    expect(read('"b$"c')).toEqual(literal("b$c"));
  });
});

describe("computed words", () => {
  it("gives null with the reason for each kind of expansion", () => {
    expect(read("$HOME")).toEqual({ value: null, glob: false, tilde: false, reasons: ["expands a variable ($NAME), whose value is only known when it runs"] });
    expect(read("${x}").reasons).toEqual(["expands a parameter (${...}), whose value is only known when it runs"]);
    expect(read("$(id)").reasons).toEqual(["contains command substitution ($(...) or backticks)"]);
    expect(read("$((1))").reasons).toEqual(["contains arithmetic expansion ($((...)))"]);
    expect(read("$'x'").reasons).toEqual(["uses ANSI-C quoting ($'...'), which bash decodes when it runs"]);
    expect(read('"$HOME"').reasons).toEqual(["expands a variable ($NAME), whose value is only known when it runs"]);
    expect(read('"a${x}b"').value).toBeNull();
    expect(read('"`id`"').reasons).toEqual(["contains command substitution ($(...) or backticks)"]);
    expect(read("a$x")).toMatchObject({ value: null });
    expect(read("'a'$x")).toMatchObject({ value: null });
    // A computed part stays null whatever follows it.
    expect(read("$x'a'")).toMatchObject({ value: null });
    expect(read("$x/a")).toMatchObject({ value: null });
    expect(read("$x/a\\*")).toMatchObject({ value: null });
  });

  it("gives null for brace expansion, unless the braces are quoted or escaped", () => {
    const braces = { value: null, glob: false, tilde: false, reasons: ["uses brace expansion ({a,b} or {1..3})"] };
    expect(read("{1..3}")).toEqual(braces);
    expect(read("r{m,}")).toEqual(braces);
    expect(read("{a,b}c")).toEqual(braces);
    expect(read("'x'{a,b}")).toEqual(braces);
    expect(read("{a}")).toEqual(literal("{a}"));
    expect(read("x{}")).toEqual(literal("x{}"));
    expect(read("\\{a,b}")).toEqual(literal("{a,b}"));
    expect(read('"{a,b}"')).toEqual(literal("{a,b}"));
    expect(read("'{a,b}'")).toEqual(literal("{a,b}"));
    expect(read('"a\\"{b,c}"')).toEqual(literal('a"{b,c}'));
    // Quoted or escaped parts inside braces are part of the expansion.
    expect(read("{a'x',b}")).toEqual(braces);
    expect(read("{a\\ ,b}")).toEqual(braces);
    expect(read('"\\ {a,b}"')).toEqual(literal("\\ {a,b}"));
  });

  it("gives null for ~user, and flags a leading ~ or ~/ as the home folder", () => {
    const user = { value: null, glob: false, tilde: false, reasons: ["uses ~user, which bash expands to that user's home folder"] };
    expect(read("~user")).toEqual(user);
    expect(read("~user/x")).toEqual(user);
    expect(read("~")).toEqual({ value: "~", glob: false, tilde: true, reasons: [] });
    expect(read("~/x")).toEqual({ value: "~/x", glob: false, tilde: true, reasons: [] });
    expect(read("~/x/~y")).toEqual({ value: "~/x/~y", glob: false, tilde: true, reasons: [] });
    expect(read("a~/x")).toEqual(literal("a~/x"));
    expect(read("'a'~/x")).toEqual(literal("a~/x"));
    expect(read("'~'/x")).toEqual(literal("~/x"));
    expect(read("~/'x'")).toEqual({ value: "~/x", glob: false, tilde: true, reasons: [] });
    expect(read("~u")).toEqual(user);
  });

  it("names a node it does not know by its type", () => {
    expect(describeNode({ type: "command_name", named: true, broken: false, field: null, start: 0, end: 0, children: [] })).toBe("command name");
    expect(describeNode({ type: "$", named: false, broken: false, field: null, start: 0, end: 0, children: [] })).toBe('"$"');
    const { source, nodes } = argsOf("a$");
    const reasons = new Set<string>();
    expect(wordOf(nodes[0]!, source, reasons).value).toBeNull();
    expect([...reasons]).toEqual(['contains "$", which is not a plain word']);
  });
});

describe("wildcards", () => {
  it("flags unquoted *, ? and [...], also when the parser splits the word (bug: `.en[v]` was a plain name)", () => {
    expect(read("*.ts")).toEqual({ value: "*.ts", glob: true, tilde: false, reasons: [] });
    expect(read("a?")).toMatchObject({ value: "a?", glob: true });
    expect(read("a[b]")).toMatchObject({ value: "a[b]", glob: true });
    expect(read(".en[v]")).toMatchObject({ value: ".en[v]", glob: true });
    expect(read("[ab]c")).toMatchObject({ value: "[ab]c", glob: true });
    expect(read('"a"[b]')).toMatchObject({ value: "a[b]", glob: true });
    expect(read('["a"]')).toMatchObject({ value: "[a]", glob: true });
    expect(read("'x'*")).toMatchObject({ value: "x*", glob: true });
  });

  it("does not flag quoted or escaped wildcards, nor a [ without its ]", () => {
    expect(read("'*'")).toEqual(literal("*"));
    expect(read('"a?"')).toEqual(literal("a?"));
    expect(read("\\?")).toEqual(literal("?"));
    expect(read('"[a]"')).toEqual(literal("[a]"));
    expect(read("\\[a]")).toEqual(literal("[a]"));
    expect(read("[a\\]")).toEqual(literal("[a]"));
    expect(read("'['a]")).toEqual(literal("[a]"));
    expect(read("a[b")).toEqual(literal("a[b"));
    expect(read("a]b")).toEqual(literal("a]b"));
  });
});

describe("interned plain words", () => {
  /** wordOf three times over one node: a plain word is interned the second time. */
  const thrice = (arg: string) => {
    const { source, nodes } = argsOf(arg);
    return [0, 1, 2].map(() => wordOf(nodes[0]!, source, new Set()));
  };

  it("gives a plain word as one frozen object from its second reading on", () => {
    const [first, second, third] = thrice("interned-word");
    expect(first).toEqual({ value: "interned-word", glob: false, tilde: false });
    expect(Object.isFrozen(first)).toBe(false);
    expect(Object.isFrozen(second)).toBe(true);
    expect(third).toBe(second);
    expect(second).toEqual(first);
    const [, long] = thrice("x".repeat(48));
    expect(Object.isFrozen(long)).toBe(true);
  });

  it("never interns a word longer than 48, with a character outside printable ASCII, or one bash changes", () => {
    for (const arg of ["x".repeat(49), "a\u007fb", "a\u0001b", "a\u20acb", "a\u00e9b"]) {
      const [first, second, third] = thrice(arg);
      expect([arg, Object.isFrozen(second), third === second]).toEqual([arg, false, false]);
      expect(third).toEqual(first);
      expect(third!.value).toBe(arg);
    }
    for (const [arg, word] of [
      ["~/x", { value: "~/x", glob: false, tilde: true }],
      ["a*", { value: "a*", glob: true, tilde: false }],
      ["a\\b", { value: "ab", glob: false, tilde: false }],
    ] as const) {
      const [, , third] = thrice(arg);
      expect(third).toEqual(word);
      expect(Object.isFrozen(third)).toBe(false);
    }
  });

  it("keeps each word's own value when two share a slot of the table", () => {
    // 3,000 words in 1,024 slots: many share one; each reads as itself every time.
    const list = Array.from({ length: 3000 }, (_, i) => `w${i}`);
    const { source, nodes } = argsOf(list.join(" "));
    // (below: a word whose slot holds an interned word that is its prefix)
    for (let round = 0; round < 3; round++) {
      const values = nodes.map((n) => wordOf(n, source, new Set()).value);
      expect(values).toEqual(list);
    }
    // Words of one length that share a slot: read in turns, each stays itself.
    const again = nodes.map((n) => wordOf(n, source, new Set()));
    expect(again.filter((w) => Object.isFrozen(w)).length).toBeGreaterThan(0);
  });

  it("never gives an interned word for a longer one that starts with it", () => {
    // "w1" interned, then 10,000 words "w1NNNN" read once: about ten of them share its slot.
    const { source, nodes } = argsOf(`w1 w1 ${Array.from({ length: 10_000 }, (_, i) => `w1${String(i).padStart(4, "0")}`).join(" ")}`);
    const values = nodes.map((n) => wordOf(n, source, new Set()).value);
    expect(values.slice(0, 2)).toEqual(["w1", "w1"]);
    expect(values.slice(2).every((v, i) => v === `w1${String(i).padStart(4, "0")}`)).toBe(true);
  });
});
