// Reads a parsed command line into what the policy judges: the simple commands (with their
// literal words, variable prefixes and possible working folders, tracked through `cd`), the
// redirections that write or read files, and the reasons no rule may allow the line. Fails
// closed: a node is accepted only when its kind is on an explicit allow-list (simple commands
// with literal words, quoted strings without expansion, `&&`, `||`, `;`, `&`, `|`, redirections
// to and from files, assignments with literal values, `[ ]` tests over literal words, comments);
// anything else adds a reason, and commands found inside it are still listed (`nested`) so that
// deny rules see them. Pure apart from the parser; never throws. The checks of characters
// (shell-text-checks.ts), of redirections (shell-redirects.ts) and of tests (shell-test-checks.ts)
// live in modules of their own, as do the working folders (shell-folders.ts) and the result's
// types (shell-script.ts); this one walks the statements.
import { CHANGES_FOLDER } from "./command-knowledge.ts";
import { changeFolder, flowOf, stay, union, type Flow } from "./shell-folders.ts";
import { MAX_DEPTH, parseShell, type SyntaxNode } from "./shell-parser.ts";
import type { Assignment, Cwd, ShellScript, ShellWhere } from "./shell-script.ts";
import { judgeFileRedirect } from "./shell-redirects.ts";
import { testVerdict } from "./shell-test-checks.ts";
import { afterContinuations, characterReasons, lookAlikeWarning, skippedTextReason } from "./shell-text-checks.ts";
import { COMPUTED_REASONS, describeNode, translatedString, wordOf, type ShellWord } from "./shell-words.ts";

export type { ShellWord } from "./shell-words.ts";
export type { Assignment, Cwd, ShellCommand, ShellScript, ShellWhere } from "./shell-script.ts";

/** Longer command lines are not parsed: they are asked about, whatever the rules. */
export const MAX_JUDGED_COMMAND_CHARS = 32_000;

const NESTED_REASONS: Record<string, string> = {
  subshell: "runs a subshell ( ... )",
  compound_statement: "groups commands in { ... }",
  function_definition: "defines a function",
  if_statement: "contains if ... fi",
  while_statement: "contains a while or until loop",
  for_statement: "contains a for loop",
  c_style_for_statement: "contains a for loop",
  case_statement: "contains case ... esac",
  heredoc_redirect: "contains a here-document (<<)",
  herestring_redirect: "contains a here-string (<<<)",
  arithmetic_expansion: "contains arithmetic expansion",
  unset_command: "unsets variables",
};

/** The reasons of broken nodes (see brokenReason). */
const SYNTAX_ERROR = "could not be read as bash (a syntax error)";
const TOO_DEEP = `is nested deeper than Lathe reads (${MAX_DEPTH} levels)`;

export function analyzeShell(source: string, where: ShellWhere): ShellScript {
  const script: ShellScript = { source, commands: [], redirects: [], assignments: [], opaque: [], warnings: [] };
  // One set for every call (one call at a time, as the transient parse already requires), emptied
  // only when it holds something: most lines leave it empty, and clearing makes a new table.
  const reasons = sharedReasons;
  if (reasons.size > 0) reasons.clear();
  if (source.length > MAX_JUDGED_COMMAND_CHARS) {
    script.opaque.push(`is longer than ${MAX_JUDGED_COMMAND_CHARS} characters, too long to judge`);
    return script;
  }
  for (const reason of characterReasons(source)) reasons.add(reason);
  const lookAlike = lookAlikeWarning(source);
  if (lookAlike) script.warnings.push(lookAlike);

  // Nothing of the tree is kept (words and texts are strings): its nodes are reused objects.
  const root = parseShell(source, { transient: true });
  lastToken = "";
  lastLeaf = lastLeafParent = undefined;
  treeSource = source;
  treeReasons(root, undefined, reasons);
  treeSource = "";
  lastLeaf = lastLeafParent = undefined;
  new Walker(source, where, script, reasons).statement(root, [where.cwd], false);
  if (reasons.size === 0) {
    const skipped = skippedTextReason(root, source);
    if (skipped) reasons.add(skipped);
  }
  if (reasons.size > 0) {
    script.opaque = [...reasons];
    reasons.clear();
  }
  return script;
}

