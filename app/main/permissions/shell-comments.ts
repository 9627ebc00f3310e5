// Where bash ends a word or a command and the parser does not, for the shell judge
// (shell-analysis.ts): a `#` the parser reads as a comment where bash reads it as part of the word
// before it (`FOO=1\<newline># rm -rf ~`, `[ -n ]# ] && rm -rf ~`: bash runs rm, the parser saw a
// comment), and a command the parser reads on past a newline where bash ends it (`FOO=1
// >o<newline>if true; then rm -rf ~; fi`: the parser's words `then rm -rf ~`, bash's if and rm).
// Either hides commands from the rules. Each check answers with the reason no rule may allow the
// line, or undefined where bash reads the text as the parser does; it decides nothing else (the
// walk adds the reason). The `#` check was made exact against bash 5.2: every case of
// test/permissions/shell-comments.test.ts is run by the real bash. CommentCheck keeps the state of
// one walk over one tree (the last leaf met) and lets the tree's nodes go at its end; apart from
// that state the checks are pure. Never throws.
import type { SyntaxNode } from "./shell-parser.ts";

const PAST_NEWLINE = "reads a command on past a newline, where bash ends it";

/**
 * Why a command is read on past a newline, when its child starting at `to` follows one ending at
 * `from`: source[from, to) holds a newline that is not escaped (a line continuation is not one).
 * bash ends a simple command at a newline, but after assignments and redirections alone the
 * parser reads on: `FOO=1 >o<newline>if true; then rm -rf ~; fi` was one command, `then rm -rf ~`
 * one of its words, where bash runs the if (and rm). Undefined when there is no such newline.
 */
export function pastNewline(source: string, from: number, to: number): string | undefined {
  for (let i = from; i < to; i++) {
    const c = source.charCodeAt(i);
    if (c === 92) i++;
    else if (c === 10) return PAST_NEWLINE;
  }
  return undefined;
}

/**
 * The comments of one tree, judged as a walk meets its nodes in the text's order (treeReasons in
 * shell-analysis.ts): `begin` with the line, then `leaf` for every node whose children the walk
 * does not read and `comment` for every comment node, then `end`. The last leaf met before a
 * comment (with its parent) is what joinedComment needs. One walk at a time.
 */
export class CommentCheck {
  private source = "";
  private lastLeaf: SyntaxNode | undefined;
  private lastLeafParent: SyntaxNode | undefined;

  /** Starts a walk over the tree of `source`. */
  begin(source: string): void {
    this.source = source;
    this.lastLeaf = this.lastLeafParent = undefined;
  }

  /** A node the walk reads no child of (`parent`: undefined for the root). A zero-width one holds no text and is passed over. */
  leaf(node: SyntaxNode, parent: SyntaxNode | undefined): void {
    if (node.end > node.start) {
      this.lastLeaf = node;
      this.lastLeafParent = parent;
    }
  }

  /** Why bash reads the comment `node` as part of the word before it, or undefined where bash too reads a comment. */
  comment(node: SyntaxNode): string | undefined {
    return joinedComment(this.source, node.start, this.lastLeaf, this.lastLeafParent);
  }

  /** Ends the walk: the line and the tree's nodes (objects the parser reuses) are let go. */
  end(): void {
    this.source = "";
    this.lastLeaf = this.lastLeafParent = undefined;
  }
}

const JOINED_COMMENT = "has a # right after a line continuation, which bash joins to the word before it where the parser reads a comment";
const WORD_COMMENT = "has a # right after a word, which bash reads as part of that word where the parser reads a comment";

