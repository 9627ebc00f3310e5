// The checks shell analysis makes of one syntax node or of a line's characters, driven directly:
// file redirections (shell-redirects.ts), control, invisible and look-alike characters and text
// the parser skipped (shell-text-checks.ts), and `[ ... ]` / `[[ ... ]]` tests
// (shell-test-checks.ts).
import { beforeAll, describe, expect, it } from "vitest";
import { judgeFileRedirect } from "../../app/main/permissions/shell-redirects.ts";
import { parseShell, loadShellParser, type SyntaxNode } from "../../app/main/permissions/shell-parser.ts";
import { testVerdict } from "../../app/main/permissions/shell-test-checks.ts";
import { afterContinuations, characterReasons, lookAlikeWarning, skippedTextReason } from "../../app/main/permissions/shell-text-checks.ts";

beforeAll(() => loadShellParser());

const node = (type: string, start: number, end: number, children: SyntaxNode[] = [], named = true): SyntaxNode => ({
  type,
  named,
  broken: false,
  field: null,
  start,
  end,
  children,
});

describe("judgeFileRedirect", () => {
  /** The verdict on the first file redirection of `ls REDIRECTIONS`, with the reasons its target gave. */
  const judge = (redirections: string) => {
    const source = `ls ${redirections}`;
    const statement = parseShell(source).children[0]!;
    const redirect = statement.children.find((c) => c.type === "file_redirect")!;
    const reasons = new Set<string>();
    const verdict = judgeFileRedirect(redirect, source, reasons);
    return { source, redirect, verdict, reasons: [...reasons] };
  };
  const file = (redirections: string) => judge(redirections).verdict.file;

  it("reads writes and reads of files, with their operator and target", () => {
    for (const operator of [">", ">>", ">|", "&>", "&>>", ">&"]) {
      expect([operator, file(`${operator} out`)]).toEqual([operator, { access: "write", operator, target: { value: "out", glob: false, tilde: false } }]);
    }
    expect(file("< in")).toEqual({ access: "read", operator: "<", target: { value: "in", glob: false, tilde: false } });
    expect(file("2> err")).toMatchObject({ access: "write", operator: ">", target: { value: "err" } });
    expect(file("> a b")).toMatchObject({ target: { value: "a" } });
    expect(judge("> 'x y'").verdict).toEqual({ file: { access: "write", operator: ">", target: { value: "x y", glob: false, tilde: false } } });
  });

  it("leaves descriptor duplications and closings alone", () => {
    expect(judge("2>&1").verdict).toEqual({});
    expect(judge(">&2").verdict.file).toBeUndefined();
    expect(judge(">&-").verdict).toEqual({});
    expect(judge("2>&-").verdict).toEqual({});
    expect(judge("<&-").verdict).toEqual({});
    expect(judge("3<&0").verdict).toEqual({});
    expect(judge("<& -").verdict).toEqual({});
  });

  it("gives a reason for operators bash reads differently, and for a read of a descriptor that is a file name", () => {
    expect(judge("<& f").verdict.reason).toBe("contains a redirection bash reads differently (<& f)");
    expect(judge("<& 1x").verdict.reason).toBe("contains a redirection bash reads differently (<& 1x)");
    expect(judge(">& 1x").verdict.file).toMatchObject({ access: "write", operator: ">&", target: { value: "1x" } });
    // A redirection without a target, and one whose operator is none of those known.
    const source = "ls >";
    expect(judgeFileRedirect(node("file_redirect", 3, 4, [node(">", 3, 4, [], false)]), source, new Set())).toEqual({
      reason: "contains a redirection bash reads differently (>)",
    });
    const other = "ls <>f";
    const target = node("word", 5, 6);
    expect(judgeFileRedirect(node("file_redirect", 3, 6, [node("<>", 3, 5, [], false), target]), other, new Set())).toEqual({
      reason: "contains a redirection bash reads differently (<>f)",
    });
  });

  it("takes the first unnamed child as the operator and the first named one but a descriptor as the target; words after it give a reason", () => {
    const source = "ls 2>>a b";
    const a = node("word", 6, 7);
    const verdict = judgeFileRedirect(
      node("file_redirect", 3, 9, [node("file_descriptor", 3, 4), node(">>", 4, 6, [], false), a, node("&", 7, 8, [], false), node("word", 8, 9)]),
      source,
      new Set(),
    );
    expect(verdict).toEqual({
      file: { access: "write", operator: ">>", target: { value: "a", glob: false, tilde: false } },
      reason: "contains a redirection bash reads differently (2>>a b)",
    });
  });

  it("gives no file for a computed target (its reasons are the word's), a reason for wildcards, nothing for device files", () => {
    const computed = judge("> $OUT");
    expect(computed.verdict).toEqual({});
    expect(computed.reasons).toEqual(["expands a variable ($NAME), whose value is only known when it runs"]);
    expect(judge(">& $OUT").verdict.file).toBeUndefined();
    expect(judge("> *.log").verdict.reason).toBe("redirects to a file name with wildcards, which bash expands when it runs");
    expect(judge("> .en[v]").verdict.reason).toBe("redirects to a file name with wildcards, which bash expands when it runs");
    expect(judge("> /dev/null").verdict).toEqual({});
    for (const device of ["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/fd/3", "/dev/fd/12"]) {
      expect([device, judge(`> ${device}`).verdict.file]).toEqual([device, undefined]);
    }
    for (const path of ["/dev/nullx", "x/dev/null", "/dev/fd/", "/dev/fd/x", "/dev/sda"]) {
      expect([path, file(`> ${path}`)?.target.value]).toEqual([path, path]);
    }
  });
});

