// A `#` the parser reads as a comment (shell-comments.ts, joinedComment), judged as bash reads it:
// each line is run by the real bash (stdout only: nothing else is portable across its versions),
// then read by analyzeShell, which must give the reason exactly where bash joins the # to the word
// before it (and so runs what the parser took for a comment). The hidden text is `#x; echo RAN`:
// joined, `;` ends the word and RAN is printed.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { analyzeShell } from "../../app/main/permissions/shell-analysis.ts";
import { loadShellParser, parseShell, type SyntaxNode } from "../../app/main/permissions/shell-parser.ts";

interface CommentCase {
  line: string;
  /** What bash prints on stdout. */
  stdout: string;
  /** The reason Lathe gives (none: bash reads a comment). */
  joined?: "continuation" | "word";
}

const REASONS = {
  continuation: "has a # right after a line continuation, which bash joins to the word before it where the parser reads a comment",
  word: "has a # right after a word, which bash reads as part of that word where the parser reads a comment",
};

const CASES: CommentCase[] = [
  // bash joins the # to the word before it: the line runs what the parser took for a comment.
  { line: "FOO=1\\\n#x; echo RAN", stdout: "RAN\n", joined: "continuation" },
  { line: "FOO=1\\ \\\n#x; echo RAN", stdout: "RAN\n", joined: "continuation" },
  { line: ">o FOO=1\\\n#x; echo RAN", stdout: "RAN\n", joined: "continuation" },
  { line: "echo a\\\n\\\n#x; echo RAN", stdout: "a#x\nRAN\n", joined: "continuation" },
  { line: "echo a\\\\\\\n#x; echo RAN", stdout: "a\\#x\nRAN\n", joined: "continuation" },
  { line: "echo a\\\n\\ #x; echo RAN", stdout: "a #x\nRAN\n", joined: "continuation" },
  { line: "echo \\ \\\n#x; echo RAN", stdout: " #x\nRAN\n", joined: "continuation" },
  { line: 'echo "a"\\\n#x; echo RAN', stdout: "a#x\nRAN\n", joined: "continuation" },
  { line: "echo 'a'\\\n#x; echo RAN", stdout: "a#x\nRAN\n", joined: "continuation" },
  { line: "echo $'a'\\\n#x; echo RAN", stdout: "a#x\nRAN\n", joined: "continuation" },
  { line: "echo ${HOME:+a}\\\n#x; echo RAN", stdout: "a#x\nRAN\n", joined: "continuation" },
  { line: "echo $(echo a)\\\n#x; echo RAN", stdout: "a#x\nRAN\n", joined: "continuation" },
  { line: "echo `echo a`\\\n#x; echo RAN", stdout: "a#x\nRAN\n", joined: "continuation" },
  { line: "echo $((1))\\\n#x; echo RAN", stdout: "1#x\nRAN\n", joined: "continuation" },
  { line: "cat <(echo a)\\\n#x; echo RAN", stdout: "RAN\n", joined: "continuation" },
  { line: "x=(a b)\\\n#x; echo RAN", stdout: "RAN\n", joined: "continuation" },
  { line: "x=(a b)#x; echo RAN", stdout: "RAN\n", joined: "word" },
  { line: "[[ -n ]]#x ]] && echo RAN", stdout: "RAN\n", joined: "word" },
  { line: "[[ -n ]]\\\n#x ]] && echo RAN", stdout: "RAN\n", joined: "continuation" },
  { line: "[ -n ]#x ] && echo RAN", stdout: "RAN\n", joined: "word" },
  { line: "{ echo a; }#x; }; echo RAN", stdout: "a\nRAN\n", joined: "word" },
  { line: "{ echo a; }\\\n#x; }; echo RAN", stdout: "a\nRAN\n", joined: "continuation" },
  { line: "for a in b; do echo a; done\\\n#x; done; echo RAN", stdout: "a\nRAN\n", joined: "continuation" },
  { line: "FOO=1\r#x; echo RAN", stdout: "RAN\n", joined: "word" },
  // A comment to bash too: after a blank or a newline (line continuations are nothing), at the
  // start, or after a token that ends a word (an operator, a subshell's parentheses...).
  { line: "\\\n#x; echo RAN", stdout: "" },
  { line: "echo a #x; echo RAN", stdout: "a\n" },
  { line: "echo a \\\n#x; echo RAN", stdout: "a\n" },
  { line: "echo a\t\\\n#x; echo RAN", stdout: "a\n" },
  { line: "echo a\n\\\n#x; echo RAN", stdout: "a\n" },
  { line: "echo a\\\n #x; echo RAN", stdout: "a\n" },
  { line: "echo a\\\\\n#x; echo RAN", stdout: "a\\\n" },
  { line: "echo a;#x; echo RAN", stdout: "a\n" },
  { line: "echo a;\\\n#x; echo RAN", stdout: "a\n" },
  { line: "echo a &\\\n#x; echo RAN\nwait", stdout: "a\n" },
  { line: "true &&\\\n#x; echo RAN\necho B", stdout: "B\n" },
  { line: "false ||\\\n#x; echo RAN\necho B", stdout: "B\n" },
  { line: "echo a |\\\n#x; echo RAN\ncat", stdout: "a\n" },
  { line: "echo a |&\\\n#x; echo RAN\ncat", stdout: "a\n" },
  { line: "(\\\n#x; echo RAN\necho B)", stdout: "B\n" },
  { line: "(echo a)#x; echo RAN", stdout: "a\n" },
  { line: "(echo a)\\\n#x; echo RAN", stdout: "a\n" },
  { line: "(echo A;\\\n#x; echo RAN\n)", stdout: "A\n" },
  { line: "(echo A &\\\n#x; echo RAN\nwait)", stdout: "A\n" },
  { line: "{ echo A;\\\n#x; echo RAN\n}", stdout: "A\n" },
  { line: "if true;\\\n#x; echo RAN\nthen echo A;\\\n#x; echo RAN\nelif false;\\\n#x; echo RAN\nthen :; else echo B;\\\n#x; echo RAN\nfi", stdout: "A\n" },
  { line: "while false;\\\n#x; echo RAN\ndo :;\\\n#x; echo RAN\ndone", stdout: "" },
  { line: "for a in b;\\\n#x; echo RAN\ndo echo A;\\\n#x; echo RAN\ndone", stdout: "A\n" },
  { line: "echo $(\\\n#x; echo RAN\necho B)", stdout: "B\n" },
  { line: "echo $(echo A;\\\n#x; echo RAN\n)", stdout: "A\n" },
  { line: "cat <(\\\n#x; echo RAN\necho B)", stdout: "B\n" },
  { line: "cat <(echo A;\\\n#x; echo RAN\n)", stdout: "A\n" },
  { line: "echo a > >(\\\n#x; echo RAN\ncat)", stdout: "a\n" },
  { line: "f()\\\n#x; echo RAN\n{ echo B; }; f", stdout: "B\n" },
  { line: "x=(\\\n#x; echo RAN\nb); echo ${x[@]}", stdout: "b\n" },
  { line: "case a in a)#x; echo RAN\necho B;; esac", stdout: "B\n" },
  { line: "case a in a) echo A;\\\n#x; echo RAN\necho B;; esac", stdout: "A\nB\n" },
  { line: "case a in a) echo A;;\\\n#x; echo RAN\nesac", stdout: "A\n" },
  { line: "case a in a) echo A;&\\\n#x; echo RAN\nb) echo B;; esac", stdout: "A\nB\n" },
  { line: "case a in a) echo A;;&\\\n#x; echo RAN\nesac", stdout: "A\n" },
  { line: "((1))#x; echo RAN\necho B", stdout: "B\n" },
  { line: "((1))\\\n#x; echo RAN\necho B", stdout: "B\n" },
  // bash reads a comment, Lathe cannot tell cheaply and gives the reason: the && of [[ ]] (the
  // parser's binary_expression, as in arithmetic, where bash reads no comment), and a redirection
  // operator (the parser reads a comment after one only in a line it cannot read anyway).
  { line: "[[ a &&\\\n#x; echo RAN\nb ]] && echo B", stdout: "B\n", joined: "continuation" },
  { line: "echo a >\\\n#x; echo RAN", stdout: "", joined: "continuation" },
];

