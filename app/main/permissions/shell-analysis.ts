// Reads a parsed command line into what the policy judges: the simple commands (with their
// literal words, variable prefixes and possible working folders, tracked through `cd`), the
// redirections that write or read files, and the reasons no rule may allow the line. Fails
// closed: a node is accepted only when its kind is on an explicit allow-list (simple commands
// with literal words, quoted strings without expansion, `&&`, `||`, `;`, `&`, `|`, redirections
// to and from files, assignments with literal values, `[ ]` tests over literal words, comments);
// anything else adds a reason, and commands found inside it are still listed (`nested`) so that
// deny rules see them. Pure apart from the parser; never throws.
import path from "node:path";
import { CHANGES_FOLDER } from "./command-knowledge.ts";
import { parseShell, type SyntaxNode } from "./shell-parser.ts";
import { COMPUTED_REASONS, describeNode, wordOf, type ShellWord } from "./shell-words.ts";

export type { ShellWord } from "./shell-words.ts";

/** A possible working folder: absolute, or null when it cannot be known before the command runs. */
export type Cwd = string | null;

export interface Assignment {
  name: string;
  value: string | null;
}

export interface ShellCommand {
  /** The words as written, the command word first (wrappers included). */
  words: ShellWord[];
  /** `NAME=value` prefixes of this command. */
  assignments: Assignment[];
  /** The folders it may run in. */
  cwds: Cwd[];
  /** Inside a construct no rule allows (a substitution, subshell, loop, function...). */
  nested: boolean;
  /** The command's source text. */
  text: string;
}

export interface ShellRedirect {
  kind: "write" | "read";
  operator: string;
  target: ShellWord;
  cwds: Cwd[];
}

export interface ShellScript {
  source: string;
  commands: ShellCommand[];
  redirects: ShellRedirect[];
  /** Standalone `NAME=value` and `export NAME=value`: they change the commands after them. */
  assignments: Assignment[];
  /** Why no rule may allow this line; empty when every part was understood. */
  opaque: string[];
  /** What the person should notice (look-alike characters). */
  warnings: string[];
}

export interface ShellWhere {
  /** The folder the line starts in (the project folder). */
  cwd: string;
  home: string;
}

/** Longer command lines are not parsed: they are asked about, whatever the rules. */
export const MAX_JUDGED_COMMAND_CHARS = 32_000;

/** `[[ a -eq b ]]` and its kin evaluate both operands as arithmetic. */
const ARITHMETIC_TESTS = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);

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
  ERROR: "could not be read as bash (a syntax error)",
};

// Control characters other than tab and newline: bash and the parser may read them differently.
// eslint-disable-next-line no-control-regex -- control characters are what is looked for
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f]/;
// Zero-width, invisible and direction-changing characters: the dialog would not show them.
// eslint-disable-next-line no-misleading-character-class -- single code points are meant, joiners included
const INVISIBLE = /[\u00ad\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0]/;

const WRITE_OPERATORS = new Set([">", ">>", ">|", "&>", "&>>"]);
const NOT_FILES = /^\/dev\/(?:null|stdout|stderr|tty|fd\/\d+)$/;

/** Where later commands run: after this statement succeeded, failed, or either. */
type Flow = { success: Cwd[]; failure: Cwd[]; any: Cwd[] };