const sharedReasons = new Set<string>();

/**
 * The words of the commands being read (a command inside a word's substitution is read before the
 * word is done): each command's are copied out of `wordScratch[firstWord, wordTop)` at their exact
 * length. Only ever grows: cutting its length would free its storage.
 */
const wordScratch: ShellWord[] = [];
let wordTop = 0;

/** The assignments of a command that has none: shared, never changed (allowForm copies before adding). */
const NO_ASSIGNMENTS: Assignment[] = Object.freeze([]) as unknown as Assignment[];

class Walker {
  private readonly source: string;
  private readonly where: ShellWhere;
  private readonly script: ShellScript;
  private readonly reasons: Set<string>;
  /** The folders the last statement of the list just read runs in (set by list, read by the redirection of a list). */
  private lastOfList: Cwd[] | undefined;

  constructor(source: string, where: ShellWhere, script: ShellScript, reasons: Set<string>) {
    this.source = source;
    this.where = where;
    this.script = script;
    this.reasons = reasons;
  }

  private text(node: SyntaxNode): string {
    return this.source.slice(node.start, node.end);
  }

  /** Visits a statement run in `cwds`; returns the folders after it (when it succeeded, and in any case). */
  statement(node: SyntaxNode, cwds: Cwd[], nested: boolean): Flow {
    // Its reason was given by treeReasons, which looks at every node of the tree.
    if (node.broken) {
      this.nestedIn(node);
      return stay(cwds);
    }
    switch (node.type) {
      case "program":
        return this.sequence(node.children, cwds, nested);
      case "list":
        return this.list(node, cwds, nested);
      case "pipeline":
        for (const child of node.children) {
          if (child.named) this.statement(child, cwds, nested);
          else if (child.type !== "|" && child.type !== "|&") this.unexpected(child);
        }
        return stay(cwds);
      case "redirected_statement": {
        // The parser hangs a trailing redirection on a whole list (`cd x && echo > f`), where
        // bash gives it to the list's last command: judged in the folders that command runs in
        // (`/p/x` here: bash opens f only when cd succeeded), or, for any other statement, in
        // every folder before or after it. The statement first, then the redirections (two
        // passes: no list of them made).
        let flow: Flow | undefined;
        let last: Cwd[] | undefined;
        const children = node.children;
        for (let i = 0; i < children.length; i++) {
          const child = children[i]!;
          if (isRedirect(child)) continue;
          if (child.named) {
            this.lastOfList = undefined;
            flow = this.statement(child, cwds, nested);
            last = child.type === "list" ? this.lastOfList : undefined;
          } else this.unexpected(child);
        }
        flow ??= stay(cwds);
        let where: Cwd[] | undefined;
        for (let i = 0; i < children.length; i++) if (isRedirect(children[i]!)) this.redirect(children[i]!, (where ??= last ?? union(cwds, flow.any)), nested);
        return flow;
      }
      case "negated_command": {
        const inner = node.children.find((c) => c.named);
        const flow = inner ? this.statement(inner, cwds, nested) : stay(cwds);
        return { success: flow.failure, failure: flow.success, any: flow.any };
      }
      case "command":
        return this.command(node, cwds, nested);
      case "variable_assignment":
      case "variable_assignments":
        this.assignments(node, this.script.assignments);
        return stay(cwds);
      case "declaration_command":
        this.declaration(node);
        return stay(cwds);
      case "test_command":
        this.test(node);
        return stay(cwds);
      case "comment":
        return stay(cwds);
      default: {
        this.reasons.add(NESTED_REASONS[node.type] ?? `contains ${describeNode(node)}`);
        this.nestedIn(node);
        return stay(cwds);
      }
    }
  }

  private sequence(children: SyntaxNode[], cwds: Cwd[], nested: boolean): Flow {
    let current = cwds;
    let last: Flow | undefined;
    for (let i = 0; i < children.length; i++) {
      const child = children[i]!;
      if (!child.named) {
        if (child.type !== ";" && child.type !== "&" && child.type !== "\n") this.unexpected(child);
        continue;
      }
      const background = children[i + 1]?.type === "&";
      const flow = this.statement(child, current, nested);
      if (!background) current = flow.any;
      last = background ? stay(current) : flow;
    }
    return last ?? stay(cwds);
  }