describe("characterReasons", () => {
  it("finds nothing in plain text, tabs and newlines (one shared empty list)", () => {
    expect(characterReasons("ls -l\tx\ny")).toEqual([]);
    expect(characterReasons("ls")).toBe(characterReasons("cat"));
    expect(Object.isFrozen(characterReasons("ls"))).toBe(true);
  });

  it("names the first control character and the first invisible one, by code point", () => {
    expect(characterReasons("ls\u0001")).toEqual(["contains a control character (U+0001), which bash and the dialog may read differently"]);
    for (const c of ["\u0000", "\u0008", "\u000b", "\u000d", "\u001b", "\u001f", "\u007f"]) expect(characterReasons(`a${c}b`)).toHaveLength(1);
    expect(characterReasons("ls \u200b")).toEqual(["contains an invisible or direction-changing character (U+200B)"]);
    expect(characterReasons("ls \u202e\u00ad")).toEqual(["contains an invisible or direction-changing character (U+202E)"]);
    for (const c of ["\u00ad", "\u061c", "\u200f", "\u2066", "\ufe0f", "\ufeff", "\uffa0"]) expect(characterReasons(`a${c}`)).toHaveLength(1);
    for (const c of ["\u2010", "\u2065", "\u00e9", " "]) expect(characterReasons(`a${c}`)).toEqual([]);
    expect(characterReasons("\u0002\u200b")).toEqual([
      "contains a control character (U+0002), which bash and the dialog may read differently",
      "contains an invisible or direction-changing character (U+200B)",
    ]);
  });
});

describe("lookAlikeWarning", () => {
  it("warns of a non-ASCII character outside quotes only, naming it", () => {
    expect(lookAlikeWarning("ls")).toBeUndefined();
    expect(lookAlikeWarning("ls caf\u00e9")).toBe("Contains a character outside ASCII (U+00E9) outside quotes: it may look like another one.");
    expect(lookAlikeWarning("l\u0455 x")).toBe("Contains a character outside ASCII (U+0455) outside quotes: it may look like another one.");
    expect(lookAlikeWarning("echo '\u00e9'")).toBeUndefined();
    expect(lookAlikeWarning('echo "\u00e9"')).toBeUndefined();
    expect(lookAlikeWarning("echo 'caf\u00e9'")).toBeUndefined();
    expect(lookAlikeWarning('echo "caf\u00e9"')).toBeUndefined();
    expect(lookAlikeWarning('echo "a\\"\u00e9"')).toBeUndefined();
    expect(lookAlikeWarning("echo '\u00e9' \u00e4")).toBe("Contains a character outside ASCII (U+00E4) outside quotes: it may look like another one.");
    expect(lookAlikeWarning("echo \u0080")).toBe("Contains a character outside ASCII (U+0080) outside quotes: it may look like another one.");
  });
});

describe("skippedTextReason", () => {
  const skipped = "contains text the parser skipped, which bash may read differently";

  it("finds nothing when every character outside the tokens is a blank, a newline or a line continuation", () => {
    for (const line of ["ls -l", "ls \\\n -l", "ls\t-l\n", "ls && cat x  ", "echo 'a b' \"c\" # comment"]) {
      expect([line, skippedTextReason(parseShell(line), line)]).toEqual([line, undefined]);
    }
  });

  it("finds text between two tokens, or after the last one, that no token holds", () => {
    const source = "ab x cd";
    const leaves = (...ranges: [number, number][]) =>
      node("program", 0, source.length, [
        node(
          "command",
          0,
          source.length,
          ranges.map(([s, e]) => node("word", s, e)),
        ),
      ]);
    expect(skippedTextReason(leaves([0, 2], [5, 7]), source)).toBe(skipped);
    expect(skippedTextReason(leaves([0, 2], [3, 4], [5, 7]), source)).toBeUndefined();
    expect(skippedTextReason(leaves([0, 2], [3, 4]), source)).toBe(skipped);
    expect(skippedTextReason(leaves([2, 2], [3, 4], [5, 7]), source)).toBe(skipped);
    // A leaf inside one already passed is skipped over.
    expect(skippedTextReason(leaves([0, 7], [3, 4]), source)).toBeUndefined();
    const continued = "ab\\\ncd";
    expect(skippedTextReason(node("program", 0, 6, [node("word", 0, 2), node("word", 4, 6)]), continued)).toBeUndefined();
    const backslash = "ab\\ cd";
    expect(skippedTextReason(node("program", 0, 6, [node("word", 0, 2), node("word", 4, 6)]), backslash)).toBe(skipped);
    // A non-blank before a newline is no continuation; nor a backslash whose newline is a token.
    const beforeNewline = "ab x\ncd";
    expect(skippedTextReason(node("program", 0, 7, [node("word", 0, 2), node("word", 5, 7)]), beforeNewline)).toBe(skipped);
    const newlineToken = "ab\\\ncd";
    expect(skippedTextReason(node("program", 0, 6, [node("word", 0, 2), node("\n", 3, 4, [], false), node("word", 4, 6)]), newlineToken)).toBe(skipped);
    const lastBackslash = "ab\\";
    expect(skippedTextReason(node("program", 0, 3, [node("word", 0, 2)]), lastBackslash)).toBe(skipped);
    // The first skipped text ends the walk; the next call starts afresh.
    expect(skippedTextReason(leaves([0, 2], [5, 7]), source)).toBe(skipped);
    expect(skippedTextReason(node("program", 0, 2, [node("word", 0, 2)]), "ab")).toBeUndefined();
  });
});