export function analyzeShell(source: string, where: ShellWhere): ShellScript {
  const script: ShellScript = { source, commands: [], redirects: [], assignments: [], opaque: [], warnings: [] };
  const reasons = new Set<string>();
  if (source.length > MAX_JUDGED_COMMAND_CHARS) {
    script.opaque.push(`is longer than ${MAX_JUDGED_COMMAND_CHARS} characters, too long to judge`);
    return script;
  }
  const control = CONTROL.exec(source);
  if (control) reasons.add(`contains a control character (${codePoint(control[0])}), which bash and the dialog may read differently`);
  const invisible = INVISIBLE.exec(source);
  if (invisible) reasons.add(`contains an invisible or direction-changing character (${codePoint(invisible[0])})`);
  const lookAlike = /[\u0080-\uffff]/.test(source) ? /[\u0080-\uffff]/.exec(source.replace(/'[^']*'|"(?:[^"\\]|\\.)*"/g, "")) : null;
  if (lookAlike) script.warnings.push(`Contains a character outside ASCII (${codePoint(lookAlike[0])}) outside quotes: it may look like another one.`);

  const root = parseShell(source);
  new Walker(source, where, script, reasons).statement(root, [where.cwd], false);
  if (reasons.size === 0) checkCoverage(root, source, reasons);
  script.opaque = [...reasons];
  return script;
}

function codePoint(char: string): string {
  return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
}

/**
 * Every character the parser left outside a token must be a blank, a newline or a line
 * continuation; two words may only be joined by a blank. Otherwise bash and the parser disagree
 * about where words end (`te\<newline>st` is one word to bash, two to the parser).
 */
function checkCoverage(root: SyntaxNode, source: string, reasons: Set<string>): void {
  let pos = 0;
  let skipped = false;
  const visit = (n: SyntaxNode): void => {
    if (skipped) return;
    if (n.children.length > 0) {
      for (const child of n.children) visit(child);
      return;
    }
    if (n.start < pos) return;
    if (!onlyBlanks(source, pos, n.start)) skipped = true;
    pos = n.end;
  };
  visit(root);
  if (skipped || !onlyBlanks(source, pos, source.length)) reasons.add("contains text the parser skipped, which bash may read differently");
}

/** Whether source[from, to) is only blanks, newlines and line continuations (`\` newline). */
function onlyBlanks(source: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = source.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10) continue;
    if (c === 92 && i + 1 < to && source.charCodeAt(i + 1) === 10) {
      i++;
      continue;
    }
    return false;
  }
  return true;
}

/** Where the line continuations (`\` newline) that follow `from` end, not past `to`. */
function afterContinuations(source: string, from: number, to: number): number {
  let at = from;
  while (at + 2 <= to && source.charCodeAt(at) === 92 && source.charCodeAt(at + 1) === 10) at += 2;
  return at;
}