  private list(node: SyntaxNode, cwds: Cwd[], nested: boolean): Flow {
    const [left, op, right] = node.children;
    if (!left || !op || !right || node.children.length !== 3) {
      this.reasons.add(SYNTAX_ERROR);
      this.nestedIn(node);
      this.lastOfList = undefined;
      return stay(cwds);
    }
    const l = this.statement(left, cwds, nested);
    if (op.type === "&&") {
      const r = this.statement(right, l.success, nested);
      this.lastOfList = l.success;
      return flowOf(r.success, union(l.failure, r.failure), union(l.any, r.any));
    }
    if (op.type === "||") {
      const r = this.statement(right, l.failure, nested);
      this.lastOfList = l.failure;
      return flowOf(union(l.success, r.success), r.failure, union(l.any, r.any));
    }
    this.unexpected(op);
    return stay(cwds);
  }

  private command(node: SyntaxNode, cwds: Cwd[], nested: boolean): Flow {
    // Assignments and redirections alone (`FOO=1 > out`): bash runs no program, opens the files and
    // sets the variables in the shell itself, for the commands after it (as `FOO=1` alone). So no
    // command: the redirections are judged as `> out` alone is, the assignments as a line's own.
    const bare = namedByParser(node);
    // Gathered in the shared scratch array, then copied out at their exact length.
    const firstWord = wordTop;
    let assignments: Assignment[] | undefined;
    let previousWordEnd = -1;
    let previousEnd = node.start;
    const children = node.children;
    for (let i = 0; i < children.length; i++) {
      const child = children[i]!;
      // Two words with no blank between them are one word to bash (`te\<newline>st`). The empty
      // command name the parser ends `>o FOO=1` with joins nothing (see namedByParser).
      const wordLike = child.named && child.start < child.end && !child.type.endsWith("_redirect") && child.type !== "comment";
      if (wordLike && previousWordEnd >= 0 && child.start === afterContinuations(this.source, previousWordEnd, child.start)) {
        this.reasons.add("joins words across a line continuation, which the parser reads differently from bash");
      }
      previousWordEnd = wordLike ? child.end : -1;
      // A newline ends a simple command, but after assignments and redirections alone the parser
      // reads on: `FOO=1 >o<newline>if true; then rm -rf ~; fi` was one command, `then rm -rf ~`
      // one of its words, where bash runs the if (and rm).
      if (child.start < child.end) {
        if (newlineBetween(this.source, previousEnd, child.start)) this.reasons.add(PAST_NEWLINE);
        previousEnd = child.end;
      }
      if (child.type === "variable_assignment") this.assignments(child, bare ? this.script.assignments : (assignments ??= []));
      else if (child.type === "command_name") {
        for (let j = 0; j < child.children.length; j++) {
          const part = child.children[j]!;
          wordScratch[wordTop++] = wordOf(part, this.source, this.reasons);
          this.substitutionsIn(part);
        }
      } else if (child.type.endsWith("_redirect")) this.redirect(child, cwds, nested);
      else if (child.type === "comment") continue;
      else if (translatedString(children, i)) {
        // `$"..."` as an argument: the parser gives the `$` and the string apart (as a command's
        // name it gives a translated_string). One word, translated when it runs; the string's
        // own reasons are given too (`$"$(cmd)"`).
        this.reasons.add(COMPUTED_REASONS.translated_string!);
        const string = children[++i]!;
        wordOf(string, this.source, this.reasons);
        wordScratch[wordTop++] = TRANSLATED;
        this.substitutionsIn(string);
        previousWordEnd = string.end;
      } else if (child.named) {
        wordScratch[wordTop++] = wordOf(child, this.source, this.reasons);
        this.substitutionsIn(child);
      } else this.unexpected(child);
    }
    if (bare) {
      // The invented command name's one empty word (bare's last child) is read as the rest are.
      wordTop = firstWord;
      return stay(cwds);
    }
    const own = wordScratch.slice(firstWord, wordTop);
    wordTop = firstWord;
    this.script.commands.push({ words: own, assignments: assignments ?? NO_ASSIGNMENTS, cwds, nested, text: this.text(node) });
    const name = own[0]?.value;
    if (name && CHANGES_FOLDER.has(name)) return changeFolder(name, own, cwds, this.where.home, this.reasons);
    return stay(cwds);
  }