/**
 * Why bash reads the comment the parser found at `start` as part of the word before it, or
 * undefined when bash too reads a comment there. bash begins a comment only with a `#` that begins
 * a word, and it removes every line continuation (`\` newline) before it splits words: in
 * `FOO=1\<newline># rm -rf ~` the `#` joins `FOO=1#` and bash runs `rm -rf ~`, where the parser,
 * which keeps the newline, reads a comment; in `[ -n ]# ] && rm -rf ~` the parser ends the test at
 * `]` and reads a comment, bash reads the word `]#` and runs rm. So the text between the last leaf
 * before the `#` and the `#` decides: an unescaped blank or newline there last (line continuations
 * are nothing) begins a word, a character or an escaped one (`\ `) joins; when there are only line
 * continuations (or nothing), the leaf decides: a token after which bash begins a word (an operator,
 * see endsWord), or else a part of a word. At the start of the line the `#` begins a word. A leaf
 * that ends after `start` (the tree out of the text's order) joins, and so would a `\` escaping
 * the `#` itself (read as an escaped character): fails closed.
 */
function joinedComment(source: string, start: number, leaf: SyntaxNode | undefined, parent: SyntaxNode | undefined): string | undefined {
  const from = leaf ? leaf.end : 0;
  let joined: boolean | undefined;
  let continued = false;
  if (from > start) return WORD_COMMENT;
  for (let i = from; i < start;) {
    const c = source.charCodeAt(i);
    if (c === 92) {
      if (source.charCodeAt(i + 1) === 10) continued = true;
      else joined = true;
      i += 2;
    } else {
      joined = c !== 32 && c !== 9 && c !== 10;
      i++;
    }
  }
  // A leaf has a parent: only the root has none, and a root without children is followed by nothing.
  joined ??= leaf !== undefined && !endsWord(leaf, parent!);
  if (!joined) return undefined;
  return continued ? JOINED_COMMENT : WORD_COMMENT;
}

/** The statement-level parents of `;` and `&` (not a `for ((...; ...))`, whose text is arithmetic). */
const STATEMENT_PARENTS = [
  "program",
  "compound_statement",
  "subshell",
  "if_statement",
  "elif_clause",
  "else_clause",
  "while_statement",
  "do_group",
  "for_statement",
  "case_item",
  "command_substitution",
  "process_substitution",
];

/**
 * The tokens after which bash begins a new word, by the types of the parents they have there
 * (checked with bash 5.2, test/permissions/shell-comments.test.ts: a comment follows each): the
 * operators of lists, pipelines and case items; the parentheses of subshells, the `)` of a
 * function's `()` and of a case pattern, the `(` of an array (its `)` is part of the assignment's
 * word: `x=(a b)#` runs what follows); the opening of a substitution (`$(`, `<(`, `>(`); the `))`
 * of an arithmetic command (not of `$((...))`, a word). Nothing of arithmetic (`((`, its `&&`, its
 * `;`), where bash reads no comment, nor keywords, braces and brackets (`}#`, `then#`, `]]#` are
 * words to bash). Left out, so asked about where bash reads a comment: the `&&` and `||` of
 * `[[ ]]` (the parser's binary_expression, as in arithmetic), and a redirection operator (the
 * parser reads a comment after one only in a line it cannot read, the target missing).
 */
const WORD_ENDING_TOKENS = new Map<string, readonly string[]>([
  [";", STATEMENT_PARENTS],
  ["&", STATEMENT_PARENTS],
  ["&&", ["list"]],
  ["||", ["list"]],
  ["|", ["pipeline"]],
  ["|&", ["pipeline"]],
  [";;", ["case_item"]],
  [";&", ["case_item"]],
  [";;&", ["case_item"]],
  ["(", ["subshell", "array"]],
  [")", ["subshell", "function_definition", "case_item"]],
  ["$(", ["command_substitution"]],
  ["<(", ["process_substitution"]],
  [">(", ["process_substitution"]],
  ["))", ["(("]],
]);

/** Whether bash begins a new word after the token `leaf` (a child of `parent`): see WORD_ENDING_TOKENS. */
function endsWord(leaf: SyntaxNode, parent: SyntaxNode): boolean {
  const parents = WORD_ENDING_TOKENS.get(leaf.type);
  if (parents === undefined) return false;
  // An arithmetic command `((...))` is a compound_statement to the parser, as `{ ...; }` is: the
  // only node that starts with `((` (a `for ((` starts with for, `$((` is one token).
  const kind = parent.children[0]!.type === "((" ? "((" : parent.type;
  return parents.includes(kind);
}