describe("afterContinuations", () => {
  it("steps over the line continuations that follow, not past the end given", () => {
    expect(afterContinuations("\\\n\\\nx", 0, 5)).toBe(4);
    expect(afterContinuations("\\\n\\\nx", 0, 3)).toBe(2);
    expect(afterContinuations("\\\n\\\nx", 0, 4)).toBe(4);
    expect(afterContinuations("a\\\nx", 1, 4)).toBe(3);
    expect(afterContinuations("\\x", 0, 2)).toBe(0);
    expect(afterContinuations("x\n", 0, 2)).toBe(0);
    expect(afterContinuations("", 0, 0)).toBe(0);
  });
});

describe("testVerdict", () => {
  const verdict = (line: string) => testVerdict(parseShell(line).children[0]!, line);
  const computed = { reason: "contains a test over values only known when it runs", computed: true };
  const evaluates = { reason: "contains a test that evaluates a value as arithmetic or an array subscript, which can run commands", computed: false };

  it("needs nothing for tests over literal words", () => {
    for (const line of [
      "[ -f x ]",
      "[[ -d src && -f x ]]",
      "[[ a == \\* ]]",
      "[[ x == 1 ]]",
      "[[ 1 -eq -2 ]]",
      "[[ -v a ]]",
      "[[ -v _a1 ]]",
      "[[ 12 -eq 1 ]]",
      "[ x -eq 1 ]",
      "[[ a == b* ]]",
      "[[ 'x y' == z ]]",
    ]) {
      expect([line, verdict(line)]).toEqual([line, undefined]);
    }
  });

  it("is computed for expansions, substitutions, wildcards and braces in a test", () => {
    for (const line of [
      "[ -f $x ]",
      '[[ -n "$(id)" ]]',
      "[ -f ${x} ]",
      "[ $((1)) = 1 ]",
      "[ -f x* ]",
      "[ -f ? ]",
      "[ -f [a] ]",
      "[[ a == {b} ]]",
      "[ -f $'x' ]",
      "[[ -f <(id) ]]",
    ]) {
      expect([line, verdict(line)]).toEqual([line, computed]);
    }
    expect(verdict("[ -f \\* ]")).toBeUndefined();
    expect(verdict("[ -f a\\* ]")).toBeUndefined();
  });

  it("is computed for a broken test", () => {
    const line = "[ -f x ]";
    const root = parseShell(line).children[0]!;
    expect(testVerdict({ ...root, children: [{ ...root.children[0]!, broken: true }, ...root.children.slice(1)] }, line)).toEqual(computed);
  });

  it("evaluates -v operands that are not plain names and [[ ]]'s arithmetic operands that are not numbers", () => {
    for (const line of [
      "[[ -v 'a[1]' ]]",
      "[ -v 'a[1]' ]",
      "[[ -v 1a ]]",
      "[[ x -eq 1 ]]",
      "[[ 1 -ne x ]]",
      "[[ x -lt 1 ]]",
      "[[ x -le 1 ]]",
      "[[ x -gt 1 ]]",
      "[[ x -ge 1 ]]",
      "[[ 1 -eq 1x ]]",
      "[[ 1 -eq x1 ]]",
      "[[ 'a[1]' -eq 0 ]]",
      "[[ -v a-b ]]",
    ]) {
      expect([line, verdict(line)]).toEqual([line, evaluates]);
    }
  });

  it("looks inside parentheses and && / || for them", () => {
    expect(verdict("[[ ( x -eq 1 ) ]]")).toEqual(evaluates);
    expect(verdict("[[ a && x -lt 1 ]]")).toEqual(evaluates);
    expect(verdict("[[ 1 -ne 1 && 2 -ge x ]]")).toEqual(evaluates);
    expect(verdict("[[ ( a -eq 1 ) || -v x ]]")).toEqual(evaluates);
    expect(verdict("[[ ( 1 -eq 1 ) || -v x ]]")).toBeUndefined();
    expect(verdict("[[ -f a && -v 'b[1]' ]]")).toEqual(evaluates);
  });
});