  private assignments(node: SyntaxNode, into: Assignment[]): void {
    if (node.type === "variable_assignments") {
      for (const child of node.children) if (child.type === "variable_assignment") this.assignments(child, into);
      return;
    }
    // The first of each (loops, not find(): no closures made for every assignment).
    let name: SyntaxNode | undefined;
    let valueNode: SyntaxNode | undefined;
    let operator: SyntaxNode | undefined;
    for (let i = 0; i < node.children.length; i++) {
      const c = node.children[i]!;
      if (c.type === "variable_name") name ??= c;
      else if (c.named) valueNode ??= c;
      if (!c.named) operator ??= c;
    }
    if (!name || (operator && operator.type !== "=")) {
      this.reasons.add(`contains an assignment bash reads differently (${this.text(node).slice(0, 40)})`);
      return;
    }
    let value: string | null = "";
    if (valueNode) {
      value = wordOf(valueNode, this.source, this.reasons).value;
      this.substitutionsIn(valueNode);
    }
    into.push({ name: this.text(name), value });
  }

  private declaration(node: SyntaxNode): void {
    const keyword = node.children[0]?.type;
    const rest = node.children.slice(1);
    if (keyword === "export" && rest.every((c) => c.type === "variable_assignment" || c.type === "variable_name")) {
      for (const child of rest) {
        if (child.type === "variable_assignment") this.assignments(child, this.script.assignments);
        else this.script.assignments.push({ name: this.text(child), value: null });
      }
      return;
    }
    this.reasons.add(`declares variables with ${keyword ?? "a declaration"}${keyword === "export" ? " options" : ""}`);
    this.nestedIn(node);
  }

  /** `[ -f x ]` and `[[ ... ]]` over literal words have no effect; anything computed is opaque. */
  private test(node: SyntaxNode): void {
    const verdict = testVerdict(node, this.source);
    if (!verdict) return;
    this.reasons.add(verdict.reason);
    if (verdict.computed) this.nestedIn(node);
  }

  private redirect(node: SyntaxNode, cwds: Cwd[], nested: boolean): void {
    if (node.type !== "file_redirect") {
      this.reasons.add(NESTED_REASONS[node.type] ?? `contains ${describeNode(node)}`);
      this.nestedIn(node);
      return;
    }
    const verdict = judgeFileRedirect(node, this.source, this.reasons);
    // Every word of the redirection, not only its target: words after it are the command's.
    this.substitutionsIn(node);
    if (verdict.reason) this.reasons.add(verdict.reason);
    const file = verdict.file;
    if (file) this.script.redirects.push({ kind: file.access, operator: file.operator, target: file.target, cwds: nested ? [null] : cwds });
  }

  /** Commands inside `$(...)`, `<(...)` anywhere below `node`: listed for deny rules. */
  private substitutionsIn(node: SyntaxNode): void {
    if (node.type === "command_substitution" || node.type === "process_substitution") return this.nestedIn(node);
    for (let i = 0; i < node.children.length; i++) {
      const child = node.children[i]!;
      if (child.type === "command_substitution" || child.type === "process_substitution") this.nestedIn(child);
      else this.substitutionsIn(child);
    }
  }

  /** Lists the commands inside a construct no rule allows, for deny rules only. */
  private nestedIn(node: SyntaxNode): void {
    for (const child of node.children) {
      if (!child.named) continue;
      if (STATEMENT_TYPES.has(child.type) || child.type.endsWith("_statement")) {
        this.statement(child, [null], true);
      } else {
        if (COMPUTED_REASONS[child.type]) this.reasons.add(COMPUTED_REASONS[child.type]!);
        this.nestedIn(child);
      }
    }
  }

  private unexpected(node: SyntaxNode): void {
    this.reasons.add(`contains ${describeNode(node)}, which Lathe does not judge`);
  }
}