class Walker {
  private readonly source: string;
  private readonly where: ShellWhere;
  private readonly script: ShellScript;
  private readonly reasons: Set<string>;

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
    const same = { success: cwds, failure: cwds, any: cwds };
    if (node.broken) {
      this.reasons.add(NESTED_REASONS.ERROR!);
      this.nestedIn(node);
      return same;
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
        return same;
      case "redirected_statement": {
        // The parser hangs a trailing redirection on a whole list (`cd x && echo > f`), where
        // bash gives it to the last command: judge it in every folder either may mean.
        let flow = same;
        const redirects: SyntaxNode[] = [];
        for (const child of node.children) {
          if (child.field === "redirect" || child.type.endsWith("_redirect")) redirects.push(child);
          else if (child.named) flow = this.statement(child, cwds, nested);
          else this.unexpected(child);
        }
        for (const r of redirects) this.redirect(r, union(cwds, flow.any), nested);
        return flow;
      }
      case "negated_command": {
        const inner = node.children.find((c) => c.named);
        const flow = inner ? this.statement(inner, cwds, nested) : same;
        return { success: flow.failure, failure: flow.success, any: flow.any };
      }
      case "command":
        return this.command(node, cwds, nested);
      case "variable_assignment":
      case "variable_assignments":
        this.assignments(node, this.script.assignments);
        return same;
      case "declaration_command":
        this.declaration(node);
        return same;
      case "test_command":
        this.test(node);
        return same;
      case "comment":
        return same;
      default: {
        this.reasons.add(NESTED_REASONS[node.type] ?? `contains ${describeNode(node)}`);
        this.nestedIn(node);
        return same;
      }
    }
  }

  private sequence(children: SyntaxNode[], cwds: Cwd[], nested: boolean): Flow {
    let current = cwds;
    let last: Flow = { success: cwds, failure: cwds, any: cwds };
    children.forEach((child, i) => {
      if (!child.named) {
        if (child.type !== ";" && child.type !== "&" && child.type !== "\n") this.unexpected(child);
        return;
      }
      const background = children[i + 1]?.type === "&";
      const flow = this.statement(child, current, nested);
      if (!background) current = flow.any;
      last = background ? { success: current, failure: current, any: current } : flow;
    });
    return last;
  }

  private list(node: SyntaxNode, cwds: Cwd[], nested: boolean): Flow {
    const [left, op, right] = node.children;
    if (!left || !op || !right || node.children.length !== 3) {
      this.reasons.add(NESTED_REASONS.ERROR!);
      this.nestedIn(node);
      return { success: cwds, failure: cwds, any: cwds };
    }
    const l = this.statement(left, cwds, nested);
    if (op.type === "&&") {
      const r = this.statement(right, l.success, nested);
      return { success: r.success, failure: union(l.failure, r.failure), any: union(l.any, r.any) };
    }
    if (op.type === "||") {
      const r = this.statement(right, l.failure, nested);
      return { success: union(l.success, r.success), failure: r.failure, any: union(l.any, r.any) };
    }
    this.unexpected(op);
    return { success: cwds, failure: cwds, any: cwds };
  }

  private command(node: SyntaxNode, cwds: Cwd[], nested: boolean): Flow {
    const words: ShellWord[] = [];
    const assignments: Assignment[] = [];
    let previousWordEnd = -1;
    for (const child of node.children) {
      // Two words with no blank between them are one word to bash (`te\<newline>st`).
      const wordLike = child.named && !child.type.endsWith("_redirect") && child.type !== "comment";
      if (wordLike && previousWordEnd >= 0 && child.start === afterContinuations(this.source, previousWordEnd, child.start)) {
        this.reasons.add("joins words across a line continuation, which the parser reads differently from bash");
      }
      previousWordEnd = wordLike ? child.end : -1;
      if (child.type === "variable_assignment") this.assignments(child, assignments);
      else if (child.type === "command_name") {
        for (const part of child.children) {
          words.push(wordOf(part, this.source, this.reasons));
          this.substitutionsIn(part);
        }
      } else if (child.type.endsWith("_redirect")) this.redirect(child, cwds, nested);
      else if (child.type === "comment") continue;
      else if (child.named) {
        words.push(wordOf(child, this.source, this.reasons));
        this.substitutionsIn(child);
      } else this.unexpected(child);
    }
    this.script.commands.push({ words, assignments, cwds, nested, text: this.text(node) });
    const name = words[0]?.value;
    if (name && CHANGES_FOLDER.has(name)) return this.changeFolder(name, words.slice(1), cwds);
    return { success: cwds, failure: cwds, any: cwds };
  }

  /** `cd DIR`, `pushd DIR`: later relative paths are judged against DIR. */
  private changeFolder(name: string, args: ShellWord[], cwds: Cwd[]): Flow {
    const operands = args.filter((w) => !(w.value !== null && /^-[LPe@]+$/.test(w.value)));
    let targets: Cwd[];
    if (name === "popd" || operands.length > 1) {
      this.reasons.add(`${name} ${name === "popd" ? "returns to a folder" : "has several operands"}: where later commands run is only known when it runs`);
      targets = [null];
    } else if (operands.length === 0) {
      targets = [this.where.home];
    } else {
      const word = operands[0]!;
      if (word.value === null || word.value === "-") {
        if (word.value === "-") this.reasons.add("cd - returns to a folder that is only known when it runs");
        targets = [null];
      } else {
        const target = word.tilde ? path.join(this.where.home, word.value.slice(1)) : word.value;
        targets = cwds.map((cwd) => (cwd === null && !path.isAbsolute(target) ? null : path.resolve(cwd ?? "/", target)));
      }
    }
    return { success: targets, failure: cwds, any: union(targets, cwds) };
  }

  private assignments(node: SyntaxNode, into: Assignment[]): void {
    if (node.type === "variable_assignments") {
      for (const child of node.children) if (child.type === "variable_assignment") this.assignments(child, into);
      return;
    }
    const name = node.children.find((c) => c.type === "variable_name");
    const valueNode = node.children.find((c) => c.named && c.type !== "variable_name");
    const operator = node.children.find((c) => !c.named);
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
    const literal = (n: SyntaxNode): boolean => {
      if (
        ["simple_expansion", "expansion", "command_substitution", "process_substitution", "arithmetic_expansion", "ansi_c_string", "translated_string"].includes(n.type) ||
        n.broken
      )
        return false;
      if (n.type === "word" && /(?:^|[^\\])[*?[{]/.test(this.text(n))) return false; // wildcards and braces expand
      return n.children.every(literal);
    };
    if (!literal(node)) {
      this.reasons.add("contains a test over values only known when it runs");
      this.nestedIn(node);
      return;
    }
    // Literal words can still run code: `[[ ... -eq ... ]]` evaluates its operands as arithmetic
    // and `-v` its operand as a subscript, and both expand `$(...)` in them, quoted or not
    // (`[[ 'a[$(rm x)]' -eq 0 ]]`); a plain name is evaluated again as an expression.
    const doubleBracket = node.children[0]?.type === "[[";
    const evaluates = (n: SyntaxNode): boolean => {
      const operator = n.children.find((c) => c.type === "test_operator");
      const operands = n.children.filter((c) => c.named && c !== operator && !["binary_expression", "unary_expression", "parenthesized_expression"].includes(c.type));
      const op = operator ? this.text(operator) : "";
      if (op === "-v") return operands.some((o) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(this.text(o)));
      if (doubleBracket && ARITHMETIC_TESTS.has(op)) return operands.some((o) => !/^-?[0-9]+$/.test(this.text(o)));
      return n.children.some(evaluates);
    };
    if (evaluates(node)) this.reasons.add("contains a test that evaluates a value as arithmetic or an array subscript, which can run commands");
  }

  private redirect(node: SyntaxNode, cwds: Cwd[], nested: boolean): void {
    if (node.type !== "file_redirect") {
      this.reasons.add(NESTED_REASONS[node.type] ?? `contains ${describeNode(node)}`);
      this.nestedIn(node);
      return;
    }
    const operator = node.children.find((c) => !c.named)?.type ?? "";
    const destination = node.children.find((c) => c.named && c.type !== "file_descriptor");
    if (operator === ">&-" || operator === "<&-") return;
    if (!destination) {
      this.reasons.add(`contains a redirection bash reads differently (${this.text(node)})`);
      return;
    }
    const target = wordOf(destination, this.source, this.reasons);
    this.substitutionsIn(destination);
    if (operator === ">&" || operator === "<&") {
      if (target.value !== null && /^(?:\d+|-)$/.test(target.value)) return; // 2>&1: a descriptor, not a file
      if (operator === "<&") return void this.reasons.add(`contains a redirection bash reads differently (${this.text(node)})`);
    } else if (!WRITE_OPERATORS.has(operator) && operator !== "<") {
      return void this.reasons.add(`contains a redirection bash reads differently (${this.text(node)})`);
    }
    if (target.value === null) return;
    if (target.glob) return void this.reasons.add("redirects to a file name with wildcards, which bash expands when it runs");
    if (NOT_FILES.test(target.value)) return;
    const kind = operator === "<" ? "read" : "write";
    this.script.redirects.push({ kind, operator, target, cwds: nested ? [null] : cwds });
  }

  /** Commands inside `$(...)`, `<(...)` anywhere below `node`: listed for deny rules. */
  private substitutionsIn(node: SyntaxNode): void {
    if (node.type === "command_substitution" || node.type === "process_substitution") return this.nestedIn(node);
    for (const child of node.children) {
      if (child.type === "command_substitution" || child.type === "process_substitution") this.nestedIn(child);
      else this.substitutionsIn(child);
    }
  }

  /** Lists the commands inside a construct no rule allows, for deny rules only. */
  private nestedIn(node: SyntaxNode): void {
    for (const child of node.children) {
      if (!child.named) continue;
      if (
        ["command", "pipeline", "list", "redirected_statement", "negated_command", "subshell", "compound_statement", "program"].includes(child.type) ||
        child.type.endsWith("_statement")
      ) {
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

function union(a: Cwd[], b: Cwd[]): Cwd[] {
  return a === b ? a : [...new Set([...a, ...b])];
}