let scratch: string;
beforeAll(async () => {
  scratch = mkdtempSync(path.join(tmpdir(), "lathe-comments-"));
  await loadShellParser();
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function comments(node: SyntaxNode): number {
  let count = node.type === "comment" ? 1 : 0;
  for (const child of node.children) count += comments(child);
  return count;
}

describe("a # the parser reads as a comment", () => {
  // 64 bash processes, one after another: 2 s alone, 80 s once beside the whole suite, a helper's
  // mutation run and a benchmark (load 6 to 9): its own timeout.
  it("is read by the real bash as each case says", () => {
    for (const c of CASES) {
      const dir = mkdtempSync(path.join(scratch, "case-"));
      const run = spawnSync("/bin/bash", ["-c", c.line], { cwd: dir, encoding: "utf8", timeout: 5000, input: "" });
      expect(run.stdout, JSON.stringify(c.line)).toBe(c.stdout);
    }
  }, 180_000);

  it("is a reason exactly where bash joins it to the word before it", () => {
    for (const c of CASES) {
      // Every case is one the parser reads a comment in: otherwise it would test nothing here.
      expect(comments(parseShell(c.line)), JSON.stringify(c.line)).toBeGreaterThan(0);
      const opaque = analyzeShell(c.line, { cwd: "/p", home: "/h" }).opaque;
      const given = Object.values(REASONS).filter((r) => opaque.includes(r));
      expect(given, JSON.stringify(c.line)).toEqual(c.joined ? [REASONS[c.joined]] : []);
    }
  });
});