const STATEMENT_TYPES = new Set(["command", "pipeline", "list", "redirected_statement", "negated_command", "subshell", "compound_statement", "program"]);

const PAST_NEWLINE = "reads a command on past a newline, where bash ends it";

/** Whether source[from, to) holds a newline that is not escaped (a line continuation). */
function newlineBetween(source: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = source.charCodeAt(i);
    if (c === 92) i++;
    else if (c === 10) return true;
  }
  return false;
}

/** A word bash translates when it runs (`$"..."`): shared, never changed. */
const TRANSLATED: ShellWord = Object.freeze({ value: null, glob: false, tilde: false });

function isRedirect(node: SyntaxNode): boolean {
  return node.field === "redirect" || node.type.endsWith("_redirect");
}

/**
 * Adds the reasons found at any node of the tree, in the order of the text. Every broken node's:
 * an ERROR node, a token the parser invented (MISSING: an unclosed quote or `$(`, the command
 * after a final `&&` or `|`, a redirection's target), nesting past the parser's MAX_DEPTH. Looking
 * only where statements are read would miss those inside words: `echo "$(rm -rf ~)` (its closing
 * quote missing) was read with no reason, its word taken as the text `$(rm -rf ~`, and `ls &&` as
 * `ls` and a command with one empty word. bash refuses such lines, but what Lathe cannot read it
 * must not judge as if it had. And every comment bash reads as part of a word (see
 * joinedComment). `lastToken` is the last token before the node, `lastLeaf` (with `lastLeafParent`)
 * the last leaf of any kind, `treeSource` the line (the recursion's state, kept in the module).
 */
function treeReasons(node: SyntaxNode, parent: SyntaxNode | undefined, reasons: Set<string>): void {
  if (node.broken) reasons.add(brokenReason(node, parent?.type ?? ""));
  else if (!node.named) lastToken = node.type;
  else if (node.type === "comment") {
    const joined = joinedComment(treeSource, node.start, lastLeaf, lastLeafParent);
    if (joined) reasons.add(joined);
  }
  const count = namedByParser(node) ? node.children.length - 1 : node.children.length;
  if (count === 0 && node.end > node.start) {
    lastLeaf = node;
    lastLeafParent = parent;
  }
  for (let i = 0; i < count; i++) treeReasons(node.children[i]!, node, reasons);
}

let lastToken = "";
let lastLeaf: SyntaxNode | undefined;
let lastLeafParent: SyntaxNode | undefined;
let treeSource = "";

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

/**
 * Whether a node is a command of assignments and redirections alone (`FOO=1 > out`, which bash
 * reads as a command without a program; a comment may end it), for which the grammar invents an
 * empty command name at its end: no error of the line. (`ls &&` gives a command of that invented
 * name alone.)
 */
function namedByParser(node: SyntaxNode): boolean {
  const children = node.children;
  const last = children[children.length - 1];
  if (children.length < 2 || last!.type !== "command_name" || last!.start !== last!.end) return false;
  for (let i = 0; i < children.length - 1; i++) {
    const type = children[i]!.type;
    if (type !== "variable_assignment" && type !== "comment" && !type.endsWith("_redirect")) return false;
  }
  return true;
}

function brokenReason(node: SyntaxNode, parentType: string): string {
  if (node.type === "ERROR") return SYNTAX_ERROR;
  // A token the parser invented (MISSING) is zero-width; so is a node holding only such tokens.
  if (node.start === node.end) {
    if (!node.named) return `could not be read as bash (${quoteToken(node.type)} is missing)`;
    const what = parentType === "command_name" ? "command" : describeNode(node);
    return `could not be read as bash (no ${what}${lastToken ? ` after ${quoteToken(lastToken)}` : ""})`;
  }
  // Any other broken node is cut by nesting past MAX_DEPTH: the root of the tree, and the nodes
  // past the cut (broken whatever they are; an ERROR or an invented token there is one all the same).
  return TOO_DEEP;
}

/** A token's text in a reason: in double quotes, or single ones when it holds a double quote. */
function quoteToken(text: string): string {
  return text.includes('"') ? `'${text}'` : `"${text}"`;
}
