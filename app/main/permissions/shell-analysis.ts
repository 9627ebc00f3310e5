// Reads a parsed command line into what the policy judges: the simple commands (with their
// literal words, variable prefixes and possible working folders, tracked through `cd`), the
// redirections that write or read files, and the reasons no rule may allow the line. Fails
// closed: a node is accepted only when its kind is on an explicit allow-list (simple commands
// with literal words, quoted strings without expansion, `&&`, `||`, `;`, `&`, `|`, redirections
// to and from files, assignments with literal values, `[ ]` tests over literal words, comments);
// anything else adds a reason, and commands found inside it are still listed (`nested`) so that
// deny rules see them. Pure apart from the parser; throws only when the parser is not loaded
// (loadShellParser() first: without the grammar the service refuses every bash call, with the
// reason: call-judge-no-parser.test.ts). The checks of characters
// (shell-text-checks.ts), of redirections (shell-redirects.ts), of tests (shell-test-checks.ts) and
// of comments and newlines bash reads differently from the parser (shell-comments.ts) live in
// modules of their own, as do the working folders (shell-folders.ts) and the result's types
// (shell-script.ts); this one walks the statements.
import { CHANGES_FOLDER } from "./command-knowledge.ts";
import { CommentCheck, pastNewline } from "./shell-comments.ts";
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
  comments.begin(source);
  treeReasons(root, undefined, reasons);
  comments.end();
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
      // A newline ends a simple command, where the parser may read on (see pastNewline).
      if (child.start < child.end) {
        const past = pastNewline(this.source, previousEnd, child.start);
        if (past) this.reasons.add(past);
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
 * must not judge as if it had. And every comment bash reads as part of a word (`comments`, which
 * is told each leaf). `lastToken` is the last token before the node (the recursion's state, kept
 * in the module).
 */
function treeReasons(node: SyntaxNode, parent: SyntaxNode | undefined, reasons: Set<string>): void {
  if (node.broken) reasons.add(brokenReason(node, parent?.type ?? ""));
  else if (!node.named) lastToken = node.type;
  else if (node.type === "comment") {
    const joined = comments.comment(node);
    if (joined) reasons.add(joined);
  }
  const count = namedByParser(node) ? node.children.length - 1 : node.children.length;
  if (count === 0) comments.leaf(node, parent);
  for (let i = 0; i < count; i++) treeReasons(node.children[i]!, node, reasons);
}

let lastToken = "";
/** The comment check of the walk (one walk at a time, as the transient parse requires). */
const comments = new CommentCheck();

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
